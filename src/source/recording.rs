//! The frames of a recording of a game: an animated GIF, decoded here, or a
//! video (MP4, WebM, anything ffmpeg reads), decoded by `ffmpeg` in a child
//! process under the same kind of limits as the PDF renderer: its address
//! space capped, killed when its time budget runs out or when no frame
//! comes for [`RecordingLimits::max_stall`], and killed with the thread that
//! started it (`PR_SET_PDEATHSIG`).
//!
//! ffmpeg writes the frames as a stream of binary PPMs (`P6`), each a short
//! header with its size and then RGB bytes, sampled at a fixed rate
//! ([`RecordingLimits::fps`]) and scaled down to [`RecordingLimits::max_width`].
//! Where ffmpeg is not installed, a video gets a clear error and everything
//! else works.

use std::{
    io::{self, BufRead, BufReader, Cursor, Read},
    os::unix::process::CommandExt,
    path::Path,
    process::{Child, ChildStdout, Command, Stdio},
    sync::{Arc, Mutex},
    thread,
    time::Duration,
};

use image::{codecs::gif::GifDecoder, AnimationDecoder, RgbImage};

use super::watchdog::{Expired, Watchdog};

/// What kind of recording a file's first bytes say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordingKind {
    /// An animated GIF (`GIF87a`/`GIF89a`).
    Gif,
    /// A video container: MP4/MOV (`ftyp`), WebM/Matroska (EBML), AVI.
    Video,
}

impl RecordingKind {
    /// The kind of recording `bytes` begin with, or `None` for anything else
    /// (a PGN, above all).
    pub fn of(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(Self::Gif)
        } else if bytes.get(4..8) == Some(b"ftyp")
            || bytes.starts_with(&[0x1a, 0x45, 0xdf, 0xa3])
            || (bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"AVI "))
        {
            Some(Self::Video)
        } else {
            None
        }
    }
}

/// Bounds on what reading a recording may cost.
#[derive(Clone, Copy, Debug)]
pub struct RecordingLimits {
    /// Seconds of the recording read at most; the rest is left, with a note.
    pub max_seconds: u32,
    /// Frames a second taken from a video (a GIF's frames are all taken).
    pub fps: u32,
    /// Widest frame handed on; a wider video is scaled down to it.
    pub max_width: u32,
    /// Largest GIF canvas, width × height.
    pub max_pixels: u64,
    /// Frames of a GIF read at most.
    pub max_frames: usize,
    /// Address space of the ffmpeg child.
    pub max_memory_bytes: u64,
    /// Wall-clock time the ffmpeg child may run in all.
    pub max_time: Duration,
    /// Wall-clock time the ffmpeg child may go without sending a frame.
    pub max_stall: Duration,
}

impl Default for RecordingLimits {
    fn default() -> Self {
        Self {
            max_seconds: 3 * 60 * 60,
            fps: 15,
            max_width: 1280,
            max_pixels: 16_000_000,
            max_frames: 20_000,
            max_memory_bytes: 2 << 30,
            max_time: Duration::from_secs(30 * 60),
            max_stall: Duration::from_secs(30),
        }
    }
}

/// One picture of a recording and when it is shown.
pub struct Frame {
    pub image: RgbImage,
    /// When it appears, from the start of the recording.
    pub at: Duration,
    /// How long it stays.
    pub shown: Duration,
}

/// Why a recording could not be read (or not to its end).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordingError {
    #[error("not a readable GIF: {0}")]
    BadGif(String),
    #[error("the GIF is {width}×{height}, over the limit of {max_pixels} pixels")]
    GifTooLarge {
        width: u32,
        height: u32,
        max_pixels: u64,
    },
    #[error(
        "reading a video needs ffmpeg, which is not installed (Debian: apt-get install ffmpeg); \
         PGN files and GIFs are read without it"
    )]
    NoFfmpeg,
    #[error("cannot start ffmpeg: {0}")]
    Spawn(String),
    #[error("not a readable video: {0}")]
    BadVideo(String),
    #[error("ffmpeg was stopped after {seconds} s, the time limit for decoding a recording")]
    OutOfTime { seconds: u64 },
    #[error("ffmpeg sent no frame for {seconds} s and was stopped")]
    Stalled { seconds: u64 },
}

