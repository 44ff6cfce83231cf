#!/usr/bin/python3
"""Exports small models that carry the patterns real exporters write, for tests/models: each one a
few kilobytes, built from the same torch.nn / torchvision modules their users write (so the ONNX
graph has exactly the nodes those layers export), plus a Caffe2-style graph written with
onnx.helper. Each goes into tests/models/exports/NAME/ in ONNX's test-case layout: model.onnx and
test_data_set_0/input_0.pb, output_0.pb (PyTorch's output, or numpy's for the Caffe2-style one).

  /usr/bin/python3 scripts/make_export_patterns.py     (Debian's python3-torch, -torchvision, -onnx)

tests/models/export_patterns_test.cpp runs them: outputs as the exporter's framework computes
them, and no step on one of oneDNN's reference implementations.
"""
import os
import sys

import numpy as np
import onnx
import torch
import torchvision
from onnx import helper, numpy_helper
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "models", "exports")
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import export_models as em  # noqa: E402  the corpus' modules, at small sizes here


def lm(cls, vocab, seq, **kw):
    model = cls(vocab=vocab, seq=seq, **kw)
    em.init_transformer(model)
    return model, torch.randint(1, vocab, (1, seq))


def sequence(cls, seq, d, **kw):
    model = cls(d=d, seq=seq, **kw)
    em.init_transformer(model)
    return model, torch.randn(1, seq, d)


def image(module, channels, size=12):
    em.calibrate_batchnorm(module, lambda: torch.randn(2, channels, size, size))
    return module, torch.randn(1, channels, size, size)


class InceptionPoolBranch(nn.Module):
    """torchvision's Inception blocks in small: 1x1 and 3x3 BasicConv2d branches and the pool
    branch as they write it (F.avg_pool2d(x, 3, 1, 1): a Pad then an AveragePool in the export),
    concatenated on channels."""

    def __init__(self, cin=16):
        super().__init__()
        basic = torchvision.models.inception.BasicConv2d
        self.b1 = basic(cin, 16, kernel_size=1)
        self.b3 = basic(cin, 16, kernel_size=3, padding=1)
        self.pool = basic(cin, 16, kernel_size=1)

    def forward(self, x):
        pooled = nn.functional.avg_pool2d(x, kernel_size=3, stride=1, padding=1)
        return torch.cat([self.b1(x), self.b3(x), self.pool(pooled)], 1)


def patterns():
    tv = torchvision.models
    return {
        # nn.TransformerEncoder(norm_first) with a causal float mask: the [T,T] mask added to the
        # [N*heads,T,T] scores (oneDNN 2.6 fuses that addend only into its reference matmul).
        "torch_causal_lm": lm(em.TorchCausalLM, 64, 8, d=32, heads=4, ffn=64, layers=1),
        "torch_padded_encoder": lm(em.TorchPaddedEncoder, 64, 8, d=32, heads=4, ffn=64, layers=1),
        "torch_seq2seq_decoder": lm(em.TorchSeq2SeqDecoder, 64, 8, d=32, heads=4, ffn=64,
                                    layers=1, memory=24),
        "mha_stack": sequence(em.MultiheadAttentionStack, 8, 32, heads=4, layers=1),
        # torch.baddbmm with a constant of zeros and masked_fill's Where.
        "baddbmm_attention": sequence(em.BaddbmmAttention, 8, 32, heads=4, layers=1),
        # Transposes around every convolution, scale/shift/ReLU on the channels-last tensor.
        "keras_style_nhwc": (em.KerasStyleNHWC(widths=(8, 16), classes=10),
                             torch.rand(1, 16, 16, 3)),
        "squeezenet_fire": image(tv.squeezenet.Fire(16, 8, 16, 16), 16),
        "inception_pool": image(InceptionPoolBranch(16), 16),
        "densenet_block": image(tv.densenet._DenseBlock(2, 16, 2, 16, 0.0), 16),
        "regnet_block": image(tv.regnet.ResBottleneckBlock(16, 32, 2, nn.BatchNorm2d, nn.ReLU, 8,
                                                           1.0, 0.25), 16),
    }


