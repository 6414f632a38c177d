"""Render the held-out evaluation set: whole pictures of boards in the design
families the model never sees in training (Leipzig and Alpha, every package),
with decorations and picture artefacts, for `boardscan eval`.

    python make_heldout_eval.py OUT_DIR [--per-set 50] [--seed 7]

Writes OUT_DIR/NNN.png and OUT_DIR/labels.csv (`file,fen,view,kind`, kind =
the piece set). Boards come from seeded random play, are seen from either
side, sit plain, framed, or in a web page, and carry the training set's
decorations (coordinates, last-move and check highlights, arrows, circles).
Then, each with its own probability: JPEG compression (quality 50-95), a
slight blur, down-and-up scaling to 60-90 %, and noise. Nothing here is ever
trained on: gen_data.py excludes these families.
"""

import argparse
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from gen_data import HELD_OUT, jpeg, random_decor, random_theme
from make_testdata import random_game_positions, write_csv
from render import THEMES, add_frame, embed_in_page, render_board, set_index


def artefacts(img, rng):
    """Moderate picture damage: what a real screenshot or scan goes through."""
    if rng.random() < 0.3:
        f = rng.uniform(0.6, 0.9)
        small = img.resize((int(img.width * f), int(img.height * f)), Image.BILINEAR)
        img = small.resize(img.size, Image.BILINEAR)
    if rng.random() < 0.25:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.9)))
    if rng.random() < 0.25:
        a = np.asarray(img, dtype=np.float32) + rng.normal(0, rng.uniform(2, 6), (img.height, img.width, 3))
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if rng.random() < 0.5:
        img = jpeg(img, int(rng.integers(50, 96)))
    return img


def render_picture(s, fen, rng, sizes=(200, 641), damage=artefacts):
    """One whole picture of `fen` in piece set `s` (an index.json entry), as this
    evaluation draws them: theme, view, board size in `sizes` (half-open, px),
    decorations, placement, then `damage(picture, rng)`. Returns (picture, view)."""
    is_font = s["kind"] in ("font", "unicode")
    theme = random_theme(rng)
    if is_font and rng.random() < 0.5:
        theme = [t for t in THEMES if t.hatch or t.name.startswith("book")][int(rng.integers(4))]
    view = "white" if rng.random() < 0.5 else "black"
    size = int(rng.integers(*sizes))
    decor = random_decor(rng, is_font, theme.hatch)
    board = render_board(fen, s["name"], theme, size, view, decor, rng)
    style = rng.random()
    if style < 0.4:
        pad = int(rng.integers(2, 30))
        picture, _ = add_frame(board, int(rng.integers(0, 3)), margin=pad)
    elif style < 0.7:
        picture, _ = embed_in_page(board, size + int(rng.integers(300, 800)),
                                   size + int(rng.integers(120, 300)), rng,
                                   dark_mode=bool(rng.random() < 0.3))
    else:
        picture, _ = add_frame(board, 0, margin=int(rng.integers(0, 4)))
    return damage(picture, rng), view


def render_set(out, sets, per_set, rng, **style):
    """Render `per_set` pictures of each set into `out` with `labels.csv`
    (`style`: `render_picture`'s `sizes` and `damage`)."""
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for s in sets:
        for fen in random_game_positions(per_set, rng):
            picture, view = render_picture(s, fen, rng, **style)
            name = f"{len(rows):03d}.png"
            picture.save(out / name)
            rows.append((name, fen, view, s["name"]))
    write_csv(out / "labels.csv", ["file", "fen", "view", "kind"], rows)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-set", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    sets = [s for s in set_index() if s["family"] in HELD_OUT]
    rows = render_set(args.out, sets, args.per_set, rng)
    print(f"wrote {len(rows)} images from {[s['name'] for s in sets]} to {args.out}")


if __name__ == "__main__":
    main()
