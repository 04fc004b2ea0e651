#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds a consumer through
# find_package(pscr) and through pkg-config.
set -euo pipefail
build="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$src/tests/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib/x86_64-linux-gnu" "$tmp/consumer/consumer"
pcdir="$(dirname "$(find "$tmp/prefix" -name pscr.pc | head -1)")"
flags="$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs pscr)"
g++ "$src/tests/consumer/main.cpp" $flags -o "$tmp/pc_consumer"
LD_LIBRARY_PATH="$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir pscr)" "$tmp/pc_consumer"
# the C API from C99 through pkg-config
gcc -std=c99 "$src/tests/consumer/main_c.c" $flags -lm -o "$tmp/c_consumer"
LD_LIBRARY_PATH="$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir pscr)" "$tmp/c_consumer"
# Only the API is exported: no planner, executor or kernel-source symbols.
lib="$(find "$tmp/prefix" -name 'libpscr.so.*.*' | head -1)"
syms="$(nm -DC --defined-only "$lib")"
if grep -E "pscr::(planner|reference|kernels|detail|distributed)::" <<<"$syms"; then echo "internal symbols exported" >&2; exit 1; fi
grep -q "pscr::Plan<double>::solve" <<<"$syms" || { echo "pscr::Plan<double>::solve is not exported" >&2; exit 1; }
echo "install check passed"
