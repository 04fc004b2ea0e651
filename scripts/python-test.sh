#!/usr/bin/env bash
# Builds the Python package with pip (pip install . into the virtual
# environment build-python/venv, which sees Debian's NumPy, SciPy, pytest and
# PyOpenCL) and runs its pytest suite. Called by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
PY=/usr/bin/python3  # Debian's interpreter: its python3-numpy/scipy/pytest/pyopencl
VENV=build-python/venv
[ -x "$VENV/bin/python" ] || "$PY" -m venv --system-site-packages "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check .
cd python/tests
"../../$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"