/// The frames of a recording, in order.
pub struct Frames {
    inner: Inner,
    limits: RecordingLimits,
    /// Why reading stopped before the recording's end, once it has.
    stopped: Option<String>,
}

enum Inner {
    Gif {
        frames: image::Frames<'static>,
        /// When the next frame appears.
        at: Duration,
        /// Frames handed on so far.
        count: usize,
    },
    Video(Box<Video>),
}

impl Frames {
    /// The frames of a GIF, decoded one at a time as they are asked for.
    pub fn gif(bytes: Vec<u8>, limits: RecordingLimits) -> Result<Self, RecordingError> {
        let bad = |e: image::ImageError| RecordingError::BadGif(e.to_string());
        let decoder = GifDecoder::new(Cursor::new(bytes)).map_err(bad)?;
        let (width, height) = image::ImageDecoder::dimensions(&decoder);
        if u64::from(width) * u64::from(height) > limits.max_pixels {
            return Err(RecordingError::GifTooLarge {
                width,
                height,
                max_pixels: limits.max_pixels,
            });
        }
        Ok(Self {
            inner: Inner::Gif {
                frames: decoder.into_frames(),
                at: Duration::ZERO,
                count: 0,
            },
            limits,
            stopped: None,
        })
    }

    /// The frames of the video at `path`, decoded by `ffmpeg`.
    pub fn video(path: &Path, limits: RecordingLimits) -> Result<Self, RecordingError> {
        Ok(Self {
            inner: Inner::Video(Box::new(Video::start(path, limits)?)),
            limits,
            stopped: None,
        })
    }

    /// Why reading stopped before the end of the recording, if it did: read
    /// this after the last frame.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }
}

impl Iterator for Frames {
    type Item = Result<Frame, RecordingError>;

    fn next(&mut self) -> Option<Self::Item> {
        let max_seconds = Duration::from_secs(self.limits.max_seconds.into());
        let limit = self.limits.max_frames;
        match &mut self.inner {
            Inner::Gif { frames, at, count } => {
                let over = if *count >= limit {
                    Some(format!(
                        "only the first {limit} frames of the GIF were read"
                    ))
                } else if *at >= max_seconds {
                    Some(format!(
                        "only the first {} s of the GIF were read",
                        self.limits.max_seconds
                    ))
                } else {
                    None
                };
                if over.is_some() {
                    // Said only where the GIF goes on.
                    if frames.next().is_some() {
                        self.stopped = over;
                    }
                    return None;
                }
                let frame = match frames.next()? {
                    Ok(frame) => frame,
                    Err(e) => return Some(Err(RecordingError::BadGif(e.to_string()))),
                };
                let shown = gif_delay(&frame);
                let image = image::DynamicImage::ImageRgba8(frame.into_buffer()).into_rgb8();
                let start = *at;
                *at += shown;
                *count += 1;
                Some(Ok(Frame {
                    image,
                    at: start,
                    shown,
                }))
            }
            Inner::Video(video) => {
                let next = video.next_frame();
                if next.is_none() {
                    // A damaged video decodes up to the damage; a long one
                    // up to the limit (ffmpeg's `-t`).
                    if let Some(why) = video.complaint() {
                        self.stopped = Some(format!(
                            "the video could not be read to its end ({} s read): {why}",
                            video.read().as_secs()
                        ));
                    } else if video.read() + video.step() >= max_seconds {
                        self.stopped = Some(format!(
                            "only the first {} s of the video were read",
                            self.limits.max_seconds
                        ));
                    }
                }
                next
            }
        }
    }
}

/// How long a GIF frame is shown: its delay, or a tenth of a second where
/// it says less than 20 ms (as browsers show such frames).
fn gif_delay(frame: &image::Frame) -> Duration {
    let (num, den) = frame.delay().numer_denom_ms();
    let ms = num.checked_div(den).unwrap_or(0);
    Duration::from_millis(if ms < 20 { 100 } else { ms.into() })
}

