#!/usr/bin/env python3
"""Trains the engine's evaluation network and writes it for `src/analysis/engine/nnue.rs`.

The network (the layout `nnue.rs` reads):

    768 inputs per perspective -> HIDDEN (shared weights, one accumulator per
    side) -> SCReLU -> [side to move's, other side's] -> 1 output, by one of
    BUCKETS output layers picked by the number of pieces on the board

An input is a (colour relative to the perspective, piece kind, square) triple;
Black's perspective flips the board vertically, so both accumulators use the
same weights. The output is a score in centipawns of the label's scale,
from the side to move's point of view.

Data: lines `FEN;score;result` from `../engine-tuning/datagen.py` (Stockfish's
score from White's point of view, the game's result for White). The target is
`(1 - r) * sigmoid(score / K) + r * result` with the result seen from the side
to move (`r = 0` for positions without a game result, `-`, as `label.py` writes
them); the loss is the squared difference of `sigmoid(output / K)` to it.
Whole games are never split: the last `--val` share of each `--data` file's
lines is held out (the generator writes a game's positions together);
`--extra` files (random walks from `label.py`) are used for training only.

    python train.py --data d6_0.txt d6_1.txt --extra walks_0.txt walks_1.txt \
        --out ../../models/engine.nnue \
        --engine ../../target/release/boardscan

Feature weights are clipped to +-CLIP so that the int16 accumulator of
`nnue.rs` (weights times QA = 255) cannot overflow with 32 pieces on the board.
"""
import argparse
import struct
import subprocess
import time

import numpy as np
import torch

QA = 255
CLIP = 1.98
K = 400 / np.log(10)  # the usual Elo-style scale: sigmoid(cp / K)
PAD = 768  # index of the all-zero padding input
PIECES = {c: i for i, c in enumerate("pnbrqk")}


def features(fen):
    """(white-perspective, black-perspective) input indices and the side to move."""
    placement, turn = fen.split()[:2]
    white, black = [], []
    rank = 7
    file = 0
    for ch in placement:
        if ch == "/":
            rank -= 1
            file = 0
        elif ch.isdigit():
            file += int(ch)
        else:
            sq = rank * 8 + file
            kind = PIECES[ch.lower()]
            is_white = ch.isupper()
            white.append((0 if is_white else 384) + kind * 64 + sq)
            black.append((384 if is_white else 0) + kind * 64 + (sq ^ 56))
            file += 1
    return white, black, turn == "w"


