#!/usr/bin/env python3
"""Fits the evaluation weights in src/analysis/engine/weights.rs to Stockfish's scores.

Texel-style: with the evaluation linear in its weights (features.py), minimise

    mean((sigmoid(eval(w) / K) - y)^2) + ridge * sum((w - w0)^2),
    y = (1 - r) * sigmoid(sf / K_sf) + r * result

over the training positions, where `sf` is the Stockfish score in the data
(datagen.py), `result` the game's result, r is `--result-weight` and w0 the
current weights. K_sf is fitted first so that
sigmoid(sf / K_sf) best predicts the game results, and K so that the current
weights best predict those targets; K is then held fixed, which keeps the
evaluation's scale (and so every search margin) where it is. The ridge term
pulls weights with little data (rare mobility counts, big king-danger
indices) toward their old values. The last tenth of the file (whole games,
but one) is held out to choose `--ridge` and to report the gain.

    python tune.py --data data.txt --weights ../../src/analysis/engine/weights.rs --ridge 1e-6 --write
    python tune.py --data data.txt --weights ../../src/analysis/engine/weights.rs --check "../../target/release/boardscan uci"
"""
import argparse
import os
import subprocess

import chess
import numpy as np
from scipy.optimize import minimize, minimize_scalar

import features
import weights


def load(path, limit):
    fens, cps, results = [], [], []
    with open(path) as f:
        for line in f:
            fen, cp, result = line.rstrip("\n").split(";")
            fens.append(fen)
            cps.append(float(cp))
            results.append(float(result))
            if len(fens) == limit:
                break
    return fens, np.array(cps), np.array(results)


def design(fens, cache, w0):
    """Sparse design matrix as (rows, cols, vals), one row per position."""
    if cache and os.path.exists(cache):
        z = np.load(cache)
        if z["n"] == len(fens):
            return z["rows"], z["cols"], z["vals"]
    rows, cols, vals = [], [], []
    tempo = weights.offsets()[1] - 1
    for i, fen in enumerate(fens):
        phase, sign, counts, scale = features.features(chess.Board(fen))
        # The scale depends on the sign of the endgame score; the fit takes
        # it from the current weights (the sign rarely changes).
        eg_now = sum(n * w0[2 * j + 1] for j, n in counts.items())
        mg = phase / features.MAX_PHASE
        eg = (1 - mg) * scale[1 if eg_now > 0 else -1] / features.SCALE_NORMAL
        for j, n in counts.items():
            rows += [i, i]
            cols += [2 * j, 2 * j + 1]
            vals += [n * mg, n * eg]
        rows.append(i)
        cols.append(tempo)
        vals.append(sign)
    out = np.array(rows, np.int32), np.array(cols, np.int32), np.array(vals, np.float64)
    if cache:
        np.savez(cache, rows=out[0], cols=out[1], vals=out[2], n=len(fens))
    return out


