//! A bounded pool of processes of one external engine.
//!
//! At most `size` processes exist at once; a caller waits for a free one
//! (up to a timeout, then `busy`). Idle processes are kept for the next
//! search; a process that failed is killed and a fresh one is started for
//! the next caller, so a crash or hang costs one request.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::process::{EngineProcess, Identity, ProcessError};
use super::spec::EngineSpec;

/// Time the `uci` handshake of a new process may take.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

struct Slots {
    idle: Vec<EngineProcess>,
    /// Processes leased out or idle, plus those being started.
    alive: usize,
}

/// The processes of one engine.
pub struct Pool {
    pub spec: EngineSpec,
    pub identity: Identity,
    size: usize,
    slots: Mutex<Slots>,
    freed: Condvar,
}

/// A process taken from the pool; it goes back on drop unless discarded.
pub struct Lease<'a> {
    pool: &'a Pool,
    process: Option<EngineProcess>,
}

impl Pool {
    /// Starts the first process (which checks that `spec.path` is a UCI
    /// engine) and keeps it idle; the others start on demand.
    pub fn start(spec: EngineSpec, size: usize) -> Result<Self, ProcessError> {
        let first = launch(&spec)?;
        Ok(Pool {
            identity: first.identity.clone(),
            spec,
            size: size.max(1),
            slots: Mutex::new(Slots {
                idle: vec![first],
                alive: 1,
            }),
            freed: Condvar::new(),
        })
    }

    /// Most processes this pool runs at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Takes an idle process or starts one; waits up to `wait` when `size`
    /// are in use (`Ok(None)` then). A process that fails to start frees its
    /// slot and returns the error.
    pub fn lease(&self, wait: Duration) -> Result<Option<Lease<'_>>, ProcessError> {
        let deadline = Instant::now() + wait;
        let mut slots = self.lock();
        loop {
            if let Some(process) = slots.idle.pop() {
                return Ok(Some(Lease {
                    pool: self,
                    process: Some(process),
                }));
            }
            if slots.alive < self.size {
                slots.alive += 1;
                drop(slots);
                return match launch(&self.spec) {
                    Ok(process) => Ok(Some(Lease {
                        pool: self,
                        process: Some(process),
                    })),
                    Err(e) => {
                        self.release(None);
                        Err(e)
                    }
                };
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            slots = self
                .freed
                .wait_timeout(slots, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    fn release(&self, process: Option<EngineProcess>) {
        let mut slots = self.lock();
        match process {
            Some(process) => slots.idle.push(process),
            None => slots.alive -= 1,
        }
        drop(slots);
        self.freed.notify_one();
    }

    fn lock(&self) -> MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Lease<'_> {
    pub fn process(&mut self) -> &mut EngineProcess {
        self.process.as_mut().expect("a lease holds its process")
    }

    /// Kills the process (it crashed, hung or lied); its slot is freed.
    pub fn discard(mut self) {
        // Killed and reaped before the slot is given back.
        drop(self.process.take());
        self.pool.release(None);
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(process) = self.process.take() {
            self.pool.release(Some(process));
        }
    }
}

/// Starts one process of `spec` and applies its configured options.
fn launch(spec: &EngineSpec) -> Result<EngineProcess, ProcessError> {
    let mut process = EngineProcess::start(&spec.path, &spec.args, HANDSHAKE_TIMEOUT)?;
    for (name, value) in &spec.options {
        process.set_option(name, value)?;
    }
    Ok(process)
}