def save_case(name, model_bytes, inputs, outputs):
    folder = os.path.join(OUT, name)
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(model_bytes)
    for kind, tensors in (("input", inputs), ("output", outputs)):
        for i, t in enumerate(tensors):
            with open(os.path.join(data, f"{kind}_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(t).SerializeToString())
    print(f"{name}: {os.path.getsize(os.path.join(folder, 'model.onnx'))} bytes")


def export(name, model, x):
    model.eval()
    with torch.no_grad():
        y = model(x)
    path = os.path.join(OUT, name + ".tmp.onnx")
    # Gradients on: nn.MultiheadAttention's inference fast path does not export.
    torch.onnx.export(model, (x,), path, opset_version=13, do_constant_folding=True,
                      input_names=["input"], output_names=["output"])
    with open(path, "rb") as f:
        model_bytes = f.read()
    os.remove(path)
    save_case(name, model_bytes, [x.numpy()], [y.detach().numpy()])


def caffe2_style():
    """Caffe2's ShuffleNet/Inception v1 exports (opset 6): Sum of two inputs for residuals, LRN,
    and BatchNormalization followed by its Scale layer as Mul and Add of [C,1,1] constants."""
    rng = np.random.default_rng(7)
    c = 16
    w = rng.standard_normal((c, c, 3, 3)).astype(np.float32) * 0.2
    inits = [numpy_helper.from_array(w, "w")]
    for n, v in (("scale", rng.random(c) + 0.5), ("bias", rng.standard_normal(c)),
                 ("mean", rng.standard_normal(c) * 0.1), ("var", rng.random(c) + 0.5),
                 ("gamma", rng.random((c, 1, 1)) + 0.5), ("beta", rng.standard_normal((c, 1, 1)))):
        inits.append(numpy_helper.from_array(np.asarray(v, np.float32), n))
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Sum", ["c1", "x"], ["s"]),
        helper.make_node("LRN", ["s"], ["l"], size=5, alpha=1e-3, beta=0.75, bias=1.0),
        helper.make_node("BatchNormalization", ["l", "scale", "bias", "mean", "var"], ["b"],
                         is_test=1),
        helper.make_node("Mul", ["b", "gamma"], ["m"], broadcast=1),
        helper.make_node("Add", ["m", "beta"], ["a"], broadcast=1),
        helper.make_node("Relu", ["a"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "caffe2_style", [
        helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, c, 10, 10])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, c, 10, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
    model.ir_version = 3
    x = rng.standard_normal((1, c, 10, 10)).astype(np.float32)
    # numpy's reference, written from the op definitions
    pad = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    c1 = np.zeros_like(x)
    for i in range(10):
        for j in range(10):
            c1[0, :, i, j] = np.tensordot(w, pad[0, :, i:i + 3, j:j + 3], axes=3)
    s = (c1 + x).astype(np.float64)
    sq = np.zeros_like(s)
    for k in range(c):
        sq[0, k] = (s[0, max(0, k - 2):min(c, k + 3)] ** 2).sum(axis=0)
    lrn = s / (1.0 + 1e-3 / 5 * sq) ** 0.75
    p = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in inits}
    bn = (lrn - p["mean"][:, None, None]) / np.sqrt(p["var"][:, None, None] + 1e-5) \
        * p["scale"][:, None, None] + p["bias"][:, None, None]
    y = np.maximum(bn * p["gamma"] + p["beta"], 0).astype(np.float32)
    save_case("caffe2_style", model.SerializeToString(), [x], [y])


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(em.SEED)
    for name, (model, x) in patterns().items():
        export(name, model, x)
    caffe2_style()


if __name__ == "__main__":
    main()
