"""Solutions of every dtype, dimension, radix and backend against SciPy's sparse direct solve."""

import numpy as np
import pytest

import pscr
from conftest import random_problem, random_rhs, rel_err, sparse_solve

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
TOL = {np.float32: 2e-4, np.complex64: 2e-4, np.float64: 1e-11, np.complex128: 1e-11}
SHAPES = [(13, 22), (30, 7), (5, 9, 11)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("radix", [2, 4])
def test_against_sparse_direct(backend, dtype, shape, radix):
    factors, c = random_problem(shape, dtype)
    plan = pscr.Plan(factors, c=c, backend=backend, radix=radix)
    assert plan.dtype == np.dtype(dtype)
    f = random_rhs(shape, dtype)
    u = plan.solve(f)
    assert u.shape == shape and u.dtype == np.dtype(dtype)
    assert rel_err(u, sparse_solve(plan.problem, f)) < TOL[dtype]


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_batch_matches_single_solves(backend, dtype):
    shape = (17, 12)
    factors, c = random_problem(shape, dtype, seed=5)
    plan = pscr.Plan(factors, c=c, backend=backend)
    F = np.stack([random_rhs(shape, dtype, seed=s) for s in range(4)])
    U = plan.solve(F)
    assert U.shape == F.shape
    for k in range(4):
        assert rel_err(U[k], sparse_solve(plan.problem, F[k])) < TOL[dtype]
        np.testing.assert_allclose(U[k], plan.solve(F[k]), rtol=0, atol=10 * TOL[dtype] * np.abs(U[k]).max())


def test_3d_batch(backend):
    shape = (6, 5, 9)
    factors, c = random_problem(shape, np.float64, seed=9)
    plan = pscr.Plan(factors, c=c, backend=backend)
    F = np.stack([random_rhs(shape, np.float64, seed=s) for s in range(3)])
    U = plan.solve(F)
    for k in range(3):
        assert rel_err(U[k], sparse_solve(plan.problem, F[k])) < 1e-11


def test_empty_batch_solves_nothing(backend):
    # one rule across the interfaces: a batch of no right-hand sides is valid
    # and gives an empty result of its shape and the plan's dtype
    for shape in ((7, 5), (4, 3, 5)):
        factors, c = random_problem(shape, np.float64, seed=3)
        plan = pscr.Plan(factors, c=c, backend=backend)
        f = np.empty((0,) + shape)
        u = plan.solve(f)
        assert u.shape == (0,) + shape and u.dtype == plan.dtype
        out = np.empty_like(f)
        assert plan.solve(f, out=out) is out
        assert plan.last_stats["seconds"] == 0
        assert plan.problem.apply(f).shape == f.shape


def test_builders_poisson_and_helmholtz(backend):
    x1, x2 = pscr.graded_mesh(21, 1.0, 1.05), pscr.uniform_mesh(14, 2.0)
    p = pscr.poisson2d(x1, x2)
    assert p.shape == (19, 14) and p.dtype == np.float64
    f = random_rhs(p.shape, np.float64)
    u = pscr.Plan(p, backend=backend).solve(f)
    assert rel_err(u, sparse_solve(p, f)) < 1e-11
    # manufactured solution: f = A u*, solve, compare with u*
    ustar = random_rhs(p.shape, np.float64, seed=7)
    assert rel_err(pscr.Plan(p, backend=backend).solve(p.apply(ustar)), ustar) < 1e-10

    h = pscr.helmholtz2d(np.linspace(0, 1, 21), np.linspace(0, 1, 16), omega=8.0)
    assert h.dtype == np.complex128 and h.c == -64.0
    f = random_rhs(h.shape, np.complex128)
    assert rel_err(pscr.Plan(h, backend=backend).solve(f), sparse_solve(h, f)) < 1e-10

    p3 = pscr.poisson3d(pscr.uniform_mesh(5), pscr.uniform_mesh(6), pscr.uniform_mesh(7))
    f = random_rhs(p3.shape, np.float64)
    assert rel_err(pscr.Plan(p3, backend=backend).solve(f), sparse_solve(p3, f)) < 1e-11


def test_pure_neumann(backend):
    n1, n2 = 12, 9
    factors = [pscr.laplacian_factor(n, 1.0, "neumann", "neumann") for n in (n1, n2)]
    plan = pscr.Plan(factors, c=0.0, backend=backend)
    assert plan.info["pure_neumann"]
    f = random_rhs((n1, n2), np.float64)
    fc = f - f.mean()  # M = I: the compatible part
    u = plan.solve(f)
    assert abs(u.sum()) < 1e-10 * np.abs(u).max() * u.size
    assert np.abs(plan.problem.apply(u) - fc).max() < 1e-11 * np.abs(fc).max()
    assert plan.last_stats["incompatible_part"] == pytest.approx(np.linalg.norm(f - fc) / np.linalg.norm(f))


def test_dtype_follows_the_inputs():
    f64 = random_problem((5, 6), np.float64)[0]
    f32 = [(a.astype(np.float32), m.astype(np.float32)) for a, m in f64]
    assert pscr.Plan(f32, c=0.5).dtype == np.float32  # a Python float c keeps float32
    assert pscr.Plan(f32, c=1 - 2j).dtype == np.complex64
    assert pscr.Plan(f64, c=0.5).dtype == np.float64
    assert pscr.Plan(f64, c=0.5, precision="single").dtype == np.float32
    assert pscr.Plan(f32, c=1j, precision="double").dtype == np.complex128
    ints = [(np.rint(a * 4).astype(np.int64), np.rint(m * 4).astype(np.int64) + 1) for a, m in f64]
    assert pscr.Plan(ints, c=1).dtype == np.float64
    assert pscr.Plan(f64, c=0.5, dtype=np.complex64).dtype == np.complex64


def test_inputs_are_converted_when_needed(backend):
    shape = (10, 8)
    factors, c = random_problem(shape, np.float64)
    plan = pscr.Plan(factors, c=c, backend=backend)
    f = random_rhs(shape, np.float64)
    ref = plan.solve(f)
    np.testing.assert_allclose(plan.solve(np.asfortranarray(f)), ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(plan.solve(f.tolist()), ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(plan.solve(f.astype(np.float32)), plan.solve(f.astype(np.float32).astype(np.float64)))
    big = np.zeros((20, 16))
    big[::2, ::2] = f
    np.testing.assert_allclose(plan.solve(big[::2, ::2]), ref, rtol=0, atol=1e-14)


def test_read_only_inputs(backend):
    # arrays that may not be written (np.frombuffer of bytes, read-only memory
    # maps, arrays other libraries hand out) are read in place like any other
    shape = (9, 12)
    factors, c = random_problem(shape, np.float64, seed=3)
    plan = pscr.Plan(factors, c=c, backend=backend)
    f = random_rhs(shape, np.float64, seed=4)
    ro = np.frombuffer(f.tobytes(), dtype=np.float64).reshape(shape)
    assert not ro.flags.writeable
    u = plan.solve(ro)
    assert rel_err(u, sparse_solve(plan.problem, f)) < 1e-11
    assert u.flags.writeable and np.array_equal(ro, f)
    batch = np.stack([f, 2 * f])
    batch.flags.writeable = False
    U = plan.solve(batch)
    assert rel_err(U[1], 2 * u) < 1e-14
    u.flags.writeable = False
    assert rel_err(plan.problem.apply(u), f) < 1e-12
    assert plan.problem.backward_error(ro, u) < 1e-14


def test_linear_operator_inverts_the_operator():
    shape = (11, 9)
    factors, c = random_problem(shape, np.complex128)
    plan = pscr.Plan(factors, c=c)
    op = plan.as_linear_operator()
    K = plan.problem.to_sparse()
    x = random_rhs(shape, np.complex128).reshape(-1)
    assert np.abs(op.matvec(K @ x) - x).max() < 1e-11
    X = np.stack([x, 2 * x, x.conj()], axis=1)
    assert np.abs(op.matmat(K @ X) - X).max() < 1e-11


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_operator_adjoint_against_dense_inverse(dtype):
    # (A⁻¹)ᴴ = conj(A⁻¹) for a (complex) symmetric A: op.H, rmatvec, rmatmat
    # against the dense inverse, and lsqr (which needs the adjoint) solving A⁻¹ x = b
    import scipy.sparse.linalg as sla
    shape = (6, 5)
    factors, c = random_problem(shape, dtype, seed=7)
    plan = pscr.Plan(factors, c=c)
    op = plan.as_linear_operator()
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    inverse = np.linalg.inv(pscr.Problem(plan.problem.factors, plan.problem.c, dtype=wide).to_sparse().toarray())
    tol = TOL[dtype] * np.abs(inverse).max()
    x = random_rhs(30, np.complex128, seed=8)  # complex vectors for the real plans too
    X = np.stack([x, 2 * x.conj(), x.real.astype(np.complex128)], axis=1)
    assert np.abs(op.matvec(x) - inverse @ x).max() < tol
    assert np.abs(op.rmatvec(x) - inverse.conj().T @ x).max() < tol
    assert np.abs(op.H @ x - inverse.conj().T @ x).max() < tol
    assert np.abs(op.matmat(X) - inverse @ X).max() < tol
    assert np.abs(op.rmatmat(X) - inverse.conj().T @ X).max() < tol
    assert np.abs(op.H @ X - inverse.conj().T @ X).max() < tol
    b = inverse @ x.real if np.dtype(dtype).kind == "f" else inverse @ x
    y = sla.lsqr(op, b, atol=1e-14, btol=1e-14, iter_lim=200)[0]
    assert np.abs(y - (x.real if np.dtype(dtype).kind == "f" else x)).max() < 1e3 * TOL[dtype] * np.abs(x).max()


def test_linear_operator_adjoint_of_a_pure_neumann_plan():
    # the solve of a pure Neumann plan is S = R A⁺ (zero weighted mean), not
    # symmetric when the weights are not uniform: its adjoint from S itself
    x1 = np.array([0.0, 0.1, 0.35, 0.5, 0.8, 1.0])
    x2 = np.array([0.0, 0.3, 0.4, 0.9, 1.0])
    plan = pscr.Plan([pscr.poisson_neumann_factor(x1), pscr.poisson_neumann_factor(x2)], c=0.0)
    assert plan.info["pure_neumann"]
    n = plan.problem.unknowns
    S = plan.solve(np.eye(n).reshape((n,) + plan.shape)).reshape(n, n).T  # column j: S e_j
    assert np.abs(S - S.T).max() > 1e-3 * np.abs(S).max()  # not symmetric: conj(S conj(x)) would be wrong
    op = plan.as_linear_operator()
    x = random_rhs(n, np.float64, seed=9)
    X = np.stack([x, -x, x * x], axis=1)
    tol = 1e-11 * np.abs(S).max()
    assert np.abs(op.matvec(x) - S @ x).max() < tol
    assert np.abs(op.rmatvec(x) - S.T @ x).max() < tol
    assert np.abs(op.rmatmat(X) - S.T @ X).max() < tol
    z = x + 1j * x[::-1]
    assert np.abs(op.H @ z - S.T @ z).max() < tol


def test_info_and_version(backend):
    plan = pscr.Plan(random_problem((9, 7), np.float64)[0], c=0.1, backend=backend, profile=True)
    info = plan.info
    assert info["shape"] == (9, 7) and "sizes" not in info and info["dtype"] == "float64" and info["unknowns"] == 63
    assert info["eigen_seconds"] <= info["init_seconds"]
    # automatic radix: the host's, or that of the device's kernel parameters
    # (kept by a plan this small); an explicit one is kept
    assert info["radix"] == (16 if backend == "reference" else info["parameters"]["radix"])
    assert pscr.Plan(random_problem((9, 7), np.float64)[0], c=0.1, backend=backend, radix=3).info["radix"] == 3
    assert info["host_bytes"] > 0 and info["init_seconds"] > 0 and info["eigen_problems"] > 0
    assert info["backend"].startswith(backend)
    if backend == "reference":
        assert info["parameters"] is None and info["device_bytes"] == 0 and info["device_architecture"] is None
        assert info["line_solver"] == "thomas"
    if backend == "opencl":
        assert set(info["parameters"]) == set(pscr.kernel_parameters())
        short = info["parameters"]["line_rows"] > 0  # lines of 7 rows always fit a work-group
        assert info["line_solver"] == ("whole lines" if short else "global CR")
        assert info["parameters_source"]
        # "nvidia-sm90" on NVIDIA's devices, empty where the library knows no architecture (PoCL)
        assert isinstance(info["device_architecture"], str)
        assert info["device_architecture"].startswith("nvidia-sm") == ("NVIDIA" in info["backend"])
        plan.solve(random_rhs((9, 7), np.float64))
        assert sum(k["launches"] for k in plan.kernel_times()) > 0
    assert pscr.__version__.count(".") == 2


def test_explicit_kernel_parameters():
    factors, c = random_problem((33, 40), np.float64)
    params = {"work_group": 32, "local_size": 16, "pcr_steps": 1}
    plan = pscr.Plan(factors, c=c, backend="opencl", parameters=params)
    assert plan.info["parameters_source"] == "options"
    assert all(plan.info["parameters"][k] == v for k, v in params.items())
    f = random_rhs((33, 40), np.float64)
    assert rel_err(plan.solve(f), sparse_solve(plan.problem, f)) < 1e-11
    plan.set_parameters({"work_group": 64})
    assert plan.info["parameters"]["work_group"] == 64
    assert rel_err(plan.solve(f), sparse_solve(plan.problem, f)) < 1e-11


def test_several_devices_split_batches():
    # PoCL's one device twice: two executors, the batch split between them
    factors, c = random_problem((21, 18), np.complex128)
    single = pscr.Plan(factors, c=c, backend="opencl")
    multi = pscr.Plan(factors, c=c, backend="opencl", devices=["0:0", "0:0"])
    assert " + " in multi.info["backend"]
    F = np.stack([random_rhs((21, 18), np.complex128, seed=s) for s in range(5)])
    np.testing.assert_array_equal(multi.solve(F), single.solve(F))
    with pytest.raises(pscr.BackendError, match="device 1 of the plan"):
        pscr.Plan(factors, c=c, backend="opencl", devices=["0:0", "no-such-device"])


def test_several_devices_split_rows():
    # every solve split by rows over PoCL's one device taken twice, against
    # a sparse direct solve
    factors, c = random_problem((29, 18), np.float64)
    plan = pscr.Plan(factors, c=c, backend="opencl", devices=["0:0", "0:0"], device_split="rows")
    assert "rows split over 2 devices" in plan.info["backend"]
    f = random_rhs((29, 18), np.float64)
    assert rel_err(plan.solve(f), sparse_solve(plan.problem, f)) < 1e-11
    with pytest.raises(pscr.InvalidArgument, match="device_split"):
        pscr.Plan(factors, c=c, backend="opencl", devices=["0:0", "0:0"], device_split="columns")


@pytest.mark.parametrize("dtype", DTYPES)
def test_sine_transforms_against_sparse_direct(dtype):
    # uniform Dirichlet leading dimensions with n + 1 a power of two: the
    # OpenCL plan takes them by sine transforms, the last by line solves
    lead = [pscr.laplacian_factor(15, 0.1), pscr.laplacian_factor(7, 0.3)]
    last = pscr.poisson_factor(pscr.graded_mesh(13, 1.0, 1.2))
    for factors in ([lead[0], last], [lead[0], lead[1], last]):
        plan = pscr.Plan(factors, c=0.5, dtype=dtype, backend="opencl")
        assert plan.info["dimension_methods"] == ["sine transform"] * (len(factors) - 1) + ["tridiagonal"]
        assert plan.info["radix"] == 0
        f = random_rhs(plan.problem.shape, dtype)
        assert rel_err(plan.solve(f), sparse_solve(plan.problem, f)) < TOL[dtype]
    # the reference backend keeps the reduction
    assert pscr.Plan([lead[0], last], backend="reference").info["dimension_methods"] == ["reduction", "tridiagonal"]
