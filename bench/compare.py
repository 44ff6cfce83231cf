#!/usr/bin/python3
"""Runs ONNX Runtime, PyTorch eager and strata on the benchmark models, alternately, in several
short rounds that rotate which engine goes first, at each thread count; checks that their outputs
agree with PyTorch's reference and prints a table of medians, minimums, spreads, ratios to ONNX
Runtime, session-creation (prepare) time and peak RSS.

  /usr/bin/python3 bench/compare.py [--models resnet50,gpt_small] [--threads 1,2] [--rounds 5]
      [--iters 10] [--strata build/strata] [--markdown FILE] [--json FILE]

Export the models first (bench/export_models.py); install the peers with bench/setup_peers.sh.
Each engine runs in its own process per round (load, prepare, warm-up, timed iterations, each
timed inside the process, so start-up is left out); see bench/README.md for how to read the table.
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import detections  # noqa: E402
from export_models import MODELS, paths  # noqa: E402

OPENBLAS_DIRS = [
    os.path.join(HERE, "out/openblas/usr/lib/x86_64-linux-gnu/openblas-openmp"),
    "/usr/lib/x86_64-linux-gnu/openblas-openmp",
]
ORT_MODULE = os.path.join(HERE, "node_modules", "onnxruntime-node")
RTOL, ATOL = 1e-4, 1e-5  # the agreement asked of strata (issue 5), applied to every engine


def input_name(npy_file):
    """The graph input a file in a model's inputs folder feeds: NAME.npy, '/' written as %2F."""
    return npy_file[:-4].replace("%2F", "/")


# --- engines: each builds the command of one round's process and reads back its JSON ---------


class Engine:
    name = ""
    iters_note = ""

    def command(self, model, threads, warmup, iters, out_dir, json_path):
        raise NotImplementedError

    # Whether idle worker threads may spin (--spin): "on", "off", or None to inherit the
    # environment (OMP_WAIT_POLICY as set, ONNX Runtime's own default, which spins).
    spin = None

    def env(self, threads):
        env = dict(os.environ)
        env["OMP_NUM_THREADS"] = str(threads)
        if self.spin is not None:  # strata (oneDNN) and PyTorch use OpenMP
            env["OMP_WAIT_POLICY"] = "ACTIVE" if self.spin == "on" else "PASSIVE"
        return env

    def prepare_ms(self, report):
        return report.get("prepare_ms")

    def runs(self, model):
        """Whether this engine can run the model at all (PyTorch needs the module behind it)."""
        return True


class OrtEngine(Engine):
    name = "onnxruntime"

    def command(self, model, threads, warmup, iters, out_dir, json_path):
        onnx_path, in_dir, _, _ = model.paths
        return ["node", os.path.join(HERE, "ort_runner.js"), "--model", onnx_path, "--inputs",
                in_dir, "--threads", str(threads), "--warmup", str(warmup), "--iters", str(iters),
                "--outputs", out_dir, "--json", json_path,
                *(["--spinning", "1" if self.spin == "on" else "0"] if self.spin else [])]


class TorchEngine(Engine):
    name = "pytorch"

    def __init__(self, openblas_dir):
        self.openblas_dir = openblas_dir

    def command(self, model, threads, warmup, iters, out_dir, json_path):
        _, in_dir, _, _ = model.paths
        return [sys.executable, os.path.join(HERE, "torch_runner.py"), "--name", model.name,
                "--inputs", in_dir, "--threads", str(threads), "--warmup", str(warmup),
                "--iters", str(iters), "--outputs", out_dir, "--json", json_path]

    def env(self, threads):
        env = super().env(threads)
        if self.openblas_dir:
            env["LD_LIBRARY_PATH"] = self.openblas_dir + ":" + env.get("LD_LIBRARY_PATH", "")
            # OpenBLAS 0.3.21 does not recognise this CPU and would fall back to generic kernels.
            env["OPENBLAS_CORETYPE"] = "SKYLAKEX"
        return env

    def prepare_ms(self, report):
        return None  # the network is built from Python code: no session to time

    def runs(self, model):
        return MODELS[model.name] is not None  # imported ONNX files (light/) have no module


