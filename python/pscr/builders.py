"""Ready-made factor pencils and problems (include/pscr/builders.hpp).

Each factor is a pscr.Factor: a pair (A, M) of (2, n) float64 (Helmholtz:
complex128) arrays, the layout Plan and pscr-solve read, with its periodic flag.

Arguments are checked here, each error naming its argument: sizes are
integers of a C int (2.5 and 2**31 are refused, not truncated or left to the
binding), reals are real numbers (not strings, complex or long double),
meshes 1-D arrays of them.
"""

import numpy as np

from . import _core
from .errors import InvalidArgument
from .plan import Factor, Problem, _check_dtype, _integer, _string

_C_INT_MAX = 2**31 - 1


def _real(value, what):
    """value as a float: a real number (Python or NumPy scalar), not a string,
    complex or long double (libpscr has none) value."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidArgument(f"{what} = {value!r} (needs a real number)")
    _check_dtype(np.asarray(value).dtype, what)
    return float(value)


def _mesh(x, what):
    """x as a 1-D float64 array of mesh points."""
    try:
        a = np.asarray(x)
    except ValueError as e:  # ragged nested lists
        raise InvalidArgument(f"{what}: {e}") from None
    _check_dtype(a.dtype, what)
    if a.dtype.kind == "c":
        raise InvalidArgument(f"{what}: complex mesh points ({a.dtype})")
    if a.ndim != 1:
        raise InvalidArgument(f"{what}: needs a 1-D array of mesh points, not shape {a.shape}")
    return np.ascontiguousarray(a, dtype=np.float64)


def poisson_factor(x):
    """Poisson, Dirichlet, mass-lumped linear elements on the mesh x[0] < ... < x[n+1]
    (boundary points included): n unknowns."""
    return Factor(*_core.poisson_factor(_mesh(x, "poisson_factor: x")))


def poisson_neumann_factor(x):
    """Poisson with Neumann boundaries on all n points of x (A 1 = 0, M diagonal)."""
    return Factor(*_core.poisson_neumann_factor(_mesh(x, "poisson_neumann_factor: x")))


def poisson_periodic_factor(x):
    """Poisson on a periodic mesh, mass-lumped linear elements: x holds the n + 1
    points x[0] < ... < x[n] of one period (x[n] the image of x[0]), n >= 3
    unknowns at x[0] ... x[n-1], uniform or graded. A periodic Factor, A 1 = 0."""
    return Factor(*_core.poisson_periodic_factor(_mesh(x, "poisson_periodic_factor: x")))


def helmholtz_factor(x, omega):
    """Helmholtz with the second-order absorbing boundary condition on all n points
    of x (bilinear elements); use c = -omega**2."""
    return Factor(*_core.helmholtz_factor(_mesh(x, "helmholtz_factor: x"), _real(omega, "helmholtz_factor: omega")))


def laplacian_factor(n, h=1.0, left="dirichlet", right="dirichlet"):
    """Finite-difference -d²/dx² on n uniform pixels of width h; each side
    'dirichlet' or 'neumann' (zero flux), or both 'periodic' (n >= 3: a cyclic
    factor, its corner -1/h²); M = I. n: 1 ... 2**31 - 1 (a C int)."""
    n = _integer(n, "laplacian_factor: n", 1, _C_INT_MAX, "a factor's size is a C int")
    return Factor(*_core.laplacian_factor(n, _real(h, "laplacian_factor: h"), _string(left, "laplacian_factor: left"),
                                          _string(right, "laplacian_factor: right")))


def graded_mesh(points, length=1.0, ratio=1.0):
    """`points` mesh points on [0, length], both ends included (points - 2
    unknowns for poisson_factor), whose steps grow by `ratio`."""
    return _core.graded_mesh(_integer(points, "graded_mesh: points", 2, _C_INT_MAX, "a mesh's size is a C int"),
                             _real(length, "graded_mesh: length"), _real(ratio, "graded_mesh: ratio"))


def uniform_mesh(n, length=1.0):
    """The n + 2 points of n interior unknowns on [0, length]."""
    n = _integer(n, "uniform_mesh: n", 0, _C_INT_MAX - 2, "n + 2 points, a C int")
    length = _real(length, "uniform_mesh: length")
    if not np.isfinite(length) or not length > 0:
        raise InvalidArgument(f"uniform_mesh: length = {length} (needs a finite number > 0)")
    return np.linspace(0.0, length, n + 2)


def poisson2d(x1, x2):
    """-Δu = f on the tensor mesh x1 × x2, Dirichlet (float64)."""
    return Problem([poisson_factor(x1), poisson_factor(x2)], 0.0)


def poisson3d(x1, x2, x3):
    """-Δu = f on the tensor mesh x1 × x2 × x3, Dirichlet (float64)."""
    return Problem([poisson_factor(x1), poisson_factor(x2), poisson_factor(x3)], 0.0)


def helmholtz2d(x1, x2, omega):
    """-Δu - ω²u = f with absorbing boundaries (complex128)."""
    omega = _real(omega, "helmholtz2d: omega")
    return Problem([helmholtz_factor(x1, omega), helmholtz_factor(x2, omega)], complex(-omega * omega))


def helmholtz3d(x1, x2, x3, omega):
    """-Δu - ω²u = f in 3D with absorbing boundaries (complex128)."""
    omega = _real(omega, "helmholtz3d: omega")
    return Problem([helmholtz_factor(x, omega) for x in (x1, x2, x3)], complex(-omega * omega))
