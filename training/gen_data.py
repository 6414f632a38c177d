"""Render the training, validation and held-out square datasets.

Each board is rendered with a random piece set, theme, size (160-800 px),
orientation, position and decorations, embedded in a margin, augmented
(colour, blur, noise, JPEG...), then cut into 64 cells on a slightly jittered
grid (shift up to 6 % of a cell, scale 0.92-1.08) exactly as the model
contract says: RGB, resized to 32x32, uint8.

Whole design families listed in HELD_OUT never appear in train/val; they make
the `heldout` split. Output: training/out/<split>.npz with x [N,32,32,3] uint8,
y [N] class index, s [N] set index, and training/out/sets.json.

With `--book-scan SHARE`, that share of the training boards is printed as a book
diagram and scanned cheaply instead (`print_and_scan`); the other boards stay
the same. With `--book-photo SHARE`, that share is printed and photographed
with a phone instead (`print_and_photograph`). With `--favour FAMILY=WEIGHT`,
the training boards draw that design family's sets WEIGHT times as often as
the others. With `--real-book SHARE`, that share is printed as real (old, cheap)
books print diagrams and scanned (`book_style.print_real_book`).

Usage: python gen_data.py [--boards-train N] [--boards-val N] [--boards-heldout N] [--out DIR]
       [--train-seed N] [--book-scan SHARE] [--book-photo SHARE] [--real-book SHARE]
       [--favour FAMILY=WEIGHT ...]
"""

import argparse
import io
import json
import os
from multiprocessing import Pool
from pathlib import Path

import chess
import numpy as np
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter

from book_style import print_real_book
from render import (CLASSES, THEMES, Decor, Theme, add_frame, draw_hatch, parse_fen,
                    render_board, set_index)

OUT = Path(__file__).resolve().parent / "out"
HELD_OUT = {"leipzig", "alpha"}
CELL_PX = 32
EMPTY_KEEP = 0.35  # fraction of empty cells kept (they dominate otherwise)
BOOK_THEMES = [t for t in THEMES if t.hatch or t.name.startswith("book") or t.name == "grey"]
PIECE_WEIGHTS = dict(P=5, N=2, B=2, R=2, Q=1.5, K=1.5)


def random_theme(rng):
    """A random light/dark pair, or a stock theme."""
    if rng.random() < 0.55:
        return THEMES[int(rng.integers(len(THEMES)))]
    hue = rng.random(3)
    light = tuple(int(v) for v in 200 + 55 * rng.random(3) * (0.4 + 0.6 * hue))
    dark_level = rng.uniform(70, 190)
    dark = tuple(int(np.clip(dark_level + rng.uniform(-45, 45), 0, 255)) for _ in range(3))
    return Theme("random", light, dark, hatch=bool(rng.random() < 0.1))


def random_position(rng):
    """Board FEN from random legal play, or a random sprinkle of pieces."""
    if rng.random() < 0.4:
        board = chess.Board()
        for _ in range(int(rng.integers(0, 90))):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(moves[int(rng.integers(len(moves)))])
        return board.board_fen()
    density = rng.uniform(0.05, 0.7)
    letters = list(PIECE_WEIGHTS)
    w = np.array([PIECE_WEIGHTS[p] for p in letters])
    rows = []
    for r in range(8):
        row = ""
        for _ in range(8):
            if rng.random() < density:
                p = letters[int(rng.choice(len(letters), p=w / w.sum()))]
                row += p if rng.random() < 0.5 else p.lower()
            else:
                row += "1"
        rows.append(row)
    return "/".join(rows)


def random_squares(rng, n):
    return [chr(97 + int(rng.integers(8))) + str(int(rng.integers(1, 9))) for _ in range(n)]


