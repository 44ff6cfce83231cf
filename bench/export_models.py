#!/usr/bin/python3
"""Exports the benchmark models to ONNX with random weights (fixed seed), plus a reference input
and PyTorch's output for each, so bench/compare.py can check that every engine agrees.

  /usr/bin/python3 bench/export_models.py [--only NAME ...] [--force] [--out DIR]

Writes, per model NAME (into bench/models/ by default):
  NAME.onnx                    opset 13, batch dimension symbolic ("N")
  NAME/inputs/<input>.npy      the reference input (batch 1)
  NAME/outputs/<output>.npy    PyTorch eager's output for that input (fp32)
  NAME/outputs_fp64/<output>.npy  the same network run in float64: a judge of each engine's own
                               rounding error (fp32 engines differ from each other by about as much)
Existing files are kept unless --force. Needs Debian's python3-torch and python3-torchvision.

The models are rebuilt by compare.py with build_model(), which is deterministic: the same seed
gives the same weights, so PyTorch eager there runs exactly the exported network.
"""
import argparse
import math
import os
import sys
import time

import warnings

import numpy as np
import torch
from torch import nn

# torchvision's ViT asserts the image size in Python; the trace keeps it as a constant, as wanted.
warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)

SEED = 20261121
OPSET = 13

# --- transformer models, written here with plain torch.nn layers ------------------------------


class SelfAttention(nn.Module):
    """Multi-head self-attention with separate Q/K/V projections; optional causal mask.

    Batch is reshaped with -1 and every other size is a Python constant, so the export has
    constant Reshape targets and only the batch dimension is symbolic."""

    def __init__(self, d, heads, seq, causal):
        super().__init__()
        self.d, self.heads, self.seq, self.dh = d, heads, seq, d // heads
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.out = nn.Linear(d, d)
        self.scale = 1.0 / math.sqrt(self.dh)
        if causal:
            mask = torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1)
            self.register_buffer("mask", mask)
        else:
            self.mask = None

    def split(self, x):  # [N, T, d] -> [N, heads, T, dh]
        return x.reshape(-1, self.seq, self.heads, self.dh).transpose(1, 2)

    def forward(self, x):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = torch.matmul(q, k.transpose(2, 3)) * self.scale
        if self.mask is not None:
            scores = scores + self.mask
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.out(ctx.transpose(1, 2).reshape(-1, self.seq, self.d))


class EncoderLayer(nn.Module):
    """BERT-style post-LayerNorm block: x = LN(x + attn(x)); x = LN(x + FFN(x)), GELU (erf)."""

    def __init__(self, d, heads, ffn, seq):
        super().__init__()
        self.attn = SelfAttention(d, heads, seq, causal=False)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.ffn = nn.Sequential(nn.Linear(d, ffn), nn.GELU(), nn.Linear(ffn, d))
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def forward(self, x):
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.ffn(x))


