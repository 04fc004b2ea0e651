#!/usr/bin/env python3
"""Independent check of pscr-solve: random separable systems (real and complex
symmetric, non-uniform, awkward sizes) against scipy's sparse direct solve with
the reference and the OpenCL backend, and bad input (malformed files, wrong shapes, mixed dtypes) -> exit status 2."""
import os
import subprocess
import sys
import tempfile

import checks

import re
import numpy as np
import scipy.sparse.linalg as spla

from pscr_solve_check_lib import assemble, factor, neumann_factor, periodic_factor, save_factors, write_system

EXE = sys.argv[1]
rng = np.random.default_rng(2026)


def run(args):
    return subprocess.run([EXE] + args, capture_output=True, text=True)


def check(name, ok, detail=""):
    checks.check(name, ok, detail, show_pass=True)


with tempfile.TemporaryDirectory() as tmp:
    P = lambda s: os.path.join(tmp, s)
    cases = [
        ("2d f64", [17, 5], np.float64, 0.3, 1, 1e-11),
        ("2d f64 q2", [31, 12], np.float64, -0.2, 1, 1e-11),
        ("2d f64 1x7", [1, 7], np.float64, 0.0, 1, 1e-11),
        ("3d f64", [13, 6, 9], np.float64, 0.1, 1, 1e-11),
        ("2d c128", [29, 8], np.complex128, -0.3 + 0.1j, 1, 1e-9),
        ("3d c128", [9, 17, 4], np.complex128, -0.5, 1, 1e-9),
        ("2d f32", [21, 10], np.float32, 0.2, 1, 1e-4),
        ("2d c64", [16, 11], np.complex64, 0.2 - 0.1j, 1, 1e-4),
        ("2d f64 batch", [18, 7], np.float64, 0.4, 3, 1e-11),
        ("3d c128 batch", [5, 4, 3], np.complex128, 0.4j, 2, 1e-9),
    ]
    # Every radix q = 2 ... 16 on sizes that give several levels and partial groups.
    for q in range(2, 17):
        cases.append((f"2d f64 q{q}", [q * q + 3, 9], np.float64, 0.15, 1, 1e-11))
        cases.append((f"3d c128 q{q}", [q + 5, q + 2, 6], np.complex128, -0.2 + 0.1j, 1, 1e-9))
    for backend, (name, ns, dtype, c, batch, tol) in [(b, case) for b in ("reference", "opencl") for case in cases]:
        name = f"{backend} {name}"
        cplx = np.issubdtype(dtype, np.complexfloating)
        fs, f, args = write_system(P, rng, ns, dtype, batch)
        # complex c as a pair, or (reference backend) in Python's str(complex) form "(-0.2+0.1j)"
        cstr = (str(complex(c)) if backend == "reference" else f"({np.real(c)},{np.imag(c)})") if cplx else str(c)
        radix = name.split(" q")[1] if " q" in name else "4"
        r = run(args + ["--rhs", P("f.npy"), "--out", P("u.npy"), "--c", cstr, "--radix", radix, "--backend", backend])
        if r.returncode != 0:
            check(name, False, r.stderr)
            continue
        u = np.load(P("u.npy"))
        A = assemble([(a.astype(np.complex128 if cplx else np.float64), m.astype(np.complex128 if cplx else np.float64)) for a, m in fs], c)
        fb = f.reshape(batch, -1).astype(np.complex128 if cplx else np.float64)
        ub = u.reshape(batch, -1)
        err = max(np.abs(ub[b] - spla.spsolve(A, fb[b])).max() / np.abs(spla.spsolve(A, fb[b])).max() for b in range(batch))
        check(f"{name} dtype/shape", u.dtype == f.dtype and u.shape == f.shape)
        check(f"{name} error {err:.1e}", err <= tol, r.stdout)
        check(f"{name} prints times, methods and residual",
              "init time" in r.stdout and "methods: " in r.stdout and "relative residual" in r.stdout)
        # where the time went: every part named with a number; OpenCL copies through a named staging
        spent = re.search(r"time spent: reading ([0-9.]+) s, planning ([0-9.]+) s, copies in ([0-9.]+) s, "
                          r"solve ([0-9.]+) s, copies out ([0-9.]+) s, writing ([0-9.]+) s, residual check ([0-9.]+) s",
                          r.stdout)
        check(f"{name} prints where its time went", spent is not None, r.stdout)
        if backend == "opencl":
            check(f"{name} names its staging", re.search(r"^staging: (page-locked|pageable)", r.stdout, re.M) is not None,
                  r.stdout)

    # Periodic dimensions (--periodic): cyclic factor files, the corner in row
    # 1's last entry, against a sparse direct solve of the cyclic operator.
    for backend in ("reference", "opencl"):
        for ns, periodic, dtype, c, tol in [([12, 9], (True, True), np.float64, 0.3, 1e-12),
                                            ([7, 9, 6], (True, False, True), np.complex128, -0.2 + 0.1j, 1e-11),
                                            ([8, 6, 5], (False, True, False), np.float32, 0.4, 1e-5)]:
            name = f"{backend} periodic {''.join('P' if p else '-' for p in periodic)} {np.dtype(dtype).name}"
            cplx = np.issubdtype(dtype, np.complexfloating)
            fs = [periodic_factor(rng, n, dtype, cplx) if p else factor(rng, n, dtype, cplx) for n, p in zip(ns, periodic)]
            args = save_factors(P, fs)
            f = rng.uniform(-1, 1, ns).astype(dtype)
            np.save(P("f.npy"), f)
            dims = ",".join(str(d + 1) for d, p in enumerate(periodic) if p)
            cstr = f"({np.real(c)},{np.imag(c)})" if cplx else str(c)
            r = run(args + ["--rhs", P("f.npy"), "--out", P("u.npy"), "--c", cstr, "--backend", backend,
                            "--periodic", dims])
            if r.returncode != 0:
                check(name, False, r.stderr)
                continue
            wide = np.complex128 if cplx else np.float64
            ref = spla.spsolve(assemble([(a.astype(wide), m.astype(wide)) for a, m in fs], c, periodic),
                               f.astype(wide).ravel())
            err = np.abs(np.load(P("u.npy")).ravel() - ref).max() / np.abs(ref).max()
            check(f"{name} error {err:.1e}", err <= tol, r.stdout)
    for bad, needle in [("3", "not a dimension 1 ... 2"), ("1,1", "named twice"), ("x", "not a dimension"),
                        ("", "names no dimension"), ("1,", "names no dimension")]:
        fs = [periodic_factor(rng, 5, np.float64, False), factor(rng, 4, np.float64, False)]
        args = save_factors(P, fs)
        np.save(P("f.npy"), np.ones((5, 4)))
        r = run(args + ["--rhs", P("f.npy"), "--out", P("u.npy"), "--periodic", bad])
        check(f"bad input: --periodic {bad}", r.returncode == 2 and needle in r.stderr, r.stderr)

    # Random indefinite systems (c amid the eigenvalue sums; docs/accuracy.md
    # section 8): solved with an error within the growth the plan reports,
    # eps * cond * R^2 (R its shift amplification, printed), or refused with
    # the reason named; never a silent loss beyond that.
    eps_of = {np.float64: 2.2e-16, np.complex128: 2.2e-16, np.float32: 1.2e-7, np.complex64: 1.2e-7}
    for k in range(14):
        D = 3 if k % 3 == 0 else 2
        ns = [int(rng.integers(2, 9 if D == 3 else 31)) for _ in range(D)]
        dtype = [np.float64, np.float32, np.complex128, np.complex64][k % 4]
        cplx = np.issubdtype(dtype, np.complexfloating)
        fs, f, args = write_system(P, rng, ns, dtype, 1)
        c = float(rng.uniform(-2.5, -1.0)) * D
        radix = ["0", "2", "3", "5", "6", "8", "16"][k % 7]
        backend = "opencl" if k < 4 else "reference"
        args += ["--rhs", P("f.npy"), "--out", P("u.npy"), "--radix", radix, "--backend", backend,
                 "--c", f"({c},0)" if cplx else str(c)]
        name = f"indefinite {D}d {np.dtype(dtype).name} {'x'.join(map(str, ns))} c={c:.2f} radix {radix} {backend}"
        r = run(args)
        if r.returncode != 0:
            check(f"{name}: refused with the reason named", r.returncode == 2 and "near-singular" in r.stderr, r.stderr)
            continue
        wide = np.complex128 if cplx else np.float64
        A = assemble([(a.astype(wide), m.astype(wide)) for a, m in fs], c)
        ref = spla.spsolve(A, f.reshape(-1).astype(wide))
        u = np.load(P("u.npy")).reshape(-1).astype(wide)
        err = np.linalg.norm(u - ref) / np.linalg.norm(ref)
        amp = float(r.stdout.split("shift amplification: ")[1].split()[0])
        cond = np.linalg.cond(A.toarray())
        bound = 1e2 * eps_of[dtype] * cond * amp * amp * max(1.0, np.log2(A.shape[0]))
        check(f"{name}: error {err:.1e} within eps*cond*R^2 (cond {cond:.0f}, R {amp:.3g})", err <= bound, r.stdout)

    # Pure Neumann (pixel-grid Laplacians, c = 0): the compatible part
    # f_c = f - mean(f) is solved and the residual reported against it (it was
    # reported against f, 0.86 for a correct solve), the incompatible part
    # ||f - f_c|| / ||f|| apart.
    for backend in ("reference", "opencl"):
        ns, batch = [17, 13], 2
        fs = [neumann_factor(n) for n in ns]
        args = save_factors(P, fs, "N")
        f = rng.uniform(-1, 1, [batch] + ns) + 0.5  # clearly incompatible
        np.save(P("nf.npy"), f)
        name = f"{backend} pure Neumann 17x13 batch 2"
        r = run(args + ["--rhs", P("nf.npy"), "--out", P("nu.npy"), "--backend", backend])
        if r.returncode != 0:
            check(name, False, r.stderr)
            continue
        A = assemble(fs, 0.0)
        u = np.load(P("nu.npy")).reshape(batch, -1)
        fb = f.reshape(batch, -1)
        fc = fb - fb.mean(axis=1, keepdims=True)
        solved = max(np.linalg.norm(A @ u[b] - fc[b]) / np.linalg.norm(fc[b]) for b in range(batch))
        incompatible = max(np.linalg.norm(fb[b] - fc[b]) / np.linalg.norm(fb[b]) for b in range(batch))
        printed = float(r.stdout.split("relative residual: ")[1].split()[0])
        printed_incompatible = float(r.stdout.split("removed incompatible part ")[1].split()[0])
        check(f"{name}: solves the compatible part ({solved:.1e})", solved <= 1e-12, r.stdout)
        check(f"{name}: residual {printed:.1e} reported against the compatible part",
              printed <= 1e-12 and "against the compatible part" in r.stdout, r.stdout)
        check(f"{name}: incompatible part {printed_incompatible:.3e} reported apart (numpy: {incompatible:.3e})",
              abs(printed_incompatible - incompatible) <= 1e-3 * incompatible, r.stdout)

    # A uniform Dirichlet problem (n + 1 a power of two) whose OpenCL plan
    # takes sine transforms has no reduction levels: --radix is then said to
    # be unused (it was printed as "radix 0" without a word), and the answer
    # is scipy's.
    n = 15
    lap = np.zeros((2, n))
    lap[0], lap[1, : n - 1] = 2.0 * (n + 1) ** 2, -1.0 * (n + 1) ** 2
    mass = np.zeros((2, n))
    mass[0] = 1.0
    uf = [(lap, mass), (lap, mass)]
    args = save_factors(P, uf, "U")
    f = rng.uniform(-1, 1, [n, n])
    np.save(P("uf.npy"), f)
    for backend in ("reference", "opencl"):
        r = run(args + ["--rhs", P("uf.npy"), "--out", P("uu.npy"), "--radix", "8", "--backend", backend])
        name = f"uniform 15x15 --radix 8 {backend}"
        if r.returncode != 0:
            check(name, False, r.stderr)
            continue
        ref = spla.spsolve(assemble(uf, 0.0), f.reshape(-1))
        err = np.linalg.norm(np.load(P("uu.npy")).reshape(-1) - ref) / np.linalg.norm(ref)
        check(f"{name}: error {err:.1e}", err <= 1e-13, r.stdout)
        transformed = "sine transform" in r.stdout
        check(f"{name}: the radix's use said ({'sine transforms' if transformed else 'reduction'})",
              ("no reduction levels" in r.stdout and "--radix 8 is not used" in r.stdout) if transformed
              else ("radix 8" in r.stdout or "--radix 8 ran as radix" in r.stdout), r.stdout)
        if backend == "opencl":
            check(f"{name}: the OpenCL plan takes sine transforms", transformed, r.stdout)
        # a good solve writes nothing on stderr (PoCL's compiler printed its
        # warnings there)
        check(f"{name}: nothing on stderr", r.stderr == "", r.stderr)

    # An empty batch is valid and solves nothing: an empty output file of the
    # input's shape and dtype (it was refused with "solve: null array").
    a, m = factor(rng, 6, np.float64, False)
    np.save(P("A.npy"), a)
    np.save(P("M.npy"), m)
    for backend in ("reference", "opencl"):
        for shape in ((0, 6, 6), (0, 6, 6, 6)):
            np.save(P("empty.npy"), np.zeros(shape, dtype=np.float32))
            np.save(P("A32.npy"), a.astype(np.float32))
            np.save(P("M32.npy"), m.astype(np.float32))
            args = [x for d in range(1, len(shape)) for x in (f"--A{d}", P("A32.npy"), f"--M{d}", P("M32.npy"))]
            r = run(args + ["--rhs", P("empty.npy"), "--out", P("empty_u.npy"), "--backend", backend])
            name = f"{backend} empty batch {shape}"
            if r.returncode != 0:
                check(name, False, r.stderr)
                continue
            u = np.load(P("empty_u.npy"))
            check(f"{name}: empty output of the input's shape and dtype", u.shape == shape and u.dtype == np.float32,
                  f"{u.shape} {u.dtype}")
            check(f"{name}: reported", "batch 0" in r.stdout and "nothing solved" in r.stdout, r.stdout)

    # Bad input: each must exit with status 2 and a message naming the problem.
    a, m = factor(rng, 6, np.float64, False)
    np.save(P("A.npy"), a)
    np.save(P("M.npy"), m)
    base = ["--A1", P("A.npy"), "--M1", P("M.npy"), "--A2", P("A.npy"), "--M2", P("M.npy"), "--out", P("u.npy")]
    np.save(P("good.npy"), np.ones((6, 6)))
    with open(P("garbage.npy"), "wb") as fh:
        fh.write(b"this is not numpy")
    raw = open(P("good.npy"), "rb").read()
    with open(P("trunc.npy"), "wb") as fh:
        fh.write(raw[:-40])
    np.save(P("shape.npy"), np.ones((6, 5)))
    np.save(P("f32.npy"), np.ones((6, 6), dtype=np.float32))
    np.save(P("nan.npy"), np.full((6, 6), np.nan))
    np.save(P("int.npy"), np.ones((6, 6), dtype=np.int32))
    np.save(P("bad_factor.npy"), np.ones((3, 6)))
    # header dicts: written with another header text, the data unchanged
    hlen = int.from_bytes(raw[8:10], "little")

    def with_header(name, text):
        text = text + " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
        with open(P(name), "wb") as fh:
            fh.write(raw[:8] + len(text).to_bytes(2, "little") + text.encode("latin1") + raw[10 + hlen:])

    with_header("dup.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (6, 6), 'shape': (3, 12), }")
    with_header("trail.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (6, 6), } junk")
    with_header("unterm.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (6, 6)")
    with_header("extra.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (6, 6), 'x': 1}")
    with_header("dquote.npy", '{"descr": "<f8", "fortran_order": False, "shape": (6, 6)}')
    corner = np.load(P("A.npy"))
    corner[1, -1] = -0.5
    np.save(P("A_corner.npy"), corner)
    bad = [
        ("malformed file", base + ["--rhs", P("garbage.npy")], "bad magic"),
        ("truncated file", base + ["--rhs", P("trunc.npy")], "truncated"),
        ("missing file", base + ["--rhs", P("nope.npy")], "cannot open"),
        ("wrong rhs shape", base + ["--rhs", P("shape.npy")], "does not match"),
        ("mixed dtypes", base + ["--rhs", P("f32.npy")], "dtype"),
        ("unsupported dtype", base + ["--rhs", P("int.npy")], "unsupported dtype"),
        ("NaN in rhs", base + ["--rhs", P("nan.npy")], "non-finite"),
        ("complex c for real data", base + ["--rhs", P("good.npy"), "--c", "1+2j"], "complex"),
        ("bad factor shape", ["--A1", P("bad_factor.npy")] + base[2:] + ["--rhs", P("good.npy")], "(2, n)"),
        ("missing option", base[2:] + ["--rhs", P("good.npy")], "missing --A1"),
        ("a header key twice", base + ["--rhs", P("dup.npy")], "'shape' twice"),
        ("text after the header dict", base + ["--rhs", P("trail.npy")], "text after the dict"),
        ("a header dict not closed", base + ["--rhs", P("unterm.npy")], "not closed"),
        ("an unknown header entry", base + ["--rhs", P("extra.npy")], "unknown entry 'x'"),
        ("bad radix", base + ["--rhs", P("good.npy"), "--radix", "1"], "radix"),
        ("radix not a number", base + ["--rhs", P("good.npy"), "--radix", "x"], "0 (automatic) or a radix q from 2"),
        ("negative radix", base + ["--rhs", P("good.npy"), "--radix", "-5"], "0 (automatic) or a radix q from 2"),
        # a corner entry without --periodic would be dropped
        ("corner without --periodic", ["--A1", P("A_corner.npy")] + base[2:] + ["--rhs", P("good.npy")],
         "not periodic (--periodic 1"),
        # the OpenCL kernels' bound (PoCL aborted the process loading those of q = 999)
        ("radix past the OpenCL bound", base + ["--rhs", P("good.npy"), "--backend", "opencl", "--radix", "999"],
         "q <= 64"),
        ("no such device", base + ["--rhs", P("good.npy"), "--backend", "opencl", "--device", "99"], "device"),
        ("bad backend", base + ["--rhs", P("good.npy"), "--backend", "cuda"], "backend"),
        ("an option twice", base + ["--rhs", P("good.npy"), "--c", "1", "--c=2"], "--c given twice"),
        ("c out of range", base + ["--rhs", P("good.npy"), "--c", "1e-400"], "out of the range of double"),
        ("an option without its value", base + ["--rhs", P("good.npy"), "--c"], "--c needs a value"),
    ]
    for name, args, needle in bad:
        r = run(args)
        check(f"bad input: {name}", r.returncode == 2 and needle in r.stderr, f"rc={r.returncode} stderr={r.stderr!r}")
    # a header in double quotes (a Python dict literal as valid as numpy's own)
    r = run(base + ["--rhs", P("dquote.npy")])
    check("header in double quotes read", r.returncode == 0 and np.array_equal(np.load(P("u.npy")).shape, (6, 6)),
          r.stderr)

    # A float operator 1e-3 from singular (Laplacians, c just above minus their smallest eigenvalues):
    # the report warns that fewer than half the digits are kept and names --refine, which recovers them.
    n1, n2 = 21, 10
    lap = lambda n: np.array([np.full(n, 2.0), np.r_[np.full(n - 1, -1.0), 0.0]], dtype=np.float32)
    eye = lambda n: np.array([np.ones(n), np.zeros(n)], dtype=np.float32)
    wfs = [(lap(n1), eye(n1)), (lap(n2), eye(n2))]
    lam = lambda n: 4 * np.sin(np.pi / (2 * (n + 1))) ** 2
    cw = float(np.float32(-lam(n1) - lam(n2) + 1e-3))
    fw = rng.uniform(-1, 1, (n1, n2)).astype(np.float32)
    np.save(P("fw.npy"), fw)
    K = assemble([(a.astype(np.float64), m.astype(np.float64)) for a, m in wfs], cw)
    ref = spla.spsolve(K.tocsc(), fw.astype(np.float64).ravel())
    wargs = save_factors(P, wfs, "w") + ["--rhs", P("fw.npy"), "--out", P("uw.npy"), "--c", repr(cw)]
    r = run(wargs)
    check("near-singular float: warning printed", r.returncode == 0 and "warning:" in r.stdout and "--refine" in r.stdout,
          r.stdout + r.stderr)
    # --c=VALUE, for a value that begins with a minus: the same solve
    r = run(wargs[:-2] + [f"--c={cw!r}"])
    check("--c=-VALUE parsed as --c -VALUE", r.returncode == 0 and "warning:" in r.stdout and cw < 0, r.stdout + r.stderr)
    r = run(wargs + ["--refine", "3"])
    err = np.abs(np.load(P("uw.npy")).ravel() - ref).max() / np.abs(ref).max()
    check("near-singular float: --refine 3 recovers the digits", r.returncode == 0 and "warning:" not in r.stdout
          and err <= 1e-5, f"error {err:.2e}\n{r.stdout}{r.stderr}")
    r = run(wargs + ["--refine", "11"])
    check("bad input: --refine 11", r.returncode == 2 and "--refine" in r.stderr, r.stderr)
    r = run(wargs + ["--repeat", "2"])
    check("--repeat 2: two more solves, their median", r.returncode == 0 and "repeated solves: 2, median" in r.stdout,
          r.stdout + r.stderr)
    for bad in ("-1", "1001", "x"):
        r = run(wargs + ["--repeat", bad])
        check(f"bad input: --repeat {bad}", r.returncode == 2 and "--repeat" in r.stderr, r.stderr)

checks.finish()
