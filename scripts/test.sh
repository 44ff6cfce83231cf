#!/usr/bin/env bash
# Builds strata with warnings as errors and runs every test (unit, CLI, conformance, the install
# with a consumer project, Python, `pip install .` into a venv); then builds with clang++, address
# and undefined-behaviour sanitizers and runs the unit and conformance tests again; last builds the
# four libFuzzer targets from the same sanitizer build and runs each for 60 s (scripts/fuzz.sh,
# docs/fuzzing.md).
# Usage: bash scripts/test.sh            (after bash scripts/setup.sh)
#        STRATA_SKIP_SANITIZE=1 bash scripts/test.sh   to skip the sanitizer pass
#        STRATA_SKIP_FUZZ=1 bash scripts/test.sh       to skip the fuzzing pass
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSTRATA_WERROR=ON -DSTRATA_PYTHON=ON \
      -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure -j "$jobs")
./build/strata_tests --gtest_filter='Conformance.*' | grep '^\[conformance\]'
bash scripts/test_install.sh build
PYTHONPATH=build/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python
bash scripts/test_pip.sh build

if [ "${STRATA_SKIP_SANITIZE:-0}" != "1" ]; then
  bash scripts/sanitize_build.sh strata_tests
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ./build-sanitize/strata_tests --gtest_brief=1
fi
if [ "${STRATA_SKIP_FUZZ:-0}" != "1" ]; then
  bash scripts/fuzz.sh 60
fi
echo "all tests passed"
