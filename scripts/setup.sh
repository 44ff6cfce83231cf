#!/usr/bin/env bash
# Installs the Debian 12 packages strata needs and builds it into build/ (with the Python module).
# Usage: bash scripts/setup.sh [--python] [extra cmake options]
#   --python  also installs the Python module for Debian's python3 (/usr/bin/python3): the
#             package `strata` (strata/__init__.py and strata/_strata*.so) into its site
#             directory for local installs, /usr/local/lib/python3.11/dist-packages/strata.
set -euo pipefail
cd "$(dirname "$0")/.."
python_install=0
if [ "${1:-}" = "--python" ]; then
  python_install=1
  shift
fi

# pybind11-dev, python3-dev, python3-numpy, python3-pytest and python3-torch: the Python module
# and its tests, which scripts/test.sh runs.
packages=(build-essential cmake libprotobuf-dev protobuf-compiler libonnx-dev libfmt-dev
          nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev libstb-dev
          libdnnl-dev pybind11-dev python3-dev python3-numpy python3-pytest python3-torch
          clang libfuzzer-14-dev libomp-14-dev
          chromium)  # chromium: the HTML report's browser tests (headless)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The same options as scripts/test.sh, so the test run reuses this build instead of redoing it.
# Debian's python3 (the one the python3-* packages are for), whatever else is first on PATH.
python=/usr/bin/python3
site=$($python -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSTRATA_WERROR=ON -DSTRATA_PYTHON=ON \
      -DPython3_EXECUTABLE="$python" -DSTRATA_PYTHON_INSTALL_DIR="$site" "$@" >/dev/null
cmake --build build -j "$(nproc)"
if [ "$python_install" = 1 ]; then
  $sudo_cmd cmake --install build --component python
  (cd / && $python -c 'import strata; print("strata", strata.__version__, "for Python in",
        strata.__path__[0])')
fi
