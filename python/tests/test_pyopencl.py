"""PyOpenCL arrays in the plan's context are solved on the device."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import pscr
from conftest import random_problem, random_rhs, rel_err, sparse_solve


@pytest.fixture(scope="module")
def queue():
    ctx = cl.create_some_context(interactive=False)
    return cl.CommandQueue(ctx)


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_device_arrays(queue, dtype):
    shape = (20, 13)
    factors, c = random_problem(shape, dtype)
    plan = pscr.Plan(factors, c=c, queue=queue)
    assert plan.info["backend"].startswith("opencl")
    F = np.stack([random_rhs(shape, dtype, seed=s) for s in range(2)])
    d = cla.to_device(queue, F)
    u = plan.solve(d)
    assert isinstance(u, cla.Array) and u is not d
    np.testing.assert_array_equal(d.get(), F)  # f untouched
    tol = 2e-4 if np.dtype(dtype).itemsize <= 8 else 1e-11
    for k in range(2):
        assert rel_err(u.get()[k], sparse_solve(plan.problem, F[k])) < tol
    assert plan.solve(d, out=d) is d
    np.testing.assert_allclose(d.get(), u.get(), rtol=0, atol=0)
    # an empty batch (its array has no buffer) comes back empty, as on the host
    empty = cla.empty(queue, (0,) + shape, dtype)
    assert plan.solve(empty).shape == (0,) + shape
    assert plan.solve(empty, out=empty) is empty


def test_device_array_errors(queue):
    shape = (8, 9)
    factors, c = random_problem(shape, np.float64)
    plan = pscr.Plan(factors, c=c, queue=queue)
    with pytest.raises(pscr.InvalidArgument, match="float64"):
        plan.solve(cla.zeros(queue, shape, np.float32))
    with pytest.raises(pscr.SizeMismatch):
        plan.solve(cla.zeros(queue, (8, 8), np.float64))
    other = cl.CommandQueue(cl.Context(queue.context.devices))
    with pytest.raises(pscr.InvalidArgument, match="another OpenCL context"):
        plan.solve(cla.zeros(other, shape, np.float64))
    host = pscr.Plan(factors, c=c)
    with pytest.raises(pscr.InvalidArgument, match="OpenCL plan"):
        host.solve(cla.zeros(queue, shape, np.float64))
