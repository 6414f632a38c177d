//! The text layer of a PDF page: its glyphs, with the characters they stand
//! for and where they are drawn, gathered into lines with boxes in the
//! pixels of the page as rendered (so that they line up with the boxes of
//! the boards found in the picture).
//!
//! The page is interpreted with a device that draws nothing and keeps each
//! glyph's Unicode value (the font's `ToUnicode` map, else
//! its glyph names) and position. Only upright, left-to-right text is kept:
//! rotated and vertical text is not where captions are. A glyph without a
//! Unicode value (a chess-font piece often has one all the same) is left
//! out. Invisible text is kept: it is what an OCR layer over a scan holds.
//!
//! Glyphs whose baselines are within a third of an em of each other make a
//! row; a row splits where the gap between two glyphs passes
//! [`SEGMENT_GAP_EM`] (two captions side by side, two columns), and a gap of
//! [`WORD_GAP_EM`] is a space (many PDFs draw no space glyphs: TeX moves the
//! pen instead). A page whose content draws no glyphs (a scanned page) has
//! no lines.
//!
//! The same pass notes the images a page draws, so that a scanned page can
//! be rendered at the scan's own resolution ([`PageContent::scan_enlargement`]).

use hayro::{
    hayro_interpret::{
        font::{Glyph, GlyphRun},
        interpret_page, BlendMode, ClipPath, Context, Device, DrawMode, DrawProps, Image,
        ImageDrawProps, InterpreterCache, InterpreterSettings, SoftMask,
    },
    hayro_syntax::page::Page,
    kurbo::{Affine, BezPath, Point, Rect},
};
use serde::{Deserialize, Serialize};

/// Most characters a page's text may hold; lines past it (lowest on the
/// page first) are left out, so that a page of fine print costs a bounded
/// amount to send and to search.
pub const MAX_PAGE_TEXT_CHARS: usize = 16_384;
/// Most lines a page's text may hold.
pub const MAX_PAGE_TEXT_LINES: usize = 2_000;
/// Most glyphs read from a page; the rest are ignored.
const MAX_GLYPHS: usize = 100_000;
/// A gap between glyphs wider than this many ems ends a line.
const SEGMENT_GAP_EM: f64 = 1.5;
/// A gap between glyphs wider than this many ems is a space between words.
const WORD_GAP_EM: f64 = 0.18;

/// One line of text: words on one baseline with no wide gap between them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextLine {
    /// The words, with single spaces between them.
    pub text: String,
    /// `[x, y, width, height]` in the page's pixels, from the top-left
    /// corner; the height is the font's em, from ascender to descender.
    pub bbox: [f32; 4],
}

/// The text of a page, line by line from the top.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PageText {
    pub lines: Vec<TextLine>,
}

impl PageText {
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Whether the text keeps within [`MAX_PAGE_TEXT_CHARS`] and
    /// [`MAX_PAGE_TEXT_LINES`] (what a renderer process may send).
    pub fn within_limits(&self) -> bool {
        self.lines.len() <= MAX_PAGE_TEXT_LINES
            && self
                .lines
                .iter()
                .map(|l| l.text.chars().count())
                .sum::<usize>()
                <= MAX_PAGE_TEXT_CHARS
    }
}

/// What a page's content draws, read without painting it.
pub struct PageContent {
    glyphs: Vec<PlacedGlyph>,
    /// Paths filled or stroked: a scanned page draws none.
    paths: usize,
    /// The image covering the largest area, and that area, in pixels.
    largest_image: Option<PlacedImage>,
    /// The page's area in pixels.
    page_area: f64,
}

/// An image as drawn: its area, and how many pixels one of its samples
/// becomes along the axis on which it is sampled more finely.
#[derive(Clone, Copy, Debug)]
struct PlacedImage {
    area: f64,
    enlargement: f64,
}

/// A scanned page's picture covers at least this share of the page.
const SCAN_COVER: f64 = 0.5;

impl PageContent {
    /// Reads `page` as drawn with `transform` (page space to pixels).
    pub fn read(page: &Page<'_>, transform: Affine) -> Self {
        let (width, height) = page.render_dimensions();
        let page_rect =
            transform.transform_rect_bbox(Rect::new(0.0, 0.0, f64::from(width), f64::from(height)));
        let cache = InterpreterCache::new();
        let mut context = Context::new(
            transform,
            page_rect,
            &cache,
            page.xref(),
            InterpreterSettings::default(),
        );
        let mut reader = ContentReader::default();
        interpret_page(page, &mut context, &mut reader);
        Self {
            glyphs: reader.glyphs,
            paths: reader.paths,
            largest_image: reader.largest_image,
            page_area: page_rect.area(),
        }
    }

    /// For a scanned page (one picture over most of it, and no vector
    /// drawing), how many pixels of the render each of the scan's pixels
    /// becomes: above 1, rendering at this transform only enlarges it.
    pub fn scan_enlargement(&self) -> Option<f64> {
        let image = self.largest_image?;
        (self.paths == 0 && image.area >= SCAN_COVER * self.page_area).then_some(image.enlargement)
    }

