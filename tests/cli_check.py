#!/usr/bin/env python3
"""Every program answers --help with its usage (exit 0), and a bad number is
a usage error (exit 2) whose message names the flag.
Arguments: the programs' directory, then the programs to check."""
import os
import subprocess
import sys

from checks import check, finish

BIN = sys.argv[1]
PROGRAMS = sys.argv[2:]
# A flag that takes a number, and bad values for it, per program.
BAD = {
    "pscr-bench": [("--reps", "2x"), ("--reps", "abc"), ("--sizes", "6x3"), ("--dim", "2.5"), ("--omega", "nan"),
                   ("--set", "tensor_cores=2"), ("--set", "dense_top=-1"), ("--set", "bogus=1"), ("--set", "work_group=3")],
    "pscr-tune": [("--n", "abc"), ("--n", "9.5"), ("--n", "99999999999"), ("--evals", "1e3x"), ("--dim", "2.5"),
                  ("--population", "4.5"), ("--range", "5:x")],
    "pscr-demo": [("--bench", "1e3x"), ("--threads", "-1")],
    "pscr-accuracy": [("--sizes", "63,x"), ("--refine", "11")],
    "pscr-hdr": [("--beta", "0.9x")],
    "pscr-hdr-bench": [("--sizes", "1024,x"), ("--reps", "0.5")],
    "pscr-halftone": [("--iterations", "10x"), ("--tau", "abc"), ("--dots", "1.5")],
    "pscr-denoise": [("--iterations", "10x"), ("--r0", "abc"), ("--add-noise", "0.1x")],
    "pscr-denoise-bench": [("--sizes", "64,x"), ("--noise", "abc")],
}

for prog in PROGRAMS:
    exe = os.path.join(BIN, prog)
    r = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    check(f"{prog} --help", r.returncode == 0 and "usage" in r.stdout.lower(), f"rc={r.returncode} {r.stdout[:200]!r}")
    for flag, value in BAD.get(prog, []):
        extra = ["scene:window:8x8", "/tmp/never-written.png"] if prog == "pscr-hdr" else []
        if prog in ("pscr-halftone", "pscr-denoise"):
            extra = ["/tmp/never-read.png", "/tmp/never-written.png"]
        r = subprocess.run([exe, flag, value] + extra, capture_output=True, text=True, timeout=120)
        check(f"{prog} {flag} {value}", r.returncode == 2 and flag.split()[0] in r.stderr,
              f"rc={r.returncode} stderr={r.stderr.strip()[:300]!r}")
finish()
