#!/usr/bin/env python3
"""NumPy arrays through an OpenCL plan against the bus (docs/host-arrays.md):
medians of plan.solve(f) one right-hand side at a time (a new output array
each call, and into out=), of a batch of K per right-hand side, and, with
PyOpenCL, of the device-resident solve of the same plan, for 2D Poisson.
Compare with pscr-bench --host-batch K (the same solves from C++).

    python3 examples/python/host_arrays.py --sizes 4095,8191 --batch 8
"""

import argparse
import statistics
import time

import numpy as np

import pscr


def median_ms(call, reps):
    call()  # warm-up: the staging and the batch's second vector are allocated once
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        call()
        ts.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(ts)


def measure(n, dtype, batch, reps):
    A, M = pscr.laplacian_factor(n, 1.0 / (n + 1))
    queue = None
    try:
        import pyopencl as cl
        import pyopencl.array as cla
        queue = cl.CommandQueue(cl.create_some_context(interactive=False))
    except Exception:  # no PyOpenCL: no device-resident column
        cla = None
    plan = pscr.Plan([(A, M), (A, M)], c=0.0, backend="opencl", dtype=dtype, queue=queue)
    f = np.random.default_rng(1).uniform(-1, 1, (n, n)).astype(dtype)
    F = np.stack([f] * batch)
    u, U = np.empty_like(f), np.empty_like(F)
    row = {
        "one (new output)": median_ms(lambda: plan.solve(f), reps),
        "one (out=)": median_ms(lambda: plan.solve(f, out=u), reps),
        f"batch of {batch} (new output)": median_ms(lambda: plan.solve(F), reps) / batch,
        f"batch of {batch} (out=)": median_ms(lambda: plan.solve(F, out=U), reps) / batch,
    }
    stats = plan.last_stats
    if cla is not None:
        d = cla.to_device(queue, f)  # each solve on a device copy of it (a solution solved again would grow)
        row["device-resident"] = median_ms(lambda: plan.solve(d).finish(), reps)
    return row, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1023", help="comma-separated n (n × n problems)")
    ap.add_argument("--dtype", default="float64", choices=[d.name for d in pscr.DTYPES])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    for n in map(int, args.sizes.split(",")):
        row, stats = measure(n, args.dtype, args.batch, args.reps)
        print(f"{n}² {args.dtype}, ms per right-hand side (medians of {args.reps}); staging: {stats['staging']}")
        for name, ms in row.items():
            print(f"  {name:<28}{ms:10.3f}")


if __name__ == "__main__":
    main()