class Model:
    def __init__(self, matrix, n_rows, n_params):
        self.rows, self.cols, self.vals = matrix
        self.n_rows, self.n_params = n_rows, n_params

    def predict(self, w):
        return np.bincount(self.rows, self.vals * w[self.cols], self.n_rows)

    def loss_grad(self, w, y, k, w0, ridge):
        p = 1 / (1 + np.exp(-self.predict(w) / k))
        err = p - y
        loss = np.mean(err**2) + ridge * np.sum((w - w0) ** 2)
        d = 2 * err * p * (1 - p) / k / self.n_rows
        grad = np.bincount(self.cols, self.vals * d[self.rows], self.n_params)
        return loss, grad + 2 * ridge * (w - w0)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def check(engine, fens, w0, n):
    """Compares features.evaluate with the engine's `eval` on n positions."""
    proc = subprocess.Popen(engine.split(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    script = "".join(f"position fen {fen}\neval\n" for fen in fens[:n]) + "quit\n"
    out, _ = proc.communicate(script)
    engine_scores = [int(line.split()[4]) for line in out.splitlines() if "static eval" in line]
    ours = [features.evaluate(chess.Board(fen), w0) for fen in fens[:n]]
    bad = sum(a != b for a, b in zip(engine_scores, ours))
    print(f"check: {len(engine_scores)} positions, {bad} differ")
    return bad == 0 and len(engine_scores) == n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--weights", required=True, help="src/analysis/engine/weights.rs (read, and with --write replaced)")
    ap.add_argument("--limit", type=int, default=0, help="use only the first N positions")
    ap.add_argument("--cache", help="file to keep the design matrix in between runs")
    ap.add_argument("--ridge", type=float, nargs="+", default=[1e-6])
    ap.add_argument("--result-weight", type=float, default=0.0, help="share of the game result in the label")
    ap.add_argument("--freeze", nargs="*", default=["PIECE_VALUE", "PST"], help="weights not to fit")
    ap.add_argument("--check", help="engine command: compare its `eval` with features.py first")
    ap.add_argument("--write", action="store_true", help="write the fit of the last --ridge")
    args = ap.parse_args()

    fens, cps, results = load(args.data, args.limit or None)
    w0 = weights.read(args.weights)
    if args.check and not check(args.check, fens, w0, 2000):
        raise SystemExit("features.py and the engine disagree")
    n = len(fens)
    split = n - n // 10
    n_params = len(w0)
    matrix = design(fens, args.cache, w0)
    rows, cols, vals = matrix
    train_mask = rows < split
    train = Model((rows[train_mask], cols[train_mask], vals[train_mask]), split, n_params)
    test_mask = ~train_mask
    test = Model((rows[test_mask] - split, cols[test_mask], vals[test_mask]), n - split, n_params)

    k_sf = minimize_scalar(lambda k: np.mean((sigmoid(cps / k) - results) ** 2), bounds=(20, 2000), method="bounded").x
    y = (1 - args.result_weight) * sigmoid(cps / k_sf) + args.result_weight * results
    pred0 = train.predict(w0)
    k = minimize_scalar(lambda k: np.mean((sigmoid(pred0 / k) - y[:split]) ** 2), bounds=(20, 2000), method="bounded").x
    print(f"{n} positions ({split} train, {n - split} held out); K_sf = {k_sf:.1f}, K = {k:.1f}")

    free = np.ones(n_params, bool)
    offsets, _ = weights.offsets()
    for name, shape in weights.SPEC:
        if name in args.freeze:
            free[offsets[name] : offsets[name] + 2 * weights.size(shape)] = False
    bounds = [(None, None) if f else (v, v) for f, v in zip(free, w0)]

    def held_out(w):
        return np.mean((sigmoid(test.predict(w) / k) - y[split:]) ** 2)

    print(f"before: train {train.loss_grad(w0, y[:split], k, w0, 0)[0]:.6f}, held out {held_out(w0):.6f}")
    for ridge in args.ridge:
        fit = minimize(train.loss_grad, w0, args=(y[:split], k, w0, ridge), jac=True, method="L-BFGS-B",
                       bounds=bounds, options={"maxiter": 500, "ftol": 1e-14, "gtol": 1e-12})
        w = np.round(fit.x)
        train_loss = train.loss_grad(w, y[:split], k, w0, 0)[0]
        print(f"ridge {ridge:g}: train {train_loss:.6f}, held out {held_out(w):.6f} ({fit.nit} iterations)")
    if args.write:
        header = [
            "Fitted by training/engine-tuning/tune.py (see docs/engine.md, \"Tuning\") to",
            f"Stockfish depth-8 scores of {n} quiet self-play positions",
            f"(result weight {args.result_weight:g}),",
            f"with {', '.join(args.freeze) or 'nothing'} held fixed and ridge {args.ridge[-1]:g}.",
            "Material and piece-square tables started from PeSTO (Ronald Friederich).",
            "Regenerate rather than edit by hand.",
        ]
        weights.write(args.weights, w, header)
        print(f"wrote {args.weights}")


if __name__ == "__main__":
    main()
