#!/usr/bin/env bash
# Rewrites tests/conformance/expected_passes.txt from a fresh run of the ONNX conformance tests.
# Review the diff: a test leaving the list is a regression unless it is known-bad data.
set -euo pipefail
cd "$(dirname "$0")/.."
results=$(mktemp)
STRATA_CONFORMANCE_RESULTS="$results" ./build/strata_tests --gtest_filter='Conformance.*' >/dev/null || true
# Without the test data every suite is skipped: writing then would empty the list.
if ! grep -q $'\tpass' "$results"; then
  echo "update_expected_passes: no test ran (is ../shared/onnx-tests there, or STRATA_ONNX_TESTS set?); list left as it is" >&2
  rm -f "$results"
  exit 2
fi
{
  echo "# ONNX backend tests that must pass (suite/test). Written by scripts/update_expected_passes.sh."
  awk -F'\t' '$2 == "pass" { print $1 }' "$results" | sort
} > tests/conformance/expected_passes.txt
awk -F'\t' '{ n[$2]++ } END { for (k in n) printf "%s %d\n", k, n[k] }' "$results"
python3 scripts/update_ops_doc.py "$results"  # the op list and the conformance table in docs/ops.md
rm -f "$results"
