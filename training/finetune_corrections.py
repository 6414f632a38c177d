"""Fine-tune the square model on boards corrected in the scan library.

    python finetune_corrections.py --corrections DIR [--base ../models/squares.onnx]
        [--out ../models/squares-finetuned.onnx] [--synthetic-boards 1200] [--epochs 3]

DIR is what `boardscan library export-corrections DIR` writes: `labels.csv`
(`file,fen,view,kind`, `fen` the corrected placement, `view` the side the
reading put at the bottom) and `images/*.png`, each the board cut from its
picture with a margin of up to 4 % of its side (less where the picture ends).

The model is train.py's `SquareNet`, rebuilt from the base ONNX file: the
export folded each batch norm into its convolution, so a convolution takes
the folded weights and its batch norm becomes the identity plus the folded
bias (running mean 0, variance 1 - eps). Those statistics stay frozen while
fine-tuning, so the network computes what the ONNX file does; that is checked
with onnxruntime before training.

Each corrected board is cut into 64 cells on the grid (and view) among a small
search of places, sizes and both views where the base model agrees best with
the corrected placement -- the label is known, only where the board lies in
the thumbnail is not -- then cut again `--cuts` times with gen_data's jitter
and augmentation. Synthetic cells from held-in sets, rendered fresh by
gen_data (another seed than training's), are mixed in so that what the model
knew is not forgotten. The result is exported as train.py exports, and
checked with onnxruntime against torch.
"""

import argparse
import csv
import json
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
import torch.nn.functional as F
from PIL import Image

from gen_data import CELL_PX, EMPTY_KEEP, HELD_OUT, augment, cut_cells, render_one
from render import CLASSES, parse_fen, set_index
from train import SEED, SquareNet, augment_batch, freeze_batch_norm, load_onnx_weights, to_input

ROOT = Path(__file__).resolve().parent
MODELS = ROOT.parent / "models"


def onnx_logits(path, x):
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.run(["logits"], {"input": x.numpy()})[0]


def labels_of(placement, view):
    """The 64 class indices in picture order (row 0 at the top) for this view."""
    rows = parse_fen(placement)
    if view == "black":
        rows = [row[::-1] for row in rows[::-1]]
    return np.array([CLASSES.index(p) if p else 0 for row in rows for p in row], np.int64)


