"""Shared helpers of the pscr pytest suite: random separable problems and an
independent answer (SciPy's sparse direct solve of the assembled operator)."""

import numpy as np
import pytest
import scipy.sparse.linalg as sla

import pscr

BACKENDS = ["reference", "opencl"]  # opencl runs on PoCL in CI


def random_factor(n, rng, dtype, diag_mass=False):
    """A diagonally dominant positive A (complex symmetric with absorbing-type
    imaginary parts for complex dtypes) and a positive definite M, as (2, n) arrays."""
    u = lambda k: rng.uniform(0.5, 1.5, k)  # noqa: E731
    A = np.zeros((2, n), dtype=np.complex128)
    M = np.zeros((2, n), dtype=np.complex128)
    A[0] = 2.0 + u(n)
    M[0] = 1.0 + 0.5 * u(n)
    A[1, : n - 1] = -0.9 * u(n - 1)
    if not diag_mass:
        M[1, : n - 1] = 0.2 * u(n - 1)
    if np.dtype(dtype).kind == "c":
        A[0, 0] -= 0.7j
        A[0, -1] -= 0.5j
        A[0] -= 0.05j * u(n)
        if not diag_mass:
            M[0, 0] += 0.3j
            M[0, -1] += 0.2j
    else:
        A, M = A.real.copy(), M.real.copy()
    return A.astype(dtype), M.astype(dtype)


def random_problem(shape, dtype, seed=1, c=0.25):
    rng = np.random.default_rng(seed)
    factors = [random_factor(n, rng, dtype) for n in shape]
    return factors, c


def random_rhs(shape, dtype, seed=2):
    rng = np.random.default_rng(seed)
    f = rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        f = f + 1j * rng.uniform(-1, 1, shape)
    return f.astype(dtype)


def sparse_solve(problem, f):
    """The exact answer in double (complex128/float64) by SciPy's sparse LU."""
    wide = np.complex128 if problem.dtype.kind == "c" else np.float64
    K = pscr.Problem(problem.factors, problem.c, dtype=wide).to_sparse().tocsc()
    return sla.spsolve(K, np.asarray(f, dtype=wide).reshape(-1)).reshape(np.shape(f))


def rel_err(u, ref):
    return float(np.abs(u - ref).max() / np.abs(ref).max())


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param