/// A video being decoded by an ffmpeg child.
struct Video {
    child: Child,
    output: BufReader<ChildStdout>,
    watchdog: Watchdog,
    stderr: Arc<Mutex<String>>,
    limits: RecordingLimits,
    frames: u64,
    done: bool,
}

/// Most bytes of ffmpeg's error output kept, for the message.
const MAX_STDERR: usize = 4096;

impl Video {
    fn start(path: &Path, limits: RecordingLimits) -> Result<Self, RecordingError> {
        let mut command = Command::new("ffmpeg");
        let max_memory = limits.max_memory_bytes;
        // SAFETY: prctl and setrlimit are async-signal-safe and touch no memory of ours.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                let cap = libc::rlimit {
                    rlim_cur: max_memory,
                    rlim_max: max_memory,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &cap) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let filter = format!(
            "fps={},scale='min(iw,{})':-2:flags=area",
            limits.fps.max(1),
            limits.max_width.max(16)
        );
        let mut child = command
            .args(["-nostdin", "-hide_banner", "-loglevel", "error"])
            .args(["-threads", "2"])
            .args(["-t", &limits.max_seconds.to_string()])
            .arg("-i")
            .arg(path)
            .args(["-map", "0:v:0", "-an", "-sn", "-vf", &filter])
            .args(["-f", "image2pipe", "-vcodec", "ppm", "pipe:1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => RecordingError::NoFfmpeg,
                _ => RecordingError::Spawn(e.to_string()),
            })?;
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        let mut err = child.stderr.take().expect("piped");
        thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n @ 1..) = err.read(&mut buf) {
                let mut kept = sink.lock().unwrap_or_else(|p| p.into_inner());
                if kept.len() < MAX_STDERR {
                    kept.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        });
        let watchdog = Watchdog::start(child.id(), limits.max_stall, Some(limits.max_time));
        let output = BufReader::with_capacity(1 << 20, child.stdout.take().expect("piped"));
        Ok(Self {
            child,
            output,
            watchdog,
            stderr,
            limits,
            frames: 0,
            done: false,
        })
    }

    fn next_frame(&mut self) -> Option<Result<Frame, RecordingError>> {
        if self.done {
            return None;
        }
        match read_ppm(&mut self.output, self.limits.max_width) {
            Ok(Some(image)) => {
                self.watchdog.page_done();
                let frame = Frame {
                    image,
                    at: self.read(),
                    shown: self.step(),
                };
                self.frames += 1;
                Some(Ok(frame))
            }
            Ok(None) => {
                self.done = true;
                let error = self.finish();
                error.map(Err)
            }
            Err(_) => {
                self.done = true;
                Some(Err(self.finish().unwrap_or_else(|| {
                    RecordingError::BadVideo("ffmpeg's output ended inside a frame".into())
                })))
            }
        }
    }

    /// The first thing ffmpeg complained of, if it did.
    fn complaint(&self) -> Option<String> {
        let said = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        said.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_owned)
    }

    /// Time between two frames handed on.
    fn step(&self) -> Duration {
        Duration::from_secs(1) / self.limits.fps.max(1)
    }

    /// Length of the video handed on.
    fn read(&self) -> Duration {
        self.step() * self.frames as u32
    }

    /// Reaps the child and says what went wrong, if anything did.
    fn finish(&mut self) -> Option<RecordingError> {
        self.watchdog.stop();
        let status = self.child.wait().ok();
        match self.watchdog.expired() {
            Some(Expired::Budget(b)) => {
                return Some(RecordingError::OutOfTime {
                    seconds: b.as_secs(),
                })
            }
            Some(Expired::Page(p)) => {
                return Some(RecordingError::Stalled {
                    seconds: p.as_secs(),
                })
            }
            None => {}
        }
        let failed = !status.is_some_and(|s| s.success());
        if !failed && self.frames > 0 {
            return None;
        }
        let why = self.complaint().unwrap_or_else(|| {
            if self.frames == 0 {
                "it holds no video frames".to_string()
            } else {
                "ffmpeg stopped (out of memory, or a crash)".to_string()
            }
        });
        Some(RecordingError::BadVideo(why))
    }
}