def read_corrections(folder):
    """[(RGB image, placement, view, file)] of an export-corrections folder."""
    folder = Path(folder)
    with open(folder / "labels.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for row in rows:
        if row["view"] not in ("white", "black"):
            raise ValueError(f"{row['file']}: view {row['view']!r}")
        labels_of(row["fen"], row["view"])  # a bad placement fails here, not in training
        out.append((Image.open(folder / row["file"]).convert("RGB"), row["fen"], row["view"], row["file"]))
    return out


@torch.no_grad()
def place_grid(model, img, placement, view):
    """(x0, y0, side, view) where the model agrees best with the placement.

    The board fills the thumbnail but for a margin of up to 4 % of its side on
    each edge; the view is the reading's, which a correction may have turned.
    """
    w, h = img.size
    rng = np.random.default_rng(0)
    grids = [(float(x0), float(y0), float(side))
             for side in np.linspace(min(w, h) / 1.08, min(w, h), 5)
             for x0 in np.linspace(0, w - side, 5) for y0 in np.linspace(0, h - side, 5)]
    cells = np.concatenate([cut_cells(img, x0, y0, side, rng, jitter=False) for x0, y0, side in grids])
    logp = torch.cat([F.log_softmax(model(to_input(torch.from_numpy(cells[i:i + 2048]))), 1)
                      for i in range(0, len(cells), 2048)]).view(len(grids), 64, -1)
    best = None
    for v in ("white", "black"):
        scores = logp[:, torch.arange(64), torch.from_numpy(labels_of(placement, v))].sum(1)
        i = int(scores.argmax())
        if best is None or scores[i] > best[0]:
            best = (float(scores[i]),) + grids[i] + (v,)
    return best[1:]


def correction_cells(model, boards, cuts, seed):
    """Cells and labels of the corrected boards: `cuts` jittered, augmented cuts each."""
    rng = np.random.default_rng(seed)
    xs, ys, turned = [], [], 0
    for img, placement, view, _ in boards:
        x0, y0, side, v = place_grid(model, img, placement, view)
        turned += v != view
        labels = labels_of(placement, v)
        m = int(np.ceil(side / 8))  # room for the jittered cut past the thumbnail's edge
        padded = Image.fromarray(np.pad(np.asarray(img), ((m, m), (m, m), (0, 0)), mode="edge"))
        for k in range(cuts):
            pic = padded if k == 0 else augment(padded, rng)
            cells = cut_cells(pic, x0 + m, y0 + m, side, rng, jitter=k > 0)
            keep = (labels != 0) | (rng.random(64) < EMPTY_KEEP)
            xs.append(cells[keep])
            ys.append(labels[keep])
    return np.concatenate(xs), np.concatenate(ys), turned


def synthetic_cells(n_boards, seed):
    """Cells of fresh held-in training boards (gen_data's training rendering)."""
    sets = [s for s in set_index() if s["family"] not in HELD_OUT]
    with Pool(2) as pool:
        parts = pool.map(render_one, [(seed * 1_000_003 + i, sets, False, True, 0.0) for i in range(n_boards)],
                         chunksize=8)
    return (np.concatenate([p[0] for p in parts]),
            np.concatenate([p[1] for p in parts]).astype(np.int64))


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    pred = torch.cat([model(to_input(torch.from_numpy(x[i:i + 2048]))).argmax(1)
                      for i in range(0, len(x), 2048)])
    return float((pred.numpy() == y).mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corrections", type=Path, required=True, help="an export-corrections folder")
    ap.add_argument("--base", type=Path, default=MODELS / "squares.onnx")
    ap.add_argument("--out", type=Path, default=MODELS / "squares-finetuned.onnx")
    ap.add_argument("--cuts", type=int, default=4, help="cuts of each corrected board (the first plain)")
    ap.add_argument("--synthetic-boards", type=int, default=1200)
    ap.add_argument("--synthetic-seed", type=int, default=101, help="not 1, 2, 3, 4: gen_data's splits")
    ap.add_argument("--epochs", type=float, default=3.0)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (1 is faster on a busy machine)")
    a = ap.parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(a.threads)
    gen = torch.Generator().manual_seed(SEED)

    model = load_onnx_weights(SquareNet(), a.base).eval()
    probe = to_input(torch.from_numpy(np.random.default_rng(0).integers(0, 256, (256, CELL_PX, CELL_PX, 3),
                                                                         dtype=np.uint8)))
    with torch.no_grad():
        diff = float(np.abs(model(probe).numpy() - onnx_logits(a.base, probe)).max())
    assert diff < 1e-3, f"the rebuilt model differs from {a.base} by {diff}"
    print(f"rebuilt {a.base.name}: max |torch - onnxruntime| = {diff:.2e}", flush=True)

    boards = read_corrections(a.corrections)
    t0 = time.time()
    cx, cy, turned = correction_cells(model, boards, a.cuts, seed=SEED)
    sx, sy = synthetic_cells(a.synthetic_boards, a.synthetic_seed)
    sval_x, sval_y = synthetic_cells(a.synthetic_boards // 4, a.synthetic_seed + 1)
    print(f"{len(boards)} corrected boards ({turned} turned from the reading's view): {len(cy)} cells; "
          f"{a.synthetic_boards} synthetic boards: {len(sy)} cells ({time.time() - t0:.0f}s)", flush=True)
    before = dict(corrections=accuracy(model, cx, cy), synthetic_val=accuracy(model, sval_x, sval_y))
    print(f"before: corrections {before['corrections']:.4f}, synthetic val {before['synthetic_val']:.4f}",
          flush=True)

    x = torch.from_numpy(np.concatenate([cx, sx]))
    y = torch.from_numpy(np.concatenate([cy, sy]))
    steps = max(1, int(a.epochs * len(y) / a.batch))
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=steps, pct_start=0.15)
    perm, pos = torch.randperm(len(y), generator=gen), 0
    freeze_batch_norm(model)
    t0 = time.time()
    for step in range(1, steps + 1):
        if pos + a.batch > len(y):
            perm, pos = torch.randperm(len(y), generator=gen), 0
        idx = perm[pos:pos + a.batch]
        pos += a.batch
        loss = F.cross_entropy(model(augment_batch(to_input(x[idx]), gen)), y[idx], label_smoothing=0.05)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        if step % 50 == 0 or step == steps:
            print(f"step {step}/{steps} loss {loss.item():.4f} ({time.time() - t0:.0f}s)", flush=True)
    after = dict(corrections=accuracy(model, cx, cy), synthetic_val=accuracy(model, sval_x, sval_y))
    print(f"after: corrections {after['corrections']:.4f}, synthetic val {after['synthetic_val']:.4f}", flush=True)

    model.eval()
    torch.onnx.export(model, torch.rand(4, 3, 32, 32), str(a.out), dynamo=False, opset_version=17,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}})
    with torch.no_grad():
        ref = model(probe).numpy()
    got = onnx_logits(a.out, probe)
    diff = float(np.abs(got - ref).max())
    assert diff < 1e-3 and (got.argmax(1) == ref.argmax(1)).all(), diff
    summary = dict(base=str(a.base), corrections=len(boards), turned=turned, correction_cells=len(cy),
                   synthetic_cells=len(sy), steps=steps, lr=a.lr, onnx_max_abs_diff=diff,
                   before=before, after=after, train_seconds=round(time.time() - t0))
    print(json.dumps(summary))
    a.out.with_suffix(".json").write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()
