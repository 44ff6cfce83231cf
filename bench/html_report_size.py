#!/usr/bin/python3
"""Size and render time of `strata profile --html` on a model of about 1,000 nodes.

  /usr/bin/python3 bench/html_report_size.py [--strata build/strata] [--nodes 1000] [--out DIR]

Builds the model with python3-onnx (a residual MLP named like a PyTorch export, 4 nodes per
block: /layers.K/fc/MatMul ...), profiles it with `strata profile --no-optimize --html` (every node
a row of the page), and opens the page in headless chromium several times. The render time is the
page's own figure (data-render-ms: from navigation start to the laid-out DOM, after the script
built every table and chart), the median of the runs; the wall time of a headless screenshot of
the page beside one of an empty page is printed too.
Needs Debian's python3-onnx and chromium.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-extensions"]


def build_model(nodes, width, path):
    """A chain of residual blocks: MatMul, Add (bias), Relu, Add (residual)."""
    rng = np.random.default_rng(0)
    blocks = nodes // 4
    graph_nodes, inits = [], []
    x = "x"
    for k in range(blocks):
        p = f"/layers.{k}"
        w = numpy_helper.from_array(
            (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32), f"w{k}")
        b = numpy_helper.from_array(np.zeros(width, np.float32), f"b{k}")
        inits += [w, b]
        graph_nodes += [
            helper.make_node("MatMul", [x, f"w{k}"], [f"{p}/mm"], name=f"{p}/fc/MatMul"),
            helper.make_node("Add", [f"{p}/mm", f"b{k}"], [f"{p}/fc"], name=f"{p}/fc/Add"),
            helper.make_node("Relu", [f"{p}/fc"], [f"{p}/act"], name=f"{p}/act/Relu"),
            helper.make_node("Add", [x, f"{p}/act"], [f"{p}/out"], name=f"{p}/residual/Add"),
        ]
        x = f"{p}/out"
    graph = helper.make_graph(
        graph_nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, width])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [8, width])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return len(graph_nodes)


def render_ms(chromium, page, profile_dir):
    """The page's data-render-ms after it ran in headless chromium."""
    out = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile_dir}",
                          "--dump-dom", "file://" + page],
                         capture_output=True, text=True, check=True).stdout
    if 'id="strata-error"' in out:
        sys.exit("the page reported a script error")
    m = re.search(r'data-render-ms="([0-9.]+)"', out)
    if not m:
        sys.exit("the page did not render (no data-render-ms)")
    return float(m.group(1))


def screenshot_s(chromium, page, profile_dir, shot):
    t0 = time.perf_counter()
    subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile_dir}",
                    "--window-size=1400,900", f"--screenshot={shot}", "file://" + page],
                   capture_output=True, check=True)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--strata", default="build/strata")
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--iter", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5, help="chromium runs (median reported)")
    ap.add_argument("--out", help="keep the model, profile and page here")
    args = ap.parse_args()
    chromium = shutil.which("chromium") or sys.exit("chromium is not installed")

    out = args.out or tempfile.mkdtemp(prefix="strata-html-")
    os.makedirs(out, exist_ok=True)
    model, page = os.path.join(out, "mlp1000.onnx"), os.path.join(out, "mlp1000.html")
    count = build_model(args.nodes, args.width, model)
    # --no-optimize: every node of the model is a row of the page (the fusions would halve them).
    cmd = [args.strata, "profile", model, "--no-optimize", "--iter", str(args.iter), "--warmup",
           "5", "--html", page, "-o", os.path.join(out, "mlp1000.json")]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    size = os.path.getsize(page)

    profile_dir = os.path.join(out, "chromium-profile")
    times = [render_ms(chromium, page, profile_dir) for _ in range(args.runs)]
    empty = os.path.join(out, "empty.html")
    with open(empty, "w") as f:
        f.write("<!DOCTYPE html><html><body></body></html>\n")
    shot = os.path.join(out, "shot.png")
    page_s = statistics.median(screenshot_s(chromium, page, profile_dir, shot) for _ in range(3))
    empty_s = statistics.median(screenshot_s(chromium, empty, profile_dir, shot) for _ in range(3))

    print(f"model       {count} nodes ({model})")
    print(f"command     {' '.join(cmd)}")
    print(f"file        {size} bytes ({size / 2**20:.2f} MiB)")
    print(f"render      median {statistics.median(times):.0f} ms, max {max(times):.0f} ms over "
          f"{len(times)} runs (navigation start to laid out, data-render-ms)")
    print(f"screenshot  {page_s:.2f} s for the page vs {empty_s:.2f} s for an empty page "
          f"(headless chromium start included)")


if __name__ == "__main__":
    main()
