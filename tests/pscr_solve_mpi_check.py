#!/usr/bin/env python3
"""Independent check of pscr-solve-mpi on 1-4 MPI ranks (loopback): random
separable systems (real and complex symmetric, 2D and 3D, uneven slabs,
batches, every scalar type; reference and OpenCL ranks) against pscr-solve's
output (to 1e-12 in double) and scipy's sparse direct solve; bad input -> exit
status 2 on every rank with the message of pscr-solve."""
import os
import subprocess
import sys
import tempfile

import checks

import numpy as np
import scipy.sparse.linalg as spla

from pscr_solve_check_lib import assemble, factor, neumann_factor, periodic_factor, save_factors, write_system

MPIRUN, SOLVE, SOLVE_MPI = sys.argv[1:4]
rng = np.random.default_rng(2027)
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def mpi(np_, args):
    return subprocess.run([MPIRUN, "-np", str(np_), "--oversubscribe", SOLVE_MPI] + args, capture_output=True,
                          text=True, env=ENV)


with tempfile.TemporaryDirectory() as tmp:
    P = lambda s: os.path.join(tmp, s)
    cases = [
        ("2d f64 37x9", [37, 9], np.float64, 0.3, 1, 1e-12),
        ("2d f64 63x5 radix 3", [63, 5], np.float64, 0.0, 1, 1e-12),
        ("3d f64 19x6x5", [19, 6, 5], np.float64, 0.1, 1, 1e-12),
        ("2d c128 29x8", [29, 8], np.complex128, -0.3 + 0.1j, 1, 1e-12),
        ("2d f32 21x10", [21, 10], np.float32, 0.2, 1, 2e-5),
        ("2d f64 18x7 batch 3", [18, 7], np.float64, 0.4, 3, 1e-12),
        ("2d f64 3x7 (ranks without rows)", [3, 7], np.float64, 0.0, 1, 1e-12),
    ]
    for name, ns, dtype, c, batch, tol in cases:
        cplx = np.issubdtype(dtype, np.complexfloating)
        fs, f, args = write_system(P, rng, ns, dtype, batch)
        args += ["--rhs", P("f.npy"), "--c", f"({np.real(c)},{np.imag(c)})" if cplx else str(c)]
        if "radix 3" in name:
            args += ["--radix", "3"]
        r = subprocess.run([SOLVE] + args + ["--out", P("serial.npy")], capture_output=True, text=True)
        if r.returncode != 0:
            checks.check(f"{name}: pscr-solve", False, r.stderr)
            continue
        serial = np.load(P("serial.npy"))
        wide = np.complex128 if cplx else np.float64
        A = assemble([(a.astype(wide), m.astype(wide)) for a, m in fs], c)
        fb = f.reshape(batch, -1).astype(wide)
        direct = np.stack([spla.spsolve(A, fb[b]) for b in range(batch)])
        # reference ranks on 1-4 ranks; OpenCL ranks (CI: PoCL) on 2 and 3
        runs = [(ranks, []) for ranks in (1, 2, 3, 4)] + [(ranks, ["--backend", "opencl"]) for ranks in (2, 3)]
        for ranks, backend in runs:
            r = mpi(ranks, args + backend + ["--out", P("u.npy")])
            label = f"{name} on {ranks} {'OpenCL ' if backend else ''}ranks"
            if r.returncode != 0:
                checks.check(label, False, r.stdout + r.stderr)
                continue
            u = np.load(P("u.npy"))
            ok_shape = u.dtype == f.dtype and u.shape == f.shape
            err = np.abs(u - serial).max() / np.abs(serial).max()
            derr = np.abs(u.reshape(batch, -1) - direct).max() / np.abs(direct).max()
            checks.check(f"{label}: against pscr-solve {err:.1e}, against spsolve {derr:.1e}",
                         ok_shape and err <= tol and derr <= (1e-4 if dtype in (np.float32, np.complex64) else 1e-9),
                         r.stdout, show_pass=True)
            checks.check(f"{label}: report", "relative residual" in r.stdout and f"ranks: {ranks}" in r.stdout
                         and r.stdout.count("relative residual") == 1
                         and "init time by part (slowest rank):" in r.stdout and ", planning " in r.stdout
                         and "methods: reduction, " in r.stdout, r.stdout)

    # The CPUs of a rank: Open MPI binds one rank to one core unless told
    # otherwise; pscr-solve-mpi gives it the host's CPUs (its even share),
    # and keeps a binding that mpirun was given.
    fs, f, args = write_system(P, rng, [33, 8], np.float64, 1)
    args += ["--rhs", P("f.npy"), "--out", P("u.npy")]
    free = dict(ENV)
    free.pop("OMP_NUM_THREADS")
    cpus = len(os.sched_getaffinity(0))
    for extra, expected in (([], cpus), (["--bind-to", "core"], 1)):
        r = subprocess.run([MPIRUN, "-np", "1"] + extra + [SOLVE_MPI] + args, capture_output=True, text=True, env=free)
        checks.check(f"one rank {' '.join(extra) or 'unbound'}: {expected} threads",
                     r.returncode == 0 and f"(threads per rank: {expected})" in r.stdout, r.stdout + r.stderr,
                     show_pass=True)

    # Pure Neumann: the residual reported against the compatible part
    # f - mean(f) (what was solved), the incompatible part apart, as pscr-solve.
    ns = [19, 7]
    fs = [neumann_factor(n) for n in ns]
    args = save_factors(P, fs, "N")
    f = rng.uniform(-1, 1, ns) + 0.5
    np.save(P("nf.npy"), f)
    A = assemble(fs, 0.0)
    for ranks, backend in ((1, []), (3, []), (2, ["--backend", "opencl"])):
        label = f"pure Neumann 19x7 on {ranks} {'OpenCL ' if backend else ''}ranks"
        r = mpi(ranks, args + backend + ["--rhs", P("nf.npy"), "--out", P("nu.npy")])
        if r.returncode != 0:
            checks.check(label, False, r.stdout + r.stderr)
            continue
        u = np.load(P("nu.npy")).reshape(-1)
        fc = f.reshape(-1) - f.mean()
        solved = np.linalg.norm(A @ u - fc) / np.linalg.norm(fc)
        printed = float(r.stdout.split("relative residual: ")[1].split()[0])
        incompatible = float(r.stdout.split("removed incompatible part ")[1].split()[0])
        expect = np.linalg.norm(f.reshape(-1) - fc) / np.linalg.norm(f)
        checks.check(f"{label}: residual {printed:.1e} against the compatible part ({solved:.1e}), incompatible part "
                     f"{incompatible:.3e} ({expect:.3e})", solved <= 1e-12 and printed <= 1e-12 and
                     "against the compatible part" in r.stdout and abs(incompatible - expect) <= 1e-3 * expect,
                     r.stdout, show_pass=True)

    # An empty batch solves nothing: an empty output file, as pscr-solve writes.
    a, m = factor(rng, 6, np.float64, False)
    np.save(P("A.npy"), a)
    np.save(P("M.npy"), m)
    np.save(P("empty.npy"), np.zeros((0, 6, 6)))
    for ranks in (1, 3):
        r = mpi(ranks, ["--A1", P("A.npy"), "--M1", P("M.npy"), "--A2", P("A.npy"), "--M2", P("M.npy"),
                        "--rhs", P("empty.npy"), "--out", P("empty_u.npy")])
        ok = r.returncode == 0 and np.load(P("empty_u.npy")).shape == (0, 6, 6) and "nothing solved" in r.stdout
        checks.check(f"empty batch on {ranks} ranks: an empty output", ok, r.stdout + r.stderr, show_pass=True)

    # Periodic dimensions over ranks: dimension 1 is one dense level whose
    # modes the ranks share (reference and OpenCL ranks), each summing its
    # part of the solution.
    fs = [periodic_factor(rng, 11, np.float64, False), factor(rng, 7, np.float64, False),
          periodic_factor(rng, 6, np.float64, False)]
    args = save_factors(P, fs) + ["--rhs", P("f.npy"), "--c", "0.25", "--periodic", "1,3"]
    f = rng.uniform(-1, 1, (11, 7, 6))
    np.save(P("f.npy"), f)
    direct = spla.spsolve(assemble(fs, 0.25, (True, False, True)), f.ravel())
    for backend, counts in (("reference", (1, 2, 3)), ("opencl", (2, 3))):
        for ranks in counts:
            r = mpi(ranks, args + ["--out", P("u.npy"), "--backend", backend])
            ok = r.returncode == 0
            err = np.abs(np.load(P("u.npy")).ravel() - direct).max() / np.abs(direct).max() if ok else np.inf
            checks.check(f"periodic 1,3 on {ranks} {backend} ranks: error {err:.1e}", ok and err <= 1e-12,
                         r.stdout + r.stderr, show_pass=True)

    # A transformed split: every dimension but the first a sine transform
    # (uniform, Dirichlet ends), the lines of dimension 1 split over the OpenCL
    # ranks (partitioned), dimension 1 any tridiagonal pencil.
    def toeplitz(n, dtype):
        a = np.zeros((2, n), dtype=dtype)
        m = np.zeros((2, n), dtype=dtype)
        a[0], a[1, : n - 1], m[0], m[1, : n - 1] = 2.0, -1.0, 0.5, 0.1
        return a, m
    for ns, dtype, ranks_list in (([21, 63], np.float64, (2, 3, 4)), ([13, 15, 7], np.float64, (2, 3)),
                                  ([22, 63], np.float32, (2, 3))):
        fs = [factor(rng, ns[0], dtype, False)] + [toeplitz(n, dtype) for n in ns[1:]]
        args = save_factors(P, fs) + ["--rhs", P("f.npy"), "--c", "0.2"]
        f = rng.uniform(-1, 1, ns).astype(dtype)
        np.save(P("f.npy"), f)
        direct = spla.spsolve(assemble([(a.astype(np.float64), m.astype(np.float64)) for a, m in fs], 0.2),
                              f.ravel().astype(np.float64))
        tol = 1e-4 if dtype == np.float32 else 1e-12
        # the ranks exchange through the host's shared memory (the default), and as MPI messages
        for ranks, exchange in [(p, "memory") for p in ranks_list] + [(ranks_list[-1], "mpi")]:
            r = mpi(ranks, args + ["--out", P("u.npy"), "--backend", "opencl", "--host-exchange", exchange])
            ok = r.returncode == 0
            err = np.abs(np.load(P("u.npy")).ravel() - direct).max() / np.abs(direct).max() if ok else np.inf
            name = "x".join(map(str, ns)) + f" {np.dtype(dtype).name}"
            way = "shared memory" if exchange == "memory" else "MPI messages"
            checks.check(f"transformed split {name} on {ranks} OpenCL ranks, {way}: error {err:.1e}",
                         ok and err <= tol and "methods: tridiagonal (partitioned over ranks), sine transform" in r.stdout
                         and f"between ranks of a host: {way}" in r.stdout, r.stdout + r.stderr, show_pass=True)

    # --repeat: more solves, the slowest rank's median with its levels and exchanges.
    fs, f, args = write_system(P, rng, [40, 9], np.float64, 1)
    r = mpi(2, args + ["--rhs", P("f.npy"), "--out", P("u.npy"), "--backend", "opencl", "--repeat", "2"])
    checks.check("--repeat 2 on 2 OpenCL ranks", r.returncode == 0 and "repeated solves: 2, median of the slowest "
                 "rank" in r.stdout and "levels on the devices" in r.stdout and "exchanges per repeated solve: " in r.stdout,
                 r.stdout + r.stderr, show_pass=True)

    # Bad input: exit status 2 and pscr-solve's message, whatever the rank count.
    a, m = factor(rng, 6, np.float64, False)
    np.save(P("A.npy"), a)
    np.save(P("M.npy"), m)
    base = ["--A1", P("A.npy"), "--M1", P("M.npy"), "--A2", P("A.npy"), "--M2", P("M.npy"), "--out", P("u.npy")]
    with open(P("garbage.npy"), "wb") as fh:
        fh.write(b"this is not numpy")
    np.save(P("shape.npy"), np.ones((6, 5)))
    np.save(P("nan.npy"), np.full((6, 6), np.nan))
    np.save(P("good.npy"), np.ones((6, 6)))
    bad = [
        ("malformed file", base + ["--rhs", P("garbage.npy")], "bad magic"),
        ("missing factor file", ["--A1", P("nope.npy")] + base[2:] + ["--rhs", P("good.npy")], "cannot open"),
        ("wrong rhs shape", base + ["--rhs", P("shape.npy")], "does not match"),
        ("NaN in rhs", base + ["--rhs", P("nan.npy")], "non-finite"),
        ("unknown option", base + ["--rhs", P("good.npy"), "--nope", "1"], "unknown option"),
        ("missing device", base + ["--rhs", P("good.npy"), "--backend", "opencl", "--device", "no-such-device"],
         "no OpenCL device matches"),
        ("bad --repeat", base + ["--rhs", P("good.npy"), "--repeat", "-1"], "--repeat needs an integer"),
        ("bad --host-exchange", base + ["--rhs", P("good.npy"), "--host-exchange", "pipes"],
         "--host-exchange needs memory or mpi"),
    ]
    for name, args, needle in bad:
        for ranks in (1, 3):
            r = mpi(ranks, args)
            checks.check(f"bad input on {ranks} ranks: {name}", r.returncode == 2 and needle in r.stderr
                         and r.stderr.count(needle) == 1, f"rc={r.returncode} stderr={r.stderr!r}", show_pass=True)
    # the usage after a bad option of its own lists that option
    r = mpi(1, base + ["--rhs", P("good.npy"), "--host-exchange", "pipes"])
    checks.check("usage after a bad --host-exchange lists it", "--host-exchange memory|mpi" in r.stderr, r.stderr,
                 show_pass=True)
    r = mpi(2, ["--help"])
    checks.check("--help", r.returncode == 0 and r.stdout.count("usage") == 1, r.stdout + r.stderr, show_pass=True)

checks.finish()
