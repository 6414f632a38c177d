//! `GET /metrics`: the service's counters and histograms in the Prometheus
//! text exposition format (version 0.0.4).
//!
//! The encoder is written here rather than taken from a client crate: the
//! service has a handful of fixed metric families, the two job gauges are
//! read straight from [`AppState`]'s semaphores at scrape time, and the text
//! format is a few lines per family. That keeps the output exactly the
//! classic text format every Prometheus version scrapes (no OpenMetrics
//! `# EOF` or unit suffixes), with no dependency to keep up.
//!
//! Label values are bounded: `route` is the matched route pattern (or
//! `unmatched` for every path no route knows), `status` a status code,
//! `stage` one of six recognition stages. A scan library does not exist yet,
//! so there is no library-writes counter; it belongs here when one comes.

use std::{collections::BTreeMap, fmt::Write, sync::Mutex, time::Duration};

use actix_web::{web, HttpResponse};

use super::AppState;
use crate::{analysis::Analysis, recognize::StageTimes};

/// The `route` label of requests no route matched.
pub const UNMATCHED_ROUTE: &str = "unmatched";

/// Buckets of request latency, in seconds.
const HTTP_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// Buckets of one recognition stage's time, in seconds.
const STAGE_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];
/// Buckets of search speed, in nodes per second.
const NPS_BUCKETS: &[f64] = &[1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6, 3e6, 1e7, 3e7, 1e8];

/// The recognition stages, in pipeline order, as `stage` label values.
const STAGES: [&str; 6] = [
    "decode",
    "locate",
    "cut",
    "classify",
    "coordinates",
    "assemble",
];

/// Observations of one histogram series.
#[derive(Clone, Debug)]
struct Histogram {
    bounds: &'static [f64],
    /// Observations per bucket (not cumulative); the last is `+Inf`.
    buckets: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    fn new(bounds: &'static [f64]) -> Self {
        Self {
            bounds,
            buckets: vec![0; bounds.len() + 1],
            sum: 0.0,
            count: 0,
        }
    }

    fn observe(&mut self, value: f64) {
        let bucket = self
            .bounds
            .iter()
            .position(|&bound| value <= bound)
            .unwrap_or(self.bounds.len());
        self.buckets[bucket] += 1;
        self.sum += value;
        self.count += 1;
    }

    /// Writes the `_bucket`, `_sum` and `_count` lines; `labels` is either
    /// empty or rendered label pairs without braces.
    fn encode(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut cumulative = 0;
        for (i, count) in self.buckets.iter().enumerate() {
            cumulative += count;
            let le = match self.bounds.get(i) {
                Some(bound) => bound.to_string(),
                None => "+Inf".to_string(),
            };
            let _ = writeln!(
                out,
                "{name}_bucket{{{labels}{sep}le=\"{le}\"}} {cumulative}"
            );
        }
        let braced = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let _ = writeln!(out, "{name}_sum{braced} {}", self.sum);
        let _ = writeln!(out, "{name}_count{braced} {}", self.count);
    }
}

#[derive(Clone, Debug)]
struct Recorded {
    /// Responses by (route, status).
    requests: BTreeMap<(String, u16), u64>,
    /// Latency by route.
    durations: BTreeMap<String, Histogram>,
    busy: u64,
    stages: [Histogram; 6],
    nps: Histogram,
}

/// Everything the service counts, behind one lock: an observation is a few
/// additions, far cheaper than the requests it describes.
#[derive(Debug)]
pub struct Metrics {
    recorded: Mutex<Recorded>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self {
            recorded: Mutex::new(Recorded {
                requests: BTreeMap::new(),
                durations: BTreeMap::new(),
                busy: 0,
                stages: std::array::from_fn(|_| Histogram::new(STAGE_BUCKETS)),
                nps: Histogram::new(NPS_BUCKETS),
            }),
        }
    }
}

