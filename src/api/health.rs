//! Health probes: `GET /api/v1/health` (the original check, a contract),
//! `GET /api/v1/health/live` (liveness) and `GET /api/v1/health/ready`
//! (readiness).
//!
//! Liveness answers 200 whenever the process serves HTTP at all; a failing
//! liveness probe means "restart me". Readiness answers 503, with the reason,
//! while the models load, while no job admission is free (`--max-jobs` jobs
//! running or waiting, so a new job would get `busy`), and while every CPU
//! worker is busy with jobs waiting behind them (a new job would queue); a
//! failing readiness probe means "send traffic elsewhere for now".
//!
//! From SIGTERM on there is no readiness answer to give: actix closes the
//! listening socket and every connection without a request in progress at
//! once, so a probe is refused, which Kubernetes counts as not ready. Running
//! requests finish within `--shutdown-timeout-secs`.

use actix_web::{web, HttpResponse};
use serde::Serialize;

use super::{metrics::JobGauges, AppState};

/// The health check's answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Health {
    /// Always `ok` when the service answers.
    pub status: &'static str,
    pub version: &'static str,
}

/// Why the service is not ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NotReady {
    /// The recognition models are still loading.
    ModelsLoading,
    /// Every job admission is taken; a new job would be answered `busy`.
    QueueSaturated,
    /// Every CPU worker is busy and jobs wait for one; a new job would wait too.
    WorkersSaturated,
}

/// The readiness probe's answer.
#[derive(Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Readiness {
    pub ready: bool,
    /// Why not, when not ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<NotReady>,
    /// CPU jobs admitted (running or waiting).
    pub jobs_admitted: usize,
    /// CPU jobs that may be admitted at once.
    pub max_jobs: usize,
    /// CPU jobs running on a worker.
    pub jobs_running: usize,
    /// CPU workers.
    pub cpu_workers: usize,
}

impl Readiness {
    /// Readiness from the state's facts; the first reason that applies wins.
    pub fn of(models_loaded: bool, jobs: &JobGauges) -> Self {
        let reason = if !models_loaded {
            Some(NotReady::ModelsLoading)
        } else if jobs.admitted >= jobs.max_jobs {
            Some(NotReady::QueueSaturated)
        } else if jobs.running >= jobs.cpu_workers && jobs.admitted > jobs.running {
            Some(NotReady::WorkersSaturated)
        } else {
            None
        };
        Self {
            ready: reason.is_none(),
            reason,
            jobs_admitted: jobs.admitted,
            max_jobs: jobs.max_jobs,
            jobs_running: jobs.running,
            cpu_workers: jobs.cpu_workers,
        }
    }
}

fn ok() -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
    })
}

#[utoipa::path(get, path = "/api/v1/health", responses((status = 200, body = Health)))]
pub async fn health() -> HttpResponse {
    ok()
}

#[utoipa::path(
    get,
    path = "/api/v1/health/live",
    responses((status = 200, description = "The process serves HTTP", body = Health))
)]
pub async fn live() -> HttpResponse {
    ok()
}

#[utoipa::path(
    get,
    path = "/api/v1/health/ready",
    responses(
        (status = 200, description = "Ready for traffic", body = Readiness),
        (status = 503, description = "Not ready, and why", body = Readiness),
    )
)]
pub async fn ready(state: web::Data<AppState>) -> HttpResponse {
    let readiness = state.readiness();
    if readiness.ready {
        HttpResponse::Ok().json(readiness)
    } else {
        HttpResponse::ServiceUnavailable().json(readiness)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(admitted: usize, running: usize) -> JobGauges {
        JobGauges {
            admitted,
            running,
            max_jobs: 4,
            cpu_workers: 2,
        }
    }

    #[test]
    fn readiness_reasons_in_order() {
        assert_eq!(Readiness::of(true, &jobs(0, 0)).reason, None);
        assert!(
            Readiness::of(true, &jobs(2, 2)).ready,
            "both workers busy, none waiting"
        );
        assert_eq!(
            Readiness::of(true, &jobs(3, 2)).reason,
            Some(NotReady::WorkersSaturated)
        );
        assert_eq!(
            Readiness::of(true, &jobs(4, 2)).reason,
            Some(NotReady::QueueSaturated)
        );
        assert_eq!(
            Readiness::of(false, &jobs(4, 2)).reason,
            Some(NotReady::ModelsLoading)
        );
        let json = serde_json::to_value(Readiness::of(true, &jobs(3, 2))).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"ready": false, "reason": "workers-saturated", "jobsAdmitted": 3,
                "maxJobs": 4, "jobsRunning": 2, "cpuWorkers": 2})
        );
    }
}
