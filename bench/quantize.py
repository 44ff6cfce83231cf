#!/usr/bin/python3
"""Quantizes an FP32 ONNX model the two ways ONNX Runtime's quantization tool lays models out,
written from the ONNX operator specs (that tool is not packaged for Debian):

  static   QDQ: every input and output of Conv, Gemm, MatMul and Add passes through a
           QuantizeLinear -> DequantizeLinear pair (uint8, asymmetric, min/max calibrated on
           sample inputs); constant weights are stored as int8 (symmetric, per output channel
           with --per-channel) behind a DequantizeLinear; biases as int32 with scale
           input_scale * weight_scale.
  dynamic  every MatMul with a constant 2-D weight becomes DynamicQuantizeLinear(A) ->
           MatMulInteger(A_q, B_q int8) -> Cast(float) -> Mul(A_scale * B_scale).

  /usr/bin/python3 bench/quantize.py MODEL.onnx OUT.onnx --mode static [--inputs DIR]
      [--samples 8] [--per-channel] [--strata build/strata]
  /usr/bin/python3 bench/quantize.py MODEL.onnx OUT.onnx --mode dynamic

Calibration runs strata itself (`strata run --dump-all`) on the sample inputs: the .npy files of
--inputs DIR (named after the graph inputs, as bench/export_models.py writes them) and
--samples - 1 more made from them (floating inputs with Gaussian noise of their own spread,
integer inputs permuted), so each tensor's range covers more than one image or sentence.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
QUANTIZED_OPS = {"Conv", "Gemm", "MatMul", "Add"}


# --- calibration ------------------------------------------------------------------------------


def sample_inputs(inputs_dir, samples, seed=0):
    """[{input name: array}]: the files of inputs_dir, then perturbed copies of them."""
    base = {f[:-4].replace("%2F", "/"): np.load(os.path.join(inputs_dir, f))
            for f in sorted(os.listdir(inputs_dir)) if f.endswith(".npy")}
    rng = np.random.default_rng(seed)
    sets = [base]
    for _ in range(samples - 1):
        s = {}
        for name, a in base.items():
            if np.issubdtype(a.dtype, np.floating):
                s[name] = (a + rng.normal(0, a.std() or 1, a.shape)).astype(a.dtype)
            else:
                s[name] = rng.permutation(a.reshape(-1)).reshape(a.shape)
        sets.append(s)
    return sets


def tensor_ranges(model_path, sets, strata):
    """{value name: (min, max)} over every float value of the graph, across the sample sets."""
    ranges = {}

    def widen(name, a):
        if a.size and np.issubdtype(a.dtype, np.floating):
            lo, hi = float(a.min()), float(a.max())
            old = ranges.get(name, (lo, hi))
            ranges[name] = (min(old[0], lo), max(old[1], hi))

    with tempfile.TemporaryDirectory() as tmp:
        for k, inputs in enumerate(sets):
            args = []
            for name, a in inputs.items():
                path = os.path.join(tmp, f"in{k}_{len(args)}.npy")
                np.save(path, a)
                args += ["-i", f"{name}={path}"]
                widen(name, a)
            dump = os.path.join(tmp, f"dump{k}")
            # --no-optimize: every value of the graph as written, none hidden inside a fusion.
            subprocess.run([strata, "run", model_path, *args, "--iter", "1", "--no-optimize",
                            "--dump-all", dump], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            with open(os.path.join(dump, "index.json")) as f:
                index = json.load(f)
            for entry in [o for n in index["nodes"] for o in n["outputs"]]:
                if entry.get("file"):
                    widen(entry["name"], np.load(os.path.join(dump, entry["file"])))
    return ranges


# --- quantization parameters (the specs' formulas) -------------------------------------------


def uint8_params(lo, hi):
    """Scale and zero point mapping [min(lo,0), max(hi,0)] onto 0..255 (zero exact)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 or 1.0
    zero_point = int(np.clip(round(-lo / scale), 0, 255))
    return np.float32(scale), np.uint8(zero_point)


def int8_symmetric(w, axis):
    """(int8 weights, float32 scales): per slice along axis, or per tensor when axis is None."""
    if axis is None:
        amax = np.abs(w).max()
        scale = np.float32(amax / 127.0 if amax > 0 else 1.0)
        return np.clip(np.rint(w / scale), -127, 127).astype(np.int8), scale
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    amax = np.abs(moved).max(axis=1)
    scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale


# --- graph editing ----------------------------------------------------------------------------


