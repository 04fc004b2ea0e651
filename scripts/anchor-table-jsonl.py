#!/usr/bin/env python3
"""The output of scripts/gpu-anchor-table.sh as the JSON lines the benchmark
tables read: docs/results/speed.jsonl (pscr-bench beside VkFFT DST-I and the
cuBLAS FDM script) and docs/results/accuracy.jsonl (pscr-accuracy).

    python3 scripts/anchor-table-jsonl.py LOG REVISION DATE [DEVICE] [OUTDIR]

e.g. python3 scripts/anchor-table-jsonl.py docs/results/h100-anchors.txt 0c05907 2026-11-26;
then python3 examples/plot_bench.py --table docs/results/speed.jsonl docs/results/accuracy.jsonl
prints the tables of README.md and docs/benchmarks.md.
"""
import json
import os
import re
import sys

if len(sys.argv) < 4:
    sys.exit(__doc__)
LOG, REV, DATE = sys.argv[1:4]
DEV = sys.argv[4] if len(sys.argv) > 4 else "NVIDIA H100 80GB HBM3"
OUT = sys.argv[5] if len(sys.argv) > 5 else "docs/results"
lines = open(LOG).read().split("\n")
out, acc = [], []
mesh = None; last = None; vk = None
for ln in lines:
    if ln.startswith("== uniform"): mesh = "uniform"; continue
    if ln.startswith("== graded"): mesh = "graded"; continue
    if ln.startswith("== accuracy"): mesh = "accuracy"; continue
    if ln.startswith("== channel"): mesh = "periodic"; continue
    m = re.match(r"(poisson|channel)\s+(\d)D (\d+)\^\d\s+float(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", ln)
    if m:
        dim, n, bits = int(m[2]), int(m[3]), m[4]
        m = [None] + list(m.groups()[1:])  # the fields as before the problem name
        last = dict(solver="libpscr", problem="channel" if mesh == "periodic" else "poisson", mesh=mesh, dim=dim, n=n,
                    precision="double" if bits == "64" else "float", median_ms=float(m[6]),
                    min_ms=float(m[7]), max_ms=float(m[8]), rel_residual=float(m[9]),
                    device=DEV, backend="opencl", rev=REV, date=DATE)
        if mesh == "graded": last["cell_ratio"] = 1000
        if mesh == "periodic": last["cell_ratio"] = 30
        out.append(last); continue
    m = re.match(r"channel (?:2D )?\(cuFFT .*?\) (\d+)x(\d+)(?:x\d+)? (double|float) ratio (\S+): median (\S+) ms, forward error (\S+)", ln)
    if m:
        dim = 3 if "x/z" in ln else 2
        out.append(dict(solver="cupy-channel", problem="channel", mesh="periodic", cell_ratio=float(m[4]), dim=dim,
                        n=int(m[1]), precision=m[3], median_ms=float(m[5]), forward_error=float(m[6]), device=DEV,
                        rev=REV, date=DATE)); continue
    m = re.match(r"\s+methods: (.*?); (\d+) GB/s effective", ln)
    if m and last:
        # (a trailing note such as "dense products on FP64 tensor cores" is not a dimension's method)
        meth = [x.strip() for x in m[1].split(",") if " on " not in x]
        last["method"] = ", ".join(x for x in meth if not x.startswith("tridiagonal")).replace("sine transform, sine transform", "sine transforms").replace("Fourier transform, Fourier transform", "Fourier transforms")
        last["line_solver"] = [x for x in meth if x.startswith("tridiagonal")][0]
        last["effective_GBps"] = float(m[2]); continue
    m = re.match(r"VkFFT .* on (.*), (\d)D (double|float)", ln)
    if m: vk = (int(m[2]), m[3]); continue
    m = re.match(r"\s+n=(\d+)\s+median (\S+) ms\s+rel error (\S+)", ln)
    if m:
        out.append(dict(solver="vkfft-dst1", problem="poisson", mesh="uniform", dim=vk[0], n=int(m[1]), precision=vk[1],
                        median_ms=float(m[2]), forward_error=float(m[3]), device=DEV, rev=REV, date=DATE)); continue
    m = re.match(r"FDM \(cuBLAS\) Poisson (\d)D graded ratio 1000 n=(\d+) (double|float): median (\S+) ms, plan (\S+) s, forward error (\S+)", ln)
    if m:
        out.append(dict(solver="cublas-fdm", problem="poisson", mesh="graded", cell_ratio=1000, dim=int(m[1]), n=int(m[2]),
                        precision=m[3], median_ms=float(m[4]), plan_s=float(m[5]), forward_error=float(m[6]), device=DEV, rev=REV, date=DATE)); continue
    m = re.match(r"(uniform|graded)\s+(\d)D n=(\d+)\s+(\S+)\s+float (\S+)(?: \(FFT (\S+),\s+(\S+)x\))?\s+double (\S+)(?: \(FFT (\S+),\s+(\S+)x\))?", ln)
    if m:
        for prec, e, fe in (("float", m[5], m[6]), ("double", m[8], m[9])):
            r = dict(problem="poisson", mesh=m[1], dim=int(m[2]), n=int(m[3]), precision=prec, stages=m[4],
                     forward_error=float(e), backend="opencl", device=DEV, rev=REV, date=DATE,
                     command="pscr-accuracy --backend opencl --dim %s --sizes %s --problem %s" % (m[2], m[3], m[1]))
            if fe: r["fftw_dst1_forward_error"] = float(fe.rstrip(","))
            acc.append(r)
with open(os.path.join(OUT, "speed.jsonl"), "w") as f:
    for r in out: f.write(json.dumps(r) + "\n")
with open(os.path.join(OUT, "accuracy.jsonl"), "w") as f:
    for r in acc: f.write(json.dumps(r) + "\n")
print(f"{len(out)} speed and {len(acc)} accuracy lines in {OUT}")