class StrataEngine(Engine):
    name = "strata"

    def __init__(self, binary):
        self.binary = binary

    def command(self, model, threads, warmup, iters, out_dir, json_path):
        onnx_path, in_dir, _, _ = model.paths
        inputs = []
        for f in sorted(os.listdir(in_dir)):
            inputs += ["--input", f"{input_name(f)}={os.path.join(in_dir, f)}"]
        return [self.binary, "run", onnx_path, *inputs, "--threads", str(threads), "--warmup",
                str(warmup), "--iter", str(iters), "--dump-outputs", out_dir, "--json", json_path,
                "-q"]

    def prepare_ms(self, report):
        # ONNX Runtime's session creation reads the file too: compare it with load + prepare.
        return report["load_ms"] + report["prepare_ms"]


class StrataFastRunEngine(StrataEngine):
    """strata with --fast-run and an algo cache per model and thread count: the first round times
    every implementation (a longer prepare), later rounds reuse the choices."""
    name = "strata-fastrun"

    def __init__(self, binary):
        super().__init__(binary)
        self.cache_dir = tempfile.mkdtemp(prefix="strata-algo-cache-")

    def command(self, model, threads, warmup, iters, out_dir, json_path):
        cache = os.path.join(self.cache_dir, f"{model.name}-{threads}.json")
        return super().command(model, threads, warmup, iters, out_dir, json_path) + [
            "--fast-run", "--algo-cache", cache]


class Model:
    def __init__(self, name, models_dir):
        self.name = name
        self.paths = paths(models_dir, name)
        onnx_path, _, out_dir, fp64_dir = self.paths
        if not os.path.exists(onnx_path) or not os.path.isdir(fp64_dir):
            sys.exit(f"compare: {onnx_path} or its reference outputs are missing; export them with\n"
                     f"  /usr/bin/python3 bench/export_models.py --only {name}")
        self.reference = {f[:-4]: np.load(os.path.join(out_dir, f)) for f in os.listdir(out_dir)}
        self.reference_fp64 = {f[:-4]: np.load(os.path.join(fp64_dir, f))
                               for f in os.listdir(fp64_dir)}
        # Quantized models (export_models.QUANTIZED): the reference is ONNX Runtime's int8 output
        # and an engine agrees when every element is within one quantization step of it.
        # Detection models (export_models.DETECTION): outputs compared as sets of detections.
        self.detections = os.path.exists(os.path.join(os.path.dirname(out_dir), "detections.txt"))
        steps = os.path.join(os.path.dirname(out_dir), "quantization.json")
        self.steps = None
        if os.path.exists(steps):
            with open(steps) as f:
                self.steps = json.load(f)["output_steps"]


# --- running one process ---------------------------------------------------------------------


def run_process(engine, model, threads, warmup, iters, work):
    """Runs one round of one engine; returns its JSON report plus peak RSS and the outputs, or
    {'error': text} when the process fails."""
    out_dir = os.path.join(work, f"{engine.name}-out")
    shutil.rmtree(out_dir, ignore_errors=True)
    json_path = os.path.join(work, f"{engine.name}.json")
    if os.path.exists(json_path):
        os.remove(json_path)
    cmd = engine.command(model, threads, warmup, iters, out_dir, json_path)
    # Peak RSS through GNU time: a child forked from this Python process (numpy and torch
    # imported) would report this process's peak as its own, since Linux carries the high-water
    # mark across fork and exec. time is small (about 1 MiB), so its child starts clean.
    rss_path = os.path.join(work, "rss.txt")
    with tempfile.TemporaryFile() as err:
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_path, *cmd],
                              env=engine.env(threads), stdout=subprocess.DEVNULL, stderr=err)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    if proc.returncode != 0 or not os.path.exists(json_path):
        lines = [l for l in stderr.strip().splitlines() if "warning" not in l.lower()]
        return {"error": f"exit {proc.returncode}: " + (lines[-1] if lines else "(no message)"),
                "command": shlex.join(cmd)}
    with open(json_path) as f:
        report = json.load(f)
    with open(rss_path) as f:
        report["peak_rss_kib"] = int(f.read().split()[-1])
    report["outputs"] = {f[:-4]: np.load(os.path.join(out_dir, f)) for f in os.listdir(out_dir)}
    return report


