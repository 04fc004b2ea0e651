"""Periodic dimensions: Factors with corners, doubly and triply periodic
Poisson against an FFT solver of the same precision, random cyclic pencils
against a sparse direct solve, the channel example, bad input."""

import pathlib
import runpy

import numpy as np
import pytest
import scipy.fft
import scipy.sparse.linalg as spla

import pscr

CHANNEL = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "channel_pressure.py"


def _fft_poisson(f, h):
    """-Δu = f on a periodic grid (finite differences, spacings h per axis) by
    FFTs in f's precision; the zero mode (constants) left out."""
    fh = scipy.fft.fftn(f)
    lam = np.zeros(f.shape, dtype=f.dtype)
    for axis, (n, hh) in enumerate(zip(f.shape, h)):
        k = np.arange(n)
        shape = [1] * f.ndim
        shape[axis] = n
        lam = lam + ((2 - 2 * np.cos(2 * np.pi * k / n)) / hh**2).astype(f.dtype).reshape(shape)
    lam.flat[0] = 1
    uh = fh / lam
    uh.flat[0] = 0
    return scipy.fft.ifftn(uh).real.astype(f.dtype)


@pytest.mark.parametrize("shape", [(64, 48), (24, 20, 16)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_periodic_poisson_against_fft(shape, dtype, backend):
    h = [1.0 / n for n in shape]
    factors = [pscr.laplacian_factor(n, hh, "periodic", "periodic") for n, hh in zip(shape, h)]
    problem = pscr.Problem(factors, 0.0, dtype=dtype)
    rng = np.random.default_rng(len(shape))
    exact = rng.standard_normal(shape)
    exact -= exact.mean()  # M = I: the zero weighted mean is the plain mean
    f = pscr.Problem(factors, 0.0).apply(exact)  # float64
    plan = pscr.Plan(problem, backend=backend)
    assert plan.info["pure_neumann"]
    assert plan.info["dimension_methods"][-1] == "cyclic lines (eigenbasis)"
    u = plan.solve(f.astype(dtype))
    assert plan.last_stats["incompatible_part"] < 1e-6
    err = np.abs(u - exact).max() / np.abs(exact).max()
    err_fft = np.abs(_fft_poisson(f.astype(dtype), h) - exact).max() / np.abs(exact).max()
    assert err <= 3 * err_fft, (err, err_fft)


def _random_cyclic(n, rng, complex_=False):
    a = np.zeros((2, n))
    m = np.zeros((2, n))
    a[0] = 2.5 + rng.random(n)
    a[1] = -0.9 * (0.5 + rng.random(n))
    m[0] = 1.2 + 0.5 * rng.random(n)
    m[1] = 0.1 + 0.1 * rng.random(n)
    if complex_:
        a = a + 0j
        a[0, 0] -= 0.5j
    return pscr.Factor(a, m, periodic=True)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32])
def test_random_cyclic_against_sparse_direct(dtype, backend):
    rng = np.random.default_rng(3)
    cplx = np.dtype(dtype).kind == "c"
    factors = [_random_cyclic(7, rng, cplx), pscr.Factor(*pscr.poisson_factor(np.linspace(0, 1, 11))),
               _random_cyclic(6, rng)]
    problem = pscr.Problem(factors, 0.4, dtype=dtype)
    assert problem.periodic == (True, False, True)
    f = rng.standard_normal(problem.shape).astype(dtype)
    u = pscr.Plan(problem, backend=backend).solve(f)
    wide = np.complex128 if cplx else np.float64
    ref = spla.spsolve(pscr.Problem(factors, 0.4, dtype=wide).to_sparse().tocsc(), f.astype(wide).ravel())
    err = np.abs(u.ravel() - ref).max() / np.abs(ref).max()
    assert err <= 300 * np.finfo(dtype).eps, err


def test_periodic_keyword_and_factor_roundtrip():
    a = np.array([[2.0, 2, 2, 2], [-1, -1, -1, -1]])
    m = np.array([[1.0, 1, 1, 1], [0, 0, 0, 0]])
    p = pscr.Problem([(a, m), (a, m)], 0.5, periodic=[True, False])
    assert p.periodic == (True, False)
    f0 = p.factors[0]
    assert isinstance(f0, pscr.Factor) and f0.periodic and f0[0][1, 3] == -1
    # the plain pair's row 1 last entry is ignored; the periodic one's is its corner
    dense = p.to_sparse().toarray()
    assert dense[0, 3 * 4] == -1.0  # row (0, 0) couples (3, 0) through the corner of dimension 1
    assert dense[0, 3] == 0.0  # dimension 2 is not periodic
    # the keyword overrides the factors' own flags, both ways
    pf8 = pscr.laplacian_factor(8, 1.0, "periodic", "periodic")
    assert pscr.Problem([pf8, (a, m)], 0.5, periodic=[False, False]).periodic == (False, False)
    assert pscr.Problem([pf8, (a, m)], 0.5).periodic == (True, False)
    lf = pscr.laplacian_factor(5, 1.0, "periodic", "periodic")
    assert lf.periodic and lf[0][1, 4] == -1.0
    x = np.linspace(0.0, 1.0, 9)
    pf = pscr.poisson_periodic_factor(x)
    assert pf.periodic and pf[0].shape == (2, 8)
    assert np.allclose(pf[0][0] + pf[0][1] + np.roll(pf[0][1], 1), 0)


