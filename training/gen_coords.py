"""Render the training data for the coordinate reader (`models/coords.onnx`).

Each board is rendered with random pieces, theme, decorations and view, then
given coordinates in one of the ways real pictures have them:
- inside the edge squares, in a corner (chess.com, lichess and most sites),
  in a random text font, coloured like the other square or dark;
- outside the board in the margin (books and printed diagrams), with or
  without a frame line;
- or none at all.
The picture is augmented like the square data, and every place of every site
in `coords_geometry.SITES` is sampled as a patch, labelled with the glyph
drawn there or `none`. Fonts in HELD_OUT_FONTS make the `heldout` split.

Output: training/out/coords_<split>.npz with x [N,24,24] float16, y [N].

Usage: python gen_coords.py [--boards-train N] [--boards-val N] [--boards-heldout N]
"""

import argparse
from functools import lru_cache
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from coords_geometry import GLYPHS, INSIDE, OUTSIDE, SITES, patch_rect, sample_patch
from gen_data import augment, random_decor, random_position, random_theme
from render import ROOT, Decor, render_board, set_index

OUT = ROOT / "out"
FONT_DIRS = [ROOT / ".cache/x/usr/share/fonts/truetype/dejavu",
             ROOT / ".cache/x/usr/share/fonts/truetype/freefont"]
HELD_OUT_FONTS = {"FreeSerifItalic.ttf", "DejaVuSansMono.ttf"}
NONE_KEEP = 0.3  # fraction of empty places kept


def fonts(held_out):
    paths = sorted(p for d in FONT_DIRS for p in d.glob("*.ttf"))
    return [p for p in paths if (p.name in HELD_OUT_FONTS) == held_out]


@lru_cache(maxsize=256)
def font(path, px):
    return ImageFont.truetype(str(path), max(6, px))


def glyph_of(kind, i, view):
    """The glyph a site of this kind shows at picture row/column i."""
    if kind == "rank":
        return str(8 - i) if view == "white" else str(i + 1)
    return "abcdefgh"[i] if view == "white" else "hgfedcba"[i]


def draw_inside(img, origin, cell, view, theme, site, rng, font_path, labels):
    """Coordinates in a corner of the edge squares of one site."""
    kind, where, corner = site
    draw = ImageDraw.Draw(img)
    px = round(cell * rng.uniform(0.16, 0.3))
    if px < 7:  # too small to read, as on small boards in real pictures
        return
    f = font(font_path, px)
    pad = cell * rng.uniform(0.03, 0.08)
    dark_ink = theme.hatch or rng.random() < 0.25
    for i in range(8):
        u0, v0, u1, v1 = patch_rect(site, i)
        row, col = int(v0), int(u0)
        ink = (40, 40, 40) if dark_ink else (theme.light if (row + col) % 2 else theme.dark)
        x = origin[0] + (u0 * cell + pad if corner[1] == "l" else u1 * cell - pad)
        y = origin[1] + (v0 * cell + pad if corner[0] == "t" else v1 * cell - pad)
        draw.text((x, y), glyph_of(kind, i, view), font=f, fill=ink,
                  anchor=("l" if corner[1] == "l" else "r") + ("t" if corner[0] == "t" else "b"))
        labels[(site[1], site[2], i)] = glyph_of(kind, i, view)


def draw_outside(img, origin, cell, view, site, rng, font_path, ink, labels):
    """Coordinates in the margin along one side of the board."""
    kind, where, _ = site
    draw = ImageDraw.Draw(img)
    f = font(font_path, round(cell * rng.uniform(0.22, 0.45)))
    gap = cell * rng.uniform(0.08, 0.3)
    for i in range(8):
        u0, v0, u1, v1 = patch_rect(site, i)
        cu, cv = origin[0] + (u0 + u1) / 2 * cell, origin[1] + (v0 + v1) / 2 * cell
        if where == "left":
            xy, anchor = (origin[0] - gap, cv), "rm"
        elif where == "right":
            xy, anchor = (origin[0] + 8 * cell + gap, cv), "lm"
        elif where == "bottom":
            xy, anchor = (cu, origin[1] + 8 * cell + gap), "mt"
        else:
            xy, anchor = (cu, origin[1] - gap), "mb"
        draw.text(xy, glyph_of(kind, i, view), font=f, fill=ink, anchor=anchor)
        labels[(where, None, i)] = glyph_of(kind, i, view)


