//! Property tests over hostile input: whatever bytes or FEN text arrive, the
//! parsers return a value or an error, and never panic.

use std::io::Cursor;

use boardscan::{
    notation::{
        fen::parse_fen,
        lang::{parse_move_as, Lang},
    },
    vision::{decode, locate_boards, locate_quads, DecodeLimits, Luma32},
};
use image::{ImageFormat, RgbImage};
use proptest::prelude::*;

fn encoded(format: ImageFormat) -> Vec<u8> {
    let image = RgbImage::from_fn(48, 40, |x, y| {
        image::Rgb([(x * 5) as u8, (y * 6) as u8, 90])
    });
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).unwrap();
    out.into_inner()
}

proptest! {
    // 256 cases a property by default; PROPTEST_CASES=N runs longer.
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn decode_survives_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = decode(&bytes, DecodeLimits::default());
    }

    #[test]
    fn decode_survives_mutated_images(
        format in prop_oneof![Just(ImageFormat::Png), Just(ImageFormat::Jpeg), Just(ImageFormat::Gif), Just(ImageFormat::WebP)],
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..16),
        cut in any::<usize>(),
    ) {
        let mut bytes = encoded(format);
        for (at, value) in flips {
            let len = bytes.len();
            bytes[at % len] = value;
        }
        let keep = cut % (bytes.len() + 1);
        bytes.truncate(keep.max(bytes.len() / 2));
        if let Ok(image) = decode(&bytes, DecodeLimits::default()) {
            let luma = Luma32::from_rgb(&image);
            let _ = locate_boards(&luma);
            let _ = locate_quads(&luma);
        }
    }

    #[test]
    fn fen_parser_survives_any_text(text in "\\PC{0,120}") {
        let _ = parse_fen(&text);
    }

    #[test]
    fn fen_parser_survives_fen_like_text(text in "[pnbrqkPNBRQK1-9/ wb-]{0,90}") {
        if let Ok(board) = parse_fen(&text) {
            // Whatever it accepts must be a position with one king a side.
            prop_assert_eq!(board.pieces(cozy_chess::Piece::King).len(), 2);
        }
    }

    #[test]
    fn move_reader_survives_any_text(text in "\\PC{0,60}", lang in 0usize..6) {
        let board = cozy_chess::Board::default();
        if let Ok(mv) = parse_move_as(&board, &text, Lang::ALL[lang]) {
            prop_assert!(board.is_legal(mv));
        }
    }

    #[test]
    fn move_reader_survives_move_like_text(text in "[KQRBNDTCLSFКФЛСрa-h1-8xX:=+#!?O0о. -]{0,14}") {
        let board: cozy_chess::Board = "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1".parse().unwrap();
        if let Ok(mv) = parse_move_as(&board, &text, Lang::En) {
            prop_assert!(board.is_legal(mv));
        }
    }
}
