#!/usr/bin/env python3
"""The cost of the Python layer: wall time of plan.solve(f, out=u) in Python
against the C++ solve time the plan reports for the same call (median of
--reps), per backend and size.

    python3 examples/python/overhead.py --sizes 1023 --backends reference,opencl
"""

import argparse
import statistics
import time

import numpy as np

import pscr


def measure(n, backend, dtype, reps):
    A, M = pscr.laplacian_factor(n, 1.0 / (n + 1))
    plan = pscr.Plan([(A, M), (A, M)], c=0.0, backend=backend, dtype=dtype)
    f = np.random.default_rng(1).uniform(-1, 1, (n, n)).astype(dtype)
    u = np.empty_like(f)
    plan.solve(f, out=u)
    py, cpp = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        plan.solve(f, out=u)
        py.append(time.perf_counter() - t0)
        cpp.append(plan.last_stats["seconds"])
    return statistics.median(py), statistics.median(cpp), [p - c for p, c in zip(py, cpp)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1023", help="comma-separated n (n × n problems)")
    ap.add_argument("--backends", default="reference,opencl")
    ap.add_argument("--dtype", default="float64", choices=[d.name for d in pscr.DTYPES])
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    print(f"{'backend':<10}{'n':>6}{'python ms':>11}{'c++ ms':>9}{'overhead ms':>13}{'overhead %':>12}")
    for backend in args.backends.split(","):
        for n in map(int, args.sizes.split(",")):
            py, cpp, extra = measure(n, backend, args.dtype, args.reps)
            over = statistics.median(extra)
            print(f"{backend:<10}{n:>6}{py * 1e3:>11.3f}{cpp * 1e3:>9.3f}{over * 1e3:>13.4f}{100 * over / cpp:>11.2f}%")


if __name__ == "__main__":
    main()
