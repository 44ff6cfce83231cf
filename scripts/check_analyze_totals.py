#!/usr/bin/python3
"""Checks `strata analyze` totals on the benchmark models against published figures.

  /usr/bin/python3 scripts/check_analyze_totals.py [--strata build/strata] [--models bench/models]

The models come from bench/export_models.py (torchvision and two transformers, random weights,
batch dimension symbolic "N"); export them first (about a minute per model, needs python3-torch):
  /usr/bin/python3 bench/export_models.py
Each model is analysed with --dim N=1 and its parameter count and MACs (one image or one sequence)
are compared with the expected figures below. A model whose file is missing is skipped (said so);
the script exits 1 if any figure is off, 0 otherwise.

Expected figures:
- torchvision models: the num_params and GFLOPS of the IMAGENET1K_V1 weights on the model
  builders' pages (https://pytorch.org/vision/stable/models/generated/torchvision.models.<name>.html;
  torchvision's "GFLOPS" are multiply-accumulates). num_params counts BatchNorm scale and shift;
  the ONNX export folds BatchNorm into the convolutions (one bias per channel instead of two
  parameters), so exported counts are slightly lower: the 1% tolerance covers it.
- bert_base and gpt_small are defined in bench/export_models.py; their figures are computed by
  hand below from that architecture (see the comments).
Tolerance: 1%, or half a unit of the published figure's last digit when that is larger
(mobilenet_v2's "0.3" GFLOPS is 0.25-0.35).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def bert_base():
    # vocab 30522, d 768, 12 heads, ffn 3072, 12 layers, seq 128 (BertEncoder in export_models.py)
    v, d, f, layers, seq, heads = 30522, 768, 3072, 12, 128, 12
    per_layer = 4 * (d * d + d) + 2 * (2 * d) + (d * f + f) + (f * d + d)  # q k v out, 2 LN, FFN
    params = v * d + seq * d + 2 * d + layers * per_layer  # word, position, embedding LN
    # MACs for one sequence: projections, scores and context (heads · seq² · d/heads each), FFN.
    macs = layers * (4 * seq * d * d + 2 * heads * seq * seq * (d // heads) + 2 * seq * d * f)
    return params, macs


def gpt_small():
    # vocab 8192, d 512, 8 heads, ffn 2048, 6 layers, seq 128 (GptDecoder in export_models.py)
    v, d, f, layers, seq, heads = 8192, 512, 2048, 6, 128, 8
    per_layer = 2 * (2 * d) + 4 * (d * d + d) + (d * f + f) + (f * d + d)
    params = v * d + seq * d + layers * per_layer + 2 * d + d * v  # token, position, final LN, head
    # Each layer registers its causal mask (seq × seq floats) as a buffer. ONNX stores buffers as
    # initializers, which strata counts as parameters (ONNX does not tell them apart); the six
    # masks are identical and the exporter stores identical constants once.
    params += seq * seq
    macs = layers * (4 * seq * d * d + 2 * heads * seq * seq * (d // heads) + 2 * seq * d * f)
    macs += seq * d * v  # vocabulary head
    return params, macs


# name: (params, GMACs as published (a string) or computed (a number), source)
EXPECTED = {
    "resnet50": (25557032, "4.09", "torchvision"),
    "mobilenet_v2": (3504872, "0.3", "torchvision"),
    "efficientnet_b0": (5288548, "0.39", "torchvision"),
    "convnext_tiny": (28589128, "4.46", "torchvision"),
    "vit_b_16": (86567656, "17.56", "torchvision"),
    "bert_base": (bert_base()[0], bert_base()[1] / 1e9, "by hand"),
    "gpt_small": (gpt_small()[0], gpt_small()[1] / 1e9, "by hand"),
}


def tolerance(published, value):
    """1%, or half a unit of the published figure's last digit relative to the value."""
    if not isinstance(published, str):
        return 0.01
    decimals = len(published.split(".")[1]) if "." in published else 0
    return max(0.01, 0.5 * 10 ** -decimals / value)


def analyse(strata, model):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "analysis.json")
        subprocess.run([strata, "analyze", model, "--dim", "N=1", "--by", "type", "--json", out],
                       check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--strata", default=os.path.join(root, "build", "strata"))
    parser.add_argument("--models", default=os.path.join(root, "bench", "models"))
    args = parser.parse_args()

    failures, checked = 0, 0
    print(f"{'model':<16} {'params':>12} {'expected':>12} {'diff':>7}   {'GMACs':>8} "
          f"{'expected':>8} {'diff':>7}  source")
    for name, (params, gmacs, source) in EXPECTED.items():
        path = os.path.join(args.models, name + ".onnx")
        if not os.path.exists(path):
            print(f"{name:<16} skipped: {path} not found (run bench/export_models.py)")
            continue
        totals = analyse(args.strata, path)["totals"]
        expected_gmacs = float(gmacs)
        got_params, got_gmacs = totals["params"], totals["macs"] / 1e9
        dp = got_params / params - 1
        dm = got_gmacs / expected_gmacs - 1
        ok_p = abs(dp) <= 0.01
        ok_m = abs(dm) <= tolerance(gmacs, expected_gmacs)
        checked += 1
        failures += (not ok_p) + (not ok_m)
        print(f"{name:<16} {got_params:>12,} {params:>12,} {dp:>+7.2%}{'' if ok_p else '!'}  "
              f"{got_gmacs:>8.3f} {expected_gmacs:>8.3f} {dm:>+7.2%}{'' if ok_m else '!'}  {source}")
    if checked == 0:
        print("no model checked")
    print("FAIL" if failures else "ok", f"({checked} models, {failures} figures off)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
