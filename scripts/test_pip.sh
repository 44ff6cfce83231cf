#!/usr/bin/env bash
# `pip install .` for real: installs the package into a scratch venv (seeing Debian's numpy and
# pytest) with setuptools as installed (--no-build-isolation: offline), reusing BUILD_DIR's CMake
# build of the module, then runs tests/python against the installed package, not build/python.
# Usage: bash scripts/test_pip.sh [BUILD_DIR]   (default: build, configured with -DSTRATA_PYTHON=ON)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 -m venv --system-site-packages "$work/venv"
STRATA_BUILD_DIR="$build" "$work/venv/bin/python" -m pip install --no-build-isolation --no-index \
  --quiet . >"$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; exit 1; }
installed=$(cd "$work" &&
            "$work/venv/bin/python" -c 'import strata; print(strata._strata.__file__)')
case "$installed" in
  "$work/venv/"*) echo "pip installed $installed" ;;
  *) echo "pip: strata imported from $installed, not the venv" >&2; exit 1 ;;
esac
(cd "$work" && STRATA_BINARY="$build/strata" "$work/venv/bin/python" -m pytest -q \
   -p no:cacheprovider "$OLDPWD/tests/python")
echo "pip install test passed"