class Editor:
    def __init__(self, model):
        self.model = model
        self.graph = model.graph
        self.inits = {t.name: t for t in self.graph.initializer}
        self.names = set()

    def fresh(self, base):
        name, k = base, 0
        while name in self.names or name in self.inits:
            k += 1
            name = f"{base}_{k}"
        self.names.add(name)
        return name

    def constant(self, base, array):
        name = self.fresh(base)
        self.graph.initializer.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def dequantized_weight(self, name, axis, input_scale=None):
        """A DequantizeLinear of the int8 (or int32 bias) form of constant `name`."""
        w = numpy_helper.to_array(self.inits[name]).astype(np.float32)
        if input_scale is None:
            q, scale = int8_symmetric(w, axis)
            zero = np.zeros_like(scale, dtype=np.int8)
        else:  # a bias: int32 with scale input_scale * weight_scale, zero point 0
            scale = np.asarray(input_scale, np.float32)
            q = np.rint(w / scale).astype(np.int32)
            zero = np.zeros_like(scale, dtype=np.int32)
        out = self.fresh(name + "_dq")
        node = helper.make_node(
            "DequantizeLinear",
            [self.constant(name + "_q", q), self.constant(name + "_scale", scale),
             self.constant(name + "_zero_point", zero)], [out], name=out)
        if np.ndim(scale) == 1:
            node.attribute.append(helper.make_attribute("axis", axis if axis is not None else 0))
        return node, out, scale


def per_channel_axis(node, input_index, weight_rank, per_channel):
    if not per_channel:
        return None
    if node.op_type == "Conv":
        return 0
    if node.op_type == "Gemm":
        trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
        return 0 if trans_b else 1
    return weight_rank - 1  # MatMul: [..., K, N], one scale per column


def remove_clipping_activations(graph, ranges, inits):
    """Drops a Relu, or a Clip from 0, whose input is a Conv's, Gemm's or Add's output read by it alone
    (as ONNX Runtime's quantizer does): the uint8 quantization of that output, calibrated on the
    activation's output range (zero point 0), clips at zero by itself."""
    constants = dict(inits)
    for n in graph.node:
        if n.op_type == "Constant" and n.attribute and n.attribute[0].name == "value":
            constants[n.output[0]] = n.attribute[0].t
    readers = {}
    for n in graph.node:
        for x in n.input:
            readers[x] = readers.get(x, 0) + 1
    producer = {o: n for n in graph.node for o in n.output}
    outputs = {o.name for o in graph.output}
    renamed, keep = {}, []
    for n in graph.node:
        clip_from_zero = n.op_type == "Clip" and len(n.input) > 1 and \
            n.input[1] in constants and float(numpy_helper.to_array(constants[n.input[1]])) == 0
        source = producer.get(n.input[0]) if n.input else None
        if (n.op_type == "Relu" or clip_from_zero) and source is not None and \
                source.op_type in ("Conv", "Gemm", "Add") and readers[n.input[0]] == 1 and \
                n.input[0] not in outputs and n.output[0] in ranges:
            lo, hi = ranges[n.output[0]]
            ranges[n.input[0]] = (0.0, hi)
            renamed[n.output[0]] = n.input[0]
            continue
        keep.append(n)
    for n in keep:
        for i, x in enumerate(n.input):
            n.input[i] = renamed.get(x, x)
    for o in graph.output:
        o.name = renamed.get(o.name, o.name)
    del graph.node[:]
    graph.node.extend(keep)


def quantize_static(model, ranges, per_channel):
    ed = Editor(model)
    graph = model.graph
    remove_clipping_activations(graph, ranges, ed.inits)
    for n in graph.node:
        ed.names.update(n.output)
    pairs = {}  # activation -> (its dequantized name, scale, [QuantizeLinear, DequantizeLinear])
    weights = []  # DequantizeLinear nodes of constants, placed first

    def qdq(name):
        if name not in pairs:
            scale, zero = uint8_params(*ranges[name])
            q, dq = ed.fresh(name + "_quantized"), ed.fresh(name + "_dequantized")
            s, z = ed.constant(name + "_scale", scale), ed.constant(name + "_zero_point", zero)
            pairs[name] = (dq, scale, [
                helper.make_node("QuantizeLinear", [name, s, z], [q], name=q),
                helper.make_node("DequantizeLinear", [q, s, z], [dq], name=dq)])
        return pairs[name]

    def is_float_constant(name):
        return name in ed.inits and ed.inits[name].data_type == TensorProto.FLOAT

    for n in graph.node:
        if n.op_type not in QUANTIZED_OPS:
            continue
        constants = [is_float_constant(x) for x in n.input]
        if n.op_type == "MatMul" and not constants[1]:
            continue  # activation x activation products (attention scores) stay float
        if n.op_type == "Add" and any(constants):
            continue  # bias additions stay float; residual additions are quantized
        if not all(x in ranges or constants[i] for i, x in enumerate(n.input[:2])):
            continue  # an input the calibration did not see (not float)
        x_scale = qdq(n.input[0])[1] if not constants[0] else None
        w_scale = None
        for i, name in enumerate(n.input):
            if constants[i] and i == 2:  # Conv's or Gemm's bias: int32, scale x_scale * w_scale
                if x_scale is None or w_scale is None:
                    continue
                node, out, _ = ed.dequantized_weight(name, 0, x_scale * w_scale)
            elif constants[i]:
                axis = per_channel_axis(n, i, len(ed.inits[name].dims), per_channel)
                node, out, w_scale = ed.dequantized_weight(name, axis)
            else:
                qdq(name)
                continue  # rewired below, with every other reader
            weights.append(node)
            n.input[i] = out
        for name in n.output:
            if name in ranges:
                qdq(name)
    # Every reader of a quantized activation reads its dequantized copy, and so does the graph:
    # a quantized graph output is renamed away, its DequantizeLinear takes the output's name.
    for n in graph.node:
        for i, name in enumerate(n.input):
            if name in pairs:
                n.input[i] = pairs[name][0]
    for o in graph.output:
        if o.name in pairs:
            dq_node = pairs[o.name][2][1]
            inner = dq_node.output[0]
            for n in graph.node:
                for i, name in enumerate(n.input):
                    if name == inner:
                        n.input[i] = o.name
                for i, name in enumerate(n.output):
                    if name == o.name:
                        n.output[i] = inner
            q_node = pairs[o.name][2][0]
            q_node.input[0] = inner
            dq_node.output[0] = o.name
            pairs[inner] = pairs.pop(o.name)
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(weights)
    for i in graph.input:
        graph.node.extend(pairs.get(i.name, (None, None, []))[2])
    for n in nodes:
        graph.node.append(n)
        for out in n.output:
            graph.node.extend(pairs.get(out, (None, None, []))[2])
    return model