def agreement(outputs, reference, reference_fp64, steps=None):
    """Worst element-wise comparison with PyTorch's fp32 output (rtol/atol as numpy.isclose) and
    the largest absolute difference from the float64 run. With steps ({output: quantization
    step}, quantized models), the rule is |got - reference| <= one step instead."""
    bad = total = 0
    max_abs = max_abs64 = max_steps = 0.0
    for name, ref in reference.items():
        if name not in outputs:
            return {"ok": False, "problem": f"output '{name}' missing"}
        got = outputs[name].astype(np.float64)
        if got.shape != ref.shape:
            return {"ok": False, "problem": f"output '{name}' has shape {got.shape}, "
                                            f"expected {ref.shape}"}
        diff = np.abs(got - ref)
        if steps:
            # 1e-3 of a step: the step's own float32 rounding.
            bad += int(np.sum(~(diff <= steps[name] * 1.001)))
            max_steps = max(max_steps, float(np.nanmax(diff)) / steps[name] if diff.size else 0)
        else:
            bad += int(np.sum(~(diff <= ATOL + RTOL * np.abs(ref))))
        total += ref.size
        max_abs = max(max_abs, float(np.nanmax(diff)) if diff.size else 0.0)
        max_abs64 = max(max_abs64, float(np.nanmax(np.abs(got - reference_fp64[name]))))
    result = {"ok": bad == 0, "mismatches": bad, "elements": total, "max_abs": max_abs,
              "max_abs_fp64": max_abs64}
    if steps:
        result["max_steps"] = max_steps
    return result


def detection_agreement(outputs, reference):
    """bench/detections.py's set comparison, in agreement()'s terms for worse() and the table."""
    r = detections.compare(outputs, reference)
    if "problem" in r:
        return {"ok": False, "problem": r["problem"]}
    return {"ok": r["ok"], "mismatches": r["unmatched"], "elements": len(reference["scores"]),
            "max_abs": r["max_box"], "max_abs_fp64": r["max_box"],
            "detections": detections.describe(r)}


def pytorch_own_error(model):
    """PyTorch's float32 output against its own float64 run at the same tolerance: how far the
    reference itself is from the exact result, to read an engine's mismatches against."""
    bad = total = 0
    max_abs = 0.0
    for name, ref in model.reference.items():
        exact = model.reference_fp64[name]
        diff = np.abs(ref.astype(np.float64) - exact)
        bad += int(np.sum(~(diff <= ATOL + RTOL * np.abs(exact))))
        total += exact.size
        max_abs = max(max_abs, float(np.nanmax(diff)) if diff.size else 0.0)
    return f"{bad}/{total} off, max abs {max_abs:.1e}" if bad else f"ok, max abs {max_abs:.1e}"


def worse(a, b):
    if a is None:
        return b
    key = lambda r: (r["ok"], -r.get("mismatches", 1 << 62), -r.get("max_abs", 0))  # noqa: E731
    return a if key(a) <= key(b) else b


# --- one model at one thread count -----------------------------------------------------------