/// What the scrape reads from the job semaphores.
#[derive(Clone, Copy, Debug)]
pub struct JobGauges {
    pub admitted: usize,
    pub running: usize,
    pub max_jobs: usize,
    pub cpu_workers: usize,
}

impl Metrics {
    fn lock(&self) -> std::sync::MutexGuard<'_, Recorded> {
        // A panic while holding the lock leaves plain numbers behind; keep them.
        self.recorded.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One answered request.
    pub fn request(&self, route: &str, status: u16, elapsed: Duration) {
        let mut recorded = self.lock();
        *recorded
            .requests
            .entry((route.to_string(), status))
            .or_default() += 1;
        recorded
            .durations
            .entry(route.to_string())
            .or_insert_with(|| Histogram::new(HTTP_BUCKETS))
            .observe(elapsed.as_secs_f64());
    }

    /// One job refused with 503 `busy`.
    pub fn busy(&self) {
        self.lock().busy += 1;
    }

    /// The stage times of one recognition.
    pub fn recognition(&self, times: &StageTimes) {
        let durations = [
            times.decode,
            times.locate,
            times.cut,
            times.classify,
            times.coordinates,
            times.assemble,
        ];
        let mut recorded = self.lock();
        for (histogram, duration) in recorded.stages.iter_mut().zip(durations) {
            histogram.observe(duration.as_secs_f64());
        }
    }

    /// The search speed of finished analyses.
    pub fn analyses<'a>(&self, analyses: impl IntoIterator<Item = &'a Analysis>) {
        let mut recorded = self.lock();
        for analysis in analyses {
            recorded.nps.observe(analysis.nps as f64);
        }
    }

    /// The whole exposition.
    pub fn encode(&self, jobs: JobGauges) -> String {
        // Formatting happens on a copy, outside the lock.
        let recorded = self.lock().clone();
        let mut out = String::new();
        header(
            &mut out,
            "boardscan_http_requests_total",
            "counter",
            "HTTP responses by route pattern and status code.",
        );
        for ((route, status), count) in &recorded.requests {
            let _ = writeln!(
                out,
                "boardscan_http_requests_total{{route=\"{}\",status=\"{status}\"}} {count}",
                escape(route)
            );
        }
        header(
            &mut out,
            "boardscan_http_request_duration_seconds",
            "histogram",
            "Time from a request's arrival to its response, by route pattern.",
        );
        for (route, histogram) in &recorded.durations {
            histogram.encode(
                &mut out,
                "boardscan_http_request_duration_seconds",
                &format!("route=\"{}\"", escape(route)),
            );
        }
        gauge(
            &mut out,
            "boardscan_jobs_admitted",
            "CPU jobs admitted: running or waiting for a core.",
            jobs.admitted,
        );
        gauge(
            &mut out,
            "boardscan_jobs_running",
            "CPU jobs running on a core.",
            jobs.running,
        );
        gauge(
            &mut out,
            "boardscan_jobs_max",
            "CPU jobs that may be admitted at once (--max-jobs).",
            jobs.max_jobs,
        );
        gauge(
            &mut out,
            "boardscan_cpu_workers",
            "CPU jobs that may run at once (--cpu-workers).",
            jobs.cpu_workers,
        );
        header(
            &mut out,
            "boardscan_busy_responses_total",
            "counter",
            "Jobs refused with 503 busy: every admission (--max-jobs) taken.",
        );
        let _ = writeln!(out, "boardscan_busy_responses_total {}", recorded.busy);
        header(
            &mut out,
            "boardscan_recognition_stage_duration_seconds",
            "histogram",
            "Time of each stage of a successful recognition.",
        );
        for (stage, histogram) in STAGES.iter().zip(&recorded.stages) {
            histogram.encode(
                &mut out,
                "boardscan_recognition_stage_duration_seconds",
                &format!("stage=\"{stage}\""),
            );
        }
        header(
            &mut out,
            "boardscan_analysis_nodes_per_second",
            "histogram",
            "Search speed of each analysis (the analysis' nps).",
        );
        recorded
            .nps
            .encode(&mut out, "boardscan_analysis_nodes_per_second", "");
        out
    }
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn gauge(out: &mut String, name: &str, help: &str, value: usize) {
    header(out, name, "gauge", help);
    let _ = writeln!(out, "{name} {value}");
}

