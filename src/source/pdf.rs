//! PDF pages rendered to pictures with `hayro` (pure Rust, MIT OR Apache-2.0:
//! no C library to fetch or ship, and JBIG2, CCITT, JPEG and JPEG 2000 page
//! scans decode in it too).
//!
//! Each page is rendered at [`PdfLimits::dpi`], shrunk where that would pass
//! [`PdfLimits::max_page_pixels`], on a white background, and its text
//! layer read in the same pixels ([`super::text`]). A scanned page whose
//! scan is coarser than that is rendered at the scan's own resolution, or a
//! whole multiple of it where that is under half the dpi, which is as sharp
//! and costs less to read. Page numbers are
//! 1-based, as a reader counts them.

use std::{ops::RangeInclusive, str::FromStr};

use hayro::{
    hayro_interpret::{InterpreterSettings, TransformExt},
    hayro_syntax::Pdf,
    kurbo::Affine,
    vello_cpu::color::palette::css::WHITE,
    PixmapSettings, RenderCache, RenderSettings,
};
use image::RgbImage;

use super::{text::PageContent, PageText, SourceError};

/// The least share of [`PdfLimits::dpi`] a coarse scan is rendered at
/// ([`scan_factor`]).
const MIN_SCAN_FACTOR: f64 = 0.5;

/// A rendered page: its picture, and the text its content draws, in the
/// picture's pixels (none for a scanned page, which is one image).
#[derive(Clone, Debug, PartialEq)]
pub struct PdfPage {
    pub picture: RgbImage,
    pub text: PageText,
}

/// Bounds on what a PDF may cost.
#[derive(Clone, Copy, Debug)]
pub struct PdfLimits {
    /// Most pages a PDF may have.
    pub max_pages: usize,
    /// Rendering resolution, in dots per inch.
    pub dpi: f32,
    /// Most pixels a rendered page may have; larger pages render smaller.
    pub max_page_pixels: u64,
    /// Time to spend on one PDF; pages not reached by then are errors.
    pub max_time: Option<std::time::Duration>,
    /// Time the renderer child may take for one page (or to open the PDF)
    /// before it is killed; the in-process renderer has no such limit.
    pub max_page_time: std::time::Duration,
    /// Memory the renderer may map when it runs in its own process (see
    /// [`super::isolate_pdf_rendering`]).
    pub max_memory_bytes: u64,
}

/// Seconds one page may take to render unless told (a book page takes
/// well under one).
pub const DEFAULT_MAX_PAGE_SECONDS: u64 = 30;

impl Default for PdfLimits {
    fn default() -> Self {
        Self {
            max_pages: 5_000,
            dpi: 200.0,
            // An A4 page at 300 dpi.
            max_page_pixels: 8_700_000,
            max_time: None,
            max_page_time: std::time::Duration::from_secs(DEFAULT_MAX_PAGE_SECONDS),
            max_memory_bytes: 768 << 20,
        }
    }
}

/// Pages to read, 1-based and inclusive (`--pages 10-40`, `7`, `12-`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageRange(RangeInclusive<usize>);

impl PageRange {
    pub const ALL: PageRange = PageRange(1..=usize::MAX);

    pub fn contains(&self, page: usize) -> bool {
        self.0.contains(&page)
    }

    /// The first and last page, inclusive.
    pub fn bounds(&self) -> (usize, usize) {
        (*self.0.start(), *self.0.end())
    }
}

impl<'de> serde::Deserialize<'de> for PageRange {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl FromStr for PageRange {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let number = |s: &str| {
            s.trim()
                .parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| format!("pages must be like 10-40, 7 or 12-, not {text:?}"))
        };
        let (first, last) = match text.split_once('-') {
            Some((first, "")) => (number(first)?, usize::MAX),
            Some((first, last)) => (number(first)?, number(last)?),
            None => (number(text)?, number(text)?),
        };
        if first > last {
            return Err(format!("the page range {text:?} is empty"));
        }
        Ok(PageRange(first..=last))
    }
}

/// An open PDF whose pages render on demand.
pub struct PdfBook {
    pdf: Pdf,
    limits: PdfLimits,
}

