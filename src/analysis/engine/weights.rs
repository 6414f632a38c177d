//! Evaluation weights as middlegame/endgame pairs.
//!
//! Fitted by training/engine-tuning/tune.py (see docs/engine.md, "Tuning") to
//! Stockfish depth-8 scores of 112184 quiet self-play positions
//! (result weight 0),
//! with PIECE_VALUE, PST, MOBILITY_KNIGHT, MOBILITY_BISHOP, MOBILITY_ROOK, MOBILITY_QUEEN, KING_DANGER, BISHOP_PAIR, DOUBLED, ISOLATED, PASSED, ROOK_OPEN, ROOK_SEMI_OPEN, SHIELD_MISSING, THREAT_BY_PAWN, THREAT_BY_MINOR, THREAT_BY_ROOK, HANGING, PASSER_KING_THEIRS, PASSER_KING_OURS, PASSER_FREE, PASSER_SAFE_STOP, UNSTOPPABLE held fixed and ridge 1e-10.
//! Material and piece-square tables started from PeSTO (Ronald Friederich).
//! Regenerate rather than edit by hand.

use super::eval::{s, Term};

/// Material by [`Piece`](cozy_chess::Piece) index.
#[rustfmt::skip]
pub const PIECE_VALUE: [Term; 6] = [
    s(82, 94), s(337, 281), s(365, 297), s(477, 512), s(1025, 936), s(0, 0),
];
/// Piece-square bonus by piece index, from White's side with a8 first.
#[rustfmt::skip]
pub const PST: [[Term; 64]; 6] = [
    [
        s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
        s(98, 178), s(134, 173), s(61, 158), s(95, 134), s(68, 147), s(126, 132), s(34, 165), s(-11, 187),
        s(-6, 94), s(7, 100), s(26, 85), s(31, 67), s(65, 56), s(56, 53), s(25, 82), s(-20, 84),
        s(-14, 32), s(13, 24), s(6, 13), s(21, 5), s(23, -2), s(12, 4), s(17, 17), s(-23, 17),
        s(-27, 13), s(-2, 9), s(-5, -3), s(12, -7), s(17, -7), s(6, -8), s(10, 3), s(-25, -1),
        s(-26, 4), s(-4, 7), s(-4, -6), s(-10, 1), s(3, 0), s(3, -5), s(33, -1), s(-12, -8),
        s(-35, 13), s(-1, 8), s(-20, 8), s(-23, 10), s(-15, 13), s(24, 0), s(38, 2), s(-22, -7),
        s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
    ],
    [
        s(-167, -58), s(-89, -38), s(-34, -13), s(-49, -28), s(61, -31), s(-97, -27), s(-15, -63), s(-107, -99),
        s(-73, -25), s(-41, -8), s(72, -25), s(36, -2), s(23, -9), s(62, -25), s(7, -24), s(-17, -52),
        s(-47, -24), s(60, -20), s(37, 10), s(65, 9), s(84, -1), s(129, -9), s(73, -19), s(44, -41),
        s(-9, -17), s(17, 3), s(19, 22), s(53, 22), s(37, 22), s(69, 11), s(18, 8), s(22, -18),
        s(-13, -18), s(4, -6), s(16, 16), s(13, 25), s(28, 16), s(19, 17), s(21, 4), s(-8, -18),
        s(-23, -23), s(-9, -3), s(12, -1), s(10, 15), s(19, 10), s(17, -3), s(25, -20), s(-16, -22),
        s(-29, -42), s(-53, -20), s(-12, -10), s(-3, -5), s(-1, -2), s(18, -20), s(-14, -23), s(-19, -44),
        s(-105, -29), s(-21, -51), s(-58, -23), s(-33, -15), s(-17, -22), s(-28, -18), s(-19, -50), s(-23, -64),
    ],
    [
        s(-29, -14), s(4, -21), s(-82, -11), s(-37, -8), s(-25, -7), s(-42, -9), s(7, -17), s(-8, -24),
        s(-26, -8), s(16, -4), s(-18, 7), s(-13, -12), s(30, -3), s(59, -13), s(18, -4), s(-47, -14),
        s(-16, 2), s(37, -8), s(43, 0), s(40, -1), s(35, -2), s(50, 6), s(37, 0), s(-2, 4),
        s(-4, -3), s(5, 9), s(19, 12), s(50, 9), s(37, 14), s(37, 10), s(7, 3), s(-2, 2),
        s(-6, -6), s(13, 3), s(13, 13), s(26, 19), s(34, 7), s(12, 10), s(10, -3), s(4, -9),
        s(0, -12), s(15, -3), s(15, 8), s(15, 10), s(14, 13), s(27, 3), s(18, -7), s(10, -15),
        s(4, -14), s(15, -18), s(16, -7), s(0, -1), s(7, 4), s(21, -9), s(33, -15), s(1, -27),
        s(-33, -23), s(-3, -9), s(-14, -23), s(-21, -5), s(-13, -9), s(-12, -16), s(-39, -5), s(-21, -17),
    ],
    [
        s(32, 13), s(42, 10), s(32, 18), s(51, 15), s(63, 12), s(9, 12), s(31, 8), s(43, 5),
        s(27, 11), s(32, 13), s(58, 13), s(62, 11), s(80, -3), s(67, 3), s(26, 8), s(44, 3),
        s(-5, 7), s(19, 7), s(26, 7), s(36, 5), s(17, 4), s(45, -3), s(61, -5), s(16, -3),
        s(-24, 4), s(-11, 3), s(7, 13), s(26, 1), s(24, 2), s(35, 1), s(-8, -1), s(-20, 2),
        s(-36, 3), s(-26, 5), s(-12, 8), s(-1, 4), s(9, -5), s(-7, -6), s(6, -8), s(-23, -11),
        s(-45, -4), s(-25, 0), s(-16, -5), s(-17, -1), s(3, -7), s(0, -12), s(-5, -8), s(-33, -16),
        s(-44, -6), s(-16, -6), s(-20, 0), s(-9, 2), s(-1, -9), s(11, -9), s(-6, -11), s(-71, -3),
        s(-19, -9), s(-13, 2), s(1, 3), s(17, -1), s(16, -5), s(7, -13), s(-37, 4), s(-26, -20),
    ],
    [
        s(-28, -9), s(0, 22), s(29, 22), s(12, 27), s(59, 27), s(44, 19), s(43, 10), s(45, 20),
        s(-24, -17), s(-39, 20), s(-5, 32), s(1, 41), s(-16, 58), s(57, 25), s(28, 30), s(54, 0),
        s(-13, -20), s(-17, 6), s(7, 9), s(8, 49), s(29, 47), s(56, 35), s(47, 19), s(57, 9),
        s(-27, 3), s(-27, 22), s(-16, 24), s(-16, 45), s(-1, 57), s(17, 40), s(-2, 57), s(1, 36),
        s(-9, -18), s(-26, 28), s(-9, 19), s(-10, 47), s(-2, 31), s(-4, 34), s(3, 39), s(-3, 23),
        s(-14, -16), s(2, -27), s(-11, 15), s(-2, 6), s(-5, 9), s(2, 17), s(14, 10), s(5, 5),
        s(-35, -22), s(-8, -23), s(11, -30), s(2, -16), s(8, -16), s(15, -23), s(-3, -36), s(1, -32),
        s(-1, -33), s(-18, -28), s(-9, -22), s(10, -43), s(-15, -5), s(-25, -32), s(-31, -20), s(-50, -41),
    ],
    [
        s(-65, -74), s(23, -35), s(16, -18), s(-15, -18), s(-56, -11), s(-34, 15), s(2, 4), s(13, -17),
        s(29, -12), s(-1, 17), s(-20, 14), s(-7, 17), s(-8, 17), s(-4, 38), s(-38, 23), s(-29, 11),
        s(-9, 10), s(24, 17), s(2, 23), s(-16, 15), s(-20, 20), s(6, 45), s(22, 44), s(-22, 13),
        s(-17, -8), s(-20, 22), s(-12, 24), s(-27, 27), s(-30, 26), s(-25, 33), s(-14, 26), s(-36, 3),
        s(-49, -18), s(-1, -4), s(-27, 21), s(-39, 24), s(-46, 27), s(-44, 23), s(-33, 9), s(-51, -11),
        s(-14, -19), s(-14, -3), s(-22, 11), s(-46, 21), s(-44, 23), s(-30, 16), s(-15, 7), s(-27, -9),
        s(1, -27), s(7, -11), s(-8, 4), s(-64, 13), s(-43, 14), s(-16, 4), s(9, -5), s(8, -17),
        s(-15, -53), s(36, -34), s(12, -21), s(-54, -11), s(8, -28), s(-28, -14), s(24, -24), s(14, -43),
    ],
];
/// By the number of safe squares a knight reaches.
#[rustfmt::skip]
pub const MOBILITY_KNIGHT: [Term; 9] = [
    s(-16, -16), s(-12, -12), s(-8, -8), s(-4, -4), s(0, 0), s(4, 4), s(8, 8), s(12, 12),
    s(16, 16),
];
/// By the number of safe squares a bishop reaches.
#[rustfmt::skip]
pub const MOBILITY_BISHOP: [Term; 14] = [
    s(-30, -30), s(-25, -25), s(-20, -20), s(-15, -15), s(-10, -10), s(-5, -5), s(0, 0), s(5, 5),
    s(10, 10), s(15, 15), s(20, 20), s(25, 25), s(30, 30), s(35, 35),
];
/// By the number of safe squares a rook reaches.
#[rustfmt::skip]
pub const MOBILITY_ROOK: [Term; 15] = [
    s(-12, -24), s(-10, -20), s(-8, -16), s(-6, -12), s(-4, -8), s(-2, -4), s(0, 0), s(2, 4),
    s(4, 8), s(6, 12), s(8, 16), s(10, 20), s(12, 24), s(14, 28), s(16, 32),
];
/// By the number of safe squares a queen reaches.
#[rustfmt::skip]
pub const MOBILITY_QUEEN: [Term; 28] = [
    s(-12, -24), s(-11, -22), s(-10, -20), s(-9, -18), s(-8, -16), s(-7, -14), s(-6, -12), s(-5, -10),
    s(-4, -8), s(-3, -6), s(-2, -4), s(-1, -2), s(0, 0), s(1, 2), s(2, 4), s(3, 6),
    s(4, 8), s(5, 10), s(6, 12), s(7, 14), s(8, 16), s(9, 18), s(10, 20), s(11, 22),
    s(12, 24), s(13, 26), s(14, 28), s(15, 30),
];
/// Attack on the enemy king by attack units (capped), with two or more attackers.
#[rustfmt::skip]
pub const KING_DANGER: [Term; 50] = [
    s(0, 0), s(0, 0), s(0, 0), s(1, 0), s(2, 0), s(4, 0), s(6, 0), s(8, 0),
    s(10, 0), s(13, 0), s(16, 0), s(20, 0), s(24, 0), s(28, 0), s(32, 0), s(37, 0),
    s(42, 0), s(48, 0), s(54, 0), s(60, 0), s(66, 0), s(73, 0), s(80, 0), s(88, 0),
    s(96, 0), s(104, 0), s(112, 0), s(121, 0), s(130, 0), s(140, 0), s(150, 0), s(160, 0),
    s(170, 0), s(181, 0), s(192, 0), s(204, 0), s(216, 0), s(228, 0), s(240, 0), s(253, 0),
    s(266, 0), s(280, 0), s(294, 0), s(308, 0), s(322, 0), s(337, 0), s(352, 0), s(368, 0),
    s(384, 0), s(400, 0),
];
/// Two or more bishops.
pub const BISHOP_PAIR: Term = s(30, 50);
/// A pawn with a friendly pawn in front of it on its file.
pub const DOUBLED: Term = s(-10, -20);
/// A pawn with no friendly pawn on an adjacent file.
pub const ISOLATED: Term = s(-10, -12);
/// A passed pawn by its relative rank.
#[rustfmt::skip]
pub const PASSED: [Term; 8] = [
    s(0, 0), s(0, 5), s(0, 10), s(5, 20), s(15, 40), s(30, 70), s(50, 110), s(0, 0),
];
/// A rook on a file without pawns.
pub const ROOK_OPEN: Term = s(25, 10);
/// A rook on a file with enemy pawns only.
pub const ROOK_SEMI_OPEN: Term = s(10, 5);
/// Each missing shield pawn in front of a king on its first two ranks.
pub const SHIELD_MISSING: Term = s(-12, 0);
/// An enemy piece (not a pawn or king) attacked by a pawn.
pub const THREAT_BY_PAWN: Term = s(55, 35);
/// An enemy rook or queen attacked by a knight or bishop.
pub const THREAT_BY_MINOR: Term = s(35, 25);
/// An enemy queen attacked by a rook.
pub const THREAT_BY_ROOK: Term = s(30, 15);
/// An enemy piece (not a pawn or king) attacked, not by a pawn, and undefended.
pub const HANGING: Term = s(30, 15);
/// A passed pawn: per weight unit and square of the enemy king's distance to its stop square.
pub const PASSER_KING_THEIRS: Term = s(2, 5);
/// A passed pawn: per weight unit and square of the own king's distance to its stop square.
pub const PASSER_KING_OURS: Term = s(-2, -7);
/// A passed pawn: per weight unit, when no enemy piece stands on or attacks its way to promotion.
pub const PASSER_FREE: Term = s(-19, 24);
/// A passed pawn: per weight unit, when only its stop square is free and unattacked.
pub const PASSER_SAFE_STOP: Term = s(-2, 19);
/// A passed pawn the enemy king cannot catch, against a side with no pieces.
pub const UNSTOPPABLE: Term = s(14, 216);
/// A pawn defended by a pawn or with one beside it, by its relative rank.
#[rustfmt::skip]
pub const CONNECTED: [Term; 8] = [
    s(0, 0), s(1, 2), s(0, 6), s(12, -1), s(26, -1), s(25, 33), s(147, 18), s(0, 0),
];
/// A pawn that no friendly pawn can come to defend, whose stop square an enemy pawn guards.
pub const BACKWARD: Term = s(-11, 5);
/// A knight on an outpost: on its fourth to sixth rank, defended by a pawn, out of reach of enemy pawns.
pub const OUTPOST_KNIGHT: Term = s(21, 6);
/// A bishop on an outpost.
pub const OUTPOST_BISHOP: Term = s(19, 2);
/// Bonus for the side to move, added after tapering.
pub const TEMPO: i32 = 13;
