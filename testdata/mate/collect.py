#!/usr/bin/env python3
"""Builds problems.epd from EPD suites: the positions with a forced mate in
at most 4 moves, each checked by Stockfish and by boardscan's mate solver.

    python3 testdata/mate/collect.py --boardscan target/release/boardscan \
        --stockfish /usr/games/stockfish SUITE.epd ... > candidates.epd

For every position: Stockfish (`go movetime`) flags a mate in <= 4;
boardscan proves the shortest mate m, its key and every other first move
mating in m; Stockfish then confirms `go mate m` from the position and
`go mate m searchmoves K` for each of those first moves K. Lines failing
any check are dropped. Standard library only.
"""

import argparse
import json
import queue
import subprocess
import sys
import threading
import time


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()
        self.send("uci")
        self.until("uciok")

    def read(self):
        for line in self.p.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix, timeout=None, lines=None):
        """Lines up to one starting with prefix (added to `lines`); None on timeout."""
        deadline = None if timeout is None else time.time() + timeout
        lines = [] if lines is None else lines
        while True:
            try:
                left = None if deadline is None else max(deadline - time.time(), 0)
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line is None:
                raise RuntimeError("engine exited")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def go(self, fen, moves, command, timeout):
        self.send("ucinewgame")
        self.send(f"position fen {fen}" + (f" moves {moves}" if moves else ""))
        self.send("isready")
        self.until("readyok")
        self.send(command)
        lines = []
        if self.until("bestmove", timeout, lines) is None:
            self.send("stop")
            self.until("bestmove", None, lines)
        mate = None
        for line in lines:
            words = line.split()
            if "mate" in words and "score" in words:
                mate = int(words[words.index("mate") + 1])
        return mate, lines[-1].split()[1] if lines else None


def solver(binary, fen, n, seconds):
    out = subprocess.run([binary, "mate", fen, str(n), "--json", "--all-cooks",
                          "--max-seconds", str(seconds)], capture_output=True, text=True)
    return json.loads(out.stdout) if out.stdout.strip() else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boardscan", required=True)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--max-n", type=int, default=4)
    ap.add_argument("--movetime", type=int, default=300)
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("suites", nargs="+")
    args = ap.parse_args()
    sf = Engine(args.stockfish)
    for path in args.suites:
        for line in open(path, encoding="utf-8", errors="replace"):
            fields = line.split()
            if len(fields) < 5 or line.startswith("#"):
                continue
            epd = " ".join(fields[:4])
            fen = epd + " 0 1"
            ident = line.split('id "')[1].split('"')[0] if 'id "' in line else path
            mate, _ = sf.go(fen, None, f"go movetime {args.movetime}", args.movetime / 1000 + 5)
            if mate is None or not 0 < mate <= args.max_n:
                continue
            ours = solver(args.boardscan, fen, args.max_n, args.seconds)
            if not ours or not ours["found"] or not ours["proven"]:
                print(f"# {ident}: solver gave {ours}", file=sys.stderr)
                continue
            m = ours["mateIn"]
            exact = solver(args.boardscan, fen, m, args.seconds)
            keys = [exact["key"]] + exact["cooks"]
            sf_mate, _ = sf.go(fen, None, f"go mate {m}", 60)
            ok = sf_mate == m
            for key in keys:
                # Stockfish's own mate search, restricted to this first move.
                after, best = sf.go(fen, None, f"go mate {m} searchmoves {key['uci']}", 60)
                ok &= after == m and best == key["uci"]
            if not ok:
                print(f"# {ident}: stockfish disagrees (mate {sf_mate})", file=sys.stderr)
                continue
            bm = " ".join(k["san"] for k in keys)
            print(f'{epd} bm {bm}; dm {m}; id "{ident}";', flush=True)
    sf.send("quit")


if __name__ == "__main__":
    main()
