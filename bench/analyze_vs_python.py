#!/usr/bin/python3
"""`strata analyze` end to end (process start, load without weights, analysis, printing) against
Python's onnx.load + onnx.shape_inference.infer_shapes on the same model file:

  /usr/bin/python3 bench/analyze_vs_python.py [MODEL.onnx] [--strata build/strata] [--runs 20]

strata is timed as a whole process (wall clock around the plain command, whose text report goes to
a pipe; the process's CPU time beside it; its own load and analysis times come from the report's
header). Python is timed in process (interpreter start and `import onnx` excluded): onnx.load,
then infer_shapes on the loaded model. Medians and minima are printed (on a busy machine the
minimum shows what a quiet one would).
"""
import argparse
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time


def strata_runs(strata, model, runs):
    """Times the plain command (its text report to a pipe); load and analysis times are read from
    the report's header ("load  2.19 ms", "analysis  0.41 ms"). CPU time is that of the child."""
    wall, cpu, load, analysis = [], [], [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run([strata, "analyze", model], check=True, capture_output=True,
                             text=True).stdout
        wall.append((time.perf_counter() - t0) * 1e3)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e3)
        load.append(float(re.search(r"^load\s+([0-9.]+) ms", out, re.M).group(1)))
        analysis.append(float(re.search(r"^analysis\s+([0-9.]+) ms", out, re.M).group(1)))
    return wall, cpu, load, analysis


def python_runs(model, runs):
    import onnx
    import onnx.shape_inference

    load, infer = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        m = onnx.load(model)
        t1 = time.perf_counter()
        onnx.shape_inference.infer_shapes(m)
        t2 = time.perf_counter()
        load.append((t1 - t0) * 1e3)
        infer.append((t2 - t1) * 1e3)
    return load, infer


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", nargs="?", default=os.path.join(root, "bench", "models",
                                                                 "resnet50.onnx"))
    parser.add_argument("--strata", default=os.path.join(root, "build", "strata"))
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    if not os.path.exists(args.model):
        print(f"{args.model} not found (run bench/export_models.py)")
        return 2
    med = statistics.median
    wall, cpu, load, analysis = strata_runs(args.strata, args.model, args.runs)
    py_load, py_infer = python_runs(args.model, max(3, args.runs // 4))
    print(f"model    {args.model} ({os.path.getsize(args.model) / 2**20:.1f} MiB)")
    print(f"machine  {cpu_name()}, {os.cpu_count()} logical CPUs; "
          f"{time.strftime('%Y-%m-%d')}; medians")
    print(f"strata   analyze end to end {med(wall):8.2f} ms, min {min(wall):.2f} ms, process CPU "
          f"{med(cpu):.1f} ms  (load {med(load):.2f} ms, analysis {med(analysis):.2f} ms; "
          f"{len(wall)} runs)")
    print(f"python   onnx.load {med(py_load):8.2f} ms + infer_shapes {med(py_infer):8.2f} ms = "
          f"{med(py_load) + med(py_infer):.2f} ms, min {min(py_load) + min(py_infer):.2f} ms "
          f"({len(py_load)} runs)")
    print(f"ratio    python / strata = {(med(py_load) + med(py_infer)) / med(wall):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
