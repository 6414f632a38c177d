//! The evaluation network (NNUE): 768 inputs per perspective, one hidden
//! layer of [`HIDDEN`] units shared by both perspectives, SCReLU, and one
//! output from the side to move's and the other side's halves, by one of a
//! few output layers picked by the number of pieces on the board.
//!
//! An input is (colour relative to the perspective, piece kind, square);
//! Black's perspective mirrors the board vertically. The hidden layer is kept
//! per ply as an [`Accumulator`] and updated from the parent's by the pieces
//! that a move took away and put down ([`Delta`]), found by
//! comparing the two boards' bitboards, so castling, en passant and
//! promotion need no special cases.
//!
//! The network is trained by `training/engine-nnue/train.py` and bundled
//! from `models/engine.nnue` (its card is `models/README.md`, "Engine
//! network"). The file: `BSNN`, then version, hidden size and output buckets
//! as `u32`; the feature weights `[768][HIDDEN]` and biases `[HIDDEN]` as
//! `i16` scaled by [`QA`]; then per bucket the output weights `[2 × HIDDEN]`,
//! then the buckets' biases, as `f32`; all little-endian. The output is in
//! centipawns.

use std::sync::OnceLock;

use cozy_chess::{Board, Color, Piece, Square};

/// Hidden units per perspective.
pub const HIDDEN: usize = 256;
/// Scale of the int16 feature weights (a hidden unit saturates at `QA`).
const QA: i16 = 255;
const INPUTS: usize = 768;
/// The file format version [`Network::parse`] reads.
const VERSION: u32 = 2;
/// The most output buckets a file may have.
const MAX_BUCKETS: usize = 16;

static BUNDLED: &[u8] = include_bytes!("../../../models/engine.nnue");

/// The network's weights.
pub struct Network {
    feature_weights: Box<[[i16; HIDDEN]; INPUTS]>,
    feature_bias: [i16; HIDDEN],
    /// One output layer per range of piece counts ([`Network::bucket`]).
    outputs: Vec<OutputLayer>,
}

/// The weights from the hidden layer to the score, for one bucket.
struct OutputLayer {
    /// For the side to move's half, then the other side's, in centipawns
    /// per saturated unit, times the bucket's quantisation factor.
    weights: [Row; 2],
    bias: f32,
    /// `1 / (factor × QA²)`: turns the integer sum into centipawns.
    unit: f32,
}

/// Why a network file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NetworkError {
    #[error("not a boardscan network (bad magic)")]
    BadMagic,
    #[error("unsupported network version {0}")]
    Version(u32),
    #[error("network has {0} hidden units, this build expects {HIDDEN}")]
    HiddenSize(u32),
    #[error("network has {0} output buckets, expected 1 to {MAX_BUCKETS}")]
    Buckets(u32),
    #[error("network file is {found} bytes, expected {expected}")]
    Length { found: usize, expected: usize },
}

