"""Render the performance benchmark inputs (deterministic, not committed).

    python make_benchset.py OUT_DIR [--count 200]

Writes OUT_DIR/screenshot-1440x900.png (one board in a 1440x900 page, for
the load test and the per-image timing) and OUT_DIR/batch/NNN.png, `count`
diagrams in varied sets, themes and sizes, for `boardscan batch` speed-ups,
with OUT_DIR/labels.csv (`file,fen,view,kind`) so `boardscan eval` can score them.
"""

import argparse
from pathlib import Path

import numpy as np

from make_testdata import random_game_positions, write_csv
from render import THEMES, Decor, embed_in_page, render_board, set_index


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(1440900)
    sets = sorted(entry["name"] for entry in set_index())
    themes = [t for t in THEMES if not t.hatch]
    positions = random_game_positions(args.count + 1, rng)

    args.out.mkdir(parents=True, exist_ok=True)
    board = render_board(positions[0], "pychess-cburnett", themes[1], 640, "white",
                         Decor(coords=True), rng)
    page, _ = embed_in_page(board, 1440, 900, rng)
    page.save(args.out / "screenshot-1440x900.png")

    batch = args.out / "batch"
    batch.mkdir(exist_ok=True)
    rows = [("screenshot-1440x900.png", positions[0], "white", "screenshot")]
    for i, fen in enumerate(positions[1:]):
        set_name = sets[int(rng.integers(len(sets)))]
        theme = themes[int(rng.integers(len(themes)))]
        size = int(rng.integers(240, 560))
        img = render_board(fen, set_name, theme, size, "white", Decor(), rng)
        name = f"batch/{i:03d}.png"
        img.save(args.out / name)
        rows.append((name, fen, "white", "batch"))
    write_csv(args.out / "labels.csv", ["file", "fen", "view", "kind"], rows)
    print(f"wrote {len(rows)} images to {args.out}")


if __name__ == "__main__":
    main()
