#!/usr/bin/env bash
# Builds the library and the threading tests with ThreadSanitizer into build-tsan/ (clang++ and
# its OpenMP runtime, whose Archer tool tells ThreadSanitizer about OpenMP's own synchronization)
# and runs them. Exits non-zero on a data race. See docs/fuzzing.md.
# Usage: bash scripts/tsan.sh [gtest filter]
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DSTRATA_TSAN=ON "${launcher[@]}" >/dev/null
cmake --build build-tsan -j "$(nproc)" --target strata_tsan_tests
archer=$(ls /usr/lib/llvm-*/lib/libarcher.so 2>/dev/null | sort | tail -n 1)
OMP_TOOL_LIBRARIES=$archer TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ignore_noninstrumented_modules=1" \
  OMP_NUM_THREADS=4 ./build-tsan/tests/tsan/strata_tsan_tests --gtest_brief=1 \
  --gtest_filter="${1:-*}"
echo "tsan: no data race in the threading tests"
