"""Decisions in the working precision (docs/accuracy.md, section 9): float
pure-Neumann problems recognised, digits that a plan would lose warned of."""

import warnings

import numpy as np
import pytest
import scipy.sparse.linalg as sla

import pscr
from conftest import random_factor


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_float_pure_neumann_graded(backend, dtype):
    factors = [pscr.poisson_neumann_factor(pscr.graded_mesh(17, 1.0, 1.07)),
               pscr.poisson_neumann_factor(pscr.graded_mesh(13, 2.0, 0.93))]
    f = np.random.default_rng(4).uniform(-1, 1, (17, 13)) + 0.3  # incompatible
    plan = pscr.Plan(factors, c=0, dtype=dtype, backend=backend)
    assert plan.info["pure_neumann"] and plan.info["warning"] == ""
    u = plan.solve(f.astype(dtype))
    # the same data in double: rounded factors, then exact zero row sums
    wide = []
    for A, M in factors:
        A = A.astype(np.float32).astype(np.float64)
        A[0] = -(np.r_[0, A[1, :-1]] + np.r_[A[1, :-1], 0])
        wide.append((A, M.astype(np.float32).astype(np.float64)))
    ref = pscr.Plan(wide, c=0).solve(f.astype(np.float32).astype(np.float64))
    assert np.abs(u - ref).max() <= 32 * np.finfo(np.float32).eps * np.abs(ref).max()
    assert np.abs(ref).max() < 10  # (unrecognised, the float solve returned 2e7)


def test_lost_digits_warn():
    # a random indefinite float problem whose solve keeps fewer than half the
    # digits: the plan says so (pscr.AccuracyWarning), refinement recovers them
    found = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        factors = [random_factor(int(rng.integers(3, 40)), rng, np.float32) for _ in range(2)]
        c = float(np.float32(-rng.uniform(0, 12)))  # the float plan's c, exactly
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                plan = pscr.Plan(factors, c=c, radix=2, dtype=np.float32)
        except pscr.Error:
            continue
        K = pscr.Problem(factors, c, dtype=np.float64).to_sparse().tocsc()
        f = rng.uniform(-1, 1, plan.shape).astype(np.float32)
        try:
            u = plan.solve(f)
        except pscr.NumericalBreakdown:
            continue
        ref = sla.spsolve(K, f.astype(np.float64).ravel()).reshape(f.shape)
        err = np.abs(u - ref).max() / np.abs(ref).max()
        warned = [w for w in caught if issubclass(w.category, pscr.AccuracyWarning)]
        assert bool(warned) == bool(plan.info["warning"])
        if err > np.sqrt(np.finfo(np.float32).eps):
            assert warned, f"seed {seed}: error {err} without a warning"
            assert "refine" in str(warned[0].message)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", pscr.AccuracyWarning)
                refined = pscr.Plan(factors, c=c, radix=2, dtype=np.float32, refine=3)
            u2 = refined.solve(f)
            err2 = np.abs(u2 - ref).max() / np.abs(ref).max()
            # recovered, or the solve still says it is not
            assert err2 <= 1e-5 or refined.last_stats["warning"], f"seed {seed}: refined error {err2}"
            found += 1
    assert found >= 2


@pytest.mark.parametrize("backend", ["reference", "opencl"])
def test_indefinite_line_growth_is_in_the_estimate(backend):
    # Helmholtz 61 x 63 at c = -424.44: eliminated without pivoting, whole
    # (reference) or by chunks of 16 rows (OpenCL), its lines' multipliers
    # grow; the estimate includes that growth and holds against scipy
    n1, n2 = 61, 63
    factors = [pscr.laplacian_factor(n1, 1.0 / (n1 + 1)), pscr.laplacian_factor(n2, 1.0 / (n2 + 1))]
    kw = dict(parameters={"line_rows": 16}) if backend == "opencl" else {}
    plan = pscr.Plan(factors, c=-424.44, backend=backend, **kw)
    assert plan.info["elimination_growth"] > 1000
    f = np.random.default_rng(0).uniform(-1, 1, (n1, n2))
    K = pscr.Problem(factors, -424.44, dtype=np.float64).to_sparse().tocsc()
    ref = sla.spsolve(K, f.ravel()).reshape(f.shape)
    err = np.abs(plan.solve(f) - ref).max() / np.abs(ref).max()
    assert err <= plan.info["predicted_error"]
    # dominant lines measure nothing
    assert pscr.Plan(factors, c=0.5, backend=backend, **kw).info["elimination_growth"] == 1
