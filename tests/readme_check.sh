#!/usr/bin/env bash
# The front page's quick start works as written: extracts README.md's C++ and
# C code blocks, compiles them against the library of the build tree and runs
# them (the Python block is run by python/tests/test_readme.py).
set -euo pipefail
src="$1"; build="$2"; libdir="$3"; cxx="$4"; cc="$5"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
block() {  # the first ```$1 block of README.md
  awk -v lang="$1" '$0 == "```" lang {on = 1; next} on && $0 == "```" {exit} on {print}' "$src/README.md"
}
block cpp > "$tmp/quick.cpp"; block c > "$tmp/quick.c"
[ -s "$tmp/quick.cpp" ] && [ -s "$tmp/quick.c" ] || { echo "README.md: no cpp or c block" >&2; exit 1; }
inc=(-I"$src/include" -I"$build/include")
"$cxx" -std=c++17 -O1 "${inc[@]}" "$tmp/quick.cpp" -L"$libdir" -lpscr -Wl,-rpath,"$libdir" -o "$tmp/quick_cpp"
"$cc" -std=c99 -Wall -Werror "${inc[@]}" "$tmp/quick.c" -L"$libdir" -lpscr -Wl,-rpath,"$libdir" -o "$tmp/quick_c"
out_cpp="$("$tmp/quick_cpp")"; echo "C++: $out_cpp"
out_c="$("$tmp/quick_c")"; echo "C: $out_c"
# the residual the C++ example prints is small
awk '{ if ($3 + 0 > 1e-8) { print "C++ quick start residual too large: " $3; exit 1 } }' <<< "$out_cpp"
