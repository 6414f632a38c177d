//! The deadlines of a renderer child: the whole PDF's time budget and each
//! page's. A thread waits for news of each page and kills the child (by its
//! pid, which stays the child's until it is reaped, after the watchdog has
//! stopped) when a deadline passes first.

use std::{
    sync::{
        mpsc::{self, RecvTimeoutError},
        Arc, Mutex,
    },
    thread,
    time::{Duration, Instant},
};

/// Which deadline passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expired {
    /// The PDF's whole time budget.
    Budget(Duration),
    /// One page's (or opening the PDF's) deadline.
    Page(Duration),
}

/// Kills process `pid` when a deadline passes; see [`Watchdog::start`].
pub struct Watchdog {
    progress: Option<mpsc::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
    expired: Arc<Mutex<Option<Expired>>>,
}

impl Watchdog {
    /// Watches process `pid`: kills it when `page` passes without news of a
    /// page ([`Watchdog::page_done`]), or when `budget` (if any) passes in
    /// all. The caller must not reap the child before [`Watchdog::stop`].
    pub fn start(pid: u32, page: Duration, budget: Option<Duration>) -> Self {
        let (progress, news) = mpsc::channel::<()>();
        let expired = Arc::new(Mutex::new(None));
        let verdict = Arc::clone(&expired);
        let thread = thread::spawn(move || {
            let started = Instant::now();
            let budget_end = budget.map(|b| (started + b, b));
            let mut page_end = started + page;
            loop {
                let (end, why) = match budget_end {
                    Some((end, b)) if end <= page_end => (end, Expired::Budget(b)),
                    _ => (page_end, Expired::Page(page)),
                };
                match news.recv_timeout(end.saturating_duration_since(Instant::now())) {
                    Ok(()) => page_end = Instant::now() + page,
                    Err(RecvTimeoutError::Disconnected) => return,
                    Err(RecvTimeoutError::Timeout) => {
                        *verdict.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
                        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
                        return;
                    }
                }
            }
        });
        Self {
            progress: Some(progress),
            thread: Some(thread),
            expired,
        }
    }

    /// A page arrived: the next page's deadline starts now.
    pub fn page_done(&self) {
        if let Some(progress) = &self.progress {
            let _ = progress.send(());
        }
    }

    /// The deadline that killed the child, if one did.
    pub fn expired(&self) -> Option<Expired> {
        *self.expired.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stops watching; after this the child may be reaped.
    pub fn stop(&mut self) {
        drop(self.progress.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop();
    }
}
