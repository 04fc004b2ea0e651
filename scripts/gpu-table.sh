#!/usr/bin/env bash
# The GPU speed table (libpscr against the cuFFT DST-I Poisson solver), in one
# command on the GPU machine, so that every ratio compares runs of the same
# machine state. Build and pack here first:
#
#   cmake --build build --target pscr-bench
#   ../shared/tools/gpu-bundle -o .gpu build/bin/pscr-bench
#   (for an A/B: the same from another revision's build into .gpu-base)
#
# then on the GPU machine, from the repository root (carry .gpu, .gpu-base and a
# copy of ../shared/tools/cufft_dst_poisson.py named by CUFFT_SCRIPT):
#
#   CUFFT_SCRIPT=.gpupack/cufft_dst_poisson.py bash scripts/gpu-table.sh [--quick] [--reps R] [--bench-args ARGS] BUNDLE [BASE_BUNDLE]
#
# Prints each pscr-bench report, the cuFFT script's lines, and a table of
# medians (ms) with the ratio libpscr / cuFFT; with BASE_BUNDLE a column of
# its medians too, the two bundles run alternately case by case. Raw JSON
# lines go to $OUT (or /tmp) as gpu-table.jsonl. --quick: three 2D cases and
# one 3D case (for a first look on a freshly started machine, whose program
# builds take minutes). --bench-args "ARGS": more pscr-bench arguments for every
# case (e.g. "--radix 4" or "--set register_cap=72").
set -euo pipefail
reps=10 quick=0 extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1; shift ;;
    --bench-args) read -r -a extra <<< "$2"; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "gpu-table.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: gpu-table.sh [--quick] [--reps R] [--bench-args ARGS] BUNDLE [BASE_BUNDLE]" >&2; exit 2; }
bundle=$1 base=${2:-}
out=${OUT:-/tmp}
jsonl=$out/gpu-table.jsonl
: > "$jsonl"
rm -f "$out"/gpu-table-head.json "$out"/gpu-table-base.json "$out"/gpu-table-cufft.json
# The cuFFT script lives in ../shared, which does not travel to the GPU machine:
# carry a copy and name it in CUFFT_SCRIPT there.
cufft=${CUFFT_SCRIPT:-$(dirname "$0")/../../shared/tools/cufft_dst_poisson.py}
[ -f "$cufft" ] || { echo "gpu-table.sh: no cuFFT script at $cufft (set CUFFT_SCRIPT)" >&2; exit 2; }

# case: problem dim precision sizes
if [ $quick = 1 ]; then
  cases=("poisson 2 double 2047,4095" "poisson 2 float 4095" "poisson 3 double 255")
else
  cases=("poisson 2 double 1023,2047,4095,8191" "poisson 2 float 2047,4095,8191" "poisson 3 double 63,127,255"
         "helmholtz 2 double 2047,4095" "helmholtz 3 double 63,255")
fi
for c in "${cases[@]}"; do
  read -r problem dim precision sizes <<< "$c"
  for tag in head base; do
    b=$bundle
    if [ $tag = base ]; then [ -n "$base" ] || continue; b=$base; fi
    echo "== $tag: $problem ${dim}D $precision n=$sizes"
    "$b/run" pscr-bench --problem "$problem" --dim "$dim" --precision "$precision" --sizes "$sizes" \
      --reps "$reps" --json "$out/gpu-table-$tag.json" "${extra[@]}"
  done
  if [ "$problem" = poisson ]; then
    python3 "$cufft" --dim "$dim" --precision "$precision" --sizes "$sizes" --reps "$reps" --json "$out/gpu-table-cufft.json"
  fi
done
cat "$out"/gpu-table-*.json >> "$jsonl"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(tag):
    p = os.path.join(out, f"gpu-table-{tag}.json")
    return [json.loads(l) for l in open(p)] if os.path.exists(p) else []
head, base, fft = load("head"), load("base"), load("cufft")
key = lambda r: (r["problem"], r["dim"], r["n"], r["type"])
b = {key(r): r["solve_median_s"] * 1e3 for r in base}
f = {(r["dim"], r["n"], "float64" if r["precision"] == "double" else "float32"): r["median_ms"] for r in fft}
print("\ncase                         libpscr ms" + ("   base ms" if b else "") + "   cuFFT ms   libpscr/cuFFT")
for r in head:
    ms = r["solve_median_s"] * 1e3
    name = f'{r["problem"]} {r["dim"]}D {r["n"]}^{r["dim"]} {r["type"]}'
    line = f"{name:28s} {ms:10.3f}"
    if b: line += f"  {b[key(r)]:8.3f}" if key(r) in b else "         -"
    a = f.get((r["dim"], r["n"], r["type"])) if r["problem"] == "poisson" else None
    line += f"   {a:8.3f}   {ms / a:8.2f}" if a else "          -          -"
    print(line)
PY