def random_decor(rng, is_font, hatch):
    colours = [(255, 170, 0, 200), (21, 120, 27, 180), (200, 30, 30, 190), (40, 90, 220, 180)]
    d = Decor(coords=bool(rng.random() < 0.4),
              piece_scale=rng.uniform(0.9, 1.0) if is_font else rng.uniform(0.76, 1.0),
              halo=hatch and bool(rng.random() < 0.7))
    if rng.random() < 0.2:  # cream, gold or cool white pieces
        d.white_tint = tuple(float(v) for v in 1.0 - rng.uniform(0, 0.4) * rng.dirichlet([1, 1, 1]) * 1.5)
    if rng.random() < 0.2:  # grey or brown black pieces
        d.black_lift = (tuple(int(v) for v in rng.integers(30, 130, 3)), float(rng.uniform(0.2, 0.6)))
    if rng.random() < 0.4:
        d.last_move = tuple(random_squares(rng, 2))
        d.highlight = tuple(int(v) for v in rng.integers(120, 256, 3)) + (int(rng.integers(60, 150)),)
    if rng.random() < 0.1:
        d.check = random_squares(rng, 1)[0]
    if rng.random() < 0.15:
        d.arrows = [(a, b, colours[int(rng.integers(len(colours)))])
                    for a, b in zip(random_squares(rng, 3), random_squares(rng, 3)) if a != b][
                   : int(rng.integers(1, 4))]
    if rng.random() < 0.1:
        d.circles = [(s, colours[int(rng.integers(len(colours)))]) for s in random_squares(rng, 2)]
    return d


def random_variety(rng, decor):
    """Training-only variety: the set's shapes drawn in another hand now and then
    (`render.restyle`), wood or marble squares, legal-move hints of a selected piece,
    and a mouse pointer left on the board.

    Kept out of `random_decor`, which the held-out evaluation shares: its pictures
    stay the same whatever the training set's variety is.
    """
    if rng.random() < 0.2:
        decor.stroke = int(rng.integers(1, 3))
    if rng.random() < 0.2:
        lo = float(rng.uniform(0.05, 0.6))
        decor.inlay = (("rows", "bricks", "diagonal")[int(rng.integers(3))], int(rng.integers(10, 23)),
                       int(rng.integers(2, 5)), lo, lo + float(rng.uniform(0.1, 0.25)))
    if rng.random() < 0.15:
        decor.texture = ("wood" if rng.random() < 0.6 else "marble", float(rng.uniform(0.04, 0.18)),
                         float(rng.uniform(0.08, 0.4)), int(rng.integers(1 << 30)))
    if rng.random() < 0.15:
        grey = int(rng.integers(0, 80))
        rgba = (grey, grey, grey) if rng.random() < 0.6 else tuple(int(v) for v in rng.integers(0, 256, 3))
        decor.move_hints = (tuple(random_squares(rng, int(rng.integers(1, 9)))),
                            rgba + (int(rng.integers(40, 140)),), float(rng.uniform(0.1, 0.2)))
    if rng.random() < 0.1:
        decor.pointer = (random_squares(rng, 1)[0], float(rng.uniform(0.3, 0.8)),
                         float(rng.uniform(0.1, 0.8)), float(rng.uniform(0.1, 0.8)))


def surround(board, rng):
    """Put the board in a margin (page colour, frame, or outside coordinates).

    Returns (canvas, grid x, grid y); the margin lets a jittered cut box extend
    beyond the board as it does in real crops.
    """
    size = board.width
    if rng.random() < 0.3:
        board, pad = add_frame(board, int(rng.integers(1, 4)), color=(0, 0, 0),
                               margin=int(rng.integers(0, 6)))
    else:
        pad = 0
    m = size // 8
    bg = tuple(int(v) for v in rng.integers(0, 256, 3)) if rng.random() < 0.5 else (250, 250, 250)
    canvas = Image.new("RGB", (board.width + 2 * m, board.height + 2 * m), bg)
    canvas.paste(board, (m, m))
    if rng.random() < 0.2:
        d = ImageDraw.Draw(canvas)
        draw_hatch(d, 0, 0, canvas.width, m, 7, 1, (120, 120, 120))
    return canvas, m + pad, m + pad


