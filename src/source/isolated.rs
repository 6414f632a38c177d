//! PDF pages rendered in a child process, so that a hostile PDF costs a
//! bounded amount of memory and time and cannot take the caller down.
//!
//! A PDF can hold a stream that inflates to gigabytes from a few kilobytes,
//! an image that claims a huge size, or drawing that never ends; the
//! renderer has no limits of its own. The child (`boardscan render-pdf`,
//! [`serve_child`]) runs with its address space capped
//! ([`PdfLimits::max_memory_bytes`]) and is killed when one page (or
//! opening the PDF) takes longer than [`PdfLimits::max_page_time`], or the
//! PDF's time budget ([`PdfLimits::max_time`]) runs out; it is killed too
//! when the thread that started it dies (`PR_SET_PDEATHSIG`: a killed or
//! stopped parent takes its renderer with it). The parent sends the PDF on
//! the child's standard input and reads pages back one at a time from its
//! standard output, so recognition of page 1 can start while page 2 renders.
//!
//! Messages from the child, each a tag byte and its payload:
//! - `N` u32: the page count, after the PDF opened;
//! - `F` u32 + JSON: the PDF could not be opened (a [`SourceError`]);
//! - `P` u32 page, u32 width, u32 height, then width × height × 3 RGB bytes,
//!   then u32 + JSON: the page's text ([`PageText`], at most
//!   [`MAX_TEXT_BYTES`] and within its limits on characters and lines);
//! - `G` the same for a page with no colour (most book pages), with one grey
//!   byte a pixel instead of three, to spare the pipe two thirds of it;
//! - `E` u32 page, u32 + JSON: that page could not be rendered.
//!
//! A child that dies (out of memory, a crash) or is killed ends its output;
//! every page not yet received is then an error.

use std::{
    io::{self, BufReader, BufWriter, Read, Write},
    os::unix::process::CommandExt,
    path::Path,
    process::{Child, ChildStdout, Command, Stdio},
    sync::OnceLock,
    thread,
};

use image::RgbImage;

use super::{
    watchdog::{Expired, Watchdog},
    PageText, PdfBook, PdfLimits, PdfPage, SourceError,
};

/// Most bytes of JSON a page's text may take on the wire: its limits on
/// characters and lines ([`super::MAX_PAGE_TEXT_CHARS`],
/// [`super::MAX_PAGE_TEXT_LINES`]) keep it well under this.
const MAX_TEXT_BYTES: usize = 1 << 20;

/// The executable that renders PDFs in a child process, once a front end
/// has named it; until then PDFs render in-process.
static RENDERER: OnceLock<std::path::PathBuf> = OnceLock::new();

/// Makes every later PDF render in a child process running `exe
/// render-pdf` (the front ends pass their own executable). Only the first
/// call counts.
pub fn isolate_pdf_rendering(exe: &Path) {
    let _ = RENDERER.set(exe.to_path_buf());
}

pub(crate) fn renderer() -> Option<&'static Path> {
    RENDERER.get().map(|p| p.as_path())
}

/// A PDF being rendered by a child process.
pub struct IsolatedPdf {
    child: Child,
    output: BufReader<ChildStdout>,
    page_count: usize,
    watchdog: Watchdog,
}