def quantize_dynamic(model):
    ed = Editor(model)
    graph = model.graph
    for n in graph.node:
        ed.names.update(n.output)
    nodes = list(graph.node)
    del graph.node[:]
    for n in nodes:
        b = n.input[1] if n.op_type == "MatMul" else None
        if b not in ed.inits or len(ed.inits[b].dims) != 2 or ed.inits[b].data_type != 1:
            graph.node.append(n)
            continue
        a = n.input[0]
        w = numpy_helper.to_array(ed.inits[b]).astype(np.float32)
        q, w_scale = int8_symmetric(w, None)
        a_q, a_s, a_z = (ed.fresh(a + "_quantized"), ed.fresh(a + "_scale"),
                         ed.fresh(a + "_zero_point"))
        product, as_float, scale = (ed.fresh(n.output[0] + "_int32"),
                                    ed.fresh(n.output[0] + "_float"),
                                    ed.fresh(n.output[0] + "_scale"))
        graph.node.extend([
            helper.make_node("DynamicQuantizeLinear", [a], [a_q, a_s, a_z], name=a_q),
            helper.make_node("MatMulInteger",
                             [a_q, ed.constant(b + "_q", q), a_z,
                              ed.constant(b + "_zero_point", np.int8(0))], [product],
                             name=product),
            helper.make_node("Cast", [product], [as_float], to=TensorProto.FLOAT,
                             name=as_float),
            helper.make_node("Mul", [a_s, ed.constant(b + "_scale", w_scale)], [scale],
                             name=scale),
            helper.make_node("Mul", [as_float, scale], [n.output[0]], name=n.name or scale),
        ])
    return model


def drop_unused(model):
    """Drops Constant nodes and initializers nothing reads any more."""
    used = {i for n in model.graph.node for i in n.input} | {o.name for o in model.graph.output}
    live = [n for n in model.graph.node if n.op_type != "Constant" or n.output[0] in used]
    del model.graph.node[:]
    model.graph.node.extend(live)
    keep = [t for t in model.graph.initializer if t.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(keep)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model")
    p.add_argument("out")
    p.add_argument("--mode", choices=["static", "dynamic"], required=True)
    p.add_argument("--inputs", help="folder of sample inputs (NAME.npy) for calibration "
                   "[default: MODEL's folder of inputs as export_models.py writes it]")
    p.add_argument("--samples", type=int, default=8, help="calibration sets [default: 8]")
    p.add_argument("--per-channel", action="store_true", help="one weight scale per channel")
    p.add_argument("--strata", default=os.path.join(os.path.dirname(HERE), "build", "strata"))
    a = p.parse_args()
    model = onnx.load(a.model)
    if a.mode == "static":
        inputs = a.inputs or os.path.join(a.model[:-len(".onnx")], "inputs")
        ranges = tensor_ranges(a.model, sample_inputs(inputs, a.samples), a.strata)
        model = quantize_static(model, ranges, a.per_channel)
    else:
        model = quantize_dynamic(model)
    drop_unused(model)
    # opset 13 has per-axis QuantizeLinear/DequantizeLinear.
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx") and o.version < 13:
            o.version = 13
    onnx.checker.check_model(model)
    onnx.save(model, a.out)
    ops = {}
    for n in model.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    print(f"{a.out}: {a.mode}, " + ", ".join(f"{v} {k}" for k, v in sorted(ops.items())))


if __name__ == "__main__":
    sys.exit(main())
