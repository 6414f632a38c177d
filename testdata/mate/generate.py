#!/usr/bin/env python3
"""Random sparse positions whose mate in N has a unique, quiet key (no
check, no capture), as composed problems have: candidates for
problems.epd, to be checked by collect.py like any suite.

    python3 testdata/mate/generate.py --boardscan target/release/boardscan \
        --n 2 --count 15 --seed 1 > generated2.epd

Each candidate is a legal position (boardscan's FEN reader judges) with
White to move, solved by `boardscan mate FEN N --all-cooks`; it is kept when
the shortest mate is exactly N, there are no cooks and the key neither
checks nor captures. Standard library only.
"""

import argparse
import json
import random
import subprocess

WHITE = "QRRBBNNPPP"
BLACK = "qrbnpppp"


def position(rng):
    squares = rng.sample(range(64), 64)
    board = [None] * 64
    board[squares.pop()] = "K"
    board[squares.pop()] = "k"
    for piece in rng.sample(WHITE, rng.randint(2, 4)) + rng.sample(BLACK, rng.randint(0, 3)):
        sq = squares.pop()
        if piece in "Pp" and sq // 8 in (0, 7):
            continue
        board[sq] = piece
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            p = board[rank * 8 + file]
            if p is None:
                empty += 1
            else:
                row += (str(empty) if empty else "") + p
                empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + " w - -"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boardscan", required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tries", type=int, default=200000)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    found = 0
    for i in range(args.tries):
        if found >= args.count:
            break
        epd = position(rng)
        out = subprocess.run([args.boardscan, "mate", epd + " 0 1", str(args.n), "--json",
                              "--all-cooks", "--max-seconds", "2"], capture_output=True, text=True)
        if out.returncode != 0:
            continue
        r = json.loads(out.stdout)
        key = r["key"]["san"]
        if r["mateIn"] != args.n or r["cooks"] or not r["cooksComplete"] or "+" in key or "x" in key:
            continue
        found += 1
        print(f'{epd} bm {key}; dm {args.n}; id "generated #{args.n} seed {args.seed} try {i}";',
              flush=True)


if __name__ == "__main__":
    main()
