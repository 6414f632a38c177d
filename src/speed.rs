//! Timing recognition of one image over repeated runs (`boardscan bench-scan`).

use std::{fmt, time::Duration};

use crate::recognize::{RecognizeError, RecognizeOptions, Recognizer, StageTimes};

/// Median times over `runs` recognitions of the same bytes.
#[derive(Clone, Debug)]
pub struct SpeedReport {
    pub runs: usize,
    pub boards: usize,
    /// Median of each stage, each taken on its own.
    pub median: StageTimes,
    /// Median of the whole, decode to FEN.
    pub median_total: Duration,
    pub fastest_total: Duration,
    pub slowest_total: Duration,
    /// Median CPU time of the calling thread per recognition: close to the
    /// wall time on an idle machine, and still meaningful on a busy one.
    pub median_cpu: Option<Duration>,
}

/// Recognizes `bytes` once to warm up, then `runs` more times, on the calling
/// thread.
pub fn time_recognition(
    recognizer: &Recognizer,
    bytes: &[u8],
    runs: usize,
) -> Result<SpeedReport, RecognizeError> {
    let options = RecognizeOptions::default();
    let (boards, _) = recognizer.recognize_timed(bytes, &options)?;
    let mut samples = Vec::with_capacity(runs.max(1));
    let mut cpu = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let before = thread_cpu_time();
        samples.push(recognizer.recognize_timed(bytes, &options)?.1);
        if let (Some(before), Some(after)) = (before, thread_cpu_time()) {
            cpu.push(after - before);
        }
    }
    cpu.sort();
    let median_of = |stage: fn(&StageTimes) -> Duration| {
        let mut values: Vec<Duration> = samples.iter().map(stage).collect();
        values.sort();
        values[values.len() / 2]
    };
    let mut totals: Vec<Duration> = samples.iter().map(StageTimes::total).collect();
    totals.sort();
    Ok(SpeedReport {
        runs: samples.len(),
        boards: boards.len(),
        median: StageTimes {
            decode: median_of(|t| t.decode),
            locate: median_of(|t| t.locate),
            cut: median_of(|t| t.cut),
            classify: median_of(|t| t.classify),
            coordinates: median_of(|t| t.coordinates),
            assemble: median_of(|t| t.assemble),
        },
        median_total: totals[totals.len() / 2],
        fastest_total: totals[0],
        slowest_total: totals[totals.len() - 1],
        median_cpu: cpu.get(cpu.len() / 2).copied(),
    })
}

/// CPU time used by the calling thread so far (ONNX Runtime runs on the
/// calling thread with one intra-op thread).
#[cfg(unix)]
fn thread_cpu_time() -> Option<Duration> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes one timespec through a valid pointer.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    (status == 0).then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
}

#[cfg(not(unix))]
fn thread_cpu_time() -> Option<Duration> {
    None
}

impl fmt::Display for SpeedReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        writeln!(
            f,
            "{} runs, {} board(s) found, one thread",
            self.runs, self.boards
        )?;
        writeln!(
            f,
            "decode to FEN: median {:.1} ms (fastest {:.1}, slowest {:.1})",
            ms(self.median_total),
            ms(self.fastest_total),
            ms(self.slowest_total)
        )?;
        if let Some(cpu) = self.median_cpu {
            writeln!(f, "thread CPU time: median {:.1} ms", ms(cpu))?;
        }
        let m = &self.median;
        for (stage, time) in [
            ("decode", m.decode),
            ("locate", m.locate),
            ("cut", m.cut),
            ("classify", m.classify),
            ("coords", m.coordinates),
            ("assemble", m.assemble),
        ] {
            writeln!(f, "  {stage:<9} median {:>6.1} ms", ms(time))?;
        }
        Ok(())
    }
}
