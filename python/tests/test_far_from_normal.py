"""Complex symmetric pencils far from normal (linear elements on a geometric
mesh with a complex diagonal): the eigenvalue condition grows past 1e10, and a
solve in the eigenbasis loses its square. Every answer must keep half the
digits of its precision or carry a warning, and where no digit would be right
the plan is refused; checked against scipy's sparse direct solve."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import pscr


def graded_complex_factor(n, ratio):
    """(A, M) as (2, n) arrays: linear elements on n + 1 cells growing
    geometrically to `ratio`, A = K + 0.3i diag(K), M the consistent mass."""
    h = (ratio ** (1.0 / n)) ** np.arange(n + 1)
    h /= h.sum()
    A = np.zeros((2, n), complex)
    M = np.zeros((2, n))
    A[0] = (1 / h[:-1] + 1 / h[1:]) * (1 + 0.3j)
    A[1, :-1] = -1 / h[1:-1]
    M[0] = (h[:-1] + h[1:]) / 3
    M[1, :-1] = h[1:-1] / 6
    return A, M


def operator(factors, c):
    tri = lambda F: sp.diags([F[1, :-1], F[0], F[1, :-1]], [-1, 0, 1], format="csr")
    (A1, M1), (A2, M2) = [(tri(A), tri(M)) for A, M in factors]
    return (sp.kron(A1, M2) + sp.kron(M1, A2) + c * sp.kron(M1, M2)).tocsc()


def problem(shape, ratio, dtype):
    factors = [graded_complex_factor(n, ratio) for n in shape]
    c = 0.3 + 0.2j
    return pscr.Problem(factors, c, dtype=dtype), operator(factors, c)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("ratio", [3.0, 30.0])
def test_accurate_or_warned(dtype, ratio):
    prob, K = problem((40, 50), ratio, dtype)
    rng = np.random.default_rng(5)
    f = rng.standard_normal((40, 50)) + 1j * rng.standard_normal((40, 50))
    exact = sla.spsolve(K, f.ravel()).reshape(f.shape)
    backends = [dict(backend="reference")]
    if dtype == np.complex128:
        backends.append(dict(backend="opencl", parameters={"dense_top": 1}))
    for kw in backends:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a warning is what info["warning"] is checked for
            plan = pscr.Plan(prob, **kw)
        u = plan.solve(f.astype(dtype))
        err = np.linalg.norm(u - exact) / np.linalg.norm(exact)
        info = plan.info
        half_digits = np.sqrt(np.finfo(dtype).eps)
        assert info["predicted_error"] > 0
        assert err <= 10 * max(info["predicted_error"], np.finfo(dtype).eps), (kw, err, info["predicted_error"])
        if err > half_digits:
            assert info["warning"], (kw, err)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_refused_where_no_digit_would_be_right(dtype):
    prob, _ = problem((120, 150), 3.0, dtype)
    with pytest.raises((pscr.NumericalBreakdown, pscr.SingularPencil)) as e:
        pscr.Plan(prob, backend="reference")
    assert "far-from-normal" in str(e.value) or "defective" in str(e.value)
