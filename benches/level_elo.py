#!/usr/bin/env python3
"""Each play level's Elo from the output lines of `boardscan calibrate`.

    python3 benches/level_elo.py calibrate.log

All runs of a level (against Stockfish at different UCI_Elo) are combined by
maximum likelihood under the logistic Elo model, draws counting half a point;
the interval is the 95% likelihood interval (log-likelihood within 1.92 of
the maximum).
"""

import collections
import math
import re
import sys

LINE = re.compile(r"level (\d) vs \S+ at UCI_Elo (\d+): \+(\d+) =(\d+) -(\d+)")


def log_likelihood(runs, elo):
    total = 0.0
    for opponent, wins, draws, losses in runs:
        p = 1 / (1 + 10 ** ((opponent - elo) / 400))
        p = min(max(p, 1e-9), 1 - 1e-9)
        total += (wins + draws / 2) * math.log(p) + (losses + draws / 2) * math.log(1 - p)
    return total


def main():
    runs = collections.defaultdict(list)
    with open(sys.argv[1]) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                level, *rest = map(int, m.groups())
                runs[level].append(tuple(rest))
    grid = [r / 2 for r in range(0, 8000)]
    for level in sorted(runs):
        rs = runs[level]
        best = max(grid, key=lambda r: log_likelihood(rs, r))
        top = log_likelihood(rs, best)
        inside = [r for r in grid if log_likelihood(rs, r) >= top - 1.92]
        games = sum(w + d + l for _, w, d, l in rs)
        detail = ", ".join(f"+{w} ={d} -{l} vs {e}" for e, w, d, l in rs)
        print(f"level {level}: {best:.0f} [{min(inside):.0f}, {max(inside):.0f}] "
              f"from {games} games ({detail})")


if __name__ == "__main__":
    main()
