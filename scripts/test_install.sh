#!/usr/bin/env bash
# Installs the build (library, headers, `strata`, CMake package) into a scratch prefix, then
# configures, builds and runs tests/consumer/ against it with find_package(strata).
# Usage: bash scripts/test_install.sh [BUILD_DIR]   (default: build, already built)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in bin/strata include/strata/strata.h lib/libstrata.a lib/cmake/strata/strataConfig.cmake \
         lib/cmake/strata/strataConfigVersion.cmake; do
  [ -e "$work/prefix/$f" ] || { echo "install: $f is missing" >&2; exit 1; }
done
# The installed headers must stand alone: none may reach for the library's internal ones.
if grep -rEn '#include "(core|ir|runtime|profiler|report|analyzer|debug|onnx|io)/' \
     "$work/prefix/include/strata"; then
  echo "install: a public header includes an internal one" >&2
  exit 1
fi
"$work/prefix/bin/strata" --version

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S tests/consumer -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/app" examples/tiny_resnet.onnx
echo "install test passed"
