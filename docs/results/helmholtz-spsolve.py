"""Forward error of uniform-mesh Helmholtz solves (the closed-form eigen path)
against scipy spsolve of the assembled operator; output in helmholtz-spsolve.txt.
Run with the build-python venv: build-python/venv/bin/python docs/results/helmholtz-spsolve.py"""
import numpy as np, scipy.sparse as sp, scipy.sparse.linalg as spl, pscr
def tri(p):  # (2, n): row 0 diagonal, row 1 off-diagonal (padded)
    d, o = np.asarray(p[0]), np.asarray(p[1])[:len(p[0]) - 1]
    return sp.diags([o, d, o], [-1, 0, 1], format='csc')
for n in (255, 511, 1023):
    x = np.linspace(0, 1, n); om = 0.3 * n
    A, M = pscr.helmholtz_factor(x, om)
    K1, M1 = tri(A), tri(M)
    Op = (sp.kron(K1, M1) + sp.kron(M1, K1) - om * om * sp.kron(M1, M1)).tocsc()
    rng = np.random.default_rng(n)
    f = rng.uniform(-1, 1, (n, n)) + 1j * rng.uniform(-1, 1, (n, n))
    ref = spl.spsolve(Op, f.ravel()).reshape(n, n)
    for prec in ("double", "single"):
        for be in ("reference", "opencl"):
            plan = pscr.Plan([(A, M), (A, M)], c=-om * om, precision=prec, backend=be)
            u = plan.solve(f.astype(np.complex128 if prec == "double" else np.complex64))
            err = np.abs(u - ref).max() / np.abs(ref).max()
            print(f"n={n} {prec:6s} {be:9s} forward error vs spsolve {err:.2e}  eigen {plan.info.get('eigen_methods')}", flush=True)
