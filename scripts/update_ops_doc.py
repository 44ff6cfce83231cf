#!/usr/bin/env python3
"""Regenerates docs/ops.md from the code and a conformance run, so that the op list and the
conformance table are never written by hand.

  python3 scripts/update_ops_doc.py RESULTS.tsv

RESULTS.tsv is what the conformance tests write with STRATA_CONFORMANCE_RESULTS=FILE (one line
per test: suite/test, pass|fail|unsupported, detail); scripts/update_expected_passes.sh runs them
and then this script. The ops come from src/ops/op_list.inc (the registry's own list) and the
ONNX Runtime figures from issue 14's measurement (same data, ONNX's rtol 1e-3 / atol 1e-7).
"""
import collections
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SUITES = [
    ("node-v1.16.2", "node-v1.16.2 (ONNX 1.16.2, opsets ≤ 21)", 1129),
    ("node", "node (newest data, opsets up to 28)", 1455),
    ("simple", "simple", 21),
    ("pytorch-converted", "pytorch-converted", None),
    ("pytorch-operator", "pytorch-operator", None),
    ("light", "light (9 real model graphs)", None),
]


def ops():
    text = open(os.path.join(ROOT, "src", "ops", "op_list.inc")).read()
    return sorted(set(re.findall(r"^STRATA_OP\((\w+),", text, re.M)), key=str.lower)


def domain_ops():
    """The ops of the other domains, from src/ops/domain_op_list.inc, as "domain: Op, Op"."""
    text = open(os.path.join(ROOT, "src", "ops", "domain_op_list.inc")).read()
    by_domain = collections.defaultdict(list)
    for domain, name in re.findall(r'^STRATA_DOMAIN_OP\("([\w.]+)", (\w+),', text, re.M):
        by_domain[domain].append(name)
    return "; ".join(f"{d}: {', '.join(sorted(n, key=str.lower))}" for d, n in by_domain.items())


def max_opset():
    text = open(os.path.join(ROOT, "src", "onnx", "loader.h")).read()
    return int(re.search(r"kMaxOpset = (\d+)", text).group(1))


def counts(results):
    table = collections.defaultdict(collections.Counter)
    for line in open(results):
        name, outcome = line.rstrip("\n").split("\t")[:2]
        table[name.split("/")[0]][outcome] += 1
    return table


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    table = counts(sys.argv[1])
    names = ops()
    rows = []
    for suite, label, ort in SUITES:
        c = table[suite]
        total = sum(c.values())
        rows.append(f"| {label} | {total} | {c['pass']} | {c['fail']} | {c['unsupported']} | "
                    f"{ort if ort is not None else '—'} |")
    passing = sum(t["pass"] for t in table.values())
    doc = f"""# What strata runs

<!-- Written by scripts/update_ops_doc.py from src/ops/op_list.inc, domain_op_list.inc and a conformance run. -->

ONNX files of IR version 3 and later, ai.onnx opsets 7 to {max_opset()} (older files run with their
legacy attributes where strata knows them; newer opsets with a warning). The {len(names)} ops (ai.onnx
domain): {", ".join(names)}. Other domains: {domain_ops()}.

Every op has a plain reference kernel (`src/ops/`); the fast kernels are in docs/kernels.md.
Conformance with ONNX's own backend tests (ONNX's rule: rtol 1e-3, atol 1e-7), beside the passes of
ONNX Runtime 1.30 on the same data as measured for issue 14:

| suite | tests | pass | fail | unsupported | ONNX Runtime 1.30 passes |
|---|---:|---:|---:|---:|---:|
{chr(10).join(rows)}

"Unsupported" tests use ops strata does not implement or types it refuses clearly (float8, int4,
strings); "fail" are known-bad or unreproducible data (tests/conformance/README.md): the 1.16.2
AveragePool 3-D dilation data and its float→bfloat16 cast data (both corrected in the newer `node/`
set, which strata passes), and training-mode Dropout with a non-zero ratio (a random mask). The
{passing:,} passing tests are listed in `tests/conformance/expected_passes.txt`, and CI fails if any
of them fails.
"""
    open(os.path.join(ROOT, "docs", "ops.md"), "w").write(doc)
    print(f"docs/ops.md: {len(names)} ops, {passing} passing tests")


if __name__ == "__main__":
    main()
