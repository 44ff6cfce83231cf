#!/usr/bin/env bash
# Builds TARGETs into build-sanitize/ with clang++, address and undefined-behaviour sanitizers and
# libFuzzer's instrumentation (-DSTRATA_FUZZ=ON, -O1, line tables, warnings as errors). One build
# serves both the sanitizer run of the unit tests (scripts/test.sh) and the fuzz targets
# (scripts/fuzz.sh): the library is compiled once for both.
# Usage: bash scripts/sanitize_build.sh TARGET...    (e.g. strata_tests, fuzz_graph)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/sanitize_build.sh TARGET..." >&2; exit 2; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
      -DSTRATA_FUZZ=ON -DSTRATA_WERROR=ON "${launcher[@]}" >/dev/null
cmake --build build-sanitize -j "$(nproc)" --target "$@"
