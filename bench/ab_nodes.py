#!/usr/bin/env python3
"""Two strata builds on one model, node by node: `strata profile` with each build in turn for
several rounds, then every node's minimum over the rounds and their sums. On a shared, noisy
machine the per-node minimums of alternating runs compare two builds more steadily than whole-run
medians (bench/RESULTS.md, 2026-11-27).

  /usr/bin/python3 bench/ab_nodes.py --before /tmp/strata_old --after build/strata \
      --model bench/models/resnet50_qdq.onnx --name 'Conv$' --rounds 6

--side-by-side runs the two builds at the same time instead, one thread each on a CPU of its own
(swapping CPUs every round), so that both see the same spell of a host whose speed drifts over
seconds. Each round's whole-run median ratio is printed too, as a measure of the spread: on the
shared hosts it varies far more than the per-node minimums (0.77–1.39 in one run of four rounds
whose node sums differed by 1%).

Inputs: the model's bench/models/NAME/inputs/*.npy when they exist (else strata's random ones);
--dim N=1 is passed for models with a dynamic batch.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile


def profile_command(binary, model, extra, json_path, cpu=None):
    command = [binary, "profile", model, "--top", "0", "-o", json_path] + extra
    return (["taskset", "-c", str(cpu)] if cpu is not None else []) + command


def read_profile(json_path):
    """({node: median ms}, whole-run median ms) from a profile written by `strata profile -o`."""
    with open(json_path) as f:
        p = json.load(f)
    return {n["name"]: n["median_ms"] for n in p["nodes"]}, p["latency_ms"]["median"]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="strata binary of the earlier build")
    parser.add_argument("--after", required=True, help="strata binary of the later build")
    parser.add_argument("--model", required=True)
    parser.add_argument("--name", default="", help="keep nodes whose name matches (regex)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--iter", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--side-by-side", action="store_true",
                        help="run both builds at once, one per CPU (1 thread each)")
    args = parser.parse_args()
    if args.side_by_side and args.threads != 1:
        parser.error("--side-by-side runs one thread per build")

    model = pathlib.Path(args.model)
    extra = ["--iter", str(args.iter), "--threads", str(args.threads), "--dim", "N=1"]
    if args.name:
        extra += ["--name", args.name]
    for npy in sorted((model.parent / model.stem / "inputs").glob("*.npy")):
        extra += ["-i", f"{npy.stem.replace('%2F', '/')}={npy}"]

    best = {"before": {}, "after": {}}
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = {w: os.path.join(tmp, w + ".json") for w in ("before", "after")}
        for r in range(args.rounds):
            order = ("before", "after") if r % 2 == 0 else ("after", "before")
            if args.side_by_side:
                running = [subprocess.Popen(
                    profile_command(getattr(args, w), str(model), extra, paths[w], cpu),
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    for cpu, w in enumerate(order)]
                if any(p.wait() for p in running):
                    sys.exit("a strata profile run failed")
            else:
                for w in order:
                    subprocess.run(profile_command(getattr(args, w), str(model), extra, paths[w]),
                                   capture_output=True, check=True)
            whole = {}
            for w in order:
                nodes, whole[w] = read_profile(paths[w])
                for node, ms in nodes.items():
                    best[w][node] = min(ms, best[w].get(node, ms))
            ratios.append(whole["after"] / whole["before"])

    nodes = sorted(set(best["before"]) & set(best["after"]),
                   key=lambda n: best["after"][n] / best["before"][n])
    print(f"| node | before min ms | after min ms | after ÷ before |\n|---|---:|---:|---:|")
    for n in nodes:
        b, a = best["before"][n], best["after"][n]
        print(f"| {n} | {b:.3f} | {a:.3f} | {a / b:.2f} |")
    total_b = sum(best["before"][n] for n in nodes)
    total_a = sum(best["after"][n] for n in nodes)
    print(f"| **sum of {len(nodes)} nodes** | {total_b:.3f} | {total_a:.3f} | "
          f"{total_a / total_b:.2f} |")
    print(f"\nwhole-run median, after ÷ before, per round: "
          f"{', '.join(f'{x:.3f}' for x in ratios)} (median {statistics.median(ratios):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
