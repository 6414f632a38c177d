"""Train the square classifier (on the CPU, or `--device cuda`) and export it to models/squares.onnx.

Reads training/out/{train,val,heldout,heldout_clean}.npz (from gen_data.py),
trains a small seeded CNN, exports ONNX (opset 17, input `input` [N,3,32,32] (RGB)
in [0,1], output `logits` [N,13]), checks onnxruntime against torch, and
writes training/out/metrics.json with accuracies per split and per piece set.

`--init` starts from a squares.pt, or fine-tunes an exported ONNX file with its
batch norms frozen (`load_onnx_weights`).

Usage: python train.py [--epochs N] [--batch B] [--init FILE] [--device cuda]
"""

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

from render import CLASSES

ROOT = Path(__file__).resolve().parent
OUT = ROOT / "out"
MODELS = ROOT.parent / "models"
SEED = 1234


def block(cin, cout):
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class SquareNet(nn.Module):
    """Five 3x3 conv blocks over four resolutions (32, 16, 8, 4 px), global average pool, linear head."""

    def __init__(self, n_classes=len(CLASSES)):
        super().__init__()
        self.features = nn.Sequential(
            *block(3, 16), nn.MaxPool2d(2),
            *block(16, 32), nn.MaxPool2d(2),
            *block(32, 64), *block(64, 64), nn.MaxPool2d(2),
            *block(64, 112),
        )
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(112, n_classes))

    def forward(self, x):
        x = (x - 0.5) * 4.0  # the model's own input normalisation; callers pass [0,1]
        x = self.features(x)
        return self.head(x.mean(dim=(2, 3)))


def load_onnx_weights(model, path):
    """Put the weights of an exported SquareNet ONNX file into `model`.

    The export folded each batch norm into its convolution: the convolutions'
    initializers come in graph order, each (folded weight, folded bias), and the
    head keeps its own names. A convolution takes the folded weights and its
    batch norm becomes the identity plus the folded bias (running mean 0,
    variance 1 - eps); `freeze_batch_norm` keeps those statistics while
    training, so the network computes what the ONNX file does.
    """
    graph = onnx.load(str(path)).graph
    init = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    ours = [(m, bn) for m, bn in zip(model.features, list(model.features)[1:])
            if isinstance(m, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d)]
    if len(convs) != len(ours):
        raise ValueError(f"{path}: {len(convs)} convolutions, SquareNet has {len(ours)}")
    with torch.no_grad():
        for node, (conv, bn) in zip(convs, ours):
            weight, bias = init[node.input[1]], init[node.input[2]]
            conv.weight.copy_(weight)
            bn.weight.fill_(1.0)
            bn.bias.copy_(bias)
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        model.head[1].weight.copy_(init["head.1.weight"])
        model.head[1].bias.copy_(init["head.1.bias"])
    return model


def freeze_batch_norm(model):
    """Training mode, but every batch norm keeps its (folded) statistics."""
    model.train()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def load(data, split):
    d = np.load(data / f"{split}.npz")
    return (torch.from_numpy(d["x"]), torch.from_numpy(d["y"].astype(np.int64)),
            d["s"], json.loads(str(d["sets"])))


def to_input(xb):
    """uint8 [N,32,32,3] cells to the model's float [N,3,32,32] in [0,1]."""
    return xb.permute(0, 3, 1, 2).float().div_(255.0)


def augment_batch(x, gen):
    """Cheap on-the-fly augmentation: shifts of up to 2 px, contrast, brightness and colour cast."""
    n = x.shape[0]
    pad = F.pad(x, (2, 2, 2, 2), mode="replicate")
    dx, dy = torch.randint(0, 5, (2,), generator=gen).tolist()
    x = pad[:, :, dy:dy + 32, dx:dx + 32]
    c = torch.empty(n, 1, 1, 1).uniform_(0.75, 1.25, generator=gen).to(x.device)
    b = torch.empty(n, 1, 1, 1).uniform_(-0.12, 0.12, generator=gen)
    b = (b + torch.empty(n, 3, 1, 1).uniform_(-0.04, 0.04, generator=gen)).to(x.device)  # slight colour cast
    m = x.mean(dim=(1, 2, 3), keepdim=True)
    return ((x - m) * c + m + b).clamp_(0, 1)


@torch.no_grad()
def predict(model, x, batch=2048):
    model.eval()
    device = next(model.parameters()).device
    return torch.cat([model(to_input(x[i:i + batch].to(device))).argmax(1).cpu()
                      for i in range(0, len(x), batch)])