def bucket(pieces, buckets):
    """The output layer of a position with `pieces` pieces, as `nnue.rs` picks it."""
    return min((pieces - 2) * buckets // 31, buckets - 1)


def load(paths, extra_paths, val_share, buckets):
    """Arrays for the training and validation splits; `extra_paths` only train."""
    splits = {"train": [], "val": []}
    for path in paths + extra_paths:
        with open(path) as f:
            lines = [line for line in f if line.count(";") == 2]
        cut = int(len(lines) * (1 - val_share)) if path in paths else len(lines)
        splits["train"].extend(lines[:cut])
        splits["val"].extend(lines[cut:])
    out = {}
    for name, lines in splits.items():
        n = len(lines)
        us = np.full((n, 32), PAD, dtype=np.int16)
        them = np.full((n, 32), PAD, dtype=np.int16)
        score = np.zeros(n, dtype=np.float32)
        result = np.zeros(n, dtype=np.float32)
        layer = np.zeros(n, dtype=np.int16)
        fens = []
        for i, line in enumerate(lines):
            fen, cp, res = line.strip().split(";")
            w, b, white_to_move = features(fen)
            mine, theirs = (w, b) if white_to_move else (b, w)
            us[i, : len(mine)] = mine
            them[i, : len(theirs)] = theirs
            layer[i] = bucket(len(mine), buckets)
            sign = 1 if white_to_move else -1
            score[i] = sign * float(cp)
            if res == "-":
                result[i] = np.nan
            else:
                r = float(res)
                result[i] = r if white_to_move else 1 - r
            fens.append(fen)
        out[name] = (us, them, layer, score, result, fens)
    return out


class Net(torch.nn.Module):
    def __init__(self, hidden, buckets, scale):
        super().__init__()
        self.scale = scale
        self.ft = torch.nn.EmbeddingBag(PAD + 1, hidden, mode="sum", padding_idx=PAD)
        torch.nn.init.normal_(self.ft.weight, std=0.05)
        with torch.no_grad():
            self.ft.weight[PAD].zero_()
        self.ft_bias = torch.nn.Parameter(torch.zeros(hidden))
        self.out = torch.nn.Linear(2 * hidden, buckets)

    def forward(self, us, them, layer):
        a = torch.clamp(self.ft(us) + self.ft_bias, 0, 1) ** 2
        b = torch.clamp(self.ft(them) + self.ft_bias, 0, 1) ** 2
        outputs = self.out(torch.cat([a, b], dim=1))
        return outputs.gather(1, layer.unsqueeze(1)).squeeze(1) * self.scale

    def clip(self):
        with torch.no_grad():
            self.ft.weight.clamp_(-CLIP, CLIP)
            self.ft_bias.clamp_(-CLIP, CLIP)


def target(score, result, result_weight):
    expected = torch.sigmoid(score / K)
    mixed = (1 - result_weight) * expected + result_weight * result
    return torch.where(torch.isnan(result), expected, mixed)


def batches(arrays, size, shuffle, rng):
    n = len(arrays[0])
    order = rng.permutation(n) if shuffle else np.arange(n)
    for start in range(0, n, size):
        idx = order[start : start + size]
        yield [torch.from_numpy(a[idx].astype(np.int64 if a.dtype == np.int16 else a.dtype)) for a in arrays]


def evaluate_loss(net, split, result_weight):
    total, n = 0.0, 0
    with torch.no_grad():
        for u, t, b, s, r in batches(split[:5], 65536, False, None):
            pred = net(u, t, b)
            total += float(((torch.sigmoid(pred / K) - target(s, r, result_weight)) ** 2).sum())
            n += len(s)
    return total / n


def engine_evals(engine, fens):
    """The hand-written evaluation of each FEN, from the side to move, by `ENGINE uci`'s `eval`."""
    commands = "".join(f"position fen {fen}\neval\n" for fen in fens) + "quit\n"
    out = subprocess.run(engine.split(), input=commands, capture_output=True, text=True, check=True).stdout
    return np.array([int(line.split()[4]) for line in out.splitlines() if "static eval" in line], dtype=np.float32)


def baseline(engine, split, result_weight):
    """Held-out loss of the hand-written evaluation, as it is and at its best scale."""
    hce = torch.from_numpy(engine_evals(engine, split[5]))
    y = target(torch.from_numpy(split[3]), torch.from_numpy(split[4]), result_weight)
    loss = lambda c: float(((torch.sigmoid(c * hce / K) - y) ** 2).mean())
    best = min((loss(c / 100), c / 100) for c in range(50, 201))
    print(f"hand-written evaluation: held-out loss {loss(1.0):.6f}; "
          f"{best[0]:.6f} scaled by {best[1]:.2f}", flush=True)
    return best[1]


def write(net, path, output_scale):
    """The file `nnue.rs` reads: header, int16 feature layer, float32 output layers."""
    ft = net.ft.weight.detach().numpy()[:PAD]
    hidden = ft.shape[1]
    buckets = net.out.out_features
    ft_q = np.round(ft * QA).astype("<i2")
    bias_q = np.round(net.ft_bias.detach().numpy() * QA).astype("<i2")
    out_w = (net.out.weight.detach().numpy().reshape(-1) * net.scale * output_scale).astype("<f4")
    out_b = (net.out.bias.detach().numpy() * net.scale * output_scale).astype("<f4")
    with open(path, "wb") as f:
        f.write(b"BSNN")
        f.write(struct.pack("<III", 2, hidden, buckets))
        f.write(ft_q.tobytes())
        f.write(bias_q.tobytes())
        f.write(out_w.tobytes())
        f.write(out_b.tobytes())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", nargs="+", required=True, help="game positions (datagen.py)")
    ap.add_argument("--extra", nargs="*", default=[], help="training-only positions (label.py)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--buckets", type=int, default=8, help="output layers, by piece count")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=8192)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--result-weight", type=float, default=0.1)
    ap.add_argument("--val", type=float, default=0.05, help="share of each file held out")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", help="`boardscan` binary: score its hand-written evaluation on the "
                    "held-out positions and write the network in its units")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)

    t0 = time.time()
    data = load(args.data, args.extra, args.val, args.buckets)
    print(f"{len(data['train'][0])} training and {len(data['val'][0])} held-out positions "
          f"({time.time() - t0:.0f} s)", flush=True)
    # The network learns the label's units; the search's margins are set in
    # the hand-written evaluation's, which this scale converts to.
    output_scale = 1 / baseline(args.engine + " uci", data["val"], args.result_weight) if args.engine else 1.0

    net = Net(args.hidden, args.buckets, scale=400.0)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    train = data["train"][:5]
    best = (float("inf"), None)
    for epoch in range(args.epochs):
        t0 = time.time()
        for u, t, b, s, r in batches(train, args.batch, True, rng):
            opt.zero_grad()
            pred = net(u, t, b)
            loss = ((torch.sigmoid(pred / K) - target(s, r, args.result_weight)) ** 2).mean()
            loss.backward()
            opt.step()
            net.clip()
        sched.step()
        val = evaluate_loss(net, data["val"], args.result_weight)
        print(f"epoch {epoch + 1}: held-out loss {val:.6f} ({time.time() - t0:.0f} s)", flush=True)
        if val < best[0]:
            best = (val, {k: v.clone() for k, v in net.state_dict().items()})
    net.load_state_dict(best[1])
    write(net, args.out, output_scale)
    print(f"best held-out loss {best[0]:.6f}; wrote {args.out}")


if __name__ == "__main__":
    main()