impl Network {
    /// The bundled network, parsed once.
    pub fn bundled() -> &'static Network {
        static NET: OnceLock<Network> = OnceLock::new();
        NET.get_or_init(|| Network::parse(BUNDLED).expect("models/engine.nnue is valid"))
    }

    /// Reads a network file (see the module documentation).
    pub fn parse(bytes: &[u8]) -> Result<Network, NetworkError> {
        const HEADER: usize = 16;
        if bytes.len() < HEADER || &bytes[..4] != b"BSNN" {
            return Err(NetworkError::BadMagic);
        }
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        if word(4) != VERSION {
            return Err(NetworkError::Version(word(4)));
        }
        if word(8) as usize != HIDDEN {
            return Err(NetworkError::HiddenSize(word(8)));
        }
        let buckets = word(12) as usize;
        if !(1..=MAX_BUCKETS).contains(&buckets) {
            return Err(NetworkError::Buckets(word(12)));
        }
        let feature_bytes = 2 * (INPUTS * HIDDEN + HIDDEN);
        let expected = HEADER + feature_bytes + 4 * buckets * (2 * HIDDEN + 1);
        if bytes.len() != expected {
            return Err(NetworkError::Length {
                found: bytes.len(),
                expected,
            });
        }
        let mut i16s = bytes[HEADER..HEADER + feature_bytes]
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]));
        let mut feature_weights = vec![[0i16; HIDDEN]; INPUTS].into_boxed_slice();
        for w in feature_weights.iter_mut().flatten() {
            *w = i16s.next().unwrap();
        }
        let mut feature_bias = [0i16; HIDDEN];
        feature_bias
            .iter_mut()
            .for_each(|b| *b = i16s.next().unwrap());
        let f32s: Vec<f32> = bytes[HEADER + feature_bytes..]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let (weights, biases) = f32s.split_at(buckets * 2 * HIDDEN);
        let outputs = weights
            .chunks_exact(2 * HIDDEN)
            .zip(biases)
            .map(|(weights, &bias)| OutputLayer::quantise(weights, bias))
            .collect();
        Ok(Network {
            feature_weights: feature_weights.try_into().expect("INPUTS rows"),
            feature_bias,
            outputs,
        })
    }

    /// The output bucket of a position with `pieces` pieces (kings
    /// included): the range 2..=32 split evenly between the buckets.
    fn bucket(&self, pieces: u32) -> usize {
        let buckets = self.outputs.len();
        ((pieces.saturating_sub(2) as usize) * buckets / 31).min(buckets - 1)
    }

    /// The score of `board`, whose hidden layer is `acc`, in centipawns
    /// from the side to move's point of view.
    pub fn evaluate(&self, acc: &Accumulator, board: &Board) -> i32 {
        let side_to_move = board.side_to_move();
        let us = &acc.values[side_to_move as usize];
        let them = &acc.values[!side_to_move as usize];
        let output = &self.outputs[self.bucket(board.occupied().len())];
        let sum = kernels::output_sum(us, them, &output.weights);
        (sum as f32 * output.unit + output.bias) as i32
    }
}

impl OutputLayer {
    /// Quantises one bucket's float weights (side to move's half first).
    fn quantise(float_weights: &[f32], bias: f32) -> Self {
        let factor = output_scale(float_weights);
        let mut weights = [[0i16; HIDDEN]; 2];
        for (w, f) in weights.iter_mut().flatten().zip(float_weights) {
            *w = (f * factor).round() as i16;
        }
        OutputLayer {
            weights,
            bias,
            unit: 1.0 / (factor * f32::from(QA) * f32::from(QA)),
        }
    }
}

/// The factor the output weights are quantised by: as fine as it can be
/// while `clamp(x) × w` fits an `i16` and the whole sum an `i32`.
fn output_scale(weights: &[f32]) -> f32 {
    let largest = weights.iter().fold(0f32, |m, w| m.max(w.abs()));
    let total: f32 = weights.iter().map(|w| w.abs()).sum();
    let unit = f32::from(QA) * f32::from(QA);
    // Just inside both bounds, so that rounding cannot cross them.
    0.999 * (f32::from(i16::MAX) / f32::from(QA) / largest).min(i32::MAX as f32 / unit / total)
}

/// Input index of `piece` of `color` on `square`, seen from `perspective`.
fn input(perspective: Color, color: Color, piece: Piece, square: Square) -> usize {
    let (relative, square) = match perspective {
        Color::White => (color as usize, square as usize),
        Color::Black => (!color as usize, square as usize ^ 56),
    };
    relative * 384 + piece as usize * 64 + square
}

type Feature = (Color, Piece, Square);

/// The pieces a move took away and put down: at most two of each (castling).
#[derive(Clone, Copy, Default)]
pub struct Delta {
    removed: [Option<Feature>; 2],
    added: [Option<Feature>; 2],
}