    /// The page's text, for a picture rendered at `factor` times the scale
    /// it was read at.
    pub fn into_text(self, factor: f64) -> PageText {
        let scaled = self.glyphs.into_iter().map(|g| PlacedGlyph {
            x: (g.x.0 * factor, g.x.1 * factor),
            baseline: g.baseline * factor,
            size: g.size * factor,
            ..g
        });
        lines_of(scaled.collect())
    }
}

/// One glyph as the page draws it, in pixels (y grows downwards).
#[derive(Clone, Debug, PartialEq)]
struct PlacedGlyph {
    text: String,
    /// Left edge of the glyph's advance, and its right edge.
    x: (f64, f64),
    baseline: f64,
    /// The em, in pixels.
    size: f64,
}

/// A device that draws nothing and keeps the glyphs, counts the paths and
/// notes the largest image.
#[derive(Default)]
struct ContentReader {
    glyphs: Vec<PlacedGlyph>,
    paths: usize,
    largest_image: Option<PlacedImage>,
}

impl ContentReader {
    fn keep(&mut self, glyph: &Glyph<'_>, transform: Affine) {
        if self.glyphs.len() >= MAX_GLYPHS {
            return;
        }
        let Some(unicode) = glyph.as_unicode() else {
            return;
        };
        let text = match unicode {
            hayro::hayro_interpret::hayro_cmap::BfString::Char(c) => c.to_string(),
            hayro::hayro_interpret::hayro_cmap::BfString::String(s) => s,
        };
        if text.chars().all(char::is_whitespace) || text.chars().any(char::is_control) {
            return;
        }
        // Glyph space has 1000 units to the em; the advance is in them too.
        let [a, b, c, d, ..] = transform.as_coeffs();
        let size = c.hypot(d) * 1000.0;
        // Upright (the em points up the picture) and left to right.
        let upright = d < 0.0 && a > 0.0 && b.abs() <= 0.1 * a && c.abs() <= 0.1 * d.abs();
        if !upright || !(1.0..=10_000.0).contains(&size) {
            return;
        }
        let advance = match glyph {
            Glyph::Outline(outline) => outline.advance_width(),
            Glyph::Type3(glyph) => glyph.advance_width(),
        }
        .filter(|w| w.is_finite() && *w > 0.0)
        .map_or(500.0, f64::from);
        let origin = transform * Point::ORIGIN;
        let end = transform * Point::new(advance, 0.0);
        self.glyphs.push(PlacedGlyph {
            text,
            x: (origin.x, end.x.max(origin.x)),
            baseline: origin.y,
            size,
        });
    }
}

