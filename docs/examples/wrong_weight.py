#!/usr/bin/env python3
"""Writes a copy of examples/tiny_resnet.onnx with one wrong weight, for docs/debugging.md.

Usage: wrong_weight.py OUT.onnx [NODE]

Adds 0.5 to the first weight of the convolution NODE (default /layer1/layer1.1/conv1/Conv), the
kind of slip a faulty export or a hand conversion makes. Nothing else changes.
"""
import pathlib
import sys

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    out = sys.argv[1]
    node_name = sys.argv[2] if len(sys.argv) > 2 else "/layer1/layer1.1/conv1/Conv"
    model = onnx.load(str(ROOT / "examples" / "tiny_resnet.onnx"))
    node = next(n for n in model.graph.node if n.name == node_name)
    for i, init in enumerate(model.graph.initializer):
        if init.name == node.input[1]:
            w = numpy_helper.to_array(init).copy()
            w.flat[0] += 0.5
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(w, init.name))
            print(f"{node_name}: weight {init.name}{list(w.shape)}[0] is now {w.flat[0]:.4f}")
    onnx.save(model, out)


if __name__ == "__main__":
    main()
