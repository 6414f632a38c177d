#!/usr/bin/env python3
"""Makes more training positions for the network: random walks from game positions,
each labelled by a shallow Stockfish search.

Reads seed positions (`FEN;score;result` lines, as `../engine-tuning/datagen.py`
writes them), plays 1 to `--max-plies` random legal moves from each of them
`--walks` times, and writes each position reached that is quiet with
Stockfish's score at `--depth`. Before a share `--drop` of the walks, one
piece other than a king is taken off the board at random: games between
equal players rarely leave a side a piece or a queen down, and a network that
has never seen such positions misjudges them, though a search meets them all
the time. The lines:

    FEN;score;-

`score` is from White's point of view. Quiet means what it means in datagen.py:
the side to move is not in check, Stockfish's best move is neither a capture
nor a promotion, and the score is no mate and at most 2000 cp. There is no
game, so there is no result (`-`; train.py then uses the score alone). One Stockfish process, one thread: run one per core, each on
its own share of the seeds (`--shard I/N`).

    python label.py --seeds d6_0.txt --out walks_0.txt --shard 0/2
"""
import argparse
import os
import random
import sys
import time

import chess

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "engine-tuning"))
from datagen import Stockfish  # noqa: E402  (the same bare UCI pipe)


def drop_piece(board, rng):
    """`board` with one random piece other than a king removed, if still legal."""
    squares = [sq for sq, piece in board.piece_map().items() if piece.piece_type != chess.KING]
    if not squares:
        return board
    board = board.copy(stack=False)
    board.remove_piece_at(rng.choice(squares))
    board.clean_castling_rights()
    board.ep_square = None
    return board if board.is_valid() else None


def walk(board, plies, rng):
    """`board` after up to `plies` random legal moves (fewer if the game ends)."""
    board = board.copy(stack=False)
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--walks", type=int, default=2, help="random walks from each seed")
    ap.add_argument("--max-plies", type=int, default=6)
    ap.add_argument("--drop", type=float, default=0.5, help="share of walks that start a piece short")
    ap.add_argument("--shard", default="0/1", help="I/N: take every N-th seed, from the I-th")
    ap.add_argument("--minutes", type=float, default=600)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    index, count = map(int, args.shard.split("/"))
    seeds = []
    for path in args.seeds:
        with open(path) as f:
            seeds.extend(line.split(";")[0] for line in f if line.count(";") == 2)
    seeds = seeds[index::count]
    rng = random.Random(args.seed * 1000 + index)
    sf = Stockfish(args.stockfish)
    end = time.time() + 60 * args.minutes
    seen = kept = 0
    with open(args.out, "w") as out:
        for fen in seeds:
            if time.time() > end:
                break
            start = chess.Board(fen)
            for _ in range(args.walks):
                board = drop_piece(start, rng) if rng.random() < args.drop else start
                if board is None:
                    continue
                board = walk(board, rng.randint(1, args.max_plies), rng)
                if board.is_game_over() or board.is_check():
                    continue
                seen += 1
                move, score, mate = sf.search(board.fen(), args.depth)
                if mate or abs(score) > 2000 or move == "(none)":
                    continue
                mv = chess.Move.from_uci(move)
                if board.is_capture(mv) or mv.promotion is not None:
                    continue
                white = score if board.turn == chess.WHITE else -score
                out.write(f"{board.fen()};{white};-\n")
                kept += 1
            if seen and seen % 20000 < args.walks:
                out.flush()
                print(f"{seen} positions searched, {kept} kept", flush=True)
    print(f"done: {seen} positions searched, {kept} kept")
    sf.send("quit")


if __name__ == "__main__":
    main()
