"""Render the pictures of the library-corrections demonstration: boards in the
piece sets the square model reads worst among those it was trained on (the
Millenia and Maroquin diagram fonts, see the model card), drawn as
`make_heldout_eval.py` draws its pictures.

    python make_corrections_demo.py OUT_DIR [--per-set 60] [--seed 21]

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

from make_heldout_eval import render_set
from render import set_index

WEAK_SETS = ["font-millenia-pychess", "font-maroquin-pychess"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-set", type=int, default=60)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--sets", default=",".join(WEAK_SETS), help="comma-separated set names")
    args = parser.parse_args()
    by_name = {s["name"]: s for s in set_index()}
    sets = [by_name[n] for n in args.sets.split(",")]
    for split, seed in (("correct", args.seed), ("test", args.seed + 1)):
        rows = render_set(args.out / split, sets, args.per_set, np.random.default_rng(seed))
        print(f"{split}: {len(rows)} pictures from {args.sets} to {args.out / split}")


if __name__ == "__main__":
    main()
