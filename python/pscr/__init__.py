"""libpscr for Python: a fast direct solver for separable block tridiagonal systems

    A = A1⊗M2 + M1⊗A2 + c·M1⊗M2   (and its 3D form)

by the radix-q partial solution variant of cyclic reduction (PSCR), on the host
or on an OpenCL device.

    import numpy as np, pscr
    plan = pscr.Plan([(A1, M1), (A2, M2)], c=0.25, backend="opencl")
    u = plan.solve(f)                 # f: (n1, n2) or (batch, n1, n2); 3D likewise
"""

from . import _core
from .builders import (graded_mesh, helmholtz2d, helmholtz3d, helmholtz_factor, laplacian_factor,
                       poisson2d, poisson3d, poisson_factor, poisson_neumann_factor, poisson_periodic_factor,
                       uniform_mesh)
from .errors import (AccuracyWarning, AllocationTooLarge, BackendError, Error, FileFormatError, InvalidArgument,
                     KernelBuildError, NonFiniteInput, NumericalBreakdown, SingularPencil, SizeMismatch)
from .plan import DTYPES, Factor, Plan, Problem, device_bytes

__version__ = _core.version


def prepare_device(device=""):
    """Start the OpenCL driver and create the context that plans on `device` will
    share (the start-up takes a fraction of a second on a GPU): call it from a
    thread while input is read. The GIL is released meanwhile."""
    _core.prepare_device(str(device))


def kernel_parameters():
    """The OpenCL kernel parameters: {name: (min, max, power_of_two, description)}."""
    return {name: (lo, hi, p2, desc) for name, lo, hi, p2, desc in _core.parameter_table()}


__all__ = [
    "Plan", "Problem", "Factor", "DTYPES", "device_bytes", "kernel_parameters", "prepare_device",
    "poisson_factor", "poisson_neumann_factor", "poisson_periodic_factor", "helmholtz_factor", "laplacian_factor",
    "graded_mesh", "uniform_mesh", "poisson2d", "poisson3d", "helmholtz2d", "helmholtz3d",
    "Error", "SizeMismatch", "InvalidArgument", "NonFiniteInput", "SingularPencil",
    "NumericalBreakdown", "AllocationTooLarge", "BackendError", "KernelBuildError", "FileFormatError",
    "AccuracyWarning",
]
