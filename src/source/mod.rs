//! Turning inputs into pictures: image bytes as they are, and the pages of
//! a PDF rendered one by one with their page numbers and the text they
//! draw.
//!
//! Plain bytes in, pictures (and text) out; nothing here knows about boards.

pub mod file;
mod isolated;
mod pdf;
pub mod recording;
mod text;
mod watchdog;

use std::time::Instant;

pub use isolated::{isolate_pdf_rendering, serve_child, IsolatedPdf};
pub use pdf::{PageRange, PdfBook, PdfLimits, PdfPage, DEFAULT_MAX_PAGE_SECONDS};
pub use text::{PageText, TextLine, MAX_PAGE_TEXT_CHARS, MAX_PAGE_TEXT_LINES};

/// What kind of input a file's bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A PDF (by its `%PDF-` header, which may follow up to 1 KiB of junk).
    Pdf,
    /// Anything else goes to the image decoder, which names what it is not.
    Image,
}

impl InputKind {
    pub fn of(bytes: &[u8]) -> Self {
        let head = &bytes[..bytes.len().min(1024)];
        if head.windows(5).any(|w| w == b"%PDF-") {
            InputKind::Pdf
        } else {
            InputKind::Image
        }
    }
}

/// The selected pages of a PDF, rendered one at a time as they are asked
/// for: in a child process once a front end has called
/// [`isolate_pdf_rendering`], else in this one.
pub struct PdfPages {
    numbers: std::vec::IntoIter<usize>,
    count: usize,
    renderer: Renderer,
    limits: PdfLimits,
    started: Instant,
}

enum Renderer {
    InProcess(PdfBook),
    Isolated(IsolatedPdf),
}

impl PdfPages {
    /// Opens a PDF (refusing corrupt, encrypted, truncated and over-long
    /// ones) and selects the pages in `pages` that it has and that `wanted`
    /// accepts (a resumed batch leaves out the pages it has). A child
    /// renderer renders from the first to the last page selected.
    pub fn open(
        bytes: Vec<u8>,
        limits: PdfLimits,
        pages: &PageRange,
        wanted: impl Fn(usize) -> bool,
    ) -> Result<Self, SourceError> {
        let started = Instant::now();
        let selected = |n: usize| pages.contains(n) && wanted(n);
        let (start, end) = pages.bounds();
        let end = end.min(limits.max_pages);
        let first = (start..=end).find(|&n| selected(n)).unwrap_or(start);
        let last = (first..=end).rev().find(|&n| selected(n)).unwrap_or(first);
        let renderer = match isolated::renderer() {
            Some(exe) => Renderer::Isolated(IsolatedPdf::open(exe, bytes, limits, (first, last))?),
            None => Renderer::InProcess(PdfBook::open(bytes, limits)?),
        };
        let page_count = match &renderer {
            Renderer::InProcess(book) => book.page_count(),
            Renderer::Isolated(pdf) => pdf.page_count(),
        };
        let numbers: Vec<usize> = (1..=page_count).filter(|&n| selected(n)).collect();
        Ok(Self {
            count: numbers.len(),
            numbers: numbers.into_iter(),
            renderer,
            limits,
            started,
        })
    }

    /// How many pages were selected.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl Iterator for PdfPages {
    /// A page number (from 1) and its picture and text, or why they could
    /// not be had.
    type Item = (usize, Result<PdfPage, SourceError>);

    fn next(&mut self) -> Option<Self::Item> {
        let number = self.numbers.next()?;
        Some(match &mut self.renderer {
            Renderer::Isolated(pdf) => pdf.next_page(number),
            Renderer::InProcess(book) => {
                let out_of_time = self
                    .limits
                    .max_time
                    .filter(|&budget| self.started.elapsed() > budget);
                let picture = match out_of_time {
                    Some(budget) => Err(SourceError::OutOfTime {
                        page: number,
                        seconds: budget.as_secs(),
                    }),
                    None => book.render(number),
                };
                (number, picture)
            }
        })
    }
}

/// Why an input could not be turned into pictures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum SourceError {
    #[error("not a readable PDF (corrupt or truncated)")]
    CorruptPdf,
    #[error("the PDF is truncated: it does not end with %%EOF")]
    TruncatedPdf,
    #[error("the PDF is encrypted with a password")]
    EncryptedPdf,
    #[error("the PDF has no pages")]
    NoPages,
    #[error("the PDF has {pages} pages, over the limit of {max_pages}")]
    TooManyPages { pages: usize, max_pages: usize },
    #[error("page {page} is {width}×{height} points, too large to render")]
    PageTooLarge {
        page: usize,
        width: u32,
        height: u32,
    },
    #[error("no page {page}: the PDF has {pages} pages")]
    NoSuchPage { page: usize, pages: usize },
    #[error("page {page} not read: the PDF's time budget of {seconds} s was spent")]
    OutOfTime { page: usize, seconds: u64 },
    #[error("page {page} not rendered: it took over {seconds} s, the limit for one page; the renderer was stopped")]
    PageOutOfTime { page: usize, seconds: u64 },
    /// The renderer process could not be started.
    #[error("{0}")]
    Renderer(String),
    /// The renderer process died on this PDF: out of memory, or a crash.
    #[error("the PDF renderer stopped on {0} (out of memory, or malformed content)")]
    RendererDied(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdfs_are_told_by_their_header() {
        assert_eq!(InputKind::of(b"%PDF-1.7\n..."), InputKind::Pdf);
        assert_eq!(InputKind::of(b"\r\n%PDF-1.4"), InputKind::Pdf);
        assert_eq!(InputKind::of(b"\x89PNG\r\n\x1a\n"), InputKind::Image);
        assert_eq!(InputKind::of(b""), InputKind::Image);
    }
}