impl Delta {
    /// The feature-weight rows each perspective loses and gains.
    fn rows<'n>(&self, net: &'n Network) -> [Changes<'n>; 2] {
        let rows = |perspective: Color, features: &[Option<Feature>; 2]| {
            features.map(|f| {
                f.map(|(color, piece, square)| {
                    &net.feature_weights[input(perspective, color, piece, square)]
                })
            })
        };
        Color::ALL.map(|perspective| Changes {
            removed: rows(perspective, &self.removed),
            added: rows(perspective, &self.added),
        })
    }

    /// What changed from `parent` to `child`, one move (or a null move) on.
    pub fn between(parent: &Board, child: &Board) -> Self {
        let mut delta = Delta::default();
        let (mut removed, mut added) = (0, 0);
        for color in Color::ALL {
            let before = parent.colors(color);
            let after = child.colors(color);
            for piece in Piece::ALL {
                let was = before & parent.pieces(piece);
                let is = after & child.pieces(piece);
                if was == is {
                    continue;
                }
                for square in was & !is {
                    delta.removed[removed] = Some((color, piece, square));
                    removed += 1;
                }
                for square in is & !was {
                    delta.added[added] = Some((color, piece, square));
                    added += 1;
                }
            }
        }
        delta
    }
}

/// The hidden layer of one position, for both perspectives (by [`Color`]).
#[derive(Clone)]
#[repr(align(64))]
pub struct Accumulator {
    values: [[i16; HIDDEN]; 2],
}

impl Accumulator {
    /// Computes the hidden layer of `board` from scratch.
    pub fn new(net: &Network, board: &Board) -> Self {
        let mut acc = Accumulator {
            values: [net.feature_bias; 2],
        };
        for color in Color::ALL {
            for piece in Piece::ALL {
                for square in board.colored_pieces(color, piece) {
                    acc.add(net, color, piece, square);
                }
            }
        }
        acc
    }

    /// Sets `self` to the hidden layer of the position `delta` leads to
    /// from the one whose hidden layer is `parent`.
    pub fn apply(&mut self, net: &Network, parent: &Accumulator, delta: &Delta) {
        kernels::update(&mut self.values, &parent.values, &delta.rows(net));
    }

    fn add(&mut self, net: &Network, color: Color, piece: Piece, square: Square) {
        for perspective in Color::ALL {
            let weights = &net.feature_weights[input(perspective, color, piece, square)];
            kernels::add_row(&mut self.values[perspective as usize], weights);
        }
    }
}

type Row = [i16; HIDDEN];