class DecoderLayer(nn.Module):
    """GPT-style pre-LayerNorm block with a causal mask: x += attn(LN(x)); x += FFN(LN(x))."""

    def __init__(self, d, heads, ffn, seq):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = SelfAttention(d, heads, seq, causal=True)
        self.ln2 = nn.LayerNorm(d)
        self.ffn = nn.Sequential(nn.Linear(d, ffn), nn.GELU(), nn.Linear(ffn, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.ffn(self.ln2(x))


class BertEncoder(nn.Module):
    """BERT-base-like: token ids -> word + position embeddings -> LN -> 12 encoder layers.
    Output: the last hidden state [N, seq, 768] (no pooler, no vocabulary head)."""

    def __init__(self, vocab=30522, d=768, heads=12, ffn=3072, layers=12, seq=128):
        super().__init__()
        self.word = nn.Embedding(vocab, d)
        self.position = nn.Parameter(torch.randn(1, seq, d) * 0.02)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(EncoderLayer(d, heads, ffn, seq) for _ in range(layers))

    def forward(self, input_ids):
        x = self.ln(self.word(input_ids) + self.position)
        for layer in self.layers:
            x = layer(x)
        return x


class GptDecoder(nn.Module):
    """Small GPT-like decoder: token ids -> token + position embeddings -> 6 causal pre-LN layers
    -> LN -> vocabulary head (untied). Output: logits [N, seq, vocab] at every position."""

    def __init__(self, vocab=8192, d=512, heads=8, ffn=2048, layers=6, seq=128):
        super().__init__()
        self.token = nn.Embedding(vocab, d)
        self.position = nn.Parameter(torch.randn(1, seq, d) * 0.02)
        self.layers = nn.ModuleList(DecoderLayer(d, heads, ffn, seq) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, input_ids):
        x = self.token(input_ids) + self.position
        for layer in self.layers:
            x = layer(x)
        return self.head(self.ln(x))


def init_transformer(model):
    # Every layer is constructed separately, so each has its own weights (no shared copies).
    for m in model.modules():
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.normal_(m.bias, std=0.02)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=0.02)
        elif isinstance(m, nn.LayerNorm):
            nn.init.normal_(m.weight, mean=1.0, std=0.02)
            nn.init.normal_(m.bias, std=0.02)


# --- models written the usual ways by other people (issue 11's corpus) ------------------------
# These use torch's own layers as their users do, not the hand-written attention above, so the
# exports carry the patterns those layers produce (fused in-projection, baddbmm, masked_fill,
# key-padding masks, causal masks built by nn.Transformer).


class TorchCausalLM(nn.Module):
    """GPT-like decoder from nn.TransformerEncoder(norm_first=True) with a causal `mask=`."""

    def __init__(self, vocab=8192, d=512, heads=8, ffn=2048, layers=6, seq=128):
        super().__init__()
        self.seq = seq
        self.token = nn.Embedding(vocab, d)
        self.position = nn.Parameter(torch.randn(1, seq, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, ffn, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, input_ids):
        mask = nn.Transformer.generate_square_subsequent_mask(self.seq)
        x = self.encoder(self.token(input_ids) + self.position, mask=mask)
        return self.head(self.ln(x))


class TorchPaddedEncoder(nn.Module):
    """BERT-like nn.TransformerEncoder (post-LN, ReLU) with a key-padding mask from token 0."""

    def __init__(self, vocab=30522, d=768, heads=12, ffn=3072, layers=6, seq=128):
        super().__init__()
        self.token = nn.Embedding(vocab, d)
        self.position = nn.Parameter(torch.randn(1, seq, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, ffn, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, input_ids):
        padding = input_ids == 0
        return self.encoder(self.token(input_ids) + self.position, src_key_padding_mask=padding)


class TorchSeq2SeqDecoder(nn.Module):
    """nn.TransformerDecoder (sequence-first, the default layout) with a causal target mask and a
    memory key-padding mask: self-attention, cross-attention and FFN per layer."""

    def __init__(self, vocab=8192, d=512, heads=8, ffn=2048, layers=4, seq=64, memory=96):
        super().__init__()
        self.seq = seq
        self.token = nn.Embedding(vocab, d)
        self.memory = nn.Parameter(torch.randn(memory, 1, d))
        layer = nn.TransformerDecoderLayer(d, heads, ffn, dropout=0.0)
        self.decoder = nn.TransformerDecoder(layer, layers)
        self.head = nn.Linear(d, vocab)

    def forward(self, input_ids):
        tgt = self.token(input_ids).transpose(0, 1)  # [seq, N, d]
        mask = nn.Transformer.generate_square_subsequent_mask(self.seq)
        memory_padding = torch.zeros(1, self.memory.shape[0], dtype=torch.bool)
        memory_padding[:, -16:] = True
        x = self.decoder(tgt, self.memory.expand(-1, tgt.shape[1], -1), tgt_mask=mask,
                         memory_key_padding_mask=memory_padding.expand(tgt.shape[1], -1))
        return self.head(x.transpose(0, 1))


class MultiheadAttentionStack(nn.Module):
    """nn.MultiheadAttention used directly (self-attention with a causal boolean attn_mask),
    residuals and LayerNorms around it."""

    def __init__(self, d=512, heads=8, layers=4, seq=128):
        super().__init__()
        self.seq = seq
        self.attn = nn.ModuleList(nn.MultiheadAttention(d, heads, batch_first=True)
                                  for _ in range(layers))
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))

    def forward(self, x):
        mask = torch.triu(torch.ones(self.seq, self.seq, dtype=torch.bool), diagonal=1)
        for attn, norm in zip(self.attn, self.norms):
            y, _ = attn(x, x, x, attn_mask=mask, need_weights=False)
            x = norm(x + y)
        return x


class BaddbmmAttention(nn.Module):
    """Attention as HF-style code writes it: scores by torch.baddbmm on [N*heads, T, dh], a
    causal mask applied with masked_fill, softmax, bmm."""

    def __init__(self, d=512, heads=8, layers=4, seq=128):
        super().__init__()
        self.d, self.heads, self.seq, self.dh = d, heads, seq, d // heads
        self.qkv = nn.ModuleList(nn.Linear(d, 3 * d) for _ in range(layers))
        self.out = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.register_buffer("causal", torch.tril(torch.ones(seq, seq, dtype=torch.bool)))

    def forward(self, x):
        n = x.shape[0]
        for qkv, out in zip(self.qkv, self.out):
            q, k, v = qkv(x).split(self.d, dim=-1)
            q, k, v = (t.reshape(n, self.seq, self.heads, self.dh).transpose(1, 2)
                       .reshape(n * self.heads, self.seq, self.dh) for t in (q, k, v))
            bias = torch.zeros(n * self.heads, self.seq, self.seq)
            scores = torch.baddbmm(bias, q, k.transpose(1, 2), beta=1.0, alpha=self.dh**-0.5)
            scores = scores.masked_fill(~self.causal, float("-inf"))
            ctx = torch.bmm(torch.softmax(scores, dim=-1), v)
            ctx = ctx.reshape(n, self.heads, self.seq, self.dh).transpose(1, 2)
            x = x + out(ctx.reshape(n, self.seq, self.d))
        return x


class KerasStyleNHWC(nn.Module):
    """A Keras/TF-style image classifier in NHWC: every convolution is wrapped in Transposes
    (NHWC -> NCHW -> conv -> NHWC) as tf2onnx leaves them, with batch norm, bias and activations
    applied on the channels-last tensor and a global mean over H and W."""

    def __init__(self, widths=(32, 64, 128, 256), classes=1000):
        super().__init__()
        self.convs, self.dws, self.scales, self.shifts = (nn.ModuleList(), nn.ModuleList(),
                                                          nn.ParameterList(), nn.ParameterList())
        cin = 3
        for w in widths:
            self.convs.append(nn.Conv2d(cin, w, 3, stride=2, padding=1, bias=False))
            self.dws.append(nn.Conv2d(w, w, 3, padding=1, groups=w))
            self.scales.append(nn.Parameter(1 + 0.1 * torch.randn(w)))
            self.shifts.append(nn.Parameter(0.1 * torch.randn(w)))
            cin = w
        self.dense = nn.Linear(cin, classes)

    @staticmethod
    def conv_nhwc(conv, x):
        return conv(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)

    def forward(self, x):  # [N, H, W, C]
        for conv, dw, scale, shift in zip(self.convs, self.dws, self.scales, self.shifts):
            x = torch.relu(self.conv_nhwc(conv, x) * scale + shift)
            x = torch.nn.functional.relu6(self.conv_nhwc(dw, x))
        return torch.softmax(self.dense(x.mean(dim=(1, 2))), dim=-1)


def sequence(cls, **kw):
    def build():
        model = cls()
        init_transformer(model)
        return model, {"input": torch.randn(1, kw.get("seq", 128), kw.get("d", 512))}, ["output"]

    return build


def keras_style():
    model = KerasStyleNHWC()
    return model, {"input": torch.rand(1, 224, 224, 3)}, ["output"]


class LstmTagger(nn.Module):
    """A speech/text-style sequence model as PyTorch users write it: two stacked nn.LSTM layers
    (batch_first) over feature frames, a linear classifier on every step."""

    def __init__(self, features=80, hidden=256, layers=2, classes=40):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):  # [N, T, features]
        y, _ = self.lstm(x)
        return self.head(y)