impl PdfBook {
    /// Opens a PDF, refusing encrypted, corrupt, truncated, empty and
    /// over-long ones. A PDF is taken as truncated when its last KiB has no `%%EOF`:
    /// a cut file would otherwise render its surviving pages blank.
    pub fn open(bytes: Vec<u8>, limits: PdfLimits) -> Result<Self, SourceError> {
        let tail = &bytes[bytes.len().saturating_sub(1024)..];
        if !bytes.is_empty() && !tail.windows(5).any(|w| w == b"%%EOF") {
            return Err(SourceError::TruncatedPdf);
        }
        let pdf = Pdf::new(bytes).map_err(|err| match err {
            hayro::hayro_syntax::LoadPdfError::Decryption(_) => SourceError::EncryptedPdf,
            hayro::hayro_syntax::LoadPdfError::Invalid => SourceError::CorruptPdf,
        })?;
        let pages = pdf.pages().len();
        if pages == 0 {
            return Err(SourceError::NoPages);
        }
        if pages > limits.max_pages {
            return Err(SourceError::TooManyPages {
                pages,
                max_pages: limits.max_pages,
            });
        }
        Ok(Self { pdf, limits })
    }

    pub fn page_count(&self) -> usize {
        self.pdf.pages().len()
    }

    /// Renders page `number` (1-based) and reads its text.
    pub fn render(&self, number: usize) -> Result<PdfPage, SourceError> {
        let pages = self.pdf.pages();
        let page =
            number
                .checked_sub(1)
                .and_then(|i| pages.get(i))
                .ok_or(SourceError::NoSuchPage {
                    page: number,
                    pages: pages.len(),
                })?;
        let (width, height) = page.render_dimensions();
        let too_large = SourceError::PageTooLarge {
            page: number,
            width: width as u32,
            height: height as u32,
        };
        if !(width >= 1.0 && height >= 1.0) || width > 14_400.0 || height > 14_400.0 {
            return Err(too_large);
        }
        let mut scale = self.limits.dpi / 72.0;
        let pixels = f64::from(width * scale) * f64::from(height * scale);
        if pixels > self.limits.max_page_pixels as f64 {
            scale *= (self.limits.max_page_pixels as f64 / pixels).sqrt() as f32;
        }
        // The renderer's canvas is at most 65,535 pixels a side.
        scale = scale.min(65_535.0 / width.max(height));
        // Page space to pixels, as hayro::render draws.
        let initial = page.initial_transform(true).to_kurbo();
        let content = PageContent::read(page, Affine::scale(f64::from(scale)) * initial);
        let factor = content
            .scan_enlargement()
            .filter(|&e| e > 1.0)
            .map_or(1.0, scan_factor);
        scale *= factor as f32;
        let pixmap = hayro::render(
            page,
            &RenderCache::new(),
            &InterpreterSettings::default(),
            &RenderSettings::default(),
            &PixmapSettings {
                x_scale: scale,
                y_scale: scale,
                bg_color: WHITE,
            },
        );
        // On a white background every pixel is opaque, so the premultiplied
        // colours are the plain ones.
        let rgb = pixmap
            .data_as_u8_slice()
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        let picture =
            RgbImage::from_raw(u32::from(pixmap.width()), u32::from(pixmap.height()), rgb)
                .ok_or(too_large)?;
        Ok(PdfPage {
            picture,
            text: content.into_text(factor),
        })
    }
}