def render_one(args):
    seed, sets, font_paths = args
    rng = np.random.default_rng(seed)
    s = sets[int(rng.integers(len(sets)))]
    theme = random_theme(rng)
    size = int(rng.integers(160, 641))
    cell = size / 8
    view = "white" if rng.random() < 0.5 else "black"
    decor = random_decor(rng, s["kind"] in ("font", "unicode"), theme.hatch)
    decor.coords = False
    board = render_board(random_position(rng), s["name"], theme, size, view, decor, rng)
    margin = int(cell * rng.uniform(0.9, 1.4))
    page = tuple(int(v) for v in rng.integers(200, 256, 3)) if rng.random() < 0.75 else \
        tuple(int(v) for v in rng.integers(0, 70, 3))
    canvas = Image.new("RGB", (size + 2 * margin, size + 2 * margin), page)
    origin = (margin, margin)
    canvas.paste(board, origin)
    ink = (20, 20, 20) if sum(page) > 300 else (220, 220, 220)
    labels = {}
    style = rng.random()
    font_path = font_paths[int(rng.integers(len(font_paths)))]
    if style < 0.45:
        ranks = [s_ for s_ in SITES if s_[0] == "rank" and s_[2]]
        files = [s_ for s_ in SITES if s_[0] == "file" and s_[2]]
        # The common layouts most of the time, any corner now and then.
        common = [(ranks[0], files[1]), (ranks[2], files[0])]
        pair = common[int(rng.integers(2))] if rng.random() < 0.7 else \
            (ranks[int(rng.integers(4))], files[int(rng.integers(4))])
        for site in pair:
            if rng.random() < 0.9:
                draw_inside(canvas, origin, cell, view, theme, site, rng, font_path, labels)
    elif style < 0.8:
        if rng.random() < 0.6:
            w = int(rng.integers(1, 5))
            ImageDraw.Draw(canvas).rectangle((margin - w, margin - w, margin + size + w - 1,
                                              margin + size + w - 1), outline=ink, width=w)
        rank_site = SITES[4] if rng.random() < 0.8 else SITES[5]
        file_site = SITES[10] if rng.random() < 0.8 else SITES[11]
        for site in (rank_site, file_site):
            if rng.random() < 0.92:
                draw_outside(canvas, origin, cell, view, site, rng, font_path, ink, labels)
    canvas = augment(canvas, rng)
    grey = np.asarray(canvas.convert("L"), dtype=np.float32)
    # The reader sees the grid as the board finder reports it: a little off.
    jitter_cell = cell * rng.uniform(0.99, 1.01)
    jitter_origin = (origin[0] + rng.uniform(-0.05, 0.05) * cell,
                     origin[1] + rng.uniform(-0.05, 0.05) * cell)
    xs, ys = [], []
    for site in SITES:
        for i in range(8):
            # Inside places are shared by sites: look the square corner up.
            glyph = inside_label(labels, site, i) if site[2] else labels.get((site[1], None, i), "none")
            if glyph == "none" and rng.random() > NONE_KEEP:
                continue
            xs.append(sample_patch(grey, jitter_origin, jitter_cell, patch_rect(site, i)))
            ys.append(GLYPHS.index(glyph))
    return np.array(xs, np.float16).reshape(-1, 24, 24), np.array(ys, np.uint8)


def inside_label(labels, site, i):
    """The glyph drawn in this square corner by whichever site drew there."""
    rect = patch_rect(site, i)
    for (where, corner, j), glyph in labels.items():
        if corner is not None:
            kind = "rank" if where in ("col0", "col7") else "file"
            if patch_rect((kind, where, corner), j) == rect:
                return glyph
    return "none"


def build(out, split, n_boards, seed, font_paths):
    sets = [s for s in set_index()]
    with Pool(2) as pool:
        parts = pool.map(render_one, [(seed * 1_000_003 + i, sets, font_paths) for i in range(n_boards)],
                         chunksize=16)
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    np.savez_compressed(out / f"coords_{split}.npz", x=x, y=y)
    print(f"{split}: {n_boards} boards, {len(y)} patches, class counts "
          f"{np.bincount(y, minlength=len(GLYPHS)).tolist()}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards-train", type=int, default=3000)
    ap.add_argument("--boards-val", type=int, default=300)
    ap.add_argument("--boards-heldout", type=int, default=300)
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    build(OUT, "heldout", a.boards_heldout, 13, fonts(held_out=True))
    build(OUT, "val", a.boards_val, 12, fonts(held_out=False))
    build(OUT, "train", a.boards_train, 11, fonts(held_out=False))


if __name__ == "__main__":
    main()