/// The feature-weight rows one perspective's hidden layer loses and gains.
struct Changes<'a> {
    removed: [Option<&'a Row>; 2],
    added: [Option<&'a Row>; 2],
}

/// The loops that run at every evaluated node, written once and compiled
/// twice: for the build's baseline CPU and, where the CPU has it, for AVX2
/// (twice the lanes), chosen at run time.
mod kernels {
    use super::{Changes, Row, HIDDEN, QA};

    /// `dst[p] = src[p] − removed rows + added rows`, for both perspectives.
    pub fn update(dst: &mut [Row; 2], src: &[Row; 2], changes: &[Changes; 2]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { update_avx2(dst, src, changes) };
        }
        update_portable(dst, src, changes)
    }

    /// `Σ clamp(x, 0, QA)² × w` over the side to move's half (`us`) and the
    /// other side's (`them`).
    pub fn output_sum(us: &Row, them: &Row, weights: &[Row; 2]) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { output_sum_avx2(us, them, weights) };
        }
        output_sum_portable(us, them, weights)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn update_avx2(dst: &mut [Row; 2], src: &[Row; 2], changes: &[Changes; 2]) {
        update_portable(dst, src, changes)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn output_sum_avx2(us: &Row, them: &Row, weights: &[Row; 2]) -> i32 {
        output_sum_portable(us, them, weights)
    }

    #[inline(always)]
    pub(super) fn update_portable(dst: &mut [Row; 2], src: &[Row; 2], changes: &[Changes; 2]) {
        for ((dst, src), change) in dst.iter_mut().zip(src).zip(changes) {
            // One pass over the units for the usual shapes of a move.
            match (change.removed, change.added) {
                ([Some(s), None], [Some(a), None]) => {
                    for i in 0..HIDDEN {
                        dst[i] = src[i] + a[i] - s[i];
                    }
                }
                ([Some(s1), Some(s2)], [Some(a), None]) => {
                    for i in 0..HIDDEN {
                        dst[i] = src[i] + a[i] - s1[i] - s2[i];
                    }
                }
                (removed, added) => {
                    *dst = *src;
                    for s in removed.into_iter().flatten() {
                        sub_row(dst, s);
                    }
                    for a in added.into_iter().flatten() {
                        add_row(dst, a);
                    }
                }
            }
        }
    }

    /// `clamp(x) × w` fits an `i16` (`output_scale`), so this compiles to a
    /// multiply and a multiply-add per vector of units.
    #[inline(always)]
    pub(super) fn output_sum_portable(us: &Row, them: &Row, weights: &[Row; 2]) -> i32 {
        let dot = |values: &Row, weights: &Row| -> i32 {
            values
                .iter()
                .zip(weights)
                .map(|(&v, &w)| {
                    let x = v.clamp(0, QA);
                    i32::from(x * w) * i32::from(x)
                })
                .sum()
        };
        dot(us, &weights[0]) + dot(them, &weights[1])
    }

    /// Adds a feature's weights: the full refresh (once per search) and the
    /// rarer shapes of an update (castling, a null move).
    #[inline(always)]
    pub fn add_row(values: &mut Row, weights: &Row) {
        values.iter_mut().zip(weights).for_each(|(v, w)| *v += w);
    }

    /// Takes a feature's weights away (the rarer shapes of an update).
    #[inline(always)]
    fn sub_row(values: &mut Row, weights: &Row) {
        values.iter_mut().zip(weights).for_each(|(v, w)| *v -= w);
    }
}