/// The share of the rendering scale a scan `enlargement` times coarser than
/// it is read at. At its own resolution: enlarging it adds pixels to look
/// at, not detail. But a scan coarser than [`MIN_SCAN_FACTOR`] of the dpi
/// (a screenshot of a page at 72-100 dpi, whose boards are about 130 px) is
/// enlarged by the smallest whole number that reaches that share, so that
/// every pixel becomes the same number of pixels: enlarged by 1.04, every
/// 25th row and column came out twice, and a grid-line finder missed a
/// board it found in the picture itself.
fn scan_factor(enlargement: f64) -> f64 {
    let whole = (MIN_SCAN_FACTOR * enlargement).ceil().max(1.0);
    whole / enlargement
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_ranges_read_as_people_write_them() {
        let range = |text: &str| text.parse::<PageRange>();
        assert_eq!(range("10-40"), Ok(PageRange(10..=40)));
        assert_eq!(range("7"), Ok(PageRange(7..=7)));
        assert_eq!(range("12-"), Ok(PageRange(12..=usize::MAX)));
        for bad in ["0", "40-10", "x", "-3", "", "1-2-3"] {
            assert!(range(bad).is_err(), "{bad:?}");
        }
        assert!(PageRange::ALL.contains(1));
    }

    fn test_book(name: &str) -> PdfBook {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/pdf");
        PdfBook::open(
            std::fs::read(path.join(name)).unwrap(),
            PdfLimits::default(),
        )
        .unwrap()
    }

    #[test]
    fn a_scan_is_rendered_at_its_own_resolution_when_that_is_coarser() {
        // Each page of the scanned book is one 875x1241 JPEG at 150 dpi.
        let open = |dpi| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/pdf");
            let limits = PdfLimits {
                dpi,
                ..PdfLimits::default()
            };
            PdfBook::open(
                std::fs::read(path.join("book-scanned.pdf")).unwrap(),
                limits,
            )
            .unwrap()
        };
        let width = |dpi| open(dpi).render(1).unwrap().picture.width();
        // (hayro rounds the scaled page down, so a pixel may go.)
        assert!((874..=875).contains(&width(200.0)), "{}", width(200.0));
        // Finer than asked for: shrunk to the dpi as before.
        assert!((582..=584).contains(&width(100.0)), "{}", width(100.0));
        // Under half the dpi: a whole multiple of its own, twice 150 dpi.
        assert!((1749..=1750).contains(&width(400.0)), "{}", width(400.0));
    }

    #[test]
    fn a_coarse_scan_is_enlarged_by_whole_pixels() {
        // For 200 dpi: scans of 100 dpi or more as they are, coarser ones
        // enlarged by the smallest whole number that reaches 100 dpi.
        let dpi = |scan: f64| 200.0 * scan_factor(200.0 / scan);
        let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(near(dpi(150.0), 150.0) && near(dpi(100.0), 100.0));
        assert!(near(dpi(96.0), 192.0) && near(dpi(72.0), 144.0) && near(dpi(40.0), 120.0));
    }

    #[test]
    fn a_typeset_pages_text_lines_up_with_its_picture() {
        // Page 2 of the typeset book at 200 dpi: two diagrams side by side
        // (their boards found at x 185 and 668, y 214, 312 pixels a side),
        // each captioned underneath.
        let page = test_book("book-typeset.pdf").render(2).unwrap();
        assert_eq!(page.picture.dimensions(), (1165, 1653));
        let line = |text: &str| {
            page.text
                .lines
                .iter()
                .find(|l| l.text == text)
                .unwrap_or_else(|| panic!("no {text:?} in {:#?}", page.text.lines))
                .bbox
        };
        for (caption, board_left) in [("1. White to move", 185.0), ("2. Black to move", 668.0)] {
            let [x, y, w, h] = line(caption);
            let centre = x + w / 2.0;
            assert!(
                (board_left..board_left + 312.0).contains(&centre),
                "{caption}: {:?}",
                [x, y, w, h]
            );
            // Under the board and its file letters, in a font of about 10 pt.
            assert!((526.0..526.0 + 156.0).contains(&y), "{caption}: {y}");
            assert!((20.0..40.0).contains(&h), "{caption}: {h}");
        }
        assert_eq!(line("Exercises")[0].round(), 118.0);
        // A page that is one scanned image has no text.
        let scanned = test_book("book-scanned.pdf").render(2).unwrap();
        assert!(scanned.text.is_empty(), "{:?}", scanned.text);
    }

    #[test]
    fn corrupt_and_truncated_pdfs_are_refused() {
        for bytes in [b"%PDF-1.4\n%%EOF\n".to_vec(), Vec::new()] {
            assert!(matches!(
                PdfBook::open(bytes, PdfLimits::default()),
                Err(SourceError::CorruptPdf)
            ));
        }
        assert!(matches!(
            PdfBook::open(b"%PDF-1.7 garbage".repeat(40), PdfLimits::default()),
            Err(SourceError::TruncatedPdf)
        ));
    }
}