class BiGruEncoder(nn.Module):
    """Embedding + a two-layer bidirectional nn.GRU (linear-before-reset, as PyTorch exports it)
    + the mean over time: a text classifier."""

    def __init__(self, vocab=8192, d=256, hidden=256, classes=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.gru = nn.GRU(d, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, classes)

    def forward(self, ids):
        y, _ = self.gru(self.embed(ids))
        return self.head(y.mean(dim=1))


class Conv1dLstm(nn.Module):
    """Keras-style Conv1D + LSTM over a signal: convolutions in [N, C, T], then the LSTM over
    time in sequence-first order, the last step's state classified."""

    def __init__(self, channels=64, hidden=128, classes=10):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(1, channels, 9, stride=2, padding=4), nn.ReLU(),
                                  nn.Conv1d(channels, channels, 9, stride=2, padding=4), nn.ReLU())
        self.lstm = nn.LSTM(channels, hidden)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):  # [N, 1, samples]
        y = self.conv(x).permute(2, 0, 1)  # [T, N, C]
        _, (h, _) = self.lstm(y)
        return self.head(h[-1])


def recurrent(cls, make_input):
    def build():
        return cls(), {"input": make_input()}, ["output"]

    return build


# --- the model list --------------------------------------------------------------------------


def calibrate_batchnorm(model, make_batch, batches=2):
    """Random BatchNorm statistics (mean 0, var 1) make activations explode or vanish through a
    deep network; a few random batches in train mode give each layer statistics that fit."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative average over the calibration batches
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(make_batch())
    model.eval()


def vision(builder, size=224):
    def build():
        import torchvision.models as tvm

        model = getattr(tvm, builder)(weights=None)
        if builder == "vit_b_16":
            # torchvision starts the ViT head at zero, so every output would be 0: re-draw it.
            nn.init.normal_(model.heads.head.weight, std=0.02)
            nn.init.normal_(model.heads.head.bias, std=0.02)
        calibrate_batchnorm(model, lambda: torch.randn(2, 3, size, size))
        return model, {"input": torch.randn(1, 3, size, size)}, ["output"]

    return build


def transformer(cls, vocab, output, seq=128):
    def build():
        model = cls()
        init_transformer(model)
        ids = torch.randint(0, vocab, (1, seq), dtype=torch.int64)
        return model, {"input_ids": ids}, [output]

    return build


MODELS = {
    "resnet50": vision("resnet50"),
    "mobilenet_v2": vision("mobilenet_v2"),
    "efficientnet_b0": vision("efficientnet_b0"),
    "convnext_tiny": vision("convnext_tiny"),
    "vit_b_16": vision("vit_b_16"),
    "bert_base": transformer(BertEncoder, 30522, "last_hidden_state"),
    "gpt_small": transformer(GptDecoder, 8192, "logits"),
}

# The wider corpus: layers and architectures as their authors ship them (bench/README.md).
CORPUS = {
    "torch_causal_lm": transformer(TorchCausalLM, 8192, "logits"),
    "torch_padded_encoder": transformer(TorchPaddedEncoder, 30522, "last_hidden_state"),
    "torch_seq2seq_decoder": transformer(TorchSeq2SeqDecoder, 8192, "logits", seq=64),
    "mha_stack": sequence(MultiheadAttentionStack),
    "baddbmm_attention": sequence(BaddbmmAttention),
    "keras_style_nhwc": keras_style,
    "squeezenet1_1": vision("squeezenet1_1"),
    "googlenet": vision("googlenet"),
    "inception_v3": vision("inception_v3", 299),
    "densenet121": vision("densenet121"),
    "shufflenet_v2_x1_0": vision("shufflenet_v2_x1_0"),
    "regnet_y_400mf": vision("regnet_y_400mf"),
    "mnasnet1_0": vision("mnasnet1_0"),
    "alexnet": vision("alexnet"),  # batch-1 classifier of 234 MB: products of one row
    "swin_t": vision("swin_t"),  # shifted windows: a mask added along a middle axis
    "maxvit_t": vision("maxvit_t"),  # attention written as Einsum
    "lstm_tagger": recurrent(LstmTagger, lambda: torch.randn(1, 200, 80)),
    "bigru_encoder": recurrent(BiGruEncoder, lambda: torch.randint(0, 8192, (1, 128))),
    "conv1d_lstm": recurrent(Conv1dLstm, lambda: torch.randn(1, 1, 4000)),
}
MODELS.update(CORPUS)

# The Caffe2-era graphs of ONNX's backend tests (../shared/onnx-tests/light), imported rather
# than built: no PyTorch module stands behind them. Their input is ONNX's runner's arange(n)/n and
# their reference the output stored beside them (Caffe2's, float32; there is no float64 run).
LIGHT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "shared", "onnx-tests", "light")
LIGHT = sorted(f[:-5] for f in os.listdir(LIGHT_DIR) if f.endswith(".onnx")) \
    if os.path.isdir(LIGHT_DIR) else []
MODELS.update({name: None for name in LIGHT})

# Single-op models (bench/op_models.py): built with the onnx package, numpy references.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_models import OP_MODELS, write_op_model  # noqa: E402

MODELS.update({name: None for name in OP_MODELS})


# Quantized models (issue 13): an exported FP32 model run through bench/quantize.py, the way ONNX
# Runtime's quantizer lays them out. No PyTorch module runs them; their reference output is ONNX
# Runtime's (bench/ort_runner.js, installed by bench/setup_peers.sh), and NAME/quantization.json
# holds each output's quantization step, compare.py's unit of agreement.
QUANTIZED = {
    "resnet50_qdq": ("resnet50", ["--mode", "static", "--per-channel"]),
    "mobilenet_v2_qdq": ("mobilenet_v2", ["--mode", "static", "--per-channel"]),
    "bert_base_dynamic": ("bert_base", ["--mode", "dynamic"]),
}
MODELS.update({name: None for name in QUANTIZED})


# Detection models (issue 12): torchvision's detectors with random weights and a scripted module
# with a loop and a branch, exported as torchvision's own tests do (opset 11, an image list
# [x[0]], batch 1, 320x320). Their outputs are detections, compared as sets (bench/detections.py):
# the order among equal scores is not defined. Each entry: (torchvision builder, constructor
# arguments). Random weights score every class about equally, so the thresholds are set where
# each model keeps a few dozen well separated detections (bench/README.md gives the counts).
DETECTION_OPSET = 11
DETECTION_SIZE = 320
# The R-CNN and RetinaNet transforms resize images to 800 pixels by default: keep them at 320.
AT_320 = {"min_size": DETECTION_SIZE, "max_size": DETECTION_SIZE}
DETECTION = {
    "maskrcnn": ("maskrcnn_resnet50_fpn", {"box_score_thresh": 0.15, **AT_320}),
    "fasterrcnn_mobilenet": ("fasterrcnn_mobilenet_v3_large_320_fpn", {"box_score_thresh": 0.1}),
    "retinanet": ("retinanet_resnet50_fpn", {"score_thresh": 0.0138, **AT_320}),
    "ssdlite": ("ssdlite320_mobilenet_v3_large", {"score_thresh": 0.0116}),
}


class LoopIfScript(nn.Module):
    """A recurrence written as a Python `for` over the rows of its input and an `if` on the
    result's sign: torch.jit.script keeps both, so the export has a Loop (trip count from the
    input's shape) and an If (condition computed from data)."""

    def __init__(self, features=16):
        super().__init__()
        self.cell = nn.Linear(features, features)

    def forward(self, x):  # [steps, features]
        h = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            h = torch.tanh(self.cell(x[i]) + h)
        if bool(h.sum() > 0):
            out = h * 2.0
        else:
            out = h - 1.0
        return out


