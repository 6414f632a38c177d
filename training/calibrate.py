"""Fits the softmax temperature that makes the square model's probabilities
honest, on the validation split (held-in piece sets, seeds never trained on).

Training with label smoothing caps the top probability near 0.95, so a board
read perfectly would report a confidence of 0.95^64 = 0.04. Dividing the
logits by a temperature T fitted by maximum likelihood fixes that without
changing any square's likeliest class. The Rust side applies the constant
`recognize::classifier::TEMPERATURE`; this script says what it should be
after a model changes, and how calibrated the model is with and without it.

    training/.venv/bin/python training/calibrate.py [--model models/squares.onnx]
"""

import argparse
from pathlib import Path

import numpy as np
import onnxruntime as ort

HERE = Path(__file__).resolve().parent


def logits_of(model, x, batch=2048):
    sess = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    out = []
    for i in range(0, len(x), batch):
        xb = x[i:i + batch].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        out.append(sess.run(["logits"], {"input": xb})[0])
    return np.concatenate(out)


def log_softmax(z):
    z = z - z.max(1, keepdims=True)
    return z - np.log(np.exp(z).sum(1, keepdims=True))


def nll(logits, y, t):
    return -log_softmax(logits / t)[np.arange(len(y)), y].mean()


def fit_temperature(logits, y, lo=0.05, hi=2.0):
    """Golden-section search for the temperature of least NLL (it is unimodal)."""
    g = (np.sqrt(5) - 1) / 2
    a, b = lo, hi
    for _ in range(60):
        c, d = b - g * (b - a), a + g * (b - a)
        if nll(logits, y, c) < nll(logits, y, d):
            b = d
        else:
            a = c
    return (a + b) / 2


def calibration_error(logits, y, t, bins=10):
    """Expected calibration error of the top probability, and the mean top
    probability of the squares read right."""
    p = np.exp(log_softmax(logits / t))
    top, pred = p.max(1), p.argmax(1)
    right = pred == y
    edges = np.linspace(0, 1, bins + 1)
    ece = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        m = (top > a) & (top <= b)
        if m.any():
            ece += m.mean() * abs(top[m].mean() - right[m].mean())
    return ece, top[right].mean()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=HERE.parent / "models" / "squares.onnx")
    ap.add_argument("--data", type=Path, default=HERE / "out")
    args = ap.parse_args()
    fitted = {}
    for split in ["val", "heldout"]:
        d = np.load(args.data / f"{split}.npz")
        logits, y = logits_of(args.model, d["x"]), d["y"].astype(np.int64)
        t = fit_temperature(logits, y)
        fitted[split] = t
        print(f"{split}: {len(y)} squares, accuracy {(logits.argmax(1) == y).mean():.4f}")
        for name, temp in [("raw (T = 1)", 1.0), (f"T = {t:.3f}", t)]:
            ece, right_top = calibration_error(logits, y, temp)
            print(f"  {name:12} NLL {nll(logits, y, temp):.4f}  ECE {ece:.4f}  "
                  f"mean top probability when right {right_top:.4f}")
    print(f"temperature to use (fitted on val): {fitted['val']:.3f}")


if __name__ == "__main__":
    main()
