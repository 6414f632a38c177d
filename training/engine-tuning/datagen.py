#!/usr/bin/env python3
"""Makes the evaluation tuning set: Stockfish self-play, every position labelled.

Plays Stockfish against itself at a fixed depth from random openings of
8moves_v3.epd and writes one line per quiet position:

    FEN;score;result

`score` is Stockfish's score at that depth in centipawns from White's point
of view; `result` is the game's result for White (1, 0.5 or 0). A position is
quiet when the side to move is not in check and Stockfish's best move is
neither a capture nor a promotion; positions with a mate score or
|score| > 2000 are left out. Games end at checkmate, stalemate, the
fifty-move rule, repetition or insufficient material, or are adjudicated:
|score| > 1000 for 8 plies in a row, or 300 plies.

One Stockfish process, one thread: this uses one core. Stockfish at a fixed
depth on one thread after `ucinewgame` should play the same moves each time,
so the same seed and `--games` should give the same file (not checked);
`--minutes` stops early by the clock.

    python datagen.py --openings OPENINGS.epd --out data.txt --games 1393
"""
import argparse
import random
import subprocess
import time

import chess


class Stockfish:
    """A bare UCI pipe: faster than python-chess's engine layer."""

    def __init__(self, path):
        self.p = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name Threads value 1")
        self.send("setoption name Hash value 16")

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def wait(self, token):
        while True:
            line = self.p.stdout.readline()
            if line.startswith(token):
                return line

    def new_game(self):
        self.send("ucinewgame")
        self.send("isready")
        self.wait("readyok")

    def search(self, fen, depth):
        """(best move in UCI, score from the side to move, is_mate)."""
        self.send(f"position fen {fen}")
        self.send(f"go depth {depth}")
        score, mate = 0, False
        while True:
            line = self.p.stdout.readline()
            if line.startswith("info") and " score " in line:
                words = line.split()
                i = words.index("score")
                mate = words[i + 1] == "mate"
                score = int(words[i + 2])
            elif line.startswith("bestmove"):
                return line.split()[1], score, mate


def play(sf, fen, depth):
    """Plays one game; returns [(fen, white_cp)] for quiet positions and the result."""
    board = chess.Board(fen)
    sf.new_game()
    rows, decisive = [], 0
    result = None
    while result is None:
        if board.is_game_over(claim_draw=True):
            outcome = board.outcome(claim_draw=True)
            result = 0.5 if outcome.winner is None else float(outcome.winner)
            break
        move_uci, score, mate = sf.search(board.fen(), depth)
        move = chess.Move.from_uci(move_uci)
        white = score if board.turn == chess.WHITE else -score
        if mate:
            result = float((score > 0) == (board.turn == chess.WHITE))
            break
        quiet = not board.is_check() and not board.is_capture(move) and move.promotion is None
        if quiet and abs(white) <= 2000:
            rows.append((board.fen(), white))
        decisive = decisive + 1 if abs(white) > 1000 else 0
        if decisive >= 8:
            result = 1.0 if white > 0 else 0.0
        elif board.ply() >= 300:
            result = 0.5
        board.push(move)
    return rows, result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--openings", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--minutes", type=float, default=600)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    with open(args.openings) as f:
        openings = [" ".join(line.split()[:4]) + " 0 1" for line in f if line.strip()]
    random.Random(args.seed).shuffle(openings)
    sf = Stockfish(args.stockfish)
    end = time.time() + 60 * args.minutes
    games = positions = 0
    with open(args.out, "w") as out:
        for fen in openings:
            if games == args.games or time.time() > end:
                break
            rows, result = play(sf, fen, args.depth)
            for row_fen, cp in rows:
                out.write(f"{row_fen};{cp};{result}\n")
            out.flush()
            games += 1
            positions += len(rows)
            if games % 50 == 0:
                print(f"{games} games, {positions} positions", flush=True)
    print(f"done: {games} games, {positions} positions")
    sf.send("quit")


if __name__ == "__main__":
    main()
