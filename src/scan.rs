//! The one pipeline step every front end calls: a picture's bytes, its
//! boards, and optionally each legal board's analysis.
//!
//! The CLI's `scan`, `batch` and the HTTP API all go through [`scan`], so
//! recognition and analysis meet here and nowhere else: [`crate::recognize`]
//! never sees the engine. New inputs (PDF pages) and new engines (external
//! UCI processes) join the pipeline at this step.

use std::{
    collections::BTreeMap,
    sync::{mpsc, Arc, Mutex},
    time::Duration,
};

use serde::Serialize;

use crate::{
    analysis::{Analysis, AnalysisLimits, Engines},
    legality,
    recognize::{BoardReading, RecognizeError, RecognizeOptions, Recognizer},
    source::{
        InputKind, PageRange, PdfLimits, PdfPage, PdfPages, SourceError, DEFAULT_MAX_PAGE_SECONDS,
    },
    vision,
};

/// What a scan does beyond reading the boards.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    pub recognize: RecognizeOptions,
    /// Analyse each legal board; the boards share these limits' time and
    /// nodes (see [`analyze_boards`]).
    pub analysis: Option<AnalysisLimits>,
    /// The pages of a PDF to read.
    pub pages: PageRange,
    /// What a PDF may cost.
    pub pdf: PdfLimits,
    /// Keep a small PNG of each board ([`ScannedBoard::thumbnail`]), for the
    /// scan library.
    pub thumbnails: bool,
    /// Pages of one PDF read at once, each on a thread of its own (1: one
    /// after another). The recognizer's session pool should be as large.
    pub page_workers: usize,
}

impl Default for ScanOptions {
    fn default() -> Self {
        Self {
            recognize: RecognizeOptions::default(),
            analysis: None,
            pages: PageRange::ALL,
            pdf: PdfLimits::default(),
            thumbnails: false,
            page_workers: 1,
        }
    }
}

/// The PDF options of the commands that read files (`scan` and `batch`),
/// declared once for both.
#[derive(Clone, Debug, clap::Args)]
pub struct PdfArgs {
    /// Pages of each PDF to read: `10-40`, `7` or `12-` (default: all).
    #[arg(long, default_value = "1-")]
    pub pages: PageRange,
    /// Most pages a PDF may have; a longer one is an error (an error row in a batch).
    #[arg(long, default_value_t = PdfLimits::default().max_pages)]
    pub max_pages: usize,
    /// Resolution PDF pages are rendered at, in dots per inch.
    #[arg(long, default_value_t = PdfLimits::default().dpi)]
    pub dpi: f32,
    /// Time one PDF page may take to render, in seconds; past it the
    /// renderer is stopped and the PDF's pages left are errors (error rows in
    /// a batch).
    #[arg(long, default_value_t = DEFAULT_MAX_PAGE_SECONDS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_page_seconds: u64,
}

impl PdfArgs {
    /// The limits these options set; the others are the defaults.
    pub fn limits(&self) -> PdfLimits {
        PdfLimits {
            max_pages: self.max_pages,
            dpi: self.dpi,
            max_page_time: Duration::from_secs(self.max_page_seconds),
            ..PdfLimits::default()
        }
    }
}

/// One board of a scanned picture, with its analysis when one was asked for.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct ScannedBoard {
    /// The PDF page the board is on, from 1; absent for an image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
    /// The board's place in reading order on its page (rows top to bottom,
    /// left to right in a row), from 1; absent for an image, whose boards
    /// come largest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    #[serde(flatten)]
    pub reading: BoardReading,
    /// The engine's analysis, when asked for and the position is legal.
    // Written as its English SAN view (`Analysis`'s `Serialize`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::analysis::AnalysisView>)]
    pub analysis: Option<Analysis>,
    /// A PNG of the board cut from the picture, when asked for
    /// ([`ScanOptions::thumbnails`]); not part of the JSON.
    #[serde(skip)]
    pub thumbnail: Option<Vec<u8>>,
}

