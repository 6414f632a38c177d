//! One external UCI engine process: spawn, the `uci` handshake, commands
//! and lines read against a deadline.
//!
//! A reader thread turns the engine's standard output into lines on a
//! bounded channel, so every read can time out; standard error goes to
//! `/dev/null`. Dropping the process kills it and its process group, and
//! waits for it (no zombies, no orphans).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use super::options::{parse_option, EngineOption};

/// Longest line kept from an engine; the rest of a longer line is dropped.
const MAX_LINE: usize = 16 * 1024;
/// Lines buffered between the reader thread and the reader; a flooding
/// engine blocks on its own output until it is read or killed.
const CHANNEL_LINES: usize = 256;
/// Lines outside the protocol tolerated during the handshake.
const MAX_HANDSHAKE_GARBAGE: usize = 100;

/// How talking to an engine process failed.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("could not start it: {0}")]
    Spawn(std::io::Error),
    #[error("it exited")]
    Exited,
    #[error("it did not answer within {0} ms")]
    Timeout(u128),
    #[error("it printed {0} lines that are not UCI")]
    Garbage(usize),
    #[error("writing to it failed: {0}")]
    Write(std::io::Error),
}

/// What the engine says about itself in the handshake.
#[derive(Clone, Debug, Default)]
pub struct Identity {
    pub name: Option<String>,
    pub author: Option<String>,
    pub options: Vec<EngineOption>,
}

/// A running engine that completed the `uci` handshake.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Option values last sent, so that a value is sent only when it changes.
    sent: HashMap<String, String>,
    pub identity: Identity,
}

impl EngineProcess {
    /// Starts `path` with `args` and runs the `uci` handshake; an executable
    /// that does not answer `uciok` within `timeout` is killed.
    pub fn start(path: &Path, args: &[String], timeout: Duration) -> Result<Self, ProcessError> {
        let mut child = Command::new(path)
            .args(args)
            // Its own process group, so that killing it kills what it started.
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(ProcessError::Spawn)?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::sync_channel(CHANNEL_LINES);
        thread::Builder::new()
            .name("uci-reader".into())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                while let Some(line) = read_line(&mut reader) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(ProcessError::Spawn)?;
        let mut process = EngineProcess {
            child,
            stdin,
            lines,
            sent: HashMap::new(),
            identity: Identity::default(),
        };
        process.identity = process.handshake(timeout)?;
        Ok(process)
    }

    fn handshake(&mut self, timeout: Duration) -> Result<Identity, ProcessError> {
        self.send("uci")?;
        let deadline = Instant::now() + timeout;
        let mut identity = Identity::default();
        let mut garbage = 0;
        loop {
            let line = self.read(deadline)?;
            let line = line.trim();
            if line == "uciok" {
                return Ok(identity);
            } else if let Some(name) = line.strip_prefix("id name ") {
                identity.name = Some(name.trim().to_owned());
            } else if let Some(author) = line.strip_prefix("id author ") {
                identity.author = Some(author.trim().to_owned());
            } else if let Some(option) = parse_option(line) {
                identity.options.push(option);
            } else if !line.is_empty() && !line.starts_with("info") {
                garbage += 1;
                if garbage > MAX_HANDSHAKE_GARBAGE {
                    return Err(ProcessError::Garbage(garbage));
                }
            }
        }
    }

    /// Whether the engine declared option `name` (case-insensitive, as UCI says).
    pub fn has_option(&self, name: &str) -> bool {
        self.identity
            .options
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// Sends `setoption` when the engine has the option and the value changed.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), ProcessError> {
        if !self.has_option(name) || self.sent.get(name).is_some_and(|v| v == value) {
            return Ok(());
        }
        self.send(&format!("setoption name {name} value {value}"))?;
        self.sent.insert(name.to_owned(), value.to_owned());
        Ok(())
    }

    /// Sends one command line.
    pub fn send(&mut self, command: &str) -> Result<(), ProcessError> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::BrokenPipe => ProcessError::Exited,
                _ => ProcessError::Write(e),
            })
    }

    /// `isready`, then waits for `readyok` (other lines are skipped).
    pub fn sync(&mut self, timeout: Duration) -> Result<(), ProcessError> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        while self.read(deadline)?.trim() != "readyok" {}
        Ok(())
    }

    /// The next line, or `Timeout` once `deadline` has passed.
    pub fn read(&mut self, deadline: Instant) -> Result<String, ProcessError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(ProcessError::Timeout(wait.as_millis())),
            Err(RecvTimeoutError::Disconnected) => Err(ProcessError::Exited),
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        // The whole group: a wrapper script's children die with it.
        if let Ok(group) = i32::try_from(self.child.id()) {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe { libc::kill(-group, libc::SIGKILL) };
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads one line of at most [`MAX_LINE`] bytes (the rest of a longer line
/// is skipped), lossily decoded; `None` at end of input or on an error.
fn read_line(reader: &mut impl BufRead) -> Option<String> {
    let mut line = Vec::new();
    let mut read_any = false;
    loop {
        let buf = reader.fill_buf().ok()?;
        if buf.is_empty() {
            return read_any.then(|| String::from_utf8_lossy(&line).into_owned());
        }
        read_any = true;
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        let room = MAX_LINE.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = done.unwrap_or(buf.len());
        reader.consume(used);
        if done.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Some(String::from_utf8_lossy(&line).into_owned());
        }
    }
}

/// Every line of `bytes`, read through a small buffer.
#[cfg(test)]
fn all_lines(bytes: &[u8]) -> Vec<String> {
    let mut reader = BufReader::with_capacity(8, bytes);
    std::iter::from_fn(|| read_line(&mut reader)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_capped_and_decoded() {
        assert_eq!(
            all_lines(b"uciok\r\nreadyok\nlast"),
            ["uciok", "readyok", "last"]
        );
        let long = vec![b'x'; MAX_LINE * 2];
        let mut input = long.clone();
        input.extend_from_slice(b"\nnext\n\xff\n");
        let lines = all_lines(&input);
        assert_eq!(lines[0].len(), MAX_LINE);
        assert_eq!(lines[1], "next");
        assert_eq!(lines[2], "\u{FFFD}");
    }

    #[test]
    fn a_program_that_is_not_an_engine_is_refused() {
        let quick = Duration::from_millis(500);
        assert!(matches!(
            EngineProcess::start(Path::new("/bin/true"), &[], quick),
            Err(ProcessError::Exited)
        ));
        assert!(matches!(
            EngineProcess::start(Path::new("/bin/cat"), &[], quick),
            Err(ProcessError::Timeout(_))
        ));
        assert!(matches!(
            EngineProcess::start(Path::new("/nonexistent/engine"), &[], quick),
            Err(ProcessError::Spawn(_))
        ));
    }
}
