#!/usr/bin/env python3
"""Two strata builds on one model, node by node: `strata profile` with each build in turn for
several rounds, then every node's minimum over the rounds and their sums. On a shared, noisy
machine the per-node minimums of alternating runs compare two builds more steadily than whole-run
medians (bench/RESULTS.md, 2026-11-27).

  /usr/bin/python3 bench/ab_nodes.py --before /tmp/strata_old --after build/strata \
      --model bench/models/resnet50_qdq.onnx --name 'Conv$' --rounds 6

Inputs: the model's bench/models/NAME/inputs/*.npy when they exist (else strata's random ones);
--dim N=1 is passed for models with a dynamic batch.
"""
import argparse
import pathlib
import re
import subprocess
import sys

NODE_ROW = re.compile(r"^\s*\d+\s+(\S+)\s+\S+\s+\d+\s+\S+\s+(\S+)\s+\S+\s+(\S+)")


def node_minimums(binary, model, extra):
    """{node: (median ms, min ms)} from one `strata profile` run."""
    out = subprocess.run([binary, "profile", model, "--top", "0"] + extra,
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        m = NODE_ROW.match(line)
        if m:
            rows[m.group(1)] = float(m.group(3))
    return rows


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
    args = parser.parse_args()

    model = pathlib.Path(args.model)
    extra = ["--iter", str(args.iter), "--threads", str(args.threads), "--dim", "N=1"]
    if args.name:
        extra += ["--name", args.name]
    for npy in sorted((model.parent / model.stem / "inputs").glob("*.npy")):
        extra += ["-i", f"{npy.stem.replace('%2F', '/')}={npy}"]

    best = {"before": {}, "after": {}}
    for r in range(args.rounds):
        order = ("before", "after") if r % 2 == 0 else ("after", "before")
        for which in order:
            for node, ms in node_minimums(getattr(args, which), str(model), extra).items():
                best[which][node] = min(ms, best[which].get(node, ms))

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