def bench_model(model, threads, engines, args, work, log):
    """Rounds of all engines; returns {engine name: result dict}."""
    engines = [e for e in engines if e.runs(model)]
    results = {e.name: {"round_medians": [], "iterations": [], "prepare": [], "rss": [],
                        "agree": None, "error": None, "iters": args.iters,
                        "warmup": args.warmup} for e in engines}
    strata = results.get("strata")
    if strata is not None:
        # A one-iteration probe first: strata's reference kernels can take many seconds per run,
        # so its iteration count is cut to fit --strata-budget (and the table says so).
        engine = next(e for e in engines if e.name == "strata")
        probe = run_process(engine, model, threads, 0, 1, work)
        if "error" in probe:
            strata["error"] = probe["error"]
            log(f"  strata cannot run {model.name}: {probe['error']}")
        else:
            per_run_s = probe["iterations_ms"][0] / 1000
            fit = int(args.strata_budget // max(per_run_s, 1e-9))
            if fit < args.iters + args.warmup:
                strata["warmup"] = min(args.warmup, max(fit - 1, 0))
                strata["iters"] = max(fit - strata["warmup"], 1)
                log(f"  strata: {per_run_s:.1f} s per run; {strata['warmup']} warm-up + "
                    f"{strata['iters']} iterations per round (--strata-budget {args.strata_budget} s)")
    for r in range(args.rounds):
        order = engines[r % len(engines):] + engines[:r % len(engines)]
        line = []
        for engine in order:
            res = results[engine.name]
            if res["error"]:
                continue
            rep = run_process(engine, model, threads, res["warmup"], res["iters"], work)
            if "error" in rep:
                res["error"] = rep["error"]
                log(f"  {engine.name} failed: {rep['error']}\n    {rep['command']}")
                continue
            ms = rep["iterations_ms"]
            res["round_medians"].append(statistics.median(ms))
            res["iterations"] += ms
            if engine.prepare_ms(rep) is not None:
                res["prepare"].append(engine.prepare_ms(rep))
            res["rss"].append(rep["peak_rss_kib"])
            if model.detections:
                agree = detection_agreement(rep["outputs"], model.reference)
            else:
                agree = agreement(rep["outputs"], model.reference, model.reference_fp64,
                                  model.steps)
            res["agree"] = worse(res["agree"], agree)
            if "blas" in rep:
                res["blas"] = rep["blas"]
            line.append(f"{engine.name} {statistics.median(ms):.1f}")
        log(f"  round {r + 1}/{args.rounds}: " + ", ".join(line) + " ms")
    return results


def summarize(results, reference_engine="onnxruntime"):
    """Per engine: median and minimum over all iterations, spread (p90 - p10) / median, and the
    ratios to the reference engine: median over rounds of the per-round ratio of medians, and the
    ratio of minimums."""
    ref = results.get(reference_engine)
    rows = {}
    for name, res in results.items():
        row = {"error": res["error"], "iters": res["iters"], "warmup": res["warmup"],
               "agree": res["agree"]}
        it = res["iterations"]
        if it:
            p10, p90 = np.percentile(it, [10, 90])
            row.update(median=statistics.median(it), min=min(it),
                       spread=(p90 - p10) / statistics.median(it),
                       rounds=len(res["round_medians"]),
                       prepare=statistics.median(res["prepare"]) if res["prepare"] else None,
                       rss_mib=max(res["rss"]) / 1024)
            if ref and ref["iterations"] and not res["error"]:
                pairs = list(zip(res["round_medians"], ref["round_medians"]))
                row["ratio_median"] = statistics.median(a / b for a, b in pairs)
                row["ratio_min"] = min(it) / min(ref["iterations"])
        rows[name] = row
    return rows


# --- output ----------------------------------------------------------------------------------


def fmt_ms(v):
    if v is None:
        return "—"
    return f"{v:.0f}" if v >= 1000 else f"{v:.1f}"


def fmt_agree(a):
    if a is None:
        return "—"
    if "problem" in a:
        return "MISMATCH: " + a["problem"]
    if "detections" in a:
        return a["detections"]
    head = "ok" if a["ok"] else f"{a['mismatches']}/{a['elements']} off"
    if "max_steps" in a:  # a quantized model: against ONNX Runtime's output, in its steps
        return f"{head}, max {a['max_steps']:.1f} steps of ORT's (fp32 model: {a['max_abs_fp64']:.1e})"
    return f"{head}, max abs {a['max_abs']:.1e} (fp64: {a['max_abs_fp64']:.1e})"


def table(all_rows, default_iters):
    lines = ["| model | threads | engine | median ms | min ms | spread | ÷ ORT (median of rounds) "
             "| ÷ ORT (min) | prepare ms | peak RSS MiB | vs PyTorch fp32 (rtol 1e-4, atol 1e-5) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for (model, threads), rows in all_rows:
        for engine, r in rows.items():
            if "median" not in r:
                lines.append(f"| {model} | {threads} | {engine} | — | — | — | — | — | — | — | "
                             f"cannot run: {r['error']} |")
                continue
            name = engine
            if r["iters"] != default_iters:
                name += f" ({r['warmup']}+{r['iters']} it.)"
            lines.append(
                f"| {model} | {threads} | {name} | {fmt_ms(r['median'])} | {fmt_ms(r['min'])} | "
                f"{r['spread'] * 100:.0f}% | {r.get('ratio_median', 0):.2f} | "
                f"{r.get('ratio_min', 0):.2f} | {fmt_ms(r['prepare'])} | {r['rss_mib']:.0f} | "
                f"{fmt_agree(r['agree'])}{'; failed later: ' + r['error'] if r['error'] else ''} |")
    return "\n".join(lines)


def machine():
    info = {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            k, _, v = line.partition(":")
            info[k.strip()] = v.strip()
    except OSError:
        pass
    flags = info.get("Flags", "").split()
    isa = [f for f in ["avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16",
                       "amx_tile"] if f in flags]
    mem = ""
    with open("/proc/meminfo") as f:
        mem = f"{int(f.readline().split()[1]) / 2**20:.0f} GiB"
    return (f"lscpu \"{info.get('Model name', platform.processor())}\", "
            f"{info.get('CPU(s)', os.cpu_count())} CPUs ({info.get('Core(s) per socket', '?')} "
            f"cores/socket, {info.get('Thread(s) per core', '?')} thread/core), "
            f"{info.get('Hypervisor vendor', 'bare metal')} guest, {' '.join(isa)}, {mem}")


def versions(strata_binary, torch_blas):
    v = {}
    try:
        out = subprocess.run([strata_binary, "--version"], capture_output=True, text=True).stdout
        v["strata"] = f"{out.strip().removeprefix('strata ')} ({os.path.relpath(strata_binary)})"
    except OSError:
        v["strata"] = "?"
    try:
        with open(os.path.join(ORT_MODULE, "package.json")) as f:
            v["onnxruntime-node"] = json.load(f)["version"]
    except OSError:
        v["onnxruntime-node"] = "not installed"
    v["node"] = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    import torch

    v["torch"] = torch.__version__ + " (Debian python3-torch)"
    v["torch BLAS"] = torch_blas
    return v


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default=",".join(MODELS),
                   help="comma-separated list (default: all of %(default)s)")
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    p.add_argument("--rounds", type=int, default=5, help="rounds per model and thread count")
    p.add_argument("--iters", type=int, default=10, help="timed iterations per round and engine")
    p.add_argument("--warmup", type=int, default=2, help="warm-up runs per round and engine")
    p.add_argument("--strata", default=os.path.join(REPO, "build", "strata"),
                   help="strata binary (default: %(default)s)")
    p.add_argument("--strata-budget", type=float, default=60,
                   help="seconds one strata round may take; fewer iterations if it would take "
                        "longer (default %(default)s)")
    p.add_argument("--engines", default="onnxruntime,pytorch,strata",
                   help="comma-separated: onnxruntime, pytorch, strata, strata-fastrun (strata with "
                        "--fast-run and an algo cache kept across the rounds)")
    p.add_argument("--models-dir", default=os.path.join(HERE, "models"))
    p.add_argument("--openblas", help="folder holding OpenBLAS's libblas.so.3 for PyTorch")
    p.add_argument("--markdown", help="also write the result section (machine, command, table) "
                                      "to this file")
    p.add_argument("--json", help="write every figure to this file")
    p.add_argument("--spin", choices=["on", "off"],
                   help="let idle worker threads spin (on) or sleep (off) in every engine: "
                        "OMP_WAIT_POLICY=ACTIVE/PASSIVE for strata and PyTorch, ONNX Runtime's "
                        "session.intra_op.allow_spinning 1/0 (default: each engine's own "
                        "default, OMP_WAIT_POLICY as the environment has it)")
    a = p.parse_args()
    Engine.spin = a.spin
    if a.rounds < 1 or a.iters < 1 or a.warmup < 0:
        p.error("--rounds and --iters must be at least 1, --warmup at least 0")

    names = [m for m in a.models.split(",") if m]
    for m in names:
        if m not in MODELS:
            p.error(f"unknown model '{m}'; known: {', '.join(MODELS)}")
    thread_counts = [int(t) for t in a.threads.split(",")]
    wanted = a.engines.split(",")
    engines = []
    if "onnxruntime" in wanted:
        if not os.path.isdir(ORT_MODULE):
            sys.exit("compare: onnxruntime-node is not installed; run bench/setup_peers.sh or\n"
                     "  npm install --ignore-scripts --no-save --prefix bench "
                     "onnxruntime-node@1.30.0")
        engines.append(OrtEngine())
    openblas = a.openblas or next((d for d in OPENBLAS_DIRS
                                   if os.path.exists(os.path.join(d, "libblas.so.3"))), None)
    if "pytorch" in wanted:
        if not openblas:
            print("compare: warning: OpenBLAS not found, PyTorch runs with the reference BLAS "
                  "(very slow Linear layers); run bench/setup_peers.sh", file=sys.stderr)
        engines.append(TorchEngine(openblas))
    if "strata" in wanted:
        if not os.access(a.strata, os.X_OK):
            sys.exit(f"compare: {a.strata}: no such strata binary (build it or pass --strata)")
        engines.append(StrataEngine(os.path.abspath(a.strata)))
    if "strata-fastrun" in wanted:
        if not os.access(a.strata, os.X_OK):
            sys.exit(f"compare: {a.strata}: no such strata binary (build it or pass --strata)")
        engines.append(StrataFastRunEngine(os.path.abspath(a.strata)))
    if not engines:
        p.error("no engine selected")
    if not os.access("/usr/bin/time", os.X_OK):
        sys.exit("compare: /usr/bin/time is missing (it measures peak RSS): apt-get install time")

    command = "/usr/bin/python3 bench/compare.py " + shlex.join(sys.argv[1:])
    started = datetime.datetime.now()
    load_start = os.getloadavg()[0]

    def log(msg):
        print(msg, flush=True)

    all_rows, raw, torch_blas, own_errors = [], [], "?", []
    with tempfile.TemporaryDirectory(prefix="strata-compare-") as work:
        for name in names:
            model = Model(name, a.models_dir)
            # Quantized models' reference is ONNX Runtime's; detections are judged as sets.
            if model.steps is None and not model.detections:
                own_errors.append(f"{name} {pytorch_own_error(model)}")
            for threads in thread_counts:
                log(f"{name}, {threads} thread{'s' if threads > 1 else ''}:")
                results = bench_model(model, threads, engines, a, work, log)
                if "pytorch" in results and results["pytorch"].get("blas"):
                    torch_blas = ", ".join(os.path.basename(b) for b in results["pytorch"]["blas"])
                rows = summarize(results)
                all_rows.append(((name, threads), rows))
                raw.append({"model": name, "threads": threads, "results": results,
                            "summary": rows})
                log(table([((name, threads), rows)], a.iters).split("\n", 2)[2])

    ver = versions(a.strata, torch_blas)
    section = [
        f"## Engine comparison ({started:%Y-%m-%d %H:%M})",
        "",
        f"- machine: {machine()}",
        "- versions: " + "; ".join(f"{k} {v}" for k, v in ver.items()),
        f"- command: `{command}` (took {(datetime.datetime.now() - started).seconds / 60:.0f} min; "
        f"load average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)",
        "- idle worker threads: " + (
            {"on": "spin (OMP_WAIT_POLICY=ACTIVE; ONNX Runtime allow_spinning 1)",
             "off": "sleep (OMP_WAIT_POLICY=PASSIVE; ONNX Runtime allow_spinning 0)"}[a.spin]
            if a.spin else "each engine's default (OMP_WAIT_POLICY="
            f"{os.environ.get('OMP_WAIT_POLICY', 'unset')}; ONNX Runtime spins)"),
        f"- each cell: {a.rounds} rounds per model and thread count, engine order rotated each "
        f"round; {a.warmup} warm-up + {a.iters} timed iterations per round unless the engine "
        "name says otherwise (warm-up + iterations)",
        "",
        table(all_rows, a.iters),
        "",
    ]
    if own_errors:
        section += [
            "PyTorch's own float32 output against its float64 run at the same tolerance (how far "
            "the reference column's reference is from exact): " + "; ".join(own_errors) + ".",
            "",
        ]
    text = "\n".join(section)
    print("\n" + text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    if a.json:
        for entry in raw:
            for res in entry["results"].values():
                res.pop("outputs", None)
        with open(a.json, "w") as f:
            json.dump({"command": command, "machine": machine(), "versions": ver, "runs": raw},
                      f, indent=1, default=str)


if __name__ == "__main__":
    main()
