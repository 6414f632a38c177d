//! Keeping a recognition in the scan library outside the CPU job that read
//! it, within `--library-timeout-ms`: a slow or stopped library delays no
//! recognition or analysis. Each save runs on a thread of its own, at most
//! [`MAX_PENDING_SAVES`] at once (a hung library cannot pile threads up
//! without bound); past the deadline, or with that many saves still
//! waiting, the reading is answered without its `scanId` and
//! `libraryError` says why.

use std::{sync::Arc, time::Duration};

use tokio::sync::{oneshot, Semaphore};

use super::recognize::RecognizeResponse;
use crate::library::{Library, LibraryError, NewBoard, NewScan, Saved};

/// Saves waiting on the library at once; more are refused at once.
pub const MAX_PENDING_SAVES: usize = 16;

/// The service's saves to the library: how many are pending, and how long
/// an answer waits for one.
pub struct Keeper {
    pending: Arc<Semaphore>,
    deadline: Duration,
}

/// The outcome of saving each picture (an image, or a page of a PDF).
type Outcomes = Vec<(Option<usize>, Result<Saved, LibraryError>)>;

impl Keeper {
    pub fn new(deadline: Duration) -> Self {
        Self {
            pending: Arc::new(Semaphore::new(MAX_PENDING_SAVES)),
            deadline,
        }
    }

    /// Keeps each picture's boards (an image is one entry, each page of a
    /// PDF another) and marks the boards with their entries. A board gets
    /// its `scanId` only once its entry is stored; otherwise the reading is
    /// still answered, without ids, and `libraryError` says why.
    pub async fn keep(
        &self,
        library: Library,
        hash: &str,
        source_name: Option<String>,
        response: &mut RecognizeResponse,
    ) {
        let location = library.location().to_string();
        let scans = scans_of(hash, source_name, response);
        let Ok(permit) = self.pending.clone().try_acquire_owned() else {
            response.library_error = Some(format!(
                "the scan library {location} is not keeping up ({MAX_PENDING_SAVES} saves are still waiting); the reading was not kept"
            ));
            return;
        };
        let (done, outcome) = oneshot::channel::<Outcomes>();
        let spawned = std::thread::Builder::new()
            .name("library-save".into())
            .spawn(move || {
                let _permit = permit;
                let saved = scans
                    .iter()
                    .map(|scan| (scan.page, library.save(scan)))
                    .collect();
                let _ = done.send(saved);
            });
        if let Err(err) = spawned {
            response.library_error = Some(format!(
                "the reading was not kept: cannot start a thread to save it ({err})"
            ));
            return;
        }
        match actix_web::rt::time::timeout(self.deadline, outcome).await {
            Ok(Ok(saved)) => mark(response, saved, &location),
            Ok(Err(_)) => {
                response.library_error =
                    Some(format!("saving to the scan library {location} failed"));
            }
            Err(_) => {
                tracing::warn!(
                    "the scan library {location} did not answer within {} ms",
                    self.deadline.as_millis()
                );
                response.library_error = Some(format!(
                    "the scan library {location} did not answer within {} ms; the reading was not kept",
                    self.deadline.as_millis()
                ));
            }
        }
    }
}

/// One scan to keep for each picture of the response.
fn scans_of(hash: &str, source_name: Option<String>, response: &RecognizeResponse) -> Vec<NewScan> {
    let mut pages: Vec<Option<usize>> = response.boards.iter().map(|b| b.board.page).collect();
    pages.dedup();
    pages
        .into_iter()
        .map(|page| NewScan {
            source_hash: hash.to_string(),
            page,
            source_name: source_name.clone(),
            boards: response
                .boards
                .iter()
                .filter(|b| b.board.page == page)
                .map(|b| NewBoard {
                    fen: b.board.reading.fen.clone(),
                    confidence: b.board.reading.confidence,
                    reading: serde_json::to_value(&b.board).unwrap_or_default(),
                    thumbnail: b.board.thumbnail.clone(),
                })
                .collect(),
        })
        .collect()
}

/// Marks the boards of each picture saved with their entry; says why a
/// picture was not.
fn mark(response: &mut RecognizeResponse, saved: Outcomes, location: &str) {
    for (page, outcome) in saved {
        match outcome {
            Ok(saved) => {
                if saved.removed > 0 {
                    tracing::info!(
                        "the library {location} removed its {} oldest uncorrected scans to keep within its retention",
                        saved.removed
                    );
                }
                for (i, board) in response
                    .boards
                    .iter_mut()
                    .filter(|b| b.board.page == page)
                    .enumerate()
                {
                    board.scan_id = Some(saved.id);
                    board.scan_board = Some(i);
                }
                if page.is_none() {
                    response.scan_id = Some(saved.id);
                }
            }
            Err(err) => {
                tracing::warn!("the recognition was not kept: {err}");
                response.library_error = Some(err.to_string());
            }
        }
    }
}
