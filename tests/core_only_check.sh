#!/usr/bin/env bash
# Configures the library alone (PSCR_BUILD_EXAMPLES=OFF, PSCR_BUILD_TESTS=OFF:
# no FFTW, clFFT, PNG, OpenEXR or Boost needed), builds and installs it, and
# builds the consumer against the installed package by CMake and pkg-config.
set -euo pipefail
build="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
bash "$src/tests/install_check.sh" "$build" "$src"
echo "core-only check passed"