def detector(name):
    """torchvision detector NAME in eval mode with BatchNorm statistics from random batches
    (without pretrained weights torchvision uses trainable BatchNorm, which would start at mean 0,
    variance 1 and let activations explode through the backbone)."""
    import torchvision.models.detection as tvd

    builder, kwargs = DETECTION[name]
    model = getattr(tvd, builder)(weights=None, weights_backbone=None, **kwargs)
    size = DETECTION_SIZE
    calibrate_batchnorm(model.backbone, lambda: torch.randn(2, 3, size, size))
    model.eval()
    return model


def export_detection(name, out_dir):
    """Exports a detector (or the Loop/If module) with PyTorch's outputs as the reference; the
    float64 folder holds the same float32 outputs (detections are judged as sets, not by
    rounding error)."""
    t0 = time.time()
    onnx_path, in_dir, out_dir_ref, out_dir_fp64 = paths(out_dir, name)
    torch.manual_seed(SEED)
    if name == "loop_if_script":
        model = torch.jit.script(LoopIfScript().eval())
        x = torch.randn(5, 16)
        args = (x,)
        with torch.no_grad():
            outputs = {"output": model(x)}
    else:
        model = detector(name)
        x = torch.rand(1, 3, DETECTION_SIZE, DETECTION_SIZE)
        args = ([x[0]],)
        with torch.no_grad():
            (outputs,) = model([x[0]])
    output_names = list(outputs)
    os.makedirs(os.path.dirname(onnx_path) or ".", exist_ok=True)
    torch.onnx.export(model, args, onnx_path, opset_version=DETECTION_OPSET,
                      do_constant_folding=True, input_names=["input"], output_names=output_names)
    inputs = {"input": args[0][0] if isinstance(args[0], list) else x}
    for folder, tensors in [(in_dir, inputs), (out_dir_ref, outputs),
                            (out_dir_fp64, outputs)]:
        os.makedirs(folder, exist_ok=True)
        for n, t in tensors.items():
            np.save(os.path.join(folder, n + ".npy"), t.detach().numpy())
    if name != "loop_if_script":
        with open(os.path.join(os.path.dirname(out_dir_ref), "detections.txt"), "w") as f:
            f.write("compare outputs as a set of detections (bench/detections.py)\n")
    counts = ", ".join(f"{n} {list(t.shape)}" for n, t in outputs.items())
    print(f"{name}: {os.path.getsize(onnx_path) / 2**20:.1f} MiB, {counts}, "
          f"{time.time() - t0:.1f} s")


