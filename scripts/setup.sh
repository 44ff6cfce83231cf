#!/usr/bin/env bash
# Installs the Debian 12 packages strata needs and builds it into build/.
# Usage: bash scripts/setup.sh [extra cmake options]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake libprotobuf-dev protobuf-compiler libonnx-dev libfmt-dev
          nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev libstb-dev
          libdnnl-dev clang libfuzzer-14-dev libomp-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The same options as scripts/test.sh, so the test run reuses this build instead of redoing it.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSTRATA_WERROR=ON "$@" >/dev/null
cmake --build build -j "$(nproc)"