impl<'a> Device<'a> for ContentReader {
    fn draw_path(&mut self, _: &BezPath, _: DrawProps<'a>, _: &DrawMode) {
        self.paths += 1;
    }
    fn push_clip_path(&mut self, _: &ClipPath) {}
    fn push_transparency_group(&mut self, _: f32, _: Option<SoftMask<'a>>, _: BlendMode) {}
    fn draw_glyph_run(&mut self, run: &GlyphRun<'_, 'a>, props: DrawProps<'a>, _: &DrawMode) {
        for glyph in run.glyphs() {
            self.keep(glyph, props.transform * glyph.transform());
        }
    }
    fn draw_image(&mut self, image: Image<'a, '_>, props: ImageDrawProps<'a>) {
        // The transform maps the image's samples to pixels.
        let [a, b, c, d, ..] = props.transform.as_coeffs();
        let samples = f64::from(image.width()) * f64::from(image.height());
        let placed = PlacedImage {
            area: props.transform.determinant().abs() * samples,
            enlargement: a.hypot(b).min(c.hypot(d)),
        };
        let larger = self
            .largest_image
            .is_none_or(|largest| placed.area > largest.area);
        if larger && placed.area.is_finite() && placed.enlargement.is_finite() {
            self.largest_image = Some(placed);
        }
    }
    fn pop_clip(&mut self) {}
    fn pop_transparency_group(&mut self) {}
}

/// Gathers glyphs into lines, top to bottom and left to right, within the
/// limits on a page's text.
fn lines_of(mut glyphs: Vec<PlacedGlyph>) -> PageText {
    glyphs.retain(|g| g.baseline.is_finite() && g.x.0.is_finite() && g.x.1.is_finite());
    glyphs.sort_by(|a, b| a.baseline.total_cmp(&b.baseline));
    let mut rows: Vec<Vec<PlacedGlyph>> = Vec::new();
    for glyph in glyphs {
        match rows.last_mut() {
            Some(row) if glyph.baseline - row[0].baseline <= glyph.size.max(row[0].size) / 3.0 => {
                row.push(glyph)
            }
            _ => rows.push(vec![glyph]),
        }
    }
    let mut text = PageText::default();
    let mut chars = 0;
    for mut row in rows {
        row.sort_by(|a, b| a.x.0.total_cmp(&b.x.0));
        for line in segments(&row) {
            chars += line.text.chars().count();
            if chars > MAX_PAGE_TEXT_CHARS || text.lines.len() == MAX_PAGE_TEXT_LINES {
                return text;
            }
            text.lines.push(line);
        }
    }
    text
}

/// The lines of one row of glyphs sorted left to right.
fn segments(row: &[PlacedGlyph]) -> Vec<TextLine> {
    let mut lines = Vec::new();
    let mut start = 0;
    for end in 1..=row.len() {
        let split = end == row.len() || {
            let (before, after) = (&row[end - 1], &row[end]);
            after.x.0 - before.x.1 > SEGMENT_GAP_EM * before.size.max(after.size)
        };
        if split {
            lines.push(line_of(&row[start..end]));
            start = end;
        }
    }
    lines
}

fn line_of(glyphs: &[PlacedGlyph]) -> TextLine {
    let mut text = String::new();
    for (i, glyph) in glyphs.iter().enumerate() {
        if let Some(before) = i.checked_sub(1).map(|i| &glyphs[i]) {
            if glyph.x.0 - before.x.1 > WORD_GAP_EM * before.size.max(glyph.size) {
                text.push(' ');
            }
        }
        text.push_str(&glyph.text);
    }
    let left = glyphs.iter().map(|g| g.x.0).fold(f64::INFINITY, f64::min);
    let right = glyphs
        .iter()
        .map(|g| g.x.1)
        .fold(f64::NEG_INFINITY, f64::max);
    // An em from ascender to descender: 0.8 above the baseline, 0.2 below.
    let top = glyphs
        .iter()
        .map(|g| g.baseline - 0.8 * g.size)
        .fold(f64::INFINITY, f64::min);
    let bottom = glyphs
        .iter()
        .map(|g| g.baseline + 0.2 * g.size)
        .fold(f64::NEG_INFINITY, f64::max);
    TextLine {
        text,
        bbox: [
            left as f32,
            top as f32,
            (right - left) as f32,
            (bottom - top) as f32,
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Glyphs of `word` in a 10-pixel font from `x` on `baseline`, each 5
    /// pixels wide and touching the next.
    fn word(word: &str, x: f64, baseline: f64) -> Vec<PlacedGlyph> {
        word.chars()
            .enumerate()
            .map(|(i, c)| PlacedGlyph {
                text: c.to_string(),
                x: (x + 5.0 * i as f64, x + 5.0 * (i + 1) as f64),
                baseline,
                size: 10.0,
            })
            .collect()
    }

    fn texts(text: &PageText) -> Vec<&str> {
        text.lines.iter().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn glyphs_make_words_and_lines_in_reading_order() {
        // Drawn out of order, as content streams may; the gap of 3 pixels
        // (0.3 em) is a space, the one of 1 pixel is kerning.
        let mut glyphs = word("move", 52.0, 100.0);
        glyphs.extend(word("Bl", 10.0, 100.4));
        glyphs.extend(word("ack", 21.0, 100.4));
        glyphs.extend(word("to", 39.0, 99.8));
        glyphs.extend(word("Next", 10.0, 120.0));
        glyphs.extend(word("line", 34.0, 120.0));
        let text = lines_of(glyphs);
        assert_eq!(texts(&text), ["Black to move", "Next line"]);
        let [x, y, w, h] = text.lines[0].bbox;
        assert_eq!((x, w), (10.0, 62.0));
        assert!(
            (y - 91.8).abs() < 0.01 && (h - 10.6).abs() < 0.01,
            "{y} {h}"
        );
    }

    #[test]
    fn a_wide_gap_splits_a_row_into_two_lines() {
        // Two captions on one baseline under two boards side by side.
        let mut glyphs = word("1.", 10.0, 100.0);
        glyphs.extend(word("White", 23.0, 100.0));
        glyphs.extend(word("2.", 200.0, 100.0));
        glyphs.extend(word("Black", 213.0, 100.0));
        let text = lines_of(glyphs);
        assert_eq!(texts(&text), ["1. White", "2. Black"]);
        assert_eq!(text.lines[1].bbox[0], 200.0);
    }

    #[test]
    fn text_past_the_limits_is_left_out() {
        let glyphs: Vec<_> = (0..2_000)
            .flat_map(|row| word("abcdefghijklmnop", 0.0, 20.0 * row as f64))
            .collect();
        let text = lines_of(glyphs);
        assert_eq!(text.lines.len(), MAX_PAGE_TEXT_CHARS / 16);
        assert!(text.within_limits());
        assert_eq!(text.lines[0].text, "abcdefghijklmnop");
        let too_many = PageText {
            lines: vec![text.lines[0].clone(); MAX_PAGE_TEXT_LINES + 1],
        };
        assert!(!too_many.within_limits());
    }
}