impl Drop for Video {
    fn drop(&mut self) {
        if !self.done {
            self.watchdog.stop();
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Reads one binary PPM (`P6`, 8 bits) from `input`: `None` at the end of
/// the stream.
fn read_ppm(input: &mut impl BufRead, max_width: u32) -> io::Result<Option<RgbImage>> {
    if input.fill_buf()?.is_empty() {
        return Ok(None);
    }
    let mut fields = Vec::with_capacity(4);
    while fields.len() < 4 {
        let mut token = Vec::new();
        loop {
            let mut byte = [0u8];
            input.read_exact(&mut byte)?;
            match byte[0] {
                b'#' if token.is_empty() => {
                    let mut comment = Vec::new();
                    input.read_until(b'\n', &mut comment)?;
                }
                b if b.is_ascii_whitespace() => {
                    if !token.is_empty() {
                        break;
                    }
                }
                b => token.push(b),
            }
            if token.len() > 16 {
                return Err(invalid("a PPM header field is too long"));
            }
        }
        fields.push(String::from_utf8_lossy(&token).into_owned());
    }
    let number = |s: &str| {
        s.parse::<u32>()
            .map_err(|_| invalid("a PPM size is not a number"))
    };
    if fields[0] != "P6" || fields[3] != "255" {
        return Err(invalid("not an 8-bit binary PPM"));
    }
    let (width, height) = (number(&fields[1])?, number(&fields[2])?);
    // ffmpeg scales to max_width; the height of a very tall video is bounded too.
    if width == 0 || height == 0 || width > max_width.max(16) || height > 4 * max_width.max(16) {
        return Err(invalid("a frame's size is out of bounds"));
    }
    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    input.read_exact(&mut pixels)?;
    Ok(RgbImage::from_raw(width, height, pixels))
}

fn invalid(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recordings_are_told_by_their_first_bytes() {
        assert_eq!(
            RecordingKind::of(b"GIF89a\x01\x00"),
            Some(RecordingKind::Gif)
        );
        assert_eq!(
            RecordingKind::of(b"\0\0\0\x20ftypisom"),
            Some(RecordingKind::Video)
        );
        assert_eq!(
            RecordingKind::of(&[0x1a, 0x45, 0xdf, 0xa3, 0x9f]),
            Some(RecordingKind::Video)
        );
        assert_eq!(RecordingKind::of(b"[Event \"x\"]\n1. e4"), None);
        assert_eq!(RecordingKind::of(b""), None);
    }

    #[test]
    fn ppm_frames_are_read_one_after_another() {
        let mut stream = Vec::new();
        for shade in [10u8, 200] {
            stream.extend_from_slice(b"P6\n2 1\n255\n");
            stream.extend_from_slice(&[shade; 6]);
        }
        let mut input = Cursor::new(stream);
        let first = read_ppm(&mut input, 1280).unwrap().unwrap();
        assert_eq!(first.dimensions(), (2, 1));
        assert_eq!(first.get_pixel(1, 0).0, [10, 10, 10]);
        let second = read_ppm(&mut input, 1280).unwrap().unwrap();
        assert_eq!(second.get_pixel(0, 0).0, [200, 200, 200]);
        assert!(read_ppm(&mut input, 1280).unwrap().is_none());
    }

    #[test]
    fn a_cut_or_oversized_ppm_is_an_error() {
        let mut cut = Cursor::new(b"P6\n4 4\n255\n\x01\x02".to_vec());
        assert!(read_ppm(&mut cut, 1280).is_err());
        let mut huge = Cursor::new(b"P6\n99999 4\n255\n".to_vec());
        assert!(read_ppm(&mut huge, 1280).is_err());
    }
}
