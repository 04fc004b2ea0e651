#!/usr/bin/env bash
# pscr-tune end to end on the default OpenCL device (PoCL in CI): a tiny run
# writes a valid tuning file, a plan then loads it and runs with exactly the
# tuned parameters (the tuner writes only values the plan runs, whatever
# the search chose); a broken file is refused naming the file and the key;
# bad command lines exit with status 2.
set -uo pipefail
BIN=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

"$BIN/pscr-tune" --n 31 --evals 6 --population 4 --reps 2 --budget 60 --seed 7 --out "$tmp/t.json" >"$tmp/tune.out" 2>"$tmp/tune.err"
check "pscr-tune exits 0" "[ $? -eq 0 ]"
cat "$tmp/tune.out"
check "report compares with the defaults" "grep -q 'solve median: defaults' '$tmp/tune.out'"
check "progress bar drawn" "grep -q 'timed  best' '$tmp/tune.err'"
tuned=$(sed -n 's/^wrote .* -> //p' "$tmp/tune.out")
check "tuned parameters reported" "[ -n '$tuned' ]"
# a 2D class searches dense_top 0 and 1 only (it has one leading dimension: 2 would report 1)
check "no value the class does not use" "echo '$tuned' | grep -Eq '(^| )dense_top=[01]( |$)'"

"$BIN/pscr-bench" --sizes 31 --reps 2 --no-anchors --tuning "$tmp/t.json" --json "$tmp/b.jsonl" --max-residual 1e-10 >"$tmp/bench.out" 2>&1
check "a plan loads the file and solves" "[ $? -eq 0 ]"
check "the plan runs the tuned parameters" "grep -q '\"parameters\": \"$tuned\"' '$tmp/b.jsonl'"
check "the plan names the file as their source" "grep -q 'parameters_source\": \"$tmp/t.json' '$tmp/b.jsonl'"

# a second run merges into the file instead of replacing it
"$BIN/pscr-tune" --n 31 --evals 4 --population 4 --reps 1 --budget 60 --range 0:40 --out "$tmp/t.json" >/dev/null 2>&1
check "second entry merged" "[ \$(grep -c '\"class\"' '$tmp/t.json') -eq 2 ]"

sed 's/"local_lines": [0-9]*/"local_lines": 3/' "$tmp/t.json" >"$tmp/bad.json"
"$BIN/pscr-bench" --sizes 31 --reps 1 --no-anchors --tuning "$tmp/bad.json" >"$tmp/bad.out" 2>&1
rc=$?
check "out-of-range value refused" "[ $rc -ne 0 ] && grep -q 'bad.json' '$tmp/bad.out' && grep -q 'local_lines' '$tmp/bad.out'"
echo '{"format": "libpscr-tuning", "version": 1, "entries": [' >"$tmp/broken.json"
"$BIN/pscr-bench" --sizes 31 --reps 1 --no-anchors --tuning "$tmp/broken.json" >"$tmp/broken.out" 2>&1
rc=$?
check "malformed JSON refused" "[ $rc -ne 0 ] && grep -q 'broken.json' '$tmp/broken.out'"

# held parameters stay at their value; the start can be the resolved entry
"$BIN/pscr-tune" --n 31 --evals 5 --population 4 --reps 1 --budget 60 --fix radix=4,line_rows=0 --start database \
  --out "$tmp/f.json" >"$tmp/fix.out" 2>/dev/null
check "--fix and --start database run" "[ $? -eq 0 ] && grep -q 'solve median: database' '$tmp/fix.out'"
check "held parameters stay held" "grep -q '^wrote .*line_rows=0 .*radix=4 ' '$tmp/fix.out'"
# PoCL takes no register caps (cl_nv_compiler_options): the search holds them at 0
check "register_cap held where the device ignores it" "grep -Eq '^wrote .* register_cap=0( |$)' '$tmp/fix.out'"

for args in "--dim 4" "--type int" "--evals 0" "--range 9:3" "--bogus" "--fix radix" "--fix nope=3" "--fix radix=1" \
            "--start somewhere" "--fix dense_top=2" "--fix line_rows=0,line_group=64"; do
  "$BIN/pscr-tune" $args --out "$tmp/x.json" >/dev/null 2>"$tmp/err"
  rc=$?
  check "bad command line '$args' exits 2 with a message" "[ $rc -eq 2 ] && [ -s '$tmp/err' ]"
done
exit $fail
