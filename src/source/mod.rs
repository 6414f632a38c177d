//! Turning inputs into pictures: image bytes as they are, and the pages of
//! a PDF rendered one by one with their page numbers.
//!
//! Plain bytes in, [`Picture`]s out; nothing here knows about boards.

mod pdf;

pub use pdf::{PageRange, PdfBook, PdfLimits};

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

/// Why an input could not be turned into pictures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("not a readable PDF (corrupt or truncated)")]
    CorruptPdf,
    #[error("the PDF is truncated: it does not end with %%EOF")]
    TruncatedPdf,
    #[error("the PDF is encrypted with a password")]
    EncryptedPdf,
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