def evaluate(model, data, split):
    x, y, s, sets = load(data, split)
    pred = predict(model, x)
    ok = (pred == y).numpy()
    per_set = {sets[i]["name"]: round(float(ok[s == i].mean()), 4) for i in range(len(sets)) if (s == i).any()}
    conf = np.zeros((13, 13), int)
    np.add.at(conf, (y.numpy(), pred.numpy()), 1)
    return dict(squares=len(y), accuracy=round(float(ok.mean()), 4), per_set=per_set,
                confusion=conf.tolist())


def export(model, path, data):
    model = model.cpu().eval()
    dummy = torch.rand(4, 3, 32, 32)
    torch.onnx.export(model, dummy, str(path), dynamo=False, opset_version=17,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}})
    x, *_ = load(data, "val")
    xb = to_input(x[:256])
    with torch.no_grad():
        ref = model(xb).numpy()
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(["logits"], {"input": xb.numpy()})[0]
    diff = float(np.abs(got - ref).max())
    assert diff < 1e-3 and (got.argmax(1) == ref.argmax(1)).all(), diff
    return diff


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=float, default=2.0, help="passes over the training set (may be fractional)")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--init", type=Path,
                    help="start from these weights and fine-tune: a squares.pt, or an exported .onnx "
                    "(its batch norms stay frozen)")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    ap.add_argument("--threads", type=int, default=2, help="torch threads (1 is faster on a busy machine)")
    ap.add_argument("--out", type=Path, default=OUT, help="folder of the gen_data.py splits; weights and metrics go there too")
    ap.add_argument("--onnx", type=Path, default=MODELS / "squares.onnx", help="where to export the model")
    ap.add_argument("--device", default="cpu", help="torch device: cpu, or cuda where there is one")
    a = ap.parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(a.threads)
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # deterministic CUDA matrix products
    torch.use_deterministic_algorithms(True, warn_only=a.device != "cpu")
    gen = torch.Generator().manual_seed(SEED)

    x, y, _, _ = load(a.out, "train")
    model = SquareNet()
    frozen = a.init is not None and a.init.suffix == ".onnx"
    if frozen:
        load_onnx_weights(model, a.init)
    elif a.init:
        model.load_state_dict(torch.load(a.init))
    model.to(a.device)
    x, y = x.to(a.device), y.to(a.device)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"train squares {len(y)}, params {n_params}", flush=True)
    steps = int(a.epochs * len(y) / a.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=steps, pct_start=0.15)
    t0 = time.time()
    perm, pos = torch.randperm(len(y), generator=gen), 0
    total, correct, loss_sum = 0, 0, 0.0
    if frozen:
        freeze_batch_norm(model)
    else:
        model.train()
    for step in range(1, steps + 1):
        if pos + a.batch > len(y):
            perm, pos = torch.randperm(len(y), generator=gen), 0
        idx = perm[pos:pos + a.batch].to(a.device)
        pos += a.batch
        out = model(augment_batch(to_input(x[idx]), gen))
        loss = F.cross_entropy(out, y[idx], label_smoothing=0.05)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        loss_sum += loss.item() * len(idx)
        correct += (out.argmax(1) == y[idx]).sum().item()
        total += len(idx)
        if step % 100 == 0 or step == steps:
            print(f"step {step}/{steps} loss {loss_sum / total:.4f} train {correct / total:.4f} "
                  f"({time.time() - t0:.0f}s)", flush=True)
            total, correct, loss_sum = 0, 0, 0.0
    train_s = time.time() - t0
    print(f"val {evaluate(model, a.out, 'val')['accuracy']:.4f}", flush=True)

    a.onnx.parent.mkdir(exist_ok=True)
    diff = export(model, a.onnx, a.out)
    torch.save(model.state_dict(), a.out / "squares.pt")
    model.to(a.device)
    metrics = dict(params=n_params, epochs=a.epochs, init=str(a.init) if a.init else None, lr=a.lr, train_squares=len(y), train_seconds=round(train_s),
                   onnx_max_abs_diff=diff,
                   splits={s: evaluate(model, a.out, s) for s in ("val", "heldout", "heldout_clean")})
    (a.out / "metrics.json").write_text(json.dumps(metrics, indent=1))
    for s, m in metrics["splits"].items():
        print(f"{s}: {m['accuracy']:.4f} on {m['squares']} squares; per set {m['per_set']}")
    (a.onnx.parent / "labels.txt").write_text("\n".join(CLASSES) + "\n")


if __name__ == "__main__":
    main()
