#!/usr/bin/python3
"""Runs one benchmark model in PyTorch eager for bench/compare.py: rebuilds the network with
export_models.build_model (same seed, so the same weights as the exported ONNX file), warms up,
times each run, writes the outputs as .npy and the figures as JSON. One process per round.

  /usr/bin/python3 bench/torch_runner.py --name NAME --inputs DIR --threads N --warmup W \\
      --iters I --outputs DIR --json FILE

compare.py starts it with Debian's OpenBLAS on LD_LIBRARY_PATH and OPENBLAS_CORETYPE=SKYLAKEX;
the JSON says which BLAS library the process actually loaded.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_models import build_model  # noqa: E402


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def loaded_blas():
    """The BLAS shared library mapped into this process (OpenBLAS or the reference libblas)."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "blas" in line.split()[-1]}
    return sorted(os.path.realpath(p) for p in paths)


def main():
    p = argparse.ArgumentParser()
    for opt in ["--name", "--inputs", "--outputs", "--json"]:
        p.add_argument(opt, required=True)
    for opt in ["--threads", "--warmup", "--iters"]:
        p.add_argument(opt, type=int, required=True)
    a = p.parse_args()

    torch.set_num_threads(a.threads)
    torch.set_num_interop_threads(1)
    rss_start = rss_kib()
    model, inputs, output_names = build_model(a.name)
    args = [torch.from_numpy(np.load(os.path.join(a.inputs, n + ".npy"))) for n in inputs]

    def time_runs(n):
        ms, out = [], None
        for _ in range(n):
            t0 = time.perf_counter()
            with torch.inference_mode():
                out = model(*args)
            ms.append((time.perf_counter() - t0) * 1000)
        return ms, out

    warmup_ms, _ = time_runs(a.warmup)
    iterations_ms, out = time_runs(a.iters)
    os.makedirs(a.outputs, exist_ok=True)
    np.save(os.path.join(a.outputs, output_names[0] + ".npy"), out.numpy())
    with open(a.json, "w") as f:
        json.dump({"engine": "pytorch", "version": torch.__version__, "threads": a.threads,
                   "warmup_ms": warmup_ms, "iterations_ms": iterations_ms,
                   "rss_start_kib": rss_start, "blas": loaded_blas()}, f, indent=1)


if __name__ == "__main__":
    main()
