"""The tally of the command-line checks (pscr_solve_check, pscr_hdr_check,
cli_check): check() records one result, finish() prints
'N passed, M failed' and exits with 1 if any failed."""
import sys

passed = 0
failures = 0


def check(name, ok, detail="", show_pass=False):
    global passed, failures
    if ok:
        passed += 1
        if show_pass:
            print(f"ok   {name}")
    else:
        failures += 1
        print(f"FAIL {name}: {detail}")


def finish():
    print(f"{passed} passed, {failures} failed")
    sys.exit(1 if failures else 0)
