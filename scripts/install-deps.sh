#!/usr/bin/env bash
# Installs the Debian 12 packages libpscr needs to build and test. Idempotent.
set -euo pipefail
PKGS=(
  build-essential gfortran cmake ninja-build pkg-config git doxygen
  liblapacke-dev libopenblas-dev
  libboost-test-dev nlohmann-json3-dev
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  libfftw3-dev libclfft-dev
  libpng-dev libopenexr-dev
  libopenmpi-dev openmpi-bin
  python3 python3-numpy python3-scipy
  python3-dev python3-venv python3-pytest python3-pyopencl
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