def augment(img, rng):
    """Photometric and compression augmentations on the RGB canvas."""
    if rng.random() < 0.7:
        img = ImageEnhance.Brightness(img).enhance(rng.uniform(0.7, 1.3))
        img = ImageEnhance.Contrast(img).enhance(rng.uniform(0.6, 1.3))
    if rng.random() < 0.3:
        img = ImageEnhance.Color(img).enhance(rng.uniform(0.0, 1.5))
    if rng.random() < 0.3:  # board colours the renderer never drew; greys stay grey
        img = Image.fromarray(np.asarray(img)[..., rng.permutation(3)])
    if rng.random() < 0.2:  # colour cast (white balance of photos and scans)
        a = np.asarray(img, dtype=np.float32) * rng.uniform(0.85, 1.15, 3)
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if rng.random() < 0.25:  # uneven light: a smooth gradient
        a = np.asarray(img, dtype=np.float32)
        h, w = a.shape[:2]
        gy, gx = np.mgrid[0:h, 0:w]
        g = 1 + rng.uniform(-0.25, 0.25) * gx / w + rng.uniform(-0.25, 0.25) * gy / h
        img = Image.fromarray(np.clip(a * g[..., None], 0, 255).astype(np.uint8))
    if rng.random() < 0.1:  # moire from photographing a screen: a fine interference pattern
        a = np.asarray(img, dtype=np.float32)
        h, w = a.shape[:2]
        gy, gx = np.mgrid[0:h, 0:w]
        period, angle = rng.uniform(2.5, 9.0), rng.uniform(0, np.pi)
        wave = np.sin(2 * np.pi * (gx * np.cos(angle) + gy * np.sin(angle)) / period)
        img = Image.fromarray(np.clip(a + rng.uniform(4, 16) * wave[..., None], 0, 255).astype(np.uint8))
    if rng.random() < 0.3:  # low resolution screenshot
        f = rng.uniform(0.4, 0.8)
        small = img.resize((max(16, int(img.width * f)), max(16, int(img.height * f))), Image.BILINEAR)
        img = small.resize(img.size, Image.BILINEAR)
    if rng.random() < 0.35:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.6) * img.width / 500))
    if rng.random() < 0.35:
        a = np.asarray(img, dtype=np.float32)
        a = a + rng.normal(0, rng.uniform(2, 14), a.shape)
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if rng.random() < 0.5:
        img = jpeg(img, int(rng.integers(30, 96)))
    return img


def shadow(img, rng):
    """A soft shadow over part of the picture (a phone or hand over a book page): the
    light falls off by 30-65 % across a blurred edge at a random place and angle."""
    a = np.asarray(img, dtype=np.float32)
    h, w = a.shape[:2]
    gy, gx = np.mgrid[0:h, 0:w]
    angle = rng.uniform(0, 2 * np.pi)
    along = (gx - w / 2) * np.cos(angle) + (gy - h / 2) * np.sin(angle)
    edge, softness = rng.uniform(-0.3, 0.4) * max(w, h), rng.uniform(0.03, 0.25) * max(w, h)
    dark = 1 / (1 + np.exp(-(along - edge) / softness))
    a *= 1 - rng.uniform(0.3, 0.65) * dark[..., None]
    return Image.fromarray(a.clip(0, 255).astype(np.uint8))


def jpeg(img, quality):
    """The picture after a JPEG round trip at this quality."""
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    return Image.open(io.BytesIO(buf.getvalue())).convert("RGB")


def book_decor(rng, hatch):
    """A printed diagram's look: no screen decorations, coordinates now and then,
    a white margin round pieces on hatched squares more often than not."""
    return Decor(coords=bool(rng.random() < 0.3), piece_scale=float(rng.uniform(0.86, 1.0)),
                 halo=hatch and bool(rng.random() < 0.7))


