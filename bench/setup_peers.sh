#!/usr/bin/env bash
# Installs what bench/export_models.py and bench/compare.py need besides strata itself:
#   - Debian's python3-torch and python3-torchvision (model export, PyTorch eager peer),
#   - onnxruntime-node 1.30.0 into bench/node_modules (ONNX Runtime peer; npm, no install scripts:
#     the CPU library ships inside the package),
#   - Debian's OpenBLAS (libopenblas0-openmp), unpacked into bench/out/openblas rather than
#     installed, so it replaces the reference BLAS for the PyTorch runs only and not system-wide,
#   - GNU time (peak RSS of each engine's process).
# Usage: bash bench/setup_peers.sh
set -euo pipefail
cd "$(dirname "$0")"

packages=(python3-numpy python3-torch python3-torchvision python3-onnx time)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node may come from elsewhere than Debian (nodesource ships npm inside nodejs): check commands.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

if [ ! -f node_modules/onnxruntime-node/package.json ]; then
  npm install --ignore-scripts --no-save --no-audit --no-fund --prefix . onnxruntime-node@1.30.0
fi

openblas=out/openblas/usr/lib/x86_64-linux-gnu/openblas-openmp
if [ ! -f "$openblas/libblas.so.3" ]; then
  mkdir -p out/openblas
  (cd out/openblas && apt-get download libopenblas0-openmp && dpkg-deb -x libopenblas0-openmp_*.deb .)
fi
echo "peers ready: onnxruntime-node $(node -p "require('./node_modules/onnxruntime-node/package.json').version"), OpenBLAS in bench/$openblas"
