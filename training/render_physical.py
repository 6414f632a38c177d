"""Render photos of physical chessboards with standing 3D pieces (POV-Ray), with
known FENs, board corners and cameras, for training and measuring a classifier
of photographed boards. Heavily domain-randomised: board colours and materials,
border, table, background, lights, piece materials, piece shapes, camera.

Usage:
  python3 training/render_physical.py OUT --count N --seed S \
      [--sets chess2,brutal,dream] [--workers N] [--size 640x480]
      [--style-seed S] [--start] [--marks P]

Piece sets: `chess2` (the CSG pieces of POV-Ray's example advanced/chess2.pov),
`brutal` (brutalchess's OBJ meshes), `dream` (DreamChess's classic .dcm meshes);
meshes are converted to POV-Ray mesh2 once (obj_to_pov.py) and cached in
OUT/_cache/.

Writes OUT/NNNNN.png (RGB) with a sidecar OUT/NNNNN.json each, and rebuilds from
the sidecars OUT/labels.csv (`file,fen,view,kind`, kind physical_render_<set>),
OUT/corners.csv (`file,a8x,a8y,h8x,h8y,h1x,h1y,a1x,a1y`: outer corners of the
8x8 area in pixels, x right, y down, pixel (0,0) covering [0,1)x[0,1)) and
OUT/camera.csv (`file,focal_px,cx,cy,elevation_deg,azimuth_deg,set`; azimuth 0
is behind White, 90 beyond the h-file, 180 behind Black). Picture i draws
everything from np.random.default_rng([seed, i]), so results do not depend on
--workers or on resuming; a rerun skips finished pictures.

Scene frame: 1 unit = 1 square, board centre at the origin, y up (POV-Ray's
left-handed frame), files along +x (a-file at x = -4..-3), ranks along +z
(rank 1 at z = -4..-3), playing surface at y = 0.

Needs Debian's povray and povray-examples (for chess2), brutalchess (brutal),
dreamchess-data (dream). Costs about 2.5 s of one CPU core a picture at 640x480
(1-6 s; soft shadows cost most; povray +WT1 +A0.3 +R2, no focal blur, no
radiosity), i.e. about 1.3 s a picture on 2 cores; the run prints its mean.
"""

import argparse
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import chess
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_testdata import write_csv  # noqa: E402
from obj_to_pov import convert_set  # noqa: E402

CHESS2 = Path("/usr/share/doc/povray/examples/advanced/chess2.pov")
BRUTAL = Path("/usr/share/games/brutalchess/models")
DREAM = Path("/usr/share/games/dreamchess/pieces/classic")
INCLUDE = Path("/usr/share/povray-3.7/include")
ALL_SETS = ("chess2", "brutal", "dream")
TYPES = "PNBRQK"
NAMES = dict(P="Pawn", N="Knight", B="Bishop", R="Rook", Q="Queen", K="King")
# Heights relative to the king, tournament Staunton (king 95 mm).
STAUNTON = dict(P=0.53, R=0.60, N=0.68, B=0.76, Q=0.89, K=1.0)
PREFIX = dict(chess2="C2", brutal="Br", dream="Dr")
CORNERS = dict(a8=(-4, 4), h8=(4, 4), h1=(4, -4), a1=(-4, -4))


# ---------------------------------------------------------------- piece sets

def chess2_include():
    """chess2.pov's piece declarations, renamed C2*, without their green felt
    pigment, with King and Queen bounded (their inverse CSG is unbounded).
    Heights and base radii in its units (a square is 8)."""
    text = CHESS2.read_text()
    decl = text[text.index("#declare PawnBase"):text.index("#declare WWood")]
    decl = decl.replace("pigment { green 0.65 }", "")
    for name in ("QueenAndKing", "PawnBase", "PieceBase", "Pawn", "Rook", "Knight",
                 "Bishop", "Queen", "King"):
        decl = re.sub(rf"\b{name}\b", "C2" + name + "_", decl)
    out = ['#include "shapes.inc"', decl]
    heights = dict(P=8.5, R=10.0, N=10.8, B=11.2, Q=12.7, K=13.5)
    tops = dict(heights, N=11.0)  # bounding heights (the knight's is its bounding box)
    for t in TYPES:
        r = 2.5 if t == "P" else 3.0
        out.append(f"#declare C2{NAMES[t]} = intersection {{ object {{ C2{NAMES[t]}_ }} "
                   f"box {{ <{-r - .01}, -0.01, {-r - .01}>, <{r + .01}, {tops[t] + .05}, "
                   f"{r + .01}> }} }}")
    dims = {t: (heights[t], 2.5 if t == "P" else 3.0) for t in TYPES}
    return "\n".join(out) + "\n", dims


def mesh_include(name):
    if name == "brutal":
        files = {t: BRUTAL / f"{NAMES[t].lower()}.obj" for t in TYPES}
    else:
        files = {t: DREAM / f"{NAMES[t].lower()}.dcm" for t in TYPES}
    return convert_set(files, PREFIX[name])


def prepare_sets(out, sets):
    """Write OUT/_cache/<set>.inc and .json (piece dimensions) where missing;
    returns set -> {type: (height, base radius)}."""
    cache = out / "_cache"
    cache.mkdir(exist_ok=True)
    dims = {}
    for s in sets:
        inc, meta = cache / f"{s}.inc", cache / f"{s}.json"
        if not (inc.exists() and meta.exists()):
            text, d = chess2_include() if s == "chess2" else mesh_include(s)
            tmp = cache / f".{s}.inc.tmp"
            tmp.write_text(text)
            os.replace(tmp, inc)
            meta.write_text(json.dumps(d))
        dims[s] = {t: tuple(v) for t, v in json.loads(meta.read_text()).items()}
    return dims