def print_and_scan(canvas, board, rng):
    """The canvas printed on paper and scanned cheaply, as a reader's crop of a book
    page is: greyscale, taken down to a board of 90-260 px (11-33 px a square) by
    a scanner's area sampling, or to 220-400 px and thresholded to one bit; ink
    spread or faded, blur, noise, grey paper and ink, JPEG 35-75; now and then the
    other side of the leaf shows through (`bleed_through`).

    `board` is the board's side in the canvas. Returns the scanned canvas and the
    factor its size was scaled by.
    """
    bilevel = rng.random() < 0.3
    scale = rng.uniform(220, 400) / board if bilevel else rng.uniform(90, 260) / board
    size = (max(16, round(canvas.width * scale)), max(16, round(canvas.height * scale)))
    img = canvas.convert("L")
    if rng.random() < 0.4:
        img = bleed_through(img, rng)
    img = img.resize(size, Image.BOX)
    if bilevel:
        a = np.asarray(img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.8))), dtype=np.float32)
        a = a + rng.normal(0, rng.uniform(4, 12), a.shape)
        a = np.where(a > rng.uniform(135, 195), 255, 0).astype(np.uint8)
        return Image.fromarray(a).convert("RGB"), size[0] / canvas.width
    stroke = rng.random()
    if stroke < 0.3:  # ink spread: strokes thicker, hatching closes up
        img = Image.blend(img, img.filter(ImageFilter.MinFilter(3)), 0.5)
    elif stroke < 0.5:  # faded ink: strokes thinner
        img = Image.blend(img, img.filter(ImageFilter.MaxFilter(3)), 0.4)
    a = np.asarray(img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.8))), dtype=np.float32)
    a = a + rng.normal(0, rng.uniform(3, 12), a.shape)
    paper, ink = rng.uniform(195, 245), rng.uniform(15, 80)
    a = ink + (paper - ink) * np.clip(a, 0, 255) / 255.0
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).convert("RGB")
    return jpeg(img, int(rng.integers(35, 76))), size[0] / canvas.width


def print_and_photograph(canvas, board, rng):
    """The canvas printed on paper and photographed with a phone, as a reader's
    picture of a book page is: colour kept, paper tinted by the light (warm, cool
    or grey), ink dark grey, the board taken down to 140-420 px, out of focus,
    lit unevenly (a gradient and a vignette), sensor noise, now and then
    sharpened by the phone, JPEG 40-90.

    `board` is the board's side in the canvas. Returns the photographed canvas and
    the factor its size was scaled by.
    """
    scale = rng.uniform(140, 420) / board
    size = (max(16, round(canvas.width * scale)), max(16, round(canvas.height * scale)))
    grey = np.asarray(canvas.convert("L"), dtype=np.float32)[..., None] / 255.0
    paper = rng.uniform(170, 250) * rng.uniform(0.96, 1.04, 3) * np.array([1.0, 0.97, rng.uniform(0.82, 1.0)])
    ink = rng.uniform(10, 70) * rng.uniform(0.85, 1.15, 3)
    img = Image.fromarray(np.clip(ink + (paper - ink) * grey, 0, 255).astype(np.uint8))
    img = img.resize(size, Image.BILINEAR).filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.6)))
    a = np.asarray(img, dtype=np.float32)
    h, w = a.shape[:2]
    gy, gx = np.mgrid[0:h, 0:w] / np.array([h, w])[:, None, None]
    light = 1 + rng.uniform(-0.3, 0.3) * (gx - 0.5) + rng.uniform(-0.3, 0.3) * (gy - 0.5)
    light -= rng.uniform(0, 0.35) * ((gx - 0.5) ** 2 + (gy - 0.5) ** 2)
    a = a * light[..., None] + rng.normal(0, rng.uniform(2, 9), a.shape)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if rng.random() < 0.4:
        img = img.filter(ImageFilter.UnsharpMask(radius=rng.uniform(1, 2.5), percent=int(rng.integers(60, 160))))
    return jpeg(img, int(rng.integers(40, 91))), size[0] / canvas.width


