"""Train the standing-piece classifier (pieces on a photographed physical board)
on the CPU and export it to models/standing.onnx.

Reads the cells `boardscan standing-cells RENDERS OUT` cuts from renders of
`render_physical.py` (OUT.cells.npy uint8 [N,3,64,32], OUT.labels.npy,
OUT.images.npy), from one or more runs: the cells of the last `--val-fraction`
of each run's pictures are held out for validation and for fitting the
temperature. Exports ONNX
(opset 17, input `input` [N,3,64,32] RGB in [0,1], outputs `logits` [N,13] over
the classes of models/labels.txt and `features` [N,768], what the head reads), checks onnxruntime against torch, and
writes training/out/standing_metrics.json.

Usage: python train_standing.py CELLS_PREFIX [CELLS_PREFIX ...] [--epochs N] [--threads N]
       [--onnx models/standing.onnx] [--heldout PREFIX ...]
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parent
SEED = 1234
CLASSES = ["empty", "P", "N", "B", "R", "Q", "K", "p", "n", "b", "r", "q", "k"]


def block(cin, cout):
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class StandingNet(nn.Module):
    """Five 3x3 conv blocks over four resolutions (64x32 down to 8x4 px), then a
    4x2 average pool kept in place (where a piece's foot stands tells this
    square's piece from the one behind it), and a linear head."""

    def __init__(self, n_classes=len(CLASSES)):
        super().__init__()
        self.features = nn.Sequential(
            *block(3, 24), nn.MaxPool2d(2),
            *block(24, 48), nn.MaxPool2d(2),
            *block(48, 64), *block(64, 64), nn.MaxPool2d(2),
            *block(64, 96),
        )
        self.pool = nn.AvgPool2d(2)
        self.head = nn.Sequential(nn.Dropout(0.3), nn.Linear(96 * 4 * 2, n_classes))

    def forward(self, x):
        return self.head(self.embed(x))

    def embed(self, x):
        """The features the head reads, one row a cell."""
        x = (x - 0.5) * 4.0  # the model's own input normalisation; callers pass [0,1]
        return self.pool(self.features(x)).flatten(1)


class Exported(nn.Module):
    """The model as exported: logits and the features they are read from."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        features = self.model.embed(x)
        return self.model.head(features), features


def load(prefix):
    cells = np.load(f"{prefix}.cells.npy", mmap_mode="r")
    labels = np.load(f"{prefix}.labels.npy")
    images = np.load(f"{prefix}.images.npy")
    return np.ascontiguousarray(cells), labels, images


def augment(x, gen):
    """Photo-like variation of a batch in [0,1]: mirror, shift and scale,
    colour cast, contrast, blur or coarse resolution, noise."""
    n = x.shape[0]
    flip = torch.rand(n, generator=gen) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(3), x)
    # A found grid is off by a fraction of a square, and real pieces are
    # larger or smaller than the renders': up to ~0.15 squares and 15 %.
    scale = 1 + (torch.rand(n, generator=gen) - 0.5) * 0.3
    shift = (torch.rand(n, 2, generator=gen) - 0.5) * torch.tensor([0.4, 0.24])
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = scale
    theta[:, 1, 1] = scale
    theta[:, :, 2] = shift
    grid = F.affine_grid(theta, x.shape, align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    gain = 1 + (torch.rand(n, 3, 1, 1, generator=gen) - 0.5) * 0.3
    level = (torch.rand(n, 1, 1, 1, generator=gen) - 0.5) * 0.3
    contrast = 0.6 + torch.rand(n, 1, 1, 1, generator=gen) * 0.7
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * contrast + mean
    x = x * gain + level
    grey = x.mean(dim=1, keepdim=True)
    saturation = 0.5 + torch.rand(n, 1, 1, 1, generator=gen) * 0.8
    x = grey + (x - grey) * saturation
    coarse = torch.rand(n, generator=gen) < 0.35
    if coarse.any():
        small = F.interpolate(x[coarse], scale_factor=0.5, mode="bilinear", align_corners=False)
        x[coarse] = F.interpolate(small, size=x.shape[2:], mode="bilinear", align_corners=False)
    x = x + torch.randn(x.shape, generator=gen) * (torch.rand(n, 1, 1, 1, generator=gen) * 0.04)
    return x.clamp(0, 1)


def split(cells, labels, images, val_fraction):
    """Training and validation cells and labels of one run: validation is the
    last `val_fraction` of its pictures."""
    cut = np.quantile(np.unique(images), 1 - val_fraction)
    train, val = images < cut, images >= cut
    return cells[train], labels[train], cells[val], labels[val]


def accuracy(model, cells, labels, batch=1024):
    model.eval()
    logits = []
    with torch.no_grad():
        for i in range(0, len(cells), batch):
            logits.append(model(torch.from_numpy(cells[i:i + batch]).float() / 255))
    logits = torch.cat(logits)
    return (logits.argmax(1).numpy() == labels).mean(), logits


def fit_temperature(logits, labels):
    """The divisor of the logits that maximises the held-out likelihood."""
    target = torch.from_numpy(labels)
    best = min(np.arange(0.3, 3.0, 0.01),
               key=lambda t: F.cross_entropy(logits / t, target).item())
    return float(best)


def board_exact(logits, labels):
    right = (logits.argmax(1).numpy() == labels).reshape(-1, 64).all(1)
    return int(right.sum()), len(right)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cells", nargs="+", help="prefixes of the .cells/.labels/.images.npy files")
    ap.add_argument("--epochs", type=float, default=8)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--val-fraction", type=float, default=0.05)
    ap.add_argument("--onnx", type=Path, default=ROOT.parent / "models" / "standing.onnx")
    ap.add_argument("--heldout", nargs="*", default=[], help="prefixes of cells never trained on, scored at the end")
    a = ap.parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(a.threads)
    gen = torch.Generator().manual_seed(SEED)

    parts = [split(*load(prefix), a.val_fraction) for prefix in a.cells]
    xt, yt, xv, yv = (np.concatenate([part[k] for part in parts]) for k in range(4))
    print(f"train {len(yt)} cells, val {len(yv)}; classes {np.bincount(yt, minlength=13).tolist()}", flush=True)

    model = StandingNet()
    steps = int(a.epochs * len(yt) / a.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=steps)
    start = time.time()
    for step in range(steps):
        model.train()
        idx = torch.randint(len(yt), (a.batch,), generator=gen).numpy()
        x = augment(torch.from_numpy(xt[idx]).float() / 255, gen)
        loss = F.cross_entropy(model(x), torch.from_numpy(yt[idx]), label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 200 == 0 or step == steps - 1:
            print(f"step {step}/{steps} loss {loss.item():.3f} {time.time() - start:.0f}s", flush=True)
    seconds = time.time() - start

    val_acc, val_logits = accuracy(model, xv, yv)
    temperature = fit_temperature(val_logits, yv)
    metrics = {"train_cells": int(len(yt)), "val_cells": int(len(yv)), "steps": steps,
               "seconds": round(seconds), "val_square_accuracy": float(val_acc),
               "val_boards_exact": board_exact(val_logits, yv), "temperature": temperature}
    for prefix in a.heldout:
        hx, hy, _ = load(prefix)
        acc, logits = accuracy(model, hx, hy)
        metrics[f"heldout {Path(prefix).name}"] = {"square_accuracy": float(acc),
                                                   "boards_exact": board_exact(logits, hy)}
    print(json.dumps(metrics, indent=1), flush=True)

    model.eval()
    a.onnx.parent.mkdir(parents=True, exist_ok=True)
    example = torch.from_numpy(xv[:8]).float() / 255
    torch.onnx.export(Exported(model).eval(), example, a.onnx, input_names=["input"],
                      output_names=["logits", "features"],
                      dynamic_axes={"input": {0: "n"}, "logits": {0: "n"}, "features": {0: "n"}},
                      opset_version=17, dynamo=False)
    session = ort.InferenceSession(str(a.onnx))
    ours = session.run(["logits"], {"input": example.numpy()})[0]
    with torch.no_grad():
        theirs = model(example).numpy()
    diff = float(np.abs(ours - theirs).max())
    assert diff < 1e-3 and (ours.argmax(1) == theirs.argmax(1)).all(), diff
    metrics["onnx_max_diff"] = diff
    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    (out / "standing_metrics.json").write_text(json.dumps(metrics, indent=1))
    print(f"wrote {a.onnx}; onnxruntime matches torch (max |diff| {diff:.2e})")


if __name__ == "__main__":
    main()
