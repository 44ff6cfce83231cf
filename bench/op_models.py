"""Single-op benchmark models, each dominated by one op that strata has its own kernel for
(src/kernels/cpu/): RMSNormalization as in LLM exports, GroupNormalization as in diffusion
U-Nets, GridSample and causal Attention. Built with the onnx package (no PyTorch module behind
them); their reference outputs are computed here with numpy in float64.

export_models.py writes them like its other models (NAME.onnx, NAME/inputs, NAME/outputs,
NAME/outputs_fp64) when asked for them by name, and compare.py runs them:

  /usr/bin/python3 bench/export_models.py --only op_rms_norm --only op_group_norm \
      --only op_grid_sample --only op_attention
  /usr/bin/python3 bench/compare.py --engines onnxruntime,strata --threads 1,2 \
      --models op_rms_norm,op_group_norm,op_grid_sample,op_attention
"""
import os

import numpy as np

SEED = 20261125


def _rms_norm(rng):
    x = rng.standard_normal((1, 128, 4096))
    scale = rng.standard_normal(4096)
    y = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * scale
    node = ("RMSNormalization", ["X", "scale"], {"axis": -1, "epsilon": 1e-6})
    return 23, node, {"X": x}, {"scale": scale}, y


def _group_norm(rng):
    x = rng.standard_normal((1, 320, 64, 64)) + 0.5
    scale, bias = rng.standard_normal(320), rng.standard_normal(320)
    g = x.reshape(1, 32, -1)
    mean = g.mean(axis=-1, keepdims=True)
    var = ((g - mean) ** 2).mean(axis=-1, keepdims=True)
    y = ((g - mean) / np.sqrt(var + 1e-5)).reshape(x.shape)
    y = y * scale.reshape(1, -1, 1, 1) + bias.reshape(1, -1, 1, 1)
    node = ("GroupNormalization", ["X", "scale", "bias"], {"num_groups": 32, "epsilon": 1e-5})
    return 21, node, {"X": x}, {"scale": scale, "bias": bias}, y


def _grid_sample(rng):
    """Bilinear, zeros padding, align_corners 0, some locations outside the image."""
    x = rng.standard_normal((1, 64, 128, 128))
    grid = rng.uniform(-1.1, 1.1, (1, 128, 128, 2))
    n, c, h, w = x.shape
    fx = ((grid[..., 0] + 1) * w - 1) / 2
    fy = ((grid[..., 1] + 1) * h - 1) / 2
    x0, y0 = np.floor(fx).astype(np.int64), np.floor(fy).astype(np.int64)
    y = np.zeros((n, c) + grid.shape[1:3])
    for dy in (0, 1):
        for dx in (0, 1):
            xi, yi = x0 + dx, y0 + dy
            weight = (fx - x0 if dx else 1 - (fx - x0)) * (fy - y0 if dy else 1 - (fy - y0))
            inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            values = x[0][:, np.clip(yi[0], 0, h - 1), np.clip(xi[0], 0, w - 1)]
            y[0] += values * (weight[0] * inside[0])
    node = ("GridSample", ["X", "grid"],
            {"mode": "bilinear", "padding_mode": "zeros", "align_corners": 0})
    return 16, node, {"X": x, "grid": grid}, {}, y


def _attention(rng):
    """[batch 1, 8 heads, 128 positions, head size 64], causal."""
    q, k, v = (rng.standard_normal((1, 8, 128, 64)) for _ in range(3))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(64)
    scores = np.where(np.triu(np.ones((128, 128), dtype=bool), 1), -np.inf, scores)
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    y = (p / p.sum(axis=-1, keepdims=True)) @ v
    node = ("Attention", ["Q", "K", "V"], {"is_causal": 1})
    return 23, node, {"Q": q, "K": k, "V": v}, {}, y


OP_MODELS = {
    "op_rms_norm": _rms_norm,
    "op_group_norm": _group_norm,
    "op_grid_sample": _grid_sample,
    "op_attention": _attention,
}


def write_op_model(name, paths):
    """Writes model NAME to paths = (NAME.onnx, inputs, outputs, outputs_fp64 folders)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    onnx_path, in_dir, out_dir, fp64_dir = paths
    opset, (op_type, input_names, attributes), inputs, weights, expected = \
        OP_MODELS[name](np.random.default_rng(SEED))
    node = helper.make_node(op_type, input_names, ["Y"], **attributes)
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(t.shape))
         for n, t in inputs.items()],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, list(expected.shape))],
        [numpy_helper.from_array(t.astype(np.float32), n) for n, t in weights.items()])
    # The onnx package here (1.12) knows opsets up to 17: the model is written without its
    # checker, which would refuse the newer ops.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="strata bench/op_models.py")
    model.ir_version = 8
    os.makedirs(os.path.dirname(onnx_path) or ".", exist_ok=True)
    onnx.save(model, onnx_path)
    written = [onnx_path]
    for folder, tensors in [(in_dir, {n: t.astype(np.float32) for n, t in inputs.items()}),
                            (out_dir, {"Y": expected.astype(np.float32)}),
                            (fp64_dir, {"Y": expected})]:
        os.makedirs(folder, exist_ok=True)
        for n, t in tensors.items():
            written.append(os.path.join(folder, n + ".npy"))
            np.save(written[-1], t)
    print(f"{name}: {op_type} (opset {opset}), references by numpy in float64")
    for w in written:
        print(f"  wrote {w}")