def bleed_through(img, rng):
    """The other side of a thin leaf seen through the paper: a blurred, mirrored
    print (here the page itself, shifted, so pieces show through between and on
    the squares) darkening the page by 6-22 % of its ink."""
    w, h = img.size
    back = img.transpose(Image.FLIP_LEFT_RIGHT)
    back = back.rotate(0, translate=(int(rng.integers(-w // 2, w // 2)), int(rng.integers(-h // 2, h // 2))),
                       fillcolor=255)
    back = back.filter(ImageFilter.GaussianBlur(rng.uniform(0.5, 2.5) * w / 500))
    a = np.asarray(img, dtype=np.float32) - (255.0 - np.asarray(back, dtype=np.float32)) * rng.uniform(0.06, 0.22)
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def cut_cells(img, x0, y0, size, rng, jitter=True):
    """Cut the 64 RGB cells (picture order, row 0 at the top) from an RGB image."""
    cell = size / 8
    if jitter:
        scale = rng.uniform(0.92, 1.08)
        cx = x0 + size / 2 + rng.uniform(-0.06, 0.06) * cell
        cy = y0 + size / 2 + rng.uniform(-0.06, 0.06) * cell
        size = size * scale
        x0, y0, cell = cx - size / 2, cy - size / 2, size / 8
    resample = [Image.BILINEAR, Image.BOX, Image.NEAREST][int(rng.choice(3, p=[0.5, 0.35, 0.15]))]
    out = np.empty((64, CELL_PX, CELL_PX, 3), np.uint8)
    for r in range(8):
        for c in range(8):
            box = (x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell)
            out[r * 8 + c] = np.asarray(img.resize((CELL_PX, CELL_PX), resample, box=box))
    return out


def render_one(args):
    """Render one board and return its kept (cells, labels, set ids)."""
    seed, sets, clean, varied, book_scan, book_photo, weights, real_book = args
    rng = np.random.default_rng(seed)
    si = int(rng.integers(len(sets))) if weights is None else int(rng.choice(len(sets), p=weights))
    s = sets[si]
    is_font = s["kind"] in ("font", "unicode")
    theme = random_theme(rng)
    if is_font and rng.random() < 0.5:
        theme = [t for t in THEMES if t.hatch or t.name.startswith("book")][int(rng.integers(4))]
    size = int(rng.integers(160, 801))
    view = "white" if rng.random() < 0.5 else "black"
    fen = random_position(rng)
    decor = Decor(piece_scale=0.94 if is_font else 0.9) if clean else random_decor(rng, is_font, theme.hatch)
    variety = np.random.default_rng((seed, 1))  # its own stream: the same boards with or without it
    scan = np.random.default_rng((seed, 2))  # a third stream: the other boards stay as they were
    book = varied and scan.random() < book_scan
    photo_rng = np.random.default_rng((seed, 3))  # a fourth: --book-photo leaves the others as they were
    photo = varied and not book and photo_rng.random() < book_photo
    real_rng = np.random.default_rng((seed, 4))  # a fifth: --real-book leaves the others as they were
    real = varied and not book and not photo and real_rng.random() < real_book
    if real:  # a real book's print (book_style.print_real_book), half the time in a diagram font
        fonts = [i for i, t in enumerate(sets) if t["kind"] in ("font", "unicode")]
        if fonts and real_rng.random() < 0.5:
            si = fonts[int(real_rng.integers(len(fonts)))]
        elif weights is None:
            si = int(real_rng.integers(len(sets)))
        else:
            si = int(real_rng.choice(len(sets), p=weights))
        s = sets[si]
        view = "white" if real_rng.random() < 0.7 else "black"
        canvas, gx, gy, size = print_real_book(fen, s["name"], view, real_rng)
    else:
        if book or photo:  # printed large, scanned or photographed small
            print_rng = scan if book else photo_rng
            theme = BOOK_THEMES[int(print_rng.integers(len(BOOK_THEMES)))]
            size = int(print_rng.integers(320, 641))
            decor = book_decor(print_rng, theme.hatch)
        elif varied:
            random_variety(variety, decor)
        board = render_board(fen, s["name"], theme, size, view, decor, rng)
        canvas, gx, gy = surround(board, rng)
        if book:
            canvas, f = print_and_scan(canvas, size, scan)
            gx, gy, size = gx * f, gy * f, size * f
        elif photo:
            canvas, f = print_and_photograph(canvas, size, photo_rng)
            gx, gy, size = gx * f, gy * f, size * f
        else:
            if varied and variety.random() < 0.15:
                canvas = shadow(canvas, variety)
            if not clean:
                canvas = augment(canvas, rng)
    cells = cut_cells(canvas, gx, gy, size, rng, jitter=not clean)
    rows = parse_fen(fen)
    if view == "black":
        rows = [row[::-1] for row in rows[::-1]]
    labels = np.array([CLASSES.index(p) if p else 0 for row in rows for p in row], np.uint8)
    keep = (labels != 0) | (rng.random(64) < EMPTY_KEEP)
    return cells[keep], labels[keep], np.full(keep.sum(), si, np.int16)


def build(out, split, sets, n_boards, seed, clean=False, varied=False, book_scan=0.0, book_photo=0.0,
          weights=None, real_book=0.0):
    """Render one split. `weights` (one per set, summing to 1) draws the sets unevenly;
    None draws them evenly."""
    jobs = [(seed * 1_000_003 + i, sets, clean, varied, book_scan, book_photo, weights, real_book)
            for i in range(n_boards)]
    with Pool(len(os.sched_getaffinity(0))) as pool:  # every core this process may use
        parts = []
        for part in pool.imap(render_one, jobs, chunksize=16):  # in order, as map
            parts.append(part)
            if len(parts) % 1000 == 0:
                print(f"{split}: {len(parts)}/{n_boards} boards", flush=True)
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    s = np.concatenate([p[2] for p in parts])
    np.savez_compressed(out / f"{split}.npz", x=x, y=y, s=s, sets=json.dumps(sets))
    print(f"{split}: {n_boards} boards, {len(y)} squares, class counts {np.bincount(y, minlength=13).tolist()}",
          flush=True)


def family_weight(spec):
    """`--favour`'s FAMILY=WEIGHT, with a positive weight."""
    family, _, weight = spec.partition("=")
    try:
        if family and float(weight) > 0:
            return family, float(weight)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{spec}: expected FAMILY=WEIGHT with a positive weight")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards-train", type=int, default=4000)
    ap.add_argument("--boards-val", type=int, default=400)
    ap.add_argument("--boards-heldout", type=int, default=400)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--train-seed", type=int, default=1,
                    help="seed of the training boards; another seed renders fresh boards to fine-tune on")
    ap.add_argument("--book-scan", type=float, default=0.0,
                    help="share of training boards printed as a book diagram and scanned cheaply "
                    "(print_and_scan; not in the bundled model, see the model card)")
    ap.add_argument("--book-photo", type=float, default=0.0,
                    help="share of training boards printed as a book diagram and photographed with a phone "
                    "(print_and_photograph)")
    ap.add_argument("--real-book", type=float, default=0.0,
                    help="share of training boards printed as a real book prints them (book_style.print_real_book: "
                    "halftone dots, hatching at any angle, marks, missing frame sides, sepia paper, worn ink)")
    ap.add_argument("--train-only", action="store_true",
                    help="render the training split alone (the evaluation splits do not depend on it)")
    ap.add_argument("--favour", action="append", default=[], type=family_weight, metavar="FAMILY=WEIGHT",
                    help="draw the training boards' sets of this design family WEIGHT times as often")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    all_sets = set_index()
    held_in = [s for s in all_sets if s["family"] not in HELD_OUT]
    held_out = [s for s in all_sets if s["family"] in HELD_OUT]
    print(f"held-in sets: {len(held_in)}; held-out sets: {[s['name'] for s in held_out]}")
    favour = dict(a.favour)
    unknown = set(favour) - {s["family"] for s in held_in}
    if unknown:
        ap.error(f"--favour: no held-in set has the family {', '.join(sorted(unknown))}")
    weights = None
    if favour:
        w = np.array([favour.get(s["family"], 1.0) for s in held_in])
        weights = w / w.sum()
    if not a.train_only:
        build(a.out, "heldout", held_out, a.boards_heldout, seed=3)
        build(a.out, "heldout_clean", held_out, a.boards_heldout // 4, seed=4, clean=True)
        build(a.out, "val", held_in, a.boards_val, seed=2)
    build(a.out, "train", held_in, a.boards_train, seed=a.train_seed, varied=True, book_scan=a.book_scan,
          book_photo=a.book_photo, weights=weights, real_book=a.real_book)


if __name__ == "__main__":
    main()