/// Reads every board in a picture, largest first, and analyses the legal
/// ones when `options.analysis` is set.
pub fn scan(
    recognizer: &Recognizer,
    bytes: &[u8],
    options: &ScanOptions,
) -> Result<Vec<ScannedBoard>, RecognizeError> {
    let (readings, picture) = recognizer.recognize_keeping_picture(bytes, &options.recognize)?;
    Ok(scanned(readings, None, options, &picture))
}

/// The readings of one picture as [`ScannedBoard`]s, on `page` of a PDF
/// (numbered in the order given) or of an image, analysed and with
/// thumbnails cut from `picture` when asked for.
fn scanned(
    readings: Vec<BoardReading>,
    page: Option<usize>,
    options: &ScanOptions,
    picture: &image::RgbImage,
) -> Vec<ScannedBoard> {
    let mut boards: Vec<ScannedBoard> = readings
        .into_iter()
        .enumerate()
        .map(|(i, reading)| ScannedBoard {
            page,
            index: page.map(|_| i + 1),
            thumbnail: options
                .thumbnails
                .then(|| vision::thumbnail::thumbnail(picture, reading.bbox))
                .flatten(),
            reading,
            analysis: None,
        })
        .collect();
    if let Some(limits) = &options.analysis {
        analyze_boards(&mut boards, limits);
    }
    boards
}

/// The boards of one picture: a whole image, or one page of a PDF.
pub struct PictureScan {
    /// The PDF page, from 1; `None` for an image.
    pub page: Option<usize>,
    pub boards: Result<Vec<ScannedBoard>, ScanError>,
}

