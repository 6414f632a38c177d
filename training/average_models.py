"""Average the weights of square models that share one architecture and one starting
point (a model and its fine-tunes), into one ONNX model that costs what one does.

A fine-tune learns what its new data teaches, and forgets a little of what the
model read before; the average of the model and its fine-tune keeps most of the
first and loses less of the second (the model card, "Tried and not adopted:
texlive's chess fonts"). Every float tensor is averaged with the given weights;
the graphs must match tensor for tensor.

Usage: python average_models.py OUT.onnx MODEL.onnx:WEIGHT MODEL.onnx:WEIGHT [...]
"""

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper


def weighted(spec):
    path, _, weight = spec.rpartition(":")
    if not path or float(weight) <= 0:
        raise argparse.ArgumentTypeError(f"{spec}: expected MODEL.onnx:WEIGHT with a positive weight")
    return Path(path), float(weight)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("models", type=weighted, nargs="+", metavar="MODEL.onnx:WEIGHT")
    a = ap.parse_args()
    models = [(onnx.load(str(path)), w) for path, w in a.models]
    total = sum(w for _, w in models)
    tensors = [{t.name: numpy_helper.to_array(t) for t in m.graph.initializer} for m, _ in models]
    out = models[0][0]
    for i, init in enumerate(out.graph.initializer):
        first = tensors[0][init.name]
        if first.dtype.kind != "f":
            continue
        if any(t.get(init.name) is None or t[init.name].shape != first.shape for t in tensors):
            ap.error(f"tensor {init.name} differs in name or shape between the models")
        mean = sum(w * t[init.name].astype(np.float64) for t, (_, w) in zip(tensors, models)) / total
        out.graph.initializer[i].CopyFrom(numpy_helper.from_array(mean.astype(first.dtype), init.name))
    onnx.checker.check_model(out)
    onnx.save(out, str(a.out))
    print(f"{a.out}: the average of {len(models)} models")


if __name__ == "__main__":
    main()
