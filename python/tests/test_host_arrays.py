"""NumPy arrays through an OpenCL plan (docs/host-arrays.md): the page-locked
staging and its pageable fallback give exactly the device-resident answer."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import pscr
from conftest import random_problem, random_rhs, rel_err, sparse_solve

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


@pytest.fixture(scope="module")
def queue():
    ctx = cl.create_some_context(interactive=False)
    return cl.CommandQueue(ctx)


def unaligned_copy(a):
    """a's values in a read-only array one scalar past the start of its buffer."""
    raw = np.zeros(a.size + 1, a.dtype)
    raw[1:] = a.ravel()
    return np.frombuffer(raw.tobytes(), a.dtype, offset=a.dtype.itemsize).reshape(a.shape)


@pytest.mark.parametrize("staging", ["pinned", "pageable", "fail"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_host_solves_equal_device_solves(queue, dtype, staging, monkeypatch):
    monkeypatch.setenv("PSCR_HOST_STAGING", staging)
    monkeypatch.setenv("PSCR_HOST_STAGING_BYTES", "4032")  # chunks of 1008 bytes: many per right-hand side
    shape = (23, 17)
    factors, c = random_problem(shape, dtype, seed=3)
    plan = pscr.Plan(factors, c=c, queue=queue)
    F = np.stack([random_rhs(shape, dtype, seed=s) for s in range(3)])
    want = plan.solve(cla.to_device(queue, F)).get()  # device-resident
    tol = 2e-4 if np.dtype(dtype).itemsize <= 8 else 1e-11
    assert rel_err(want[1], sparse_solve(plan.problem, F[1])) < tol
    u = plan.solve(unaligned_copy(F))  # a batch, from a read-only array off its buffer's alignment
    np.testing.assert_array_equal(u, want)
    stats = plan.last_stats
    if staging == "pinned":
        assert stats["staging"].startswith("page-locked") and "overlap" in stats["staging"]
        assert stats["staging_bytes"] == plan.info["staging_bytes"] == 4032
    else:
        assert stats["staging"].startswith("pageable") and stats["staging_bytes"] == 0
    assert stats["transfer_seconds"] == stats["copy_in_seconds"] + stats["copy_out_seconds"]
    for k in range(3):  # one at a time, and in place
        np.testing.assert_array_equal(plan.solve(F[k]), want[k])
    G = F.copy()
    assert plan.solve(G, out=G) is G
    np.testing.assert_array_equal(G, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_page_locked_arrays_are_copied_directly(queue, dtype):
    """plan.empty_pinned: f and out in page-locked memory go to the device and
    back without the staging, with the same answer; bad input still named."""
    shape = (23, 17)
    factors, c = random_problem(shape, dtype, seed=5)
    plan = pscr.Plan(factors, c=c, queue=queue)
    F = np.stack([random_rhs(shape, dtype, seed=s) for s in range(3)])
    want = plan.solve(cla.to_device(queue, F)).get()
    f, u = plan.empty_pinned(3), plan.empty_pinned(3)
    assert f.shape == (3,) + shape and f.dtype == np.dtype(dtype) and not f.any()
    f[...] = F
    assert plan.solve(f, out=u) is u
    np.testing.assert_array_equal(u, want)
    assert "caller's page-locked" in plan.last_stats["staging"]
    one = plan.empty_pinned()
    assert one.shape == shape
    f[2, 4, 5] = np.nan
    with pytest.raises(pscr.NonFiniteInput, match=f"index {2 * 23 * 17 + 4 * 17 + 5}"):
        plan.solve(f, out=u)
    with pytest.raises(pscr.InvalidArgument):
        pscr.Plan(factors, c=c).empty_pinned(2)  # the reference backend
