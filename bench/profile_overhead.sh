#!/bin/sh
# The profiler's overhead on the example model and the light/ models (the real model graphs with
# small weights), when present: bench/profile_overhead.cpp, median over rounds, 2% budget.
#   bench/profile_overhead.sh [BUILD_DIR] [--rounds R] [--seconds S]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
bin=$build/bench_profile_overhead
if [ ! -x "$bin" ]; then
  echo "profile_overhead.sh: $bin not found: make -C $build bench_profile_overhead" >&2
  exit 2
fi
models=$root/examples/tiny_resnet.onnx
light=${STRATA_LIGHT_MODELS:-$root/../shared/onnx-tests/light}
if [ -d "$light" ]; then
  for m in "$light"/*.onnx; do [ -f "$m" ] && models="$models $m"; done
else
  echo "profile_overhead.sh: $light absent: the light models are skipped" >&2
fi
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
# shellcheck disable=SC2086
exec "$bin" "$@" $models