def check_sets(sets):
    need = dict(chess2=(CHESS2, "povray-examples"), brutal=(BRUTAL, "brutalchess"),
                dream=(DREAM, "dreamchess-data"))
    for s in sets:
        if s not in need:
            sys.exit(f"unknown set {s!r}; choose from {','.join(ALL_SETS)}")
        if not need[s][0].exists():
            sys.exit(f"{need[s][0]} not found: install Debian's {need[s][1]}")


# ---------------------------------------------------------------- positions

def random_position(rng):
    """A board FEN: 60% random legal play of 0-80 plies; 25% capture-hungry random
    play down to a few pieces (endgame-like); 15% kings plus 1-10 pieces placed at
    random (a legal position)."""
    r = rng.random()
    if r < 0.85:
        board = chess.Board()
        if r < 0.6:
            plies, keep, greed = int(rng.integers(0, 81)), 0, 0.0
        else:
            plies, keep, greed = int(rng.integers(40, 200)), int(rng.integers(3, 16)), 0.8
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves or len(board.piece_map()) <= keep:
                break
            caps = [m for m in moves if board.is_capture(m)]
            pool = caps if caps and rng.random() < greed else moves
            board.push(pool[int(rng.integers(len(pool)))])
        return board.board_fen()
    while True:
        board = chess.Board(None)
        squares = rng.permutation(64)
        board.set_piece_at(int(squares[0]), chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(int(squares[1]), chess.Piece(chess.KING, chess.BLACK))
        k = 2
        for _ in range(int(rng.integers(1, 11))):
            sym = "PPPPNBRQ"[int(rng.integers(8))]
            sym = sym if rng.random() < 0.5 else sym.lower()
            sq = int(squares[k]); k += 1
            if sym in "Pp" and chess.square_rank(sq) in (0, 7):
                continue
            board.set_piece_at(sq, chess.Piece.from_symbol(sym))
        board.turn = bool(rng.random() < 0.5)
        if board.is_valid():
            return board.board_fen()


# ---------------------------------------------------------------- colours

def lin(c):
    """sRGB (0-1) -> linear, for POV-Ray with assumed_gamma 1."""
    c = np.clip(np.asarray(c, float), 0, 1)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def rgb(c):
    a = lin(c)
    return f"rgb <{a[0]:.4f}, {a[1]:.4f}, {a[2]:.4f}>"


def jitter(rng, c, amount=0.04):
    return np.clip(np.asarray(c, float) + rng.uniform(-amount, amount, 3), 0, 1)


def hsv(h, s, v):
    import colorsys
    return np.array(colorsys.hsv_to_rgb(h % 1.0, s, v))


def wood_pigment(rng, c1, c2, scale, upright=True):
    """Wood grain between two sRGB colours: rings about the y axis (turned pieces)
    or, upright=False, about the z axis (planks: stripes along z on a top face)."""
    turn = "rotate x*90 " if upright else ""
    return (f"pigment {{ wood turbulence {rng.uniform(0.02, 0.12):.3f} "
            f"color_map {{ [0 {rgb(c1)}] [0.6 {rgb(c2)}] [1 {rgb(c1)}] }} "
            f"scale <{scale:.4f}, {scale:.4f}, {scale * 8:.4f}> {turn}"
            f"rotate {'z' if upright else 'y'}*{rng.uniform(-4, 4):.2f} }}")


def finish(rng, spec=(0.0, 0.4), rough=(0.01, 0.1), refl=0.0):
    s = rng.uniform(*spec)
    out = f"finish {{ diffuse {rng.uniform(0.55, 0.8):.3f} specular {s:.3f} " \
          f"roughness {rng.uniform(*rough):.4f}"
    if refl > 0:
        out += f" reflection {refl:.3f}"
    return out + " }"


# ---------------------------------------------------------------- board

LIGHT_TAN = [(0.96, 0.96, 0.94), (0.93, 0.90, 0.80), (0.93, 0.87, 0.72), (0.90, 0.82, 0.66),
             (0.94, 0.85, 0.71), (0.87, 0.78, 0.62)]


def square_textures(rng):
    """(style name, light texture maker, dark texture maker, border colour
    candidates); a maker is called per square with the rng and returns a texture."""
    style = rng.choice(["vinyl", "wood", "bw", "blue", "grey", "marble", "brown", "random"],
                       p=[0.30, 0.17, 0.10, 0.08, 0.07, 0.08, 0.10, 0.10])
    light = jitter(rng, LIGHT_TAN[int(rng.integers(len(LIGHT_TAN)))], 0.03)
    gloss = rng.random() < 0.35
    fin = finish(rng, (0.05, 0.45) if gloss else (0.0, 0.12), (0.01, 0.08),
                 refl=rng.uniform(0.01, 0.06) if gloss and rng.random() < 0.5 else 0.0)
    if style == "vinyl":
        dark = jitter(rng, [(0.30, 0.52, 0.33), (0.20, 0.42, 0.28), (0.46, 0.59, 0.34),
                            (0.36, 0.55, 0.40), (0.25, 0.38, 0.25)][int(rng.integers(5))], 0.04)
    elif style == "bw":
        light = jitter(rng, (0.93, 0.93, 0.92), 0.04)
        dark = jitter(rng, (0.08, 0.08, 0.09), 0.05)
    elif style == "blue":
        dark = jitter(rng, [(0.32, 0.48, 0.70), (0.20, 0.33, 0.58), (0.45, 0.60, 0.75)]
                      [int(rng.integers(3))], 0.04)
    elif style == "grey":
        light = jitter(rng, (0.86, 0.86, 0.85), 0.05)
        dark = np.full(3, rng.uniform(0.35, 0.6)) + rng.uniform(-0.02, 0.02, 3)
    elif style == "brown":
        dark = jitter(rng, [(0.71, 0.53, 0.39), (0.55, 0.36, 0.22), (0.62, 0.45, 0.30)]
                      [int(rng.integers(3))], 0.04)
    elif style == "random":
        dark = hsv(rng.random(), rng.uniform(0.2, 0.7), rng.uniform(0.3, 0.65))
    else:
        dark = None

    if style == "wood":
        lc1 = jitter(rng, (0.88, 0.74, 0.52), 0.05)
        dc1 = jitter(rng, [(0.45, 0.27, 0.14), (0.35, 0.20, 0.10), (0.55, 0.35, 0.20)]
                     [int(rng.integers(3))], 0.04)
        grain = rng.uniform(0.05, 0.15)

        def mk(c1):
            c2 = c1 * rng.uniform(0.75, 0.9)

            def tex(r):
                turn = 90 * int(r.integers(2))
                return (f"texture {{ {wood_pigment(r, c1, c2, grain, False)} {fin} "
                        f"rotate y*{turn} translate <{r.uniform(-50, 50):.2f}, 0, "
                        f"{r.uniform(-50, 50):.2f}> }}")
            return tex
        return style, mk(lc1), mk(dc1), (lc1, dc1)
    if style == "marble":
        # chess2.pov's marble and granite tiles, in squares of 1 unit.
        lt = ("texture { pigment { wrinkles turbulence 1.0 colour_map { "
              "[0 rgb 1] [0.7 rgb 1] [0.9 rgb 0.6] [1 rgb 0.21] } "
              "scale <0.075, 0.125, 0.075> rotate -30*y } " + fin + " translate <%.2f, 0, %.2f> }")
        dt = ("texture { pigment { granite scale <0.0375, 0.125, 0.0375> colour_map { "
              "[0 rgb 0] [1 rgb 0.21] } } " + fin + " translate <%.2f, 0, %.2f> }")
        return (style, lambda r: lt % tuple(r.uniform(-50, 50, 2)),
                lambda r: dt % tuple(r.uniform(-50, 50, 2)), (np.full(3, 0.9), np.full(3, 0.15)))

    def flat(c):
        return lambda r: f"texture {{ pigment {{ {rgb(jitter(r, c, 0.008))} }} {fin} }}"
    return style, flat(light), flat(dark), (light, dark)


def board_objects(rng):
    """POV text of the board (squares, border, coordinates) and its thickness and
    margin (in squares)."""
    style, light_tex, dark_tex, (lc, dc) = square_textures(rng)
    thick = rng.uniform(0.005, 0.03) if style in ("vinyl", "random", "blue", "brown") and \
        rng.random() < 0.8 else rng.uniform(0.08, 0.4)
    margin = 0.0 if rng.random() < 0.15 else rng.uniform(0.05, 0.6)
    out = []
    for f in range(8):
        for r in range(8):
            tex = dark_tex(rng) if (f + r) % 2 == 0 else light_tex(rng)  # a1 dark
            x, z = f - 4, r - 4
            out.append(f"box {{ <{x}, {-thick:.4f}, {z}>, <{x + 1}, 0, {z + 1}> {tex} }}")
    if margin > 0:
        if rng.random() < 0.6:
            bc = jitter(rng, lc, 0.03)
            ink = dc
        else:
            bc = jitter(rng, dc * rng.uniform(0.5, 1.0), 0.03)
            ink = lc
        if style == "wood":
            btex = (f"texture {{ {wood_pigment(rng, bc, bc * 0.8, 0.1, False)} "
                    f"{finish(rng, (0.1, 0.4))} }}")
        else:
            btex = f"texture {{ pigment {{ {rgb(bc)} }} {finish(rng, (0, 0.2))} }}"
        m = 4 + margin
        out.append(f"difference {{ box {{ <{-m:.4f}, {-thick:.4f}, {-m:.4f}>, <{m:.4f}, 0, {m:.4f}> }} "
                   f"box {{ <-4, {-thick - 1:.4f}, -4>, <4, 1, 4> }} {btex} }}")
        if margin > 0.22 and rng.random() < 0.6:
            out.append(coordinates(rng, margin, ink))
    return "\n".join(out), thick, margin, style, (lc, dc)


def coordinates(rng, margin, ink):
    """Letters a-h and digits 1-8 printed flat on the border (on one or both sides)."""
    size = min(0.3, margin * rng.uniform(0.35, 0.6))  # glyph height
    font = ["cyrvetic.ttf", "timrom.ttf"][int(rng.integers(2))]
    both = rng.random() < 0.6
    d = 4 + margin / 2
    out = [f"#declare Ink = texture {{ pigment {{ {rgb(ink)} }} finish {{ specular 0.05 }} }}"]

    def glyph(ch, x, z, turn):
        return (f"object {{ Glyph(\"{font}\", \"{ch}\", {size:.3f}) rotate y*{turn} "
                f"translate <{x:.3f}, 0, {z:.3f}> texture {{ Ink }} }}")
    for i in range(8):
        c = -3.5 + i
        out.append(glyph("abcdefgh"[i], c, -d, 0))
        out.append(glyph(str(i + 1), -d, c, 0))
        if both:
            out.append(glyph("abcdefgh"[i], c, d, 180))
            out.append(glyph(str(i + 1), d, c, 180))
    return "\n".join(out)


def printed_marks(rng, ink, paper):
    """POV objects, one a mark printed flat on a square, as real boards carry
    them: a maker's logo (a cluster of dots and leaves), a word or a letter, a
    stamped emblem. None of them is a piece; the classifier must learn to see
    through them."""
    out = []
    for _ in range(int(rng.integers(1, 4))):
        f, r = (int(v) for v in rng.integers(8, size=2))
        x, z = f - 3.5 + rng.uniform(-0.12, 0.12), r - 3.5 + rng.uniform(-0.12, 0.12)
        size = rng.uniform(0.3, 0.75)
        colour = ink if (f + r) % 2 == 1 else paper  # light squares get the dark ink
        if rng.random() < 0.3:
            colour = jitter(rng, (0.1, 0.1, 0.1), 0.05)
        tex = f"texture {{ pigment {{ {rgb(colour)} }} finish {{ specular 0.05 }} }}"
        turn = rng.uniform(0, 360)
        kind = rng.choice(["logo", "word", "emblem"], p=[0.5, 0.25, 0.25])
        if kind == "logo":
            blobs = []
            for k in range(int(rng.integers(3, 9))):
                a = 2 * math.pi * k / 6 + rng.uniform(-0.3, 0.3)
                d = rng.uniform(0.0, 0.35) * size
                rad = rng.uniform(0.06, 0.16) * size
                sx = rng.uniform(0.6, 1.6)
                blobs.append(f"cylinder {{ 0, y*0.002, {rad:.3f} scale <{sx:.2f}, 1, 1> "
                             f"rotate y*{math.degrees(a):.1f} translate <{d * math.cos(a):.3f}, 0, "
                             f"{d * math.sin(a):.3f}> }}")
            if rng.random() < 0.6:  # an outline around it
                rad = 0.5 * size
                blobs.append(f"difference {{ cylinder {{ 0, y*0.002, {rad:.3f} }} "
                             f"cylinder {{ -y, y, {rad * 0.88:.3f} }} }}")
            out.append(f"union {{ {' '.join(blobs)} {tex} rotate y*{turn:.1f} "
                       f"translate <{x:.3f}, 0.0012, {z:.3f}> }}")
        else:
            if kind == "word":
                font = ["cyrvetic.ttf", "timrom.ttf", "crystal.ttf"][int(rng.integers(3))]
                text = "".join(chr(int(c)) for c in rng.integers(65, 91, int(rng.integers(1, 5))))
                size *= 0.45
            else:
                font, text = "povlogo.ttf", "P"
            out.append(f"object {{ Glyph(\"{font}\", \"{text}\", {size:.3f}) rotate y*{turn:.1f} "
                       f"translate <{x:.3f}, 0, {z:.3f}> {tex} }}")
    return out


GLYPH_MACRO = """
#macro Glyph(Font, Ch, Size)
  #local T = text { ttf Font Ch 0.002, 0 }
  #local C = (min_extent(T) + max_extent(T)) / 2;
  #local S = Size / (max_extent(T).y - min_extent(T).y);
  object { T translate -C rotate x*90 scale <S, 1, S> translate y*0.0012 }
#end
"""


# ---------------------------------------------------------------- pieces

def piece_textures(rng):
    """Declarations of WTex and BTex (white and black pieces)."""
    def plastic(c, spec=(0.2, 0.8)):
        return (f"pigment {{ {rgb(c)} }} finish {{ diffuse {rng.uniform(0.6, 0.8):.3f} "
                f"specular {rng.uniform(*spec):.3f} roughness {rng.uniform(0.004, 0.04):.4f} }}")

    wkind = rng.choice(["white", "cream", "ivory", "wood"], p=[0.35, 0.25, 0.2, 0.2])
    if wkind == "wood":
        c1 = jitter(rng, (0.90, 0.78, 0.58), 0.05)
        w = f"{wood_pigment(rng, c1, c1 * 0.85, rng.uniform(0.02, 0.06))} {finish(rng, (0.2, 0.6))}"
    else:
        base = dict(white=(0.93, 0.93, 0.92), cream=(0.94, 0.90, 0.78),
                    ivory=(0.96, 0.93, 0.84))[wkind]
        w = plastic(jitter(rng, base, 0.03))
    bkind = rng.choice(["black", "brown", "wood", "grey"], p=[0.45, 0.2, 0.2, 0.15])
    if bkind == "wood":
        c1 = jitter(rng, [(0.30, 0.17, 0.09), (0.18, 0.10, 0.06), (0.40, 0.22, 0.12)]
                    [int(rng.integers(3))], 0.03)
        b = f"{wood_pigment(rng, c1, c1 * 0.7, rng.uniform(0.02, 0.06))} {finish(rng, (0.2, 0.6))}"
    else:
        base = dict(black=(0.06, 0.06, 0.06), brown=(0.22, 0.12, 0.07),
                    grey=(0.22, 0.22, 0.23))[bkind]
        b = plastic(jitter(rng, base, 0.025), (0.3, 0.9))
    return (f"#declare WTex = texture {{ {w} }}\n#declare BTex = texture {{ {b} }}\n",
            f"{wkind}/{bkind}")


def piece_scales(rng, dims):
    """Scale per piece type: the king 1.5-1.8 squares tall, the others in Staunton
    proportion (+-4%), every base at most ~0.8 square across."""
    king = rng.uniform(1.5, 1.8)
    cap = rng.uniform(0.72, 0.82)
    out = {}
    for t in TYPES:
        h, r = dims[t]
        s = king * STAUNTON[t] * rng.uniform(0.96, 1.04) / h
        out[t] = min(s, cap / (2 * r))
    return out, king


def piece_object(rng, set_name, symbol, x, z, scale, offset, tex_shift):
    t = symbol.upper()
    white = symbol.isupper()
    forward = 0.0 if white else 180.0
    if t == "N":
        yaw = forward + rng.uniform(-60, 60) if rng.random() < 0.85 else rng.uniform(0, 360)
    else:
        yaw = forward + rng.uniform(-35, 35) if rng.random() < 0.85 else rng.uniform(0, 360)
    dx, dz = rng.uniform(-offset, offset, 2)
    px, pz = x + dx, z + dz
    tex = "WTex" if white else "BTex"
    sx, sz = rng.uniform(-0.3, 0.3, 2) if tex_shift else (0.0, 0.0)
    return (f"object {{ {PREFIX[set_name]}{NAMES[t]} scale {scale:.6f} rotate y*{yaw:.1f} "
            f"translate <{px:.4f}, 0, {pz:.4f}> texture {{ {tex} translate "
            f"<{px + sx:.4f}, 0, {pz + sz:.4f}> }} }}")


# ---------------------------------------------------------------- camera

def camera_frame(target, az, el, dist, roll):
    """Location and unit right, up, forward vectors (POV-Ray's left-handed frame:
    for forward +z and up +y, right is +x)."""
    a, e = math.radians(az), math.radians(el)
    loc = target + dist * np.array([math.sin(a) * math.cos(e), math.sin(e),
                                    -math.cos(a) * math.cos(e)])
    f = target - loc
    f /= np.linalg.norm(f)
    r0 = np.cross([0.0, 1.0, 0.0], f)
    r0 /= np.linalg.norm(r0)
    u0 = np.cross(f, r0)
    c, s = math.cos(math.radians(roll)), math.sin(math.radians(roll))
    return loc, r0 * c + u0 * s, -r0 * s + u0 * c, f


def project(points, loc, r, u, f, focal, w, h):
    """Pixel coordinates (x right, y down; pixel (0,0) covers [0,1)x[0,1)) of world
    points; POV-Ray shoots each pixel's ray through its centre."""
    d = np.asarray(points, float) - loc
    zc = d @ f
    return np.stack([w / 2 + focal * (d @ r) / zc, h / 2 - focal * (d @ u) / zc], axis=1)


def choose_camera(rng, w, h, king):
    """A hand-held camera: azimuth within 40 degrees of White's side (60%) or
    Black's, elevation 30-85, roll +-15, vertical fov 40-65, look-at jittered,
    distance such that the board's bounding box spans 40-90% of the shorter side,
    and the whole 8x8 area (and, when possible, a king's height above it) inside."""
    white = rng.random() < 0.6
    az = (0.0 if white else 180.0) + rng.uniform(-40, 40)
    el = rng.uniform(30, 85)
    roll = rng.uniform(-15, 15)
    fov = rng.uniform(40, 65)
    fill = rng.uniform(0.4, 0.9)
    focal = h / (2 * math.tan(math.radians(fov) / 2))
    corners = np.array([[x, 0.0, z] for x, z in CORNERS.values()])
    tops = corners + [0, king, 0]
    short = min(w, h)
    best = None
    for attempt in range(60):
        jmax = 1.2 * (0.93 ** attempt)
        target = np.array([rng.uniform(-jmax, jmax), 0.0, rng.uniform(-jmax, jmax)])
        lo, hi = 1.0, 500.0
        for _ in range(50):
            dist = (lo + hi) / 2
            frame = camera_frame(target, az, el, dist, roll)
            p = project(corners, *frame, focal, w, h)
            size = max(np.ptp(p[:, 0]), np.ptp(p[:, 1])) / short
            lo, hi = (dist, hi) if size > fill else (lo, dist)
        pc = project(corners, *frame, focal, w, h)
        pt = project(tops, *frame, focal, w, h)
        margin = 0.02 * short
        inside = (pc.min(0) >= margin).all() and (pc[:, 0] <= w - margin).all() and \
            (pc[:, 1] <= h - margin).all()
        tops_in = (pt.min(0) >= 0).all() and (pt[:, 0] <= w).all() and (pt[:, 1] <= h).all()
        if inside and (tops_in or attempt >= 30):
            best = (target, dist, frame, pc)
            break
        if attempt >= 20:
            fill *= 0.98
    if best is None:
        raise RuntimeError("no camera keeps the board in the picture")
    target, dist, frame, pc = best
    return dict(target=target, dist=dist, frame=frame, corners=pc, az=az, el=el, roll=roll,
                fov=fov, focal=focal, fill=fill, view="white" if math.cos(math.radians(az)) > 0
                else "black")


def camera_block(cam, w, h):
    loc, r, u, f = cam["frame"]
    up = 2 * math.tan(math.radians(cam["fov"]) / 2)

    def v(a):
        return f"<{a[0]:.10f}, {a[1]:.10f}, {a[2]:.10f}>"
    return (f"camera {{ perspective location {v(loc)} right {v(r * up * w / h)} "
            f"up {v(u * up)} direction {v(f)} }}")


# ---------------------------------------------------------------- surroundings

def table_and_room(rng, thick, margin, cam):
    """Table top (wood, plain or cloth), floor, sky/wall; returns POV text."""
    out = []
    kind = rng.choice(["wood", "plain", "cloth"], p=[0.4, 0.3, 0.3])
    if kind == "wood":
        c1 = jitter(rng, [(0.55, 0.38, 0.22), (0.75, 0.60, 0.42), (0.35, 0.22, 0.12),
                          (0.85, 0.75, 0.60)][int(rng.integers(4))], 0.05)
        tex = (f"texture {{ {wood_pigment(rng, c1, c1 * 0.8, rng.uniform(0.3, 1.5), False)} "
               f"rotate y*{rng.uniform(0, 180):.1f} {finish(rng, (0.05, 0.5))} }}")
    elif kind == "plain":
        c = hsv(rng.random(), rng.uniform(0, 0.5), rng.uniform(0.15, 0.95))
        tex = f"texture {{ pigment {{ {rgb(c)} }} {finish(rng, (0, 0.4))} }}"
    else:
        c = hsv(rng.random(), rng.uniform(0, 0.7), rng.uniform(0.1, 0.9))
        tex = (f"texture {{ pigment {{ granite color_map {{ [0 {rgb(c)}] [1 {rgb(c * 0.85)}] }} "
               f"scale {rng.uniform(0.05, 0.3):.3f} }} normal {{ bumps 0.15 scale 0.03 }} "
               f"finish {{ diffuse 0.75 specular 0.02 }} }}")
    e = 4 + margin
    x0, x1 = -e - rng.uniform(0.5, 25), e + rng.uniform(0.5, 25)
    z0, z1 = -e - rng.uniform(1, 20), e + rng.uniform(1, 20)
    top = -thick
    out.append(f"box {{ <{x0:.2f}, {top - 0.6:.4f}, {z0:.2f}>, <{x1:.2f}, {top:.4f}, {z1:.2f}> {tex} }}")
    floor = hsv(rng.random(), rng.uniform(0, 0.4), rng.uniform(0.1, 0.7))
    out.append(f"plane {{ y, {top - 13:.3f} texture {{ pigment {{ {rgb(floor)} }} "
               f"finish {{ diffuse 0.7 }} }} }}")
    c1 = hsv(rng.random(), rng.uniform(0, 0.3), rng.uniform(0.4, 1.0))
    c2 = hsv(rng.random(), rng.uniform(0, 0.3), rng.uniform(0.2, 0.9))
    out.append(f"sky_sphere {{ pigment {{ gradient y color_map {{ [0 {rgb(c2)}] [1 {rgb(c1)}] }} }} }}")
    wall = None
    if rng.random() < 0.5:
        # A wall beyond the board, facing the camera.
        fwd = np.array([math.sin(math.radians(cam["az"])), 0, -math.cos(math.radians(cam["az"]))])
        wall = rng.uniform(14, 40)
        wc = hsv(rng.random(), rng.uniform(0, 0.4), rng.uniform(0.3, 0.95))
        out.append(f"plane {{ <{-fwd[0]:.4f}, 0, {-fwd[2]:.4f}>, {wall:.2f} texture {{ pigment {{ "
                   f"{rgb(wc)} }} finish {{ diffuse 0.7 }} }} }}")
        wall = (-fwd, wall)
    return "\n".join(out), kind, wall, (x0, x1, z0, z1)


def lights(rng, wall):
    out = []
    n = int(rng.integers(1, 4))
    soft = bool(rng.random() < 0.35)
    for k in range(n):
        a, e = math.radians(rng.uniform(0, 360)), math.radians(rng.uniform(25, 85))
        d = rng.uniform(15, 40)
        pos = d * np.array([math.cos(e) * math.sin(a), math.sin(e), -math.cos(e) * math.cos(a)])
        if wall is not None:
            nrm, off = wall
            over = pos @ (-nrm) - (off - 2)  # beyond the wall: fold back in front of it
            if over > 0:
                pos = pos + 2 * over * nrm
        inten = rng.uniform(0.7, 1.2) if k == 0 else rng.uniform(0.15, 0.6)
        tint = np.array([1.0, 1.0 - rng.uniform(-0.05, 0.12), 1.0 - rng.uniform(-0.1, 0.25)])
        col = tint * inten
        area = ""
        if soft and k == 0:
            s = rng.uniform(1.5, 6)
            area = f" area_light <{s:.2f}, 0, 0>, <0, 0, {s:.2f}>, 4, 4 adaptive 1 jitter circular orient"
        out.append(f"light_source {{ <{pos[0]:.2f}, {pos[1]:.2f}, {pos[2]:.2f}> "
                   f"rgb <{col[0]:.3f}, {col[1]:.3f}, {col[2]:.3f}>{area} }}")
    return "\n".join(out), n, soft


def clutter(rng, thick, margin, set_name, scales, bounds):
    """Off-board things: a chess clock, a score sheet, captured pieces beside the
    board; each left out where it would not lie on the table (bounds x0, x1, z0, z1)."""
    x0, x1, z0, z1 = bounds

    def on_table(x, z, r):
        return x0 + r < x < x1 - r and z0 + r < z < z1 - r
    out = []
    e = 4 + margin
    top = -thick
    if rng.random() < 0.3:
        side = 1 if rng.random() < 0.5 else -1
        x = side * (e + rng.uniform(1.2, 3))
        z = rng.uniform(-2.5, 2.5)
        c = hsv(rng.random(), rng.uniform(0, 0.5), rng.uniform(0.05, 0.5))
        if on_table(x, z, 1.3):
            out.append(f"box {{ <-1.2, 0, -0.5>, <1.2, {rng.uniform(0.6, 1.1):.2f}, 0.5> "
                       f"rotate z*{rng.uniform(-8, 0):.1f} rotate y*{90 + rng.uniform(-20, 20):.1f} translate <{x:.2f}, {top:.4f}, {z:.2f}> "
                       f"texture {{ pigment {{ {rgb(c)} }} finish {{ specular 0.3 }} }} }}")
    if rng.random() < 0.3:
        side = 1 if rng.random() < 0.5 else -1
        x = side * (e + rng.uniform(1.0, 4))
        z = rng.uniform(-5, 5)
        if on_table(x, z, 1.9):
            out.append(f"box {{ <-1.05, 0, -1.5>, <1.05, 0.01, 1.5> rotate y*{rng.uniform(-30, 30):.1f} "
                       f"translate <{x:.2f}, {top:.4f}, {z:.2f}> texture {{ pigment {{ "
                       f"{rgb(jitter(rng, (0.95, 0.95, 0.93), 0.03))} }} }} }}")
    if rng.random() < 0.3:
        side = 1 if rng.random() < 0.5 else -1
        for k in range(int(rng.integers(1, 6))):
            sym = "PPPNBRQ"[int(rng.integers(7))]
            sym = sym if rng.random() < 0.5 else sym.lower()
            x = side * (e + 0.7 + rng.uniform(0, 1.2))
            z = -3.5 + k * 1.1 + rng.uniform(-0.2, 0.2)
            obj = piece_object(rng, set_name, sym, x, z, scales[sym.upper()], 0.0, True)
            if on_table(x, z, 0.5):
                out.append(f"object {{ {obj} translate y*{top:.4f} }}")
    return "\n".join(out)


# ---------------------------------------------------------------- scene

def make_scene(rng, sets, dims, w, h, style_seed=None, start=False, marks=None):
    """POV-Ray text and the record (labels, corners, camera) of one picture.
    With `style_seed`, the piece set, its sizes and materials and the board are
    drawn from that seed alone, the same in every picture (one user's set); with
    `start`, the position is the starting one. `marks` (a generator, or None
    for none) prints marks on some squares; it draws from its own generator,
    so that the rest of a picture does not depend on it."""
    style = rng if style_seed is None else np.random.default_rng([style_seed])
    set_name = sets[int(style.integers(len(sets)))]
    fen = chess.STARTING_BOARD_FEN if start else random_position(rng)
    scales, king = piece_scales(style, dims[set_name])
    cam = choose_camera(rng, w, h, king)
    board, thick, margin, style_name, (paper, ink) = board_objects(style)
    printed = printed_marks(marks, ink, paper) if marks is not None else []
    room, table, wall, bounds = table_and_room(rng, thick, margin, cam)
    light, nlights, soft = lights(rng, wall)
    wtex, materials = piece_textures(style)
    offset = rng.uniform(0.0, 0.12)
    pieces = []
    for sq, piece in chess.BaseBoard(fen).piece_map().items():
        sym = piece.symbol()
        x, z = -3.5 + chess.square_file(sq), -3.5 + chess.square_rank(sq)
        pieces.append(piece_object(rng, set_name, sym, x, z, scales[sym.upper()], offset, True))
    amb = rng.uniform(0.08, 0.35)
    amb_tint = 1 - rng.uniform(0, 0.1, 3)
    text = "\n".join([
        "#version 3.7;",
        f"global_settings {{ assumed_gamma 1.0 max_trace_level 4 "
        f"ambient_light rgb <{amb_tint[0]:.3f}, {amb_tint[1]:.3f}, {amb_tint[2]:.3f}> }}",
        f"#default {{ finish {{ ambient {amb:.3f} diffuse 0.7 }} }}",
        f'#include "_cache/{set_name}.inc"',
        GLYPH_MACRO,
        camera_block(cam, w, h),
        light, room, board, *printed, wtex, *pieces,
        clutter(rng, thick, margin, set_name, scales, bounds),
    ]) + "\n"
    rec = dict(fen=fen, view=cam["view"], kind=f"physical_render_{set_name}", set=set_name,
               corners={k: [round(float(a), 3) for a in p] for k, p in zip(CORNERS, cam["corners"])},
               focal_px=round(cam["focal"], 4), cx=w / 2, cy=h / 2,
               elevation_deg=round(cam["el"], 3), azimuth_deg=round(cam["az"] % 360, 3),
               roll_deg=round(cam["roll"], 3), fov_deg=round(cam["fov"], 3),
               camera_location=[round(float(a), 5) for a in cam["frame"][0]],
               look_at=[round(float(a), 4) for a in cam["target"]],
               board_fill=round(cam["fill"], 3), king_height=round(king, 4),
               board_style=style_name, marks=len(printed),
               board_thickness=round(thick, 4), margin=round(margin, 4),
               table=table, lights=nlights, soft_shadows=soft, materials=materials,
               ambient=round(amb, 3), size=[w, h])
    return text, rec


# ---------------------------------------------------------------- running

_POVRAY = None  # the worker's running povray, killed when the worker is terminated


def _worker_start():
    def stop(signum, frame):
        if _POVRAY is not None and _POVRAY.poll() is None:
            _POVRAY.kill()
        os._exit(1)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the pool


def render_one(job):
    """Render picture i (retrying once with another sub-seed); returns
    (i, record or None, seconds, message)."""
    global _POVRAY
    i, out, seed, sets, dims, w, h, style_seed, start, marks = job
    out = Path(out)
    name = f"{i:05}"
    msg = ""
    for attempt in range(2):
        rng = np.random.default_rng([seed, i] if attempt == 0 else [seed, i, 1])
        t0 = time.time()
        pov = out / f".{name}.pov"
        tmp = out / f".{name}.tmp.png"
        try:
            mark_seed = [seed, i, 2] if style_seed is None else [style_seed, 2]
            mark_rng = np.random.default_rng(mark_seed)
            printed = mark_rng if mark_rng.random() < marks else None
            text, rec = make_scene(rng, sets, dims, w, h, style_seed, start, printed)
            pov.write_text(text)
            _POVRAY = proc = subprocess.Popen(
                ["nice", "-n", "10", "povray", f"+I{pov.name}", f"+O{tmp.name}", f"+W{w}",
                 f"+H{h}", "-D", "+A0.3", "+R2", "+WT1", "+FN8", f"+L{INCLUDE}", "-GA",
                 "+GF"], cwd=out, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            _, stderr = proc.communicate()
            _POVRAY = None
            if proc.returncode != 0 or not tmp.exists():
                lines = stderr.strip().splitlines()
                why = [x for x in lines if "rror" in x][:4] + lines[-2:]
                raise RuntimeError(f"povray exit {proc.returncode}: " + " | ".join(why))
            os.replace(tmp, out / f"{name}.png")
            rec["file"] = f"{name}.png"
            rec["seconds"] = round(time.time() - t0, 2)
            rec["sub_seed"] = attempt
            js = out / f".{name}.json.tmp"
            js.write_text(json.dumps(rec))
            os.replace(js, out / f"{name}.json")
            pov.unlink(missing_ok=True)
            return i, rec, time.time() - t0, msg
        except Exception as exc:  # report, retry once with another sub-seed
            msg += f"{name} attempt {attempt}: {exc}\n"
            print(f"{name}: render failed (attempt {attempt}): {exc}", file=sys.stderr, flush=True)
            tmp.unlink(missing_ok=True)
    return i, None, 0.0, msg


def rebuild_csvs(out, count):
    """The three CSVs from the sidecars of pictures 0..count-1 that are present."""
    recs = []
    for i in range(count):
        p = out / f"{i:05}.json"
        if p.exists() and (out / f"{i:05}.png").exists():
            recs.append(json.loads(p.read_text()))
    write_csv(out / "labels.csv", ["file", "fen", "view", "kind"],
              [(r["file"], r["fen"], r["view"], r["kind"]) for r in recs])
    write_csv(out / "corners.csv", ["file", "a8x", "a8y", "h8x", "h8y", "h1x", "h1y", "a1x", "a1y"],
              [(r["file"], *[f"{v:.3f}" for k in CORNERS for v in r["corners"][k]]) for r in recs])
    write_csv(out / "camera.csv", ["file", "focal_px", "cx", "cy", "elevation_deg", "azimuth_deg", "set"],
              [(r["file"], f"{r['focal_px']:.4f}", r["cx"], r["cy"], r["elevation_deg"],
                r["azimuth_deg"], r["set"]) for r in recs])
    return len(recs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sets", default="chess2,brutal")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--size", default="640x480", help="WxH, e.g. 640x480 or 480x640")
    ap.add_argument("--style-seed", type=int, help="one piece set, board and materials in every "
                    "picture, drawn from this seed (a user's own set)")
    ap.add_argument("--start", action="store_true", help="the starting position in every picture")
    ap.add_argument("--marks", type=float, default=0.0, help="the share of boards with marks "
                    "printed on a few squares (a logo, a word, an emblem)")
    a = ap.parse_args()
    sets = [s for s in a.sets.split(",") if s]
    check_sets(sets)
    w, h = (int(v) for v in a.size.lower().split("x"))
    out = a.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    for pattern in (".*.tmp.png", ".*.pov", ".*.json.tmp", ".*.pov-state"):
        for p in out.glob(pattern):
            p.unlink()
    dims = prepare_sets(out, sets)
    todo = [i for i in range(a.count)
            if not ((out / f"{i:05}.png").exists() and (out / f"{i:05}.json").exists())]
    print(f"{a.count - len(todo)} of {a.count} pictures present; rendering {len(todo)} "
          f"with {a.workers} workers", flush=True)
    jobs = [(i, str(out), a.seed, sets, dims, w, h, a.style_seed, a.start, a.marks) for i in todo]
    t0 = time.time()
    done = failed = 0
    busy = 0.0
    try:
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))
        with Pool(max(1, a.workers), initializer=_worker_start) as pool:
            for i, rec, secs, msg in pool.imap_unordered(render_one, jobs):
                if rec is None:
                    failed += 1
                    print(f"{i:05}: gave up\n{msg}", file=sys.stderr, flush=True)
                    continue
                done += 1
                busy += secs
                if done % 20 == 0 or done == len(todo):
                    el = time.time() - t0
                    print(f"{done}/{len(todo)} done, {el / done:.2f} s/picture wall, "
                          f"{busy / done:.2f} s/picture per worker", flush=True)
                    rebuild_csvs(out, a.count)
            # Every job is done: let the workers end by themselves (a terminate
            # here could catch one mid-exit and leave the pool waiting on it).
            pool.close()
            pool.join()
    finally:
        n = rebuild_csvs(out, a.count)
        print(f"{n} pictures listed in {out / 'labels.csv'}; {failed} failed this run", flush=True)
        if done:
            print(f"mean {busy / done:.2f} s of one core per picture "
                  f"({(time.time() - t0) / done:.2f} s wall with {a.workers} workers)", flush=True)


if __name__ == "__main__":
    main()