/// Evaluates `board` with the bundled network from scratch, in centipawns
/// from the side to move's point of view.
pub fn evaluate(board: &Board) -> i32 {
    let net = Network::bundled();
    net.evaluate(&Accumulator::new(net, board), board)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FENS: [&str; 4] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
        "r1bqkbnr/pP1p1ppp/2n5/4p3/2p5/8/PP1PPPPP/RNBQKBNR w KQkq - 0 5",
    ];

    /// Every legal move's incrementally updated hidden layer equals the one
    /// computed from scratch: captures, castling, en passant, promotions.
    #[test]
    fn incremental_update_matches_a_full_refresh() {
        let net = Network::bundled();
        let mut moves_seen = 0;
        for fen in FENS
            .into_iter()
            .chain(["4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"])
        {
            let board: Board = fen.parse().unwrap();
            let parent_acc = Accumulator::new(net, &board);
            let mut child_acc = parent_acc.clone();
            board.generate_moves(|moves| {
                for mv in moves {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    child_acc.apply(net, &parent_acc, &Delta::between(&board, &child));
                    assert_eq!(
                        child_acc.values,
                        Accumulator::new(net, &child).values,
                        "{fen} {mv}"
                    );
                    moves_seen += 1;
                }
                false
            });
        }
        assert!(moves_seen > 100);
    }

    /// Where this CPU runs the AVX2 kernels, they agree with the portable
    /// ones on every legal move's update and evaluation.
    #[test]
    fn vector_kernels_match_the_portable_ones() {
        let net = Network::bundled();
        for fen in FENS {
            let board: Board = fen.parse().unwrap();
            let parent = Accumulator::new(net, &board);
            let (mut vector, mut portable) = (parent.clone(), parent.clone());
            board.generate_moves(|moves| {
                for mv in moves {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    let changes = Delta::between(&board, &child).rows(net);
                    kernels::update(&mut vector.values, &parent.values, &changes);
                    kernels::update_portable(&mut portable.values, &parent.values, &changes);
                    assert_eq!(vector.values, portable.values, "{fen} {mv}");
                    let [us, them] = &vector.values;
                    for output in &net.outputs {
                        assert_eq!(
                            kernels::output_sum(us, them, &output.weights),
                            kernels::output_sum_portable(us, them, &output.weights),
                            "{fen} {mv}"
                        );
                    }
                }
                false
            });
        }
    }

    /// Mirroring the board and swapping the colours swaps the perspectives,
    /// so the side to move's score is the same.
    #[test]
    fn colour_flipped_positions_score_the_same() {
        for fen in FENS {
            let board: Board = fen.parse().unwrap();
            let flipped = mirror(&board);
            assert_eq!(evaluate(&board), evaluate(&flipped), "{fen}");
        }
    }

    /// The network knows material: taking a knight or a queen away from
    /// either side of the starting position moves the score the right way,
    /// and a queen more than a knight.
    #[test]
    fn material_orders_the_scores() {
        let scores: Vec<i32> = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ]
        .iter()
        .map(|fen| evaluate(&fen.parse().unwrap()))
        .collect();
        assert!(scores.windows(2).all(|w| w[0] < w[1]), "{scores:?}");
        assert!(scores[0] < -500 && scores[4] > 500, "{scores:?}");
    }

    #[test]
    fn quantised_output_weights_cannot_overflow() {
        for output in &Network::bundled().outputs {
            let weights = output.weights.iter().flatten();
            assert!(weights
                .clone()
                .all(|&w| i32::from(w.abs()) * i32::from(QA) <= i32::from(i16::MAX)));
            let total: i64 = weights.clone().map(|&w| i64::from(w.abs())).sum();
            assert!(total * i64::from(QA) * i64::from(QA) <= i64::from(i32::MAX));
            // Fine enough: the largest weight uses most of its range.
            assert!(weights
                .clone()
                .any(|&w| i32::from(w.abs()) * i32::from(QA) > 30_000));
        }
    }

    /// The buckets split 2..=32 pieces evenly and in order.
    #[test]
    fn buckets_follow_the_piece_count() {
        let net = Network::bundled();
        let buckets: Vec<usize> = (2..=32).map(|n| net.bucket(n)).collect();
        assert_eq!(buckets[0], 0);
        assert_eq!(*buckets.last().unwrap(), net.outputs.len() - 1);
        assert!(buckets.windows(2).all(|w| w[1] - w[0] <= 1));
    }

    #[test]
    fn malformed_files_are_refused() {
        assert_eq!(Network::parse(b"nope").err(), Some(NetworkError::BadMagic));
        let mut bytes = BUNDLED.to_vec();
        bytes.pop();
        assert!(matches!(
            Network::parse(&bytes),
            Err(NetworkError::Length { .. })
        ));
        bytes = BUNDLED.to_vec();
        bytes[8] = 7;
        assert!(matches!(
            Network::parse(&bytes),
            Err(NetworkError::HiddenSize(_))
        ));
        bytes = BUNDLED.to_vec();
        bytes[12] = 0;
        assert_eq!(Network::parse(&bytes).err(), Some(NetworkError::Buckets(0)));
    }

    fn mirror(board: &Board) -> Board {
        let fen = board.to_string();
        let mut fields: Vec<String> = fen.split(' ').map(str::to_owned).collect();
        let swap = |c: char| {
            if c.is_ascii_uppercase() {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        };
        fields[0] = fields[0]
            .split('/')
            .rev()
            .collect::<Vec<_>>()
            .join("/")
            .chars()
            .map(swap)
            .collect();
        fields[1] = if fields[1] == "w" { "b" } else { "w" }.to_owned();
        fields[2] = if fields[2] == "-" {
            "-".to_owned()
        } else {
            fields[2].chars().map(swap).collect()
        };
        if fields[3] != "-" {
            let rank = if &fields[3][1..] == "3" { "6" } else { "3" };
            fields[3] = format!("{}{}", &fields[3][..1], rank);
        }
        fields.join(" ").parse().unwrap()
    }
}