MODELS.update({name: None for name in DETECTION})
MODELS["loop_if_script"] = None


def build_model(name):
    """(model in eval mode, {input name: tensor}, [output names]); same weights every call."""
    torch.manual_seed(SEED)
    model, inputs, outputs = MODELS[name]()
    model.eval()
    return model, inputs, outputs


# --- export ----------------------------------------------------------------------------------


def paths(out_dir, name):
    """(NAME.onnx, inputs folder, fp32 outputs folder, fp64 outputs folder)."""
    base = os.path.join(out_dir, name)
    return (base + ".onnx", os.path.join(base, "inputs"), os.path.join(base, "outputs"),
            os.path.join(base, "outputs_fp64"))


def import_light(name, out_dir):
    """Copies light/NAME.onnx with its input (arange(n)/n) and stored output as .npy files."""
    import shutil

    import onnx
    from onnx import numpy_helper

    onnx_path, in_dir, out_dir_ref, out_dir_fp64 = paths(out_dir, name)
    source = os.path.join(LIGHT_DIR, name + ".onnx")
    graph = onnx.load(source).graph
    initializers = {t.name for t in graph.initializer}
    (graph_input,) = [i for i in graph.input if i.name not in initializers]
    shape = [d.dim_value for d in graph_input.type.tensor_type.shape.dim]
    n = int(np.prod(shape))
    expected = numpy_helper.to_array(onnx.load_tensor(
        os.path.join(LIGHT_DIR, name + "_output_0.pb")))
    os.makedirs(os.path.dirname(onnx_path) or ".", exist_ok=True)
    shutil.copyfile(source, onnx_path)
    # Input files name their input with '/' as %2F; outputs are named as strata's
    # --dump-outputs writes them ('/' and ':' as '_').
    output_file = graph.output[0].name.replace("/", "_").replace(":", "_")
    for folder, file_name, value in [
            (in_dir, graph_input.name.replace("/", "%2F"),
             (np.arange(n) / n).astype(np.float32).reshape(shape)),
            (out_dir_ref, output_file, expected),
            (out_dir_fp64, output_file, expected)]:
        os.makedirs(folder, exist_ok=True)
        np.save(os.path.join(folder, file_name + ".npy"), value)
    print(f"{name}: imported from {source}")


