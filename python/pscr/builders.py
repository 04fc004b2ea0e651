"""Ready-made factor pencils and problems (include/pscr/builders.hpp).

Each factor is a pair (A, M) of (2, n) float64 (Helmholtz: complex128) arrays,
the layout Plan and pscr-solve read.
"""

import numpy as np

from . import _core
from .plan import Problem


def poisson_factor(x):
    """Poisson, Dirichlet, mass-lumped linear elements on the mesh x[0] < ... < x[n+1]
    (boundary points included): n unknowns."""
    return _core.poisson_factor(x)


def poisson_neumann_factor(x):
    """Poisson with Neumann boundaries on all n points of x (A 1 = 0, M diagonal)."""
    return _core.poisson_neumann_factor(x)


def helmholtz_factor(x, omega):
    """Helmholtz with the second-order absorbing boundary condition on all n points
    of x (bilinear elements); use c = -omega**2."""
    return _core.helmholtz_factor(x, float(omega))


def laplacian_factor(n, h=1.0, left="dirichlet", right="dirichlet"):
    """Finite-difference -d²/dx² on n uniform pixels of width h; each side
    'dirichlet' or 'neumann' (zero flux); M = I."""
    return _core.laplacian_factor(int(n), float(h), left, right)


def graded_mesh(points, length=1.0, ratio=1.0):
    """`points` mesh points on [0, length], both ends included (points - 2
    unknowns for poisson_factor), whose steps grow by `ratio`."""
    return _core.graded_mesh(int(points), float(length), float(ratio))


def uniform_mesh(n, length=1.0):
    """The n + 2 points of n interior unknowns on [0, length]."""
    return np.linspace(0.0, length, n + 2)


def poisson2d(x1, x2):
    """-Δu = f on the tensor mesh x1 × x2, Dirichlet (float64)."""
    return Problem([poisson_factor(x1), poisson_factor(x2)], 0.0)


def poisson3d(x1, x2, x3):
    """-Δu = f on the tensor mesh x1 × x2 × x3, Dirichlet (float64)."""
    return Problem([poisson_factor(x1), poisson_factor(x2), poisson_factor(x3)], 0.0)


def helmholtz2d(x1, x2, omega):
    """-Δu - ω²u = f with absorbing boundaries (complex128)."""
    return Problem([helmholtz_factor(x1, omega), helmholtz_factor(x2, omega)], complex(-omega * omega))


def helmholtz3d(x1, x2, x3, omega):
    """-Δu - ω²u = f in 3D with absorbing boundaries (complex128)."""
    return Problem([helmholtz_factor(x, omega) for x in (x1, x2, x3)], complex(-omega * omega))
