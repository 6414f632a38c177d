"""Train the coordinate reader on CPU and export it to models/coords.onnx.

Reads training/out/coords_{train,val,heldout}.npz (from gen_coords.py): x
[N,24,24] standardised greyscale patches, y [N] glyph class (see
coords_geometry.GLYPHS). Exports ONNX (opset 17, input `input` [N,1,24,24],
output `logits` [N,17]), checks onnxruntime against torch, and writes
training/out/coords_metrics.json.

Usage: python train_coords.py [--epochs N]
"""

import argparse
import json
import time

import numpy as np
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F

from coords_geometry import GLYPHS, PATCH
from train import MODELS, OUT, SEED, block


class GlyphNet(nn.Module):
    """Three conv stages (24, 12, 6 px) and a linear head over the 3x3 map,
    which keeps where in the patch the ink is: about 1.1 M multiply-adds a
    patch, 96 patches a board."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            *block(1, 16), nn.MaxPool2d(2),
            *block(16, 32), nn.MaxPool2d(2),
            *block(32, 48), nn.MaxPool2d(2),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.1), nn.Linear(48 * 9, len(GLYPHS)))

    def forward(self, x):
        return self.head(self.features(x))


def load(split):
    d = np.load(OUT / f"coords_{split}.npz")
    return torch.from_numpy(d["x"].astype(np.float32)).unsqueeze(1), torch.from_numpy(d["y"].astype(np.int64))


@torch.no_grad()
def accuracy(model, split):
    x, y = load(split)
    model.eval()
    pred = torch.cat([model(x[i:i + 4096]).argmax(1) for i in range(0, len(x), 4096)])
    glyphs = y != 0
    return dict(patches=len(y), accuracy=round(float((pred == y).float().mean()), 4),
                glyph_accuracy=round(float((pred[glyphs] == y[glyphs]).float().mean()), 4),
                none_as_glyph=round(float((pred[~glyphs] != 0).float().mean()), 4))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=float, default=4.0)
    ap.add_argument("--batch", type=int, default=256)
    a = ap.parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(1)  # a small model: more threads only add synchronisation
    gen = torch.Generator().manual_seed(SEED)
    x, y = load("train")
    model = GlyphNet()
    steps = int(a.epochs * len(y) / a.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    t0 = time.time()
    model.train()
    for step in range(1, steps + 1):
        idx = torch.randint(0, len(y), (a.batch,), generator=gen)
        xb = x[idx]
        # Ink may be darker or lighter than its background.
        sign = torch.where(torch.rand(a.batch, 1, 1, 1, generator=gen) < 0.5, -1.0, 1.0)
        loss = F.cross_entropy(model(xb * sign), y[idx], label_smoothing=0.05)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        if step % 200 == 0 or step == steps:
            print(f"step {step}/{steps} loss {loss.item():.4f} ({time.time() - t0:.0f}s)", flush=True)
    model.eval()
    path = MODELS / "coords.onnx"
    torch.onnx.export(model, torch.rand(4, 1, PATCH, PATCH), str(path), dynamo=False, opset_version=17,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}})
    xv, _ = load("val")
    with torch.no_grad():
        ref = model(xv[:256]).numpy()
    got = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        ["logits"], {"input": xv[:256].numpy()})[0]
    assert np.abs(got - ref).max() < 1e-3
    metrics = dict(epochs=a.epochs, train_patches=len(y), train_seconds=round(time.time() - t0),
                   splits={s: accuracy(model, s) for s in ("val", "heldout")})
    (OUT / "coords_metrics.json").write_text(json.dumps(metrics, indent=1))
    print(json.dumps(metrics["splits"]))


if __name__ == "__main__":
    main()
