"""Reads and writes src/analysis/engine/weights.rs, the evaluation's parameter table.

Every weight is a middlegame/endgame pair `s(mg, eg)` except `TEMPO`. The
parameter vector is the flat list of pairs in `SPEC` order, as
`[mg0, eg0, mg1, eg1, ...]`, followed by `TEMPO`.
"""
import re

import numpy as np

# (name, shape) in file order; shape () is a single pair.
SPEC = [
    ("PIECE_VALUE", (6,)),
    ("PST", (6, 64)),
    ("MOBILITY_KNIGHT", (9,)),
    ("MOBILITY_BISHOP", (14,)),
    ("MOBILITY_ROOK", (15,)),
    ("MOBILITY_QUEEN", (28,)),
    ("KING_DANGER", (50,)),
    ("BISHOP_PAIR", ()),
    ("DOUBLED", ()),
    ("ISOLATED", ()),
    ("PASSED", (8,)),
    ("ROOK_OPEN", ()),
    ("ROOK_SEMI_OPEN", ()),
    ("SHIELD_MISSING", ()),
    ("THREAT_BY_PAWN", ()),
    ("THREAT_BY_MINOR", ()),
    ("THREAT_BY_ROOK", ()),
    ("HANGING", ()),
    ("PASSER_KING_THEIRS", ()),
    ("PASSER_KING_OURS", ()),
    ("PASSER_FREE", ()),
    ("PASSER_SAFE_STOP", ()),
    ("UNSTOPPABLE", ()),
    ("CONNECTED", (8,)),
    ("BACKWARD", ()),
    ("OUTPOST_KNIGHT", ()),
    ("OUTPOST_BISHOP", ()),
]

DOCS = {
    "PIECE_VALUE": "Material by [`Piece`](cozy_chess::Piece) index.",
    "PST": "Piece-square bonus by piece index, from White's side with a8 first.",
    "MOBILITY_KNIGHT": "By the number of safe squares a knight reaches.",
    "MOBILITY_BISHOP": "By the number of safe squares a bishop reaches.",
    "MOBILITY_ROOK": "By the number of safe squares a rook reaches.",
    "MOBILITY_QUEEN": "By the number of safe squares a queen reaches.",
    "KING_DANGER": "Attack on the enemy king by attack units (capped), with two or more attackers.",
    "BISHOP_PAIR": "Two or more bishops.",
    "DOUBLED": "A pawn with a friendly pawn in front of it on its file.",
    "ISOLATED": "A pawn with no friendly pawn on an adjacent file.",
    "PASSED": "A passed pawn by its relative rank.",
    "ROOK_OPEN": "A rook on a file without pawns.",
    "ROOK_SEMI_OPEN": "A rook on a file with enemy pawns only.",
    "SHIELD_MISSING": "Each missing shield pawn in front of a king on its first two ranks.",
    "THREAT_BY_PAWN": "An enemy piece (not a pawn or king) attacked by a pawn.",
    "THREAT_BY_MINOR": "An enemy rook or queen attacked by a knight or bishop.",
    "THREAT_BY_ROOK": "An enemy queen attacked by a rook.",
    "HANGING": "An enemy piece (not a pawn or king) attacked, not by a pawn, and undefended.",
    "PASSER_KING_THEIRS": "A passed pawn: per weight unit and square of the enemy king's distance to its stop square.",
    "PASSER_KING_OURS": "A passed pawn: per weight unit and square of the own king's distance to its stop square.",
    "PASSER_FREE": "A passed pawn: per weight unit, when no enemy piece stands on or attacks its way to promotion.",
    "PASSER_SAFE_STOP": "A passed pawn: per weight unit, when only its stop square is free and unattacked.",
    "UNSTOPPABLE": "A passed pawn the enemy king cannot catch, against a side with no pieces.",
    "CONNECTED": "A pawn defended by a pawn or with one beside it, by its relative rank.",
    "BACKWARD": "A pawn that no friendly pawn can come to defend, whose stop square an enemy pawn guards.",
    "OUTPOST_KNIGHT": "A knight on an outpost: on its fourth to sixth rank, defended by a pawn, out of reach of enemy pawns.",
    "OUTPOST_BISHOP": "A bishop on an outpost.",
}


def size(shape):
    return int(np.prod(shape)) if shape else 1


def offsets():
    """Index of the first pair of each named weight in the parameter vector."""
    out, at = {}, 0
    for name, shape in SPEC:
        out[name] = at
        at += 2 * size(shape)
    out["TEMPO"] = at
    return out, at + 1


def read(path):
    text = open(path).read()
    values = []
    for name, shape in SPEC:
        block = re.search(rf"const {name}: [^=]+= (.*?);\n", text, re.S).group(1)
        pairs = re.findall(r"s\((-?\d+), (-?\d+)\)", block)
        assert len(pairs) == size(shape), name
        values += [int(v) for pair in pairs for v in pair]
    values.append(int(re.search(r"const TEMPO: i32 = (-?\d+);", text).group(1)))
    return np.array(values, dtype=np.float64)


def write(path, params, header):
    params = [int(round(v)) for v in params]
    lines = [
        "//! Evaluation weights as middlegame/endgame pairs.",
        "//!",
    ]
    lines += [f"//! {h}" if h else "//!" for h in header]
    lines += ["", "use super::eval::{s, Term};", ""]
    at = 0
    for name, shape in SPEC:
        n = size(shape)
        pairs = [f"s({params[at + 2 * i]}, {params[at + 2 * i + 1]})" for i in range(n)]
        at += 2 * n
        lines.append(f"/// {DOCS[name]}")
        if not shape:
            lines.append(f"pub const {name}: Term = {pairs[0]};")
            continue
        if len(shape) == 1:
            lines.append("#[rustfmt::skip]")
            lines.append(f"pub const {name}: [Term; {n}] = [")
            lines += ["    " + " ".join(p + "," for p in pairs[i : i + 8]) for i in range(0, n, 8)]
        else:
            lines.append("#[rustfmt::skip]")
            lines.append(f"pub const {name}: [[Term; {shape[1]}]; {shape[0]}] = [")
            for r in range(shape[0]):
                lines.append("    [")
                row = pairs[r * shape[1] : (r + 1) * shape[1]]
                lines += ["        " + " ".join(p + "," for p in row[i : i + 8]) for i in range(0, len(row), 8)]
                lines.append("    ],")
        lines.append("];")
    lines.append("/// Bonus for the side to move, added after tapering.")
    lines.append(f"pub const TEMPO: i32 = {params[at]};")
    open(path, "w").write("\n".join(lines) + "\n")