/// Why one picture gave no boards.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error(transparent)]
    Recognize(#[from] RecognizeError),
    #[error(transparent)]
    Source(#[from] SourceError),
}

/// Reads any input: an image (one [`PictureScan`]) or a PDF (one for each
/// page in `options.pages`, in page order, calling `on_page` after each so
/// that a long book can show progress). A page without a board is a page
/// with no boards, not an error; a page that cannot be rendered is an error
/// for that page alone. Analysis, when asked for, has its budget per page.
pub fn scan_input(
    recognizer: &Recognizer,
    bytes: Vec<u8>,
    options: &ScanOptions,
    mut on_page: impl FnMut(usize, usize),
) -> Result<Vec<PictureScan>, SourceError> {
    let mut scans = Vec::new();
    scan_pictures(
        recognizer,
        bytes,
        options,
        |_| true,
        |picture, done, total| -> Result<(), SourceError> {
            let page = picture.page;
            scans.push(picture);
            if page.is_some() {
                on_page(done, total);
            }
            Ok(())
        },
    )?;
    Ok(scans)
}

/// [`scan_input`] one picture at a time: hands each [`PictureScan`] to
/// `each` as soon as it is read, with how many of the pictures to read are
/// done and their total, so that a caller can write a long book's pages as
/// they come. Of a PDF, only the pages in `options.pages` for which `wanted`
/// is true are read (a resumed batch leaves out the pages it has). An error
/// from `each` stops the scan and is returned; so is a PDF that cannot be
/// opened.
pub fn scan_pictures<E: From<SourceError>>(
    recognizer: &Recognizer,
    bytes: Vec<u8>,
    options: &ScanOptions,
    wanted: impl Fn(usize) -> bool,
    mut each: impl FnMut(PictureScan, usize, usize) -> Result<(), E>,
) -> Result<(), E> {
    if InputKind::of(&bytes) == InputKind::Image {
        let boards = scan(recognizer, &bytes, options).map_err(ScanError::from);
        return each(PictureScan { page: None, boards }, 1, 1);
    }
    let pages = PdfPages::open(bytes, options.pdf, &options.pages, wanted)?;
    let total = pages.len();
    let read = |(number, picture): (usize, Result<PdfPage, SourceError>)| PictureScan {
        page: Some(number),
        boards: picture
            .map_err(ScanError::from)
            .and_then(|page| read_page(recognizer, &page, number, options)),
    };
    let mut done = 0;
    let hand_over = |picture| {
        done += 1;
        each(picture, done, total)
    };
    if options.page_workers <= 1 {
        return pages.map(read).try_for_each(hand_over);
    }
    map_in_order(pages, options.page_workers, read, hand_over)
}

/// Maps `items` through `work` on `workers` threads and hands each result
/// to `each` in the order of `items`, as soon as it and those before it are
/// done, even while the next item is still being made (a page still
/// rendering). Items are taken from the iterator (here: pages from the
/// renderer), on a thread of their own, at most `2 × workers` ahead of the
/// last one handed to `each`, however long one item takes. An error from
/// `each` stops the taking and is returned once the items in hand are done.
fn map_in_order<T: Send, R: Send, E>(
    items: impl Iterator<Item = T> + Send,
    workers: usize,
    work: impl Fn(T) -> R + Sync,
    mut each: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    std::thread::scope(|scope| {
        let (to_do, queue) = mpsc::sync_channel::<(usize, T)>(workers);
        // Held by the workers alone, so that the sender sees them all gone.
        let queue = Arc::new(Mutex::new(queue));
        // Bounded too, so that the taking stays a few items ahead of `each`.
        let (finished, results) = mpsc::sync_channel::<(usize, R)>(workers);
        for _ in 0..workers {
            let (queue, finished, work) = (Arc::clone(&queue), finished.clone(), &work);
            scope.spawn(move || loop {
                let next = queue.lock().unwrap_or_else(|p| p.into_inner()).recv();
                let Ok((i, item)) = next else { break };
                if finished.send((i, work(item))).is_err() {
                    break;
                }
            });
        }
        drop((queue, finished));
        // One credit per item taken and not yet handed to `each`: a slow item
        // cannot let the others pile up behind it (pages held in memory).
        let window = 2 * workers.max(1);
        let (credit, credits) = mpsc::sync_channel::<()>(window);
        for _ in 0..window {
            let _ = credit.send(());
        }
        scope.spawn(move || {
            let mut items = items.enumerate();
            // No credit: `each` failed and the main loop is gone.
            while credits.recv().is_ok() {
                let Some(item) = items.next() else { break };
                if to_do.send(item).is_err() {
                    break; // the workers are gone: `each` failed, or they panicked
                }
            }
        });
        let mut ready = BTreeMap::new();
        let mut next = 0;
        for (i, result) in results {
            ready.insert(i, result);
            while let Some(result) = ready.remove(&next) {
                next += 1;
                each(result)?;
                let _ = credit.send(());
            }
        }
        Ok(())
    })
}

/// The boards of one rendered page, in reading order, each with the side
/// to move its caption names when the page has text.
fn read_page(
    recognizer: &Recognizer,
    rendered: &PdfPage,
    page: usize,
    options: &ScanOptions,
) -> Result<Vec<ScannedBoard>, ScanError> {
    let readings =
        match recognizer.recognize_page(&rendered.picture, &rendered.text, &options.recognize) {
            Err(RecognizeError::NoBoardFound) => Vec::new(),
            other => other?,
        };
    Ok(scanned(
        in_reading_order(readings),
        Some(page),
        options,
        &rendered.picture,
    ))
}

/// Boards as a reader meets them: rows from the top, left to right within a
/// row; two boards share a row when their vertical extents overlap by half
/// the smaller one's height.
fn in_reading_order(mut boards: Vec<BoardReading>) -> Vec<BoardReading> {
    boards.sort_by_key(|b| b.bbox[1]);
    let mut rows: Vec<Vec<BoardReading>> = Vec::new();
    for board in boards {
        let [_, y, _, h] = board.bbox;
        let same_row = rows.last().is_some_and(|row| {
            row.iter().any(|other| {
                let [_, oy, _, oh] = other.bbox;
                let overlap = (y + h).min(oy + oh).saturating_sub(y.max(oy));
                2 * overlap >= h.min(oh)
            })
        });
        match rows.last_mut() {
            Some(row) if same_row => row.push(board),
            _ => rows.push(vec![board]),
        }
    }
    rows.into_iter()
        .flat_map(|mut row| {
            row.sort_by_key(|b| b.bbox[0]);
            row
        })
        .collect()
}

/// Attaches the engine's analysis to every legal board, or a warning saying
/// why a board was not analysed. The boards share one budget: `limits`'
/// time and nodes are for all of them together, each board getting an equal
/// share of what is left when its turn comes (depth and lines apply to each).
pub fn analyze_boards(boards: &mut [ScannedBoard], limits: &AnalysisLimits) {
    let started = std::time::Instant::now();
    let ours = Engines::default();
    let mut nodes_left = limits.nodes;
    let mut legal = Vec::new();
    for board in boards.iter_mut() {
        match &board.reading.position {
            Ok(position) => legal.push((position.clone(), board)),
            Err(problems) => board.reading.warnings.push(format!(
                "not analysed: impossible position: {}",
                legality::describe(problems)
            )),
        }
    }
    let count = legal.len() as u32;
    for (done, (position, board)) in legal.into_iter().enumerate() {
        let left = count - done as u32;
        let share = AnalysisLimits {
            movetime: limits
                .movetime
                .map(|total| total.saturating_sub(started.elapsed()) / left),
            nodes: nodes_left.map(|nodes| nodes / u64::from(left)),
            ..limits.clone()
        };
        let stop = std::sync::atomic::AtomicBool::new(false);
        let analysis = match ours.analyze(None, &position, &share, |_| {}, &stop) {
            Ok(analysis) => analysis,
            Err(err) => {
                board.reading.warnings.push(format!("not analysed: {err}"));
                continue;
            }
        };
        nodes_left = nodes_left.map(|nodes| nodes.saturating_sub(analysis.nodes));
        board.analysis = Some(analysis);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn results_come_in_the_order_of_their_items_whatever_the_workers_take() {
        // Early items take longest, so later ones finish first.
        let mut seen = Vec::new();
        let work = |i: u64| {
            std::thread::sleep(Duration::from_millis(20 - 2 * (i % 10)));
            i * i
        };
        let result: Result<(), ()> = map_in_order(0..30u64, 3, work, |r| {
            seen.push(r);
            Ok(())
        });
        assert_eq!(result, Ok(()));
        assert_eq!(seen, (0..30u64).map(|i| i * i).collect::<Vec<_>>());
    }

    #[test]
    fn an_error_stops_taking_items() {
        let taken = std::sync::atomic::AtomicUsize::new(0);
        let items = (0..1000).inspect(|_| {
            taken.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        });
        let mut handed = 0;
        let result = map_in_order(
            items,
            2,
            |i: i32| i,
            |i| {
                handed += 1;
                if i == 5 {
                    Err("stop")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(result, Err("stop"));
        assert_eq!(handed, 6);
        // Six handed, at most four (2 × workers) more in hand.
        assert!(taken.load(std::sync::atomic::Ordering::SeqCst) <= 10);
    }

    #[test]
    fn a_slow_item_holds_back_the_taking() {
        // Item 0 takes long; the others are instant but wait for it.
        let taken = std::sync::atomic::AtomicUsize::new(0);
        let items = (0..1000u64).inspect(|_| {
            taken.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        });
        let most_ahead = std::sync::atomic::AtomicUsize::new(0);
        let mut handed = 0;
        let work = |i: u64| {
            if i == 0 {
                std::thread::sleep(Duration::from_millis(200));
            }
            i
        };
        let result: Result<(), ()> = map_in_order(items, 2, work, |_| {
            handed += 1;
            let ahead = taken.load(std::sync::atomic::Ordering::SeqCst) - handed;
            most_ahead.fetch_max(ahead, std::sync::atomic::Ordering::SeqCst);
            Ok(())
        });
        assert_eq!(result, Ok(()));
        assert_eq!(handed, 1000);
        assert!(most_ahead.into_inner() <= 4);
    }
}
