"""Render the pictures of the library-corrections demonstration: low-resolution
scans of boards in the piece sets the square model reads worst among those it
was trained on (the Millenia and Maroquin diagram fonts, lichess fantasy,
kokopu skulls; see the model card), drawn as `make_heldout_eval.py` draws its
pictures but 150-259 px wide and damaged as a poor scan is (`scan_damage`).

    python make_corrections_demo.py OUT_DIR [--per-set 30] [--seed 21]

Writes two splits from independent seeds, each NNN.png + labels.csv
(`file,fen,view,kind`, the format `boardscan eval` reads):

- OUT_DIR/correct/: the pictures to upload to the web page; those the model
  misreads are corrected in the page's editor (`tests/browser/correct_boards.mjs`)
  and exported with `boardscan library export-corrections`;
- OUT_DIR/test/: never uploaded or trained on; scores the model on this
  style before and after fine-tuning on the corrections.
"""

import argparse
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from gen_data import jpeg
from make_heldout_eval import render_set
from render import set_index

WEAK_SETS = ["font-millenia-pychess", "font-maroquin-pychess", "lichess-fantasy", "kokopu-skulls"]
SIZES = (150, 260)


def scan_damage(img, rng):
    """A poor scan: scaled down to 50-80 % and back, blurred, noisy, JPEG 25-59."""
    f = rng.uniform(0.5, 0.8)
    small = img.resize((int(img.width * f), int(img.height * f)), Image.BILINEAR)
    img = small.resize(img.size, Image.BILINEAR).filter(ImageFilter.GaussianBlur(rng.uniform(0.4, 1.0)))
    a = np.asarray(img, dtype=np.float32) + rng.normal(0, rng.uniform(3, 8), (img.height, img.width, 3))
    return jpeg(Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)), int(rng.integers(25, 60)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-set", type=int, default=30)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--sets", default=",".join(WEAK_SETS), help="comma-separated set names")
    args = parser.parse_args()
    by_name = {s["name"]: s for s in set_index()}
    sets = [by_name[n] for n in args.sets.split(",")]
    for split, seed in (("correct", args.seed), ("test", args.seed + 1)):
        rows = render_set(args.out / split, sets, args.per_set, np.random.default_rng(seed),
                          sizes=SIZES, damage=scan_damage)
        print(f"{split}: {len(rows)} pictures from {args.sets} to {args.out / split}")


if __name__ == "__main__":
    main()
