#!/usr/bin/env python3
"""libpscr as the preconditioner of conjugate gradients for a problem it cannot
solve directly: variable-coefficient diffusion -div(a(x, y) grad u) = f on the
unit square, Dirichlet, five-point finite differences on n × n pixels. The
coefficient a is not separable, so PSCR solves the constant-coefficient
operator (the Laplacian times the geometric mean of a) as M⁻¹ in SciPy's CG.

    python3 examples/python/cg_preconditioner.py --n 255 --contrast 10

prints CG iteration counts and times with no preconditioner, with the PSCR
plan, and with a pyamg smoothed-aggregation V-cycle when pyamg is installed.
"""

import argparse
import inspect
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import pscr


def coefficient(n, contrast):
    """a(x, y) on the cell faces' midpoints: smooth, between 1 and `contrast`."""
    def a(x, y):
        s = 0.5 + 0.5 * np.sin(2 * np.pi * x) * np.cos(3 * np.pi * y) * np.cos(np.pi * (x + y))
        return np.exp(np.log(contrast) * s)
    return a


def diffusion_matrix(n, contrast):
    """The five-point operator with a evaluated at the face midpoints (symmetric positive definite)."""
    h = 1.0 / (n + 1)
    a = coefficient(n, contrast)
    x = np.arange(1, n + 1) * h
    X, Y = np.meshgrid(x, x, indexing="ij")
    west, east = a(X - h / 2, Y), a(X + h / 2, Y)
    south, north = a(X, Y - h / 2), a(X, Y + h / 2)
    idx = np.arange(n * n).reshape(n, n)
    diag = (west + east + south + north).ravel()
    rows, cols, vals = [idx.ravel()], [idx.ravel()], [diag]
    # couplings inside the square (the Dirichlet ghosts drop out)
    rows += [idx[1:, :].ravel(), idx[:-1, :].ravel(), idx[:, 1:].ravel(), idx[:, :-1].ravel()]
    cols += [idx[:-1, :].ravel(), idx[1:, :].ravel(), idx[:, :-1].ravel(), idx[:, 1:].ravel()]
    vals += [-west[1:, :].ravel(), -east[:-1, :].ravel(), -south[:, 1:].ravel(), -north[:, :-1].ravel()]
    K = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n * n, n * n))
    return K / h**2, np.exp(np.mean(np.log(diag / 4)))


def pscr_preconditioner(n, scale, backend):
    """A plan for scale · (-Δ_h): factors (scale·A_d, I) in both directions."""
    A, M = pscr.laplacian_factor(n, 1.0 / (n + 1))
    return pscr.Plan([(scale * A, M), (scale * A, M)], c=0.0, backend=backend)


def cg(K, b, M, tol, maxiter):
    """SciPy's CG (its tolerance keyword changed name in SciPy 1.12); returns u, iterations."""
    iterations = [0]

    def count(_):
        iterations[0] += 1

    key = "rtol" if "rtol" in inspect.signature(sla.cg).parameters else "tol"
    u, info = sla.cg(K, b, M=M, maxiter=maxiter, callback=count, atol=0.0, **{key: tol})
    if info < 0:
        raise RuntimeError(f"CG failed (info {info})")
    return u, iterations[0], info == 0


def run(n=127, contrast=10.0, tol=1e-8, backend="reference", use_pyamg=True):
    K, scale = diffusion_matrix(n, contrast)
    rng = np.random.default_rng(3)
    b = rng.uniform(-1, 1, n * n)
    results = []

    def record(name, M, setup_seconds):
        t0 = time.perf_counter()
        u, its, converged = cg(K, b, M, tol, maxiter=20 * n)
        results.append({"method": name, "iterations": its, "converged": converged,
                        "setup_s": setup_seconds, "solve_s": time.perf_counter() - t0,
                        "residual": float(np.linalg.norm(b - K @ u) / np.linalg.norm(b))})

    record("none", None, 0.0)
    t0 = time.perf_counter()
    plan = pscr_preconditioner(n, scale, backend)
    record(f"pscr ({backend})", plan.as_linear_operator(), time.perf_counter() - t0)
    if use_pyamg:
        try:
            import pyamg
        except ImportError:
            pyamg = None
        if pyamg is not None:
            t0 = time.perf_counter()
            ml = pyamg.smoothed_aggregation_solver(K.tocsr())
            record("pyamg SA V-cycle", ml.aspreconditioner(cycle="V"), time.perf_counter() - t0)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=255, help="pixels per side (default 255)")
    ap.add_argument("--contrast", type=float, default=10.0, help="max a / min a (default 10)")
    ap.add_argument("--tol", type=float, default=1e-8, help="CG relative residual (default 1e-8)")
    ap.add_argument("--backend", choices=["reference", "opencl"], default="reference")
    args = ap.parse_args()
    if args.n < 3 or args.contrast < 1 or not 0 < args.tol < 1:
        ap.error("needs n >= 3, contrast >= 1, 0 < tol < 1")
    print(f"-div(a grad u) = f, {args.n}x{args.n}, a in [1, {args.contrast:g}], CG to {args.tol:g}")
    print(f"{'preconditioner':<24}{'iterations':>11}{'set-up s':>10}{'CG s':>9}{'residual':>11}")
    for r in run(args.n, args.contrast, args.tol, args.backend):
        flag = "" if r["converged"] else "  (not converged)"
        print(f"{r['method']:<24}{r['iterations']:>11}{r['setup_s']:>10.3f}{r['solve_s']:>9.3f}"
              f"{r['residual']:>11.2e}{flag}")


if __name__ == "__main__":
    main()