def test_periodic_bad_input():
    a = np.array([[2.0, 2], [-1, -1]])
    m = np.array([[1.0, 1], [0, 0]])
    b = pscr.laplacian_factor(4)
    with pytest.raises(pscr.InvalidArgument, match="periodic dimension of size n = 2"):
        pscr.Problem([(a, m), b], 1.0, periodic=[True, False])
    with pytest.raises(pscr.InvalidArgument, match="periodic: 1 entries for 2 dimensions"):
        pscr.Problem([b, b], 1.0, periodic=[True])
    with pytest.raises(pscr.InvalidArgument, match="periodic\\[0\\]"):
        pscr.Problem([b, b], 1.0, periodic=["yes", False])
    with pytest.raises(pscr.InvalidArgument, match="periodic needs True or False"):
        pscr.Factor(a, m, periodic="no")
    with pytest.raises(pscr.InvalidArgument, match="periodic needs True or False"):
        pscr.Factor(a, m, periodic=2)
    with pytest.raises(pscr.InvalidArgument, match="one side periodic"):
        pscr.laplacian_factor(6, 1.0, "periodic", "neumann")
    with pytest.raises(pscr.InvalidArgument, match="needs at least 4 mesh points"):
        pscr.poisson_periodic_factor([0.0, 1.0, 2.0])
    # a singular periodic operator other than the constants' null space
    p8 = pscr.laplacian_factor(8, 1.0, "periodic", "periodic")
    with pytest.raises(pscr.SingularPencil):
        pscr.Plan([p8, p8], c=-(2 - 2 * np.cos(2 * np.pi / 8)))


@pytest.mark.parametrize("shape", [(24, 17, 12), (32, 33, 16)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_channel_example(shape, dtype, backend):
    example = runpy.run_path(str(CHANNEL))
    # uniform periodic x and z: Fourier transforms on OpenCL where n / 2 is a power of two
    fourier = backend == "opencl" and all(n & (n - 1) == 0 for n in (shape[0], shape[2]))
    want = "Fourier transform" if fourier else "dense products"
    dirichlet = example["run"](*shape, backend=backend, dtype=dtype, walls="dirichlet", periodic=False)
    # Dirichlet walls (the channel solvers' problem): within 3x the all-Dirichlet error on the same meshes
    r = example["run"](*shape, backend=backend, dtype=dtype, walls="dirichlet")
    assert r["methods"] == [want, want, "tridiagonal"] and not r["pure_neumann"]
    assert r["error"] <= 3 * dirichlet["error"], (r["error"], dirichlet["error"])
    # Neumann walls (the pressure equation, singular): the incompatible part
    # reported, and the error no worse than that of a sparse direct solve of
    # the same precision with one unknown pinned (an independent answer of
    # the same singular problem)
    r = example["run"](*shape, backend=backend, dtype=dtype, walls="neumann")
    assert r["pure_neumann"] and r["incompatible_part"] > 1e-3
    problem, (x, z, y) = example["channel_problem"](*shape, walls="neumann")
    X, Z, Y = np.meshgrid(x, z, y, indexing="ij")
    exact = np.cos(X) * np.sin(2 * Z) * np.cos(np.pi * Y / 2.0) + 0.3 * np.sin(X + Z) * Y**2
    A = problem.to_sparse().tolil()
    N = A.shape[0]
    A[N - 1, :] = 0
    A[N - 1, N - 1] = 1
    f = problem.apply(exact).ravel()
    f[N - 1] = 0
    u = spla.spsolve(A.tocsc().astype(dtype), f.astype(dtype)).astype(np.float64).reshape(exact.shape)
    w = example["weights"](problem)
    u -= (w * u).sum() / w.sum()
    ref = exact - (w * exact).sum() / w.sum()
    sparse_error = np.abs(u - ref).max() / np.abs(ref).max()
    assert r["error"] <= sparse_error, (r["error"], sparse_error)


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
@pytest.mark.parametrize("periodic_last", [False, True])
def test_periodic_batches_and_device_arrays(dtype, periodic_last):
    """Batches on the host and pyopencl arrays on the device, Fourier
    (periodic first, uniform, n / 2 a power of two) and eigenbasis lines
    (periodic last), against a sparse direct solve of each right-hand side."""
    cl = pytest.importorskip("pyopencl")
    cla = pytest.importorskip("pyopencl.array")
    queue = cl.CommandQueue(cl.create_some_context(interactive=False))
    per = pscr.laplacian_factor(16, 0.1, "periodic", "periodic")
    other = pscr.Factor(*pscr.poisson_factor(np.linspace(0.0, 1.0, 13) ** 1.3))
    factors = [other, per] if periodic_last else [per, other]
    problem = pscr.Problem(factors, 0.7, dtype=dtype)
    plan = pscr.Plan(problem, queue=queue)
    want = "cyclic lines (eigenbasis)" if periodic_last else "Fourier transform"
    assert want in plan.info["dimension_methods"]
    rng = np.random.default_rng(5)
    F = rng.standard_normal((3,) + problem.shape).astype(dtype)
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    A = pscr.Problem(factors, 0.7, dtype=wide).to_sparse().tocsc()
    tol = 300 * np.finfo(dtype).eps
    host = plan.solve(F)
    device = plan.solve(cla.to_device(queue, F)).get()
    for k in range(3):
        ref = spla.spsolve(A, F[k].astype(wide).ravel()).reshape(problem.shape)
        for u in (host[k], device[k]):
            assert np.abs(u - ref).max() / np.abs(ref).max() <= tol
