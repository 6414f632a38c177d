"""Measure adapting the standing-piece model to one user's set from photos of its
starting position, on renders (never on real photos).

For each style seed S, `render_physical.py --style-seed S` renders ADAPT pictures of the
starting position (`--start`) and TEST pictures of random positions of the same set,
board and materials; `boardscan standing-cells` cuts both (true corners). This script
fits the correction the product fits (a residual linear map on the model's features,
`logits + dW f + db`, ridge-penalised towards zero, by gradient descent) on the
starting-position cells and scores the test cells with and without it.

Usage: python eval_set_adaptation.py MODEL.onnx ADAPT_PREFIX TEST_PREFIX [...pairs]
"""

import argparse

import numpy as np
import onnxruntime as ort


def run(session, cells):
    logits, features = [], []
    for i in range(0, len(cells), 512):
        out = session.run(["logits", "features"], {"input": cells[i:i + 512].astype(np.float32) / 255})
        logits.append(out[0])
        features.append(out[1])
    return np.concatenate(logits), np.concatenate(features)


def softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def fit(logits, features, labels, ridge, steps=300, lr=0.5):
    """dW, db minimising mean cross-entropy of logits + f dW^T + db, plus
    ridge * |dW|^2, by full-batch gradient descent on standardised features."""
    n, d = features.shape
    scale = np.linalg.norm(features, axis=1).mean() + 1e-9
    f = features / scale
    w = np.zeros((13, d))
    b = np.zeros(13)
    onehot = np.eye(13)[labels]
    for _ in range(steps):
        p = softmax(logits + f @ w.T + b)
        g = (p - onehot) / n
        w -= lr * (g.T @ f + 2 * ridge * w)
        b -= lr * g.sum(0)
    return w / scale, b


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("pairs", nargs="+", help="ADAPT_PREFIX TEST_PREFIX ...")
    ap.add_argument("--ridge", type=float, nargs="+", default=[0.01, 0.1, 1.0])
    a = ap.parse_args()
    session = ort.InferenceSession(a.model)
    for adapt, test in zip(a.pairs[::2], a.pairs[1::2]):
        ac, al = np.load(f"{adapt}.cells.npy"), np.load(f"{adapt}.labels.npy")
        tc, tl = np.load(f"{test}.cells.npy"), np.load(f"{test}.labels.npy")
        alog, afeat = run(session, ac)
        tlog, tfeat = run(session, tc)
        base = (tlog.argmax(1) == tl)
        line = [f"{test}: base {base.mean():.4f} ({base.reshape(-1, 64).all(1).sum()}/{len(tl) // 64} boards)"]
        for ridge in a.ridge:
            w, b = fit(alog, afeat, al, ridge)
            adapted = ((tlog + tfeat @ w.T + b).argmax(1) == tl)
            line.append(f"ridge {ridge}: {adapted.mean():.4f} ({adapted.reshape(-1, 64).all(1).sum()} boards)")
        print("; ".join(line), flush=True)


if __name__ == "__main__":
    main()