/// A label value as the text format wants it.
fn escape(value: &str) -> String {
    value
        .replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

#[utoipa::path(
    get,
    path = "/metrics",
    responses((status = 200, description = "Prometheus text exposition format 0.0.4", body = String, content_type = "text/plain; version=0.0.4"))
)]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(state.metrics.encode(state.job_gauges()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gauges() -> JobGauges {
        JobGauges {
            admitted: 2,
            running: 1,
            max_jobs: 6,
            cpu_workers: 2,
        }
    }

    #[test]
    fn histograms_are_cumulative_and_end_with_inf() {
        let metrics = Metrics::default();
        metrics.request("/api/v1/health", 200, Duration::from_millis(3));
        metrics.request("/api/v1/health", 200, Duration::from_millis(30));
        metrics.request("/api/v1/health", 404, Duration::from_secs(20));
        let text = metrics.encode(gauges());
        assert!(text.contains(
            "boardscan_http_requests_total{route=\"/api/v1/health\",status=\"200\"} 2\n"
        ));
        assert!(text.contains(
            "boardscan_http_requests_total{route=\"/api/v1/health\",status=\"404\"} 1\n"
        ));
        let bucket = |le: &str| {
            format!("boardscan_http_request_duration_seconds_bucket{{route=\"/api/v1/health\",le=\"{le}\"}} ")
        };
        assert!(text.contains(&(bucket("0.005") + "1\n")), "{text}");
        assert!(text.contains(&(bucket("0.025") + "1\n")), "{text}");
        assert!(text.contains(&(bucket("0.05") + "2\n")), "{text}");
        assert!(text.contains(&(bucket("10") + "2\n")), "{text}");
        assert!(text.contains(&(bucket("+Inf") + "3\n")), "{text}");
        assert!(text.contains(
            "boardscan_http_request_duration_seconds_count{route=\"/api/v1/health\"} 3\n"
        ));
        let sum: f64 = text
            .lines()
            .find_map(|l| {
                l.strip_prefix(
                    "boardscan_http_request_duration_seconds_sum{route=\"/api/v1/health\"} ",
                )
            })
            .unwrap()
            .parse()
            .unwrap();
        assert!((sum - 20.033).abs() < 1e-9, "{sum}");
    }

    #[test]
    fn gauges_busy_stages_and_nps_are_written() {
        let metrics = Metrics::default();
        metrics.busy();
        metrics.recognition(&StageTimes {
            classify: Duration::from_millis(20),
            ..StageTimes::default()
        });
        let text = metrics.encode(gauges());
        for line in [
            "boardscan_jobs_admitted 2",
            "boardscan_jobs_running 1",
            "boardscan_jobs_max 6",
            "boardscan_cpu_workers 2",
            "boardscan_busy_responses_total 1",
            "boardscan_recognition_stage_duration_seconds_bucket{stage=\"classify\",le=\"0.01\"} 0",
            "boardscan_recognition_stage_duration_seconds_bucket{stage=\"classify\",le=\"0.025\"} 1",
            "boardscan_recognition_stage_duration_seconds_bucket{stage=\"decode\",le=\"0.0005\"} 1",
            "boardscan_recognition_stage_duration_seconds_count{stage=\"assemble\"} 1",
            "boardscan_analysis_nodes_per_second_count 0",
            "boardscan_analysis_nodes_per_second_bucket{le=\"+Inf\"} 0",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} not in\n{text}");
        }
        // Every sample line is `name[{labels}] value` with a number.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let value = line.rsplit(' ').next().unwrap();
            assert!(value.parse::<f64>().is_ok(), "{line}");
        }
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