def output_step(onnx_path, output, reference):
    """One quantization step of a graph output: the scale of the DequantizeLinear that writes it,
    else an 8-bit step over the reference's range (outputs computed in float after the last
    quantized layer, as in dynamically quantized models)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(onnx_path).graph
    inits = {t.name: t for t in graph.initializer}
    for n in graph.node:
        if n.op_type == "DequantizeLinear" and n.output[0] == output and n.input[1] in inits:
            scale = numpy_helper.to_array(inits[n.input[1]])
            if scale.size == 1:
                return float(scale)
    return float(reference.max() - reference.min()) / 255.0


def export_quantized(name, out_dir, force):
    import json
    import shutil
    import subprocess

    base, args = QUANTIZED[name]
    export(base, out_dir, force=False)
    base_onnx, base_in, _, base_fp64 = paths(out_dir, base)
    onnx_path, in_dir, out_dir_ref, out_dir_fp64 = paths(out_dir, name)
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, os.path.join(here, "quantize.py"), base_onnx, onnx_path,
                    "--inputs", base_in, *args], check=True)
    for src, dst in [(base_in, in_dir), (base_fp64, out_dir_fp64)]:
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst)
    runner = os.path.join(here, "ort_runner.js")
    if not os.path.isdir(os.path.join(here, "node_modules", "onnxruntime-node")):
        sys.exit(f"{name}: its reference output is ONNX Runtime's: run bench/setup_peers.sh")
    shutil.rmtree(out_dir_ref, ignore_errors=True)
    subprocess.run(["node", runner, "--model", onnx_path, "--inputs", in_dir, "--threads", "1",
                    "--warmup", "0", "--iters", "1", "--outputs", out_dir_ref, "--json",
                    os.path.join(os.path.dirname(out_dir_ref), "ort_reference.json")],
                   check=True, stderr=subprocess.DEVNULL)
    steps = {f[:-4]: output_step(onnx_path, f[:-4], np.load(os.path.join(out_dir_ref, f)))
             for f in os.listdir(out_dir_ref)}
    with open(os.path.join(os.path.dirname(out_dir_ref), "quantization.json"), "w") as f:
        json.dump({"from": base, "quantize": args, "output_steps": steps}, f, indent=1)
    print(f"{name}: {base} quantized ({' '.join(args)}); reference output from ONNX Runtime")


def export(name, out_dir, force):
    onnx_path, in_dir, out_dir_ref, out_dir_fp64 = paths(out_dir, name)
    if os.path.exists(onnx_path) and os.path.isdir(out_dir_fp64) and not force:
        print(f"{name}: kept {onnx_path} (use --force to re-export)")
        return
    if name in LIGHT:
        import_light(name, out_dir)
        return
    if name in QUANTIZED:
        export_quantized(name, out_dir, force)
        return
    if name in OP_MODELS:
        write_op_model(name, paths(out_dir, name))
        return
    if name in DETECTION or name == "loop_if_script":
        export_detection(name, out_dir)
        return
    t0 = time.time()
    model, inputs, output_names = build_model(name)
    input_names = list(inputs)
    args = tuple(inputs.values())
    with torch.no_grad():
        reference = model(*args)
    # Gradients stay enabled during the export: under no_grad torch may take fused inference
    # fast paths (e.g. in nn.MultiheadAttention) that do not export.
    dynamic = {n: {0: "N"} for n in input_names + output_names}
    os.makedirs(os.path.dirname(onnx_path) or ".", exist_ok=True)
    torch.onnx.export(model, args, onnx_path, opset_version=OPSET, do_constant_folding=True,
                      input_names=input_names, output_names=output_names,
                      dynamic_axes=dynamic)
    with torch.no_grad():
        reference_fp64 = model.double()(*(t.double() if t.is_floating_point() else t for t in args))
    written = [onnx_path]
    for folder, tensors in [(in_dir, inputs), (out_dir_ref, {output_names[0]: reference}),
                            (out_dir_fp64, {output_names[0]: reference_fp64})]:
        os.makedirs(folder, exist_ok=True)
        for n, t in tensors.items():
            written.append(os.path.join(folder, n + ".npy"))
            np.save(written[-1], t.numpy())
    params = sum(p.numel() for p in model.parameters())
    print(f"{name}: {params / 1e6:.1f} M parameters, {os.path.getsize(onnx_path) / 2**20:.1f} MiB, "
          f"{time.time() - t0:.1f} s")
    for w in written:
        print(f"  wrote {w}")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", action="append", choices=list(MODELS), metavar="NAME",
                   help="export only this model (repeatable); one of: " + ", ".join(MODELS))
    p.add_argument("--force", action="store_true", help="re-export existing models")
    p.add_argument("--out", default=os.path.join(here, "models"), help="output folder")
    a = p.parse_args()
    for name in a.only or list(MODELS):
        export(name, a.out, a.force)


if __name__ == "__main__":
    sys.exit(main())