impl IsolatedPdf {
    /// Starts `exe render-pdf` on `bytes`, rendering the pages from `first`
    /// to `last`.
    pub fn open(
        exe: &Path,
        bytes: Vec<u8>,
        limits: PdfLimits,
        (first, last): (usize, usize),
    ) -> Result<Self, SourceError> {
        let mut command = Command::new(exe);
        // SAFETY: prctl is async-signal-safe and touches no memory of ours.
        unsafe {
            command.pre_exec(|| {
                // Dies with the thread that started it (in every front end
                // a thread that lives as long as the render).
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command
            .arg("render-pdf")
            .args(["--dpi", &limits.dpi.to_string()])
            .args(["--max-pages", &limits.max_pages.to_string()])
            .args(["--max-page-pixels", &limits.max_page_pixels.to_string()])
            .args(["--max-memory-bytes", &limits.max_memory_bytes.to_string()])
            .args(["--first", &first.to_string(), "--last", &last.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| SourceError::Renderer(format!("cannot start the PDF renderer: {e}")))?;
        let mut stdin = child.stdin.take().expect("piped");
        thread::spawn(move || {
            // The child may stop reading early (a refused PDF); that is not an error here.
            let _ = stdin.write_all(&bytes);
        });
        let watchdog = Watchdog::start(child.id(), limits.max_page_time, limits.max_time);
        let output = BufReader::new(child.stdout.take().expect("piped"));
        // Owned from here, so that every way out (a refused PDF, a child
        // that died) kills and reaps the child in `Drop`.
        let mut pdf = Self {
            child,
            output,
            page_count: 0,
            watchdog,
        };
        pdf.page_count = pdf.read_page_count(first)?;
        pdf.watchdog.page_done();
        Ok(pdf)
    }

    /// The child's first message: the page count, or why the PDF was refused.
    fn read_page_count(&mut self, first: usize) -> Result<usize, SourceError> {
        read_header(&mut self.output)
            .unwrap_or_else(|_| Err(self.why_stopped(first, "opening the PDF")))
    }

    pub fn page_count(&self) -> usize {
        self.page_count
    }

    /// Page `expected` as the child rendered it, or why it could not be
    /// rendered; pages before it that the child sent are skipped.
    pub fn next_page(&mut self, expected: usize) -> (usize, Result<PdfPage, SourceError>) {
        let page = loop {
            let page = self.read_page();
            if page.is_ok() {
                self.watchdog.page_done();
            }
            match page {
                Ok((number, _)) if number < expected => continue,
                other => break other,
            }
        };
        match page {
            Ok(page) => page,
            Err(_) => (
                expected,
                Err(self.why_stopped(expected, &format!("page {expected}"))),
            ),
        }
    }

    /// Why the child's output ended while on `page` (`doing` says of what):
    /// a deadline, or the child died.
    fn why_stopped(&self, page: usize, doing: &str) -> SourceError {
        match self.watchdog.expired() {
            Some(Expired::Budget(budget)) => SourceError::OutOfTime {
                page,
                seconds: budget.as_secs(),
            },
            Some(Expired::Page(deadline)) => SourceError::PageOutOfTime {
                page,
                seconds: deadline.as_secs(),
            },
            None => SourceError::RendererDied(doing.to_string()),
        }
    }

    fn read_page(&mut self) -> io::Result<(usize, Result<PdfPage, SourceError>)> {
        read_page(&mut self.output)
    }
}

/// The child's first message: the page count, or why the PDF was refused.
fn read_header(input: &mut impl Read) -> io::Result<Result<usize, SourceError>> {
    Ok(match read_u8(input)? {
        b'N' => Ok(read_u32(input)? as usize),
        b'F' => Err(read_error(input)?),
        other => Err(SourceError::RendererDied(format!(
            "opening the PDF (sent {other:#x})"
        ))),
    })
}

/// One page message from the child: a page, or why it could not be rendered.
fn read_page(input: &mut impl Read) -> io::Result<(usize, Result<PdfPage, SourceError>)> {
    let tag = read_u8(input)?;
    let page = read_u32(input)? as usize;
    let channels = match tag {
        b'P' => 3,
        b'G' => 1,
        b'E' => return Ok((page, Err(read_error(input)?))),
        other => return Err(io::Error::other(format!("unexpected tag {other:#x}"))),
    };
    let width = read_u32(input)?;
    let height = read_u32(input)?;
    let len = (width as usize)
        .checked_mul(height as usize)
        .and_then(|n| n.checked_mul(channels))
        .ok_or_else(|| io::Error::other("page size overflows"))?;
    let mut samples = vec![0; len];
    input.read_exact(&mut samples)?;
    let rgb = match channels {
        3 => samples,
        _ => {
            let mut rgb = vec![0; len * 3];
            for (pixel, &v) in rgb.chunks_exact_mut(3).zip(&samples) {
                pixel.fill(v);
            }
            rgb
        }
    };
    let picture =
        RgbImage::from_raw(width, height, rgb).ok_or_else(|| io::Error::other("bad page size"))?;
    let text = read_text(input)?;
    Ok((page, Ok(PdfPage { picture, text })))
}

impl Drop for IsolatedPdf {
    fn drop(&mut self) {
        self.watchdog.stop();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The child's side: reads a PDF from `input`, caps its own address space,
/// and writes the pages from `first` to `last` to `output`.
pub fn serve_child(
    mut input: impl Read,
    output: impl Write,
    limits: PdfLimits,
    (first, last): (usize, usize),
) -> io::Result<()> {
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes)?;
    cap_address_space(limits.max_memory_bytes);
    let mut out = BufWriter::new(output);
    let book = match PdfBook::open(bytes, limits) {
        Ok(book) => book,
        Err(err) => {
            out.write_all(b"F")?;
            write_error(&mut out, &err)?;
            return out.flush();
        }
    };
    out.write_all(b"N")?;
    out.write_all(&(book.page_count() as u32).to_le_bytes())?;
    out.flush()?;
    for page in first..=last.min(book.page_count()) {
        match book.render(page) {
            Ok(rendered) => write_page(&mut out, page, &rendered)?,
            Err(err) => {
                out.write_all(b"E")?;
                out.write_all(&(page as u32).to_le_bytes())?;
                write_error(&mut out, &err)?;
            }
        }
        out.flush()?;
    }
    Ok(())
}

/// A rendered page as a `G` message when it has no colour, else as `P`.
fn write_page(out: &mut impl Write, page: usize, rendered: &PdfPage) -> io::Result<()> {
    let image = &rendered.picture;
    let pixels = image.as_raw().chunks_exact(3);
    let grey = pixels.clone().all(|p| p[0] == p[1] && p[1] == p[2]);
    out.write_all(if grey { b"G" } else { b"P" })?;
    for n in [page as u32, image.width(), image.height()] {
        out.write_all(&n.to_le_bytes())?;
    }
    if grey {
        let samples: Vec<u8> = pixels.map(|p| p[0]).collect();
        out.write_all(&samples)?;
    } else {
        out.write_all(image.as_raw())?;
    }
    write_text(out, &rendered.text)
}

/// Caps this process's address space, so that an allocation past it fails
/// (and the process aborts) instead of taking the machine's memory.
fn cap_address_space(bytes: u64) {
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // Failure leaves the process uncapped; the parent's time budget still holds.
    unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
}

fn write_error(out: &mut impl Write, err: &SourceError) -> io::Result<()> {
    let json = serde_json::to_vec(err).map_err(io::Error::other)?;
    out.write_all(&(json.len() as u32).to_le_bytes())?;
    out.write_all(&json)
}

fn read_error(input: &mut impl Read) -> io::Result<SourceError> {
    let len = read_u32(input)? as usize;
    if len > 1 << 16 {
        return Err(io::Error::other("error message too long"));
    }
    let mut json = vec![0; len];
    input.read_exact(&mut json)?;
    serde_json::from_slice(&json).map_err(io::Error::other)
}

fn write_text(out: &mut impl Write, text: &PageText) -> io::Result<()> {
    let json = serde_json::to_vec(text).map_err(io::Error::other)?;
    if json.len() > MAX_TEXT_BYTES || !text.within_limits() {
        return Err(io::Error::other("the page's text is over its limits"));
    }
    out.write_all(&(json.len() as u32).to_le_bytes())?;
    out.write_all(&json)
}

/// A page's text, refused (as a broken stream) when it passes the limits
/// the child keeps to.
fn read_text(input: &mut impl Read) -> io::Result<PageText> {
    let len = read_u32(input)? as usize;
    if len > MAX_TEXT_BYTES {
        return Err(io::Error::other("page text too long"));
    }
    let mut json = vec![0; len];
    input.read_exact(&mut json)?;
    let text: PageText = serde_json::from_slice(&json).map_err(io::Error::other)?;
    if !text.within_limits() {
        return Err(io::Error::other("page text over its limits"));
    }
    Ok(text)
}

fn read_u8(input: &mut impl Read) -> io::Result<u8> {
    let mut byte = [0];
    input.read_exact(&mut byte)?;
    Ok(byte[0])
}

fn read_u32(input: &mut impl Read) -> io::Result<u32> {
    let mut bytes = [0; 4];
    input.read_exact(&mut bytes)?;
    Ok(u32::from_le_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use std::{os::unix::fs::PermissionsExt, time::Duration};

    use super::*;

    /// A stand-in renderer: announces one page, then hangs.
    fn hanging_renderer(dir: &Path) -> std::path::PathBuf {
        let exe = dir.join("hang.sh");
        std::fs::write(
            &exe,
            "#!/bin/sh\nprintf 'N\\001\\000\\000\\000'\nexec sleep 60\n",
        )
        .unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        exe
    }

    #[test]
    fn text_over_its_limits_is_refused_on_the_wire() {
        let mut wire = Vec::new();
        wire.extend((MAX_TEXT_BYTES as u32 + 1).to_le_bytes());
        assert!(read_text(&mut &wire[..]).is_err());
        let line = crate::source::TextLine {
            text: "x".into(),
            bbox: [0.0; 4],
        };
        let json = serde_json::to_vec(&PageText {
            lines: vec![line; crate::source::MAX_PAGE_TEXT_LINES + 1],
        })
        .unwrap();
        let mut wire = (json.len() as u32).to_le_bytes().to_vec();
        wire.extend(json);
        assert!(read_text(&mut &wire[..]).is_err());
    }

    #[test]
    fn a_renderer_past_its_time_budget_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        let limits = PdfLimits {
            max_time: Some(Duration::from_millis(300)),
            ..PdfLimits::default()
        };
        let mut pdf = IsolatedPdf::open(
            &hanging_renderer(dir.path()),
            b"%PDF".to_vec(),
            limits,
            (1, 1),
        )
        .unwrap();
        assert_eq!(pdf.page_count(), 1);
        let started = std::time::Instant::now();
        let (page, picture) = pdf.next_page(1);
        assert_eq!(page, 1);
        assert_eq!(
            picture.unwrap_err(),
            SourceError::OutOfTime {
                page: 1,
                seconds: 0
            }
        );
        // Killed at the budget, not after the stand-in's 60 s.
        assert!(started.elapsed() < Duration::from_secs(30));
    }

    #[test]
    fn a_renderer_stuck_on_one_page_is_killed_without_a_pdf_budget() {
        let dir = tempfile::tempdir().unwrap();
        let limits = PdfLimits {
            max_time: None,
            max_page_time: Duration::from_secs(1),
            ..PdfLimits::default()
        };
        let mut pdf = IsolatedPdf::open(
            &hanging_renderer(dir.path()),
            b"%PDF".to_vec(),
            limits,
            (1, 1),
        )
        .unwrap();
        assert_eq!(
            pdf.next_page(1),
            (
                1,
                Err(SourceError::PageOutOfTime {
                    page: 1,
                    seconds: 1
                })
            )
        );
    }

    #[test]
    fn a_renderer_that_never_opens_the_pdf_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("silent.sh");
        std::fs::write(&exe, "#!/bin/sh\nexec sleep 60\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let limits = PdfLimits {
            max_page_time: Duration::from_secs(1),
            ..PdfLimits::default()
        };
        let err = IsolatedPdf::open(&exe, b"%PDF".to_vec(), limits, (1, 1))
            .err()
            .expect("killed");
        assert_eq!(
            err,
            SourceError::PageOutOfTime {
                page: 1,
                seconds: 1
            }
        );
    }

    #[test]
    fn pages_and_errors_travel_from_child_to_parent() {
        let colour = PdfPage {
            picture: RgbImage::from_fn(3, 2, |x, y| image::Rgb([x as u8, y as u8, 7])),
            text: PageText {
                lines: vec![crate::source::TextLine {
                    text: "Ход чёрных".into(),
                    bbox: [0.5, 1.0, 2.0, 1.0],
                }],
            },
        };
        let grey = PdfPage {
            picture: RgbImage::from_fn(2, 3, |x, y| image::Rgb([(40 * x + y) as u8; 3])),
            text: PageText::default(),
        };
        let mut wire = Vec::new();
        write_page(&mut wire, 1, &colour).unwrap();
        write_page(&mut wire, 2, &grey).unwrap();
        wire.push(b'E');
        wire.extend(3u32.to_le_bytes());
        write_error(&mut wire, &SourceError::CorruptPdf).unwrap();
        // The grey page travels in a third of the bytes.
        let text_len = serde_json::to_vec(&grey.text).unwrap().len();
        let colour_len = 13 + 18 + 4 + serde_json::to_vec(&colour.text).unwrap().len();
        assert_eq!(wire[colour_len], b'G');
        assert_eq!(wire[colour_len + 13 + 6 + 4 + text_len], b'E');
        let mut input = &wire[..];
        let (page, first) = read_page(&mut input).unwrap();
        assert_eq!((page, first.unwrap()), (1, colour));
        let (page, second) = read_page(&mut input).unwrap();
        assert_eq!((page, second.unwrap()), (2, grey));
        let (page, third) = read_page(&mut input).unwrap();
        assert_eq!((page, third.unwrap_err()), (3, SourceError::CorruptPdf));
        assert!(read_page(&mut input).is_err());
    }
}
