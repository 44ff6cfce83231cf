#!/usr/bin/python3
"""Makes small quantized models for tests/models/quantized: torch modules exported to ONNX, then
quantized by bench/quantize.py the two ways ONNX Runtime's quantizer lays models out (static QDQ
with calibration, dynamic MatMul). Each goes into tests/models/quantized/NAME/ in ONNX's
test-case layout, model.onnx and test_data_set_0/input_0.pb, output_0.pb, where the expected
output is ONNX Runtime 1.30's (bench/ort_runner.js), plus step.txt: one quantization step of the
output, the unit tests/models/quantized_models_test.cpp measures agreement in.

  /usr/bin/python3 scripts/make_quantized_models.py [--strata build/strata]
      (Debian's python3-torch and python3-onnx; ONNX Runtime from bench/setup_peers.sh)
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OUT = os.path.join(REPO, "tests", "models", "quantized")
sys.path.insert(0, os.path.join(REPO, "bench"))
import export_models as em  # noqa: E402


class ConvResidual(nn.Module):
    """A stem, a residual pair of 3x3 convolutions with ReLUs, a ReLU6 (Clip) depthwise layer, a
    pooled classifier: the layers QDQ models of ResNets and MobileNets consist of."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.a = nn.Conv2d(16, 16, 3, padding=1)
        self.b = nn.Conv2d(16, 16, 3, padding=1)
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = torch.relu(x + self.b(torch.relu(self.a(x))))
        x = nn.functional.relu6(self.dw(x))
        return self.fc(x.mean((2, 3)))


class MlpBlock(nn.Module):
    """Two Linear layers on [batch, sequence, features] (MatMul + Add in the export) with GELU and
    a LayerNorm between: a transformer's feed-forward block."""

    def __init__(self, d=32, hidden=64):
        super().__init__()
        self.up = nn.Linear(d, hidden)
        self.down = nn.Linear(hidden, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(x + self.down(nn.functional.gelu(self.up(x))))


MODELS = {
    "conv_qdq": (ConvResidual, (1, 3, 24, 24), ["--mode", "static", "--per-channel"]),
    "conv_qdq_per_tensor": (ConvResidual, (1, 3, 24, 24), ["--mode", "static"]),
    "mlp_dynamic": (MlpBlock, (1, 8, 32), ["--mode", "dynamic"]),
}


def write_case(name, strata):
    cls, shape, args = MODELS[name]
    torch.manual_seed(em.SEED)
    module = cls().eval()
    x = torch.randn(*shape)
    case = os.path.join(OUT, name)
    shutil.rmtree(case, ignore_errors=True)
    os.makedirs(os.path.join(case, "test_data_set_0"))
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = os.path.join(tmp, "fp32.onnx")
        torch.onnx.export(module, (x,), fp32, opset_version=em.OPSET, input_names=["x"],
                          output_names=["y"])
        inputs = os.path.join(tmp, "inputs")
        os.makedirs(inputs)
        np.save(os.path.join(inputs, "x.npy"), x.numpy())
        model = os.path.join(case, "model.onnx")
        subprocess.run([sys.executable, os.path.join(REPO, "bench", "quantize.py"), fp32, model,
                        "--inputs", inputs, "--strata", strata, *args], check=True)
        ort_out = os.path.join(tmp, "ort")
        subprocess.run(["node", os.path.join(REPO, "bench", "ort_runner.js"), "--model", model,
                        "--inputs", inputs, "--threads", "1", "--warmup", "0", "--iters", "1",
                        "--outputs", ort_out, "--json", os.path.join(tmp, "ort.json")],
                       check=True, stderr=subprocess.DEVNULL)
        y = np.load(os.path.join(ort_out, "y.npy"))
    data = os.path.join(case, "test_data_set_0")
    onnx.save_tensor(numpy_helper.from_array(x.numpy(), "x"), os.path.join(data, "input_0.pb"))
    onnx.save_tensor(numpy_helper.from_array(y, "y"), os.path.join(data, "output_0.pb"))
    step = em.output_step(model, "y", y)
    with open(os.path.join(case, "step.txt"), "w") as f:
        f.write(f"{step!r}\n")
    print(f"{name}: {os.path.getsize(model)} bytes, output step {step:.3g}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--strata", default=os.path.join(REPO, "build", "strata"))
    a = p.parse_args()
    for name in MODELS:
        write_case(name, os.path.abspath(a.strata))


if __name__ == "__main__":
    sys.exit(main())
