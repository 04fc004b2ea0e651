"""The pressure Poisson equation of a channel flow: periodic in x and z,
walls at y = 0 and y = Ly (zero normal gradient: Neumann), the mesh graded
towards the walls, as in turbulent-channel codes.

    -Δp = f   on [0, Lx) × (0, Ly) × [0, Lz),   periodic in x and z, ∂p/∂y = 0 at the walls

Linear elements with a lumped mass on the periodic x and z meshes and on
the stretched y mesh (its points clustered at both walls by a tanh map);
y is the last dimension, solved by one tridiagonal system per Fourier-like
mode of x and z. c = 0 and all-Neumann/periodic ends: the constants are the
null space; the solver returns the compatible part's solution of zero
weighted mean and reports the incompatible part.

Checked against a manufactured discrete solution: f = A p* for a smooth p*.

    python3 channel_pressure.py [nx ny nz] [--backend opencl] [--float]
"""

import argparse

import numpy as np
import pscr


def wall_mesh(points, length, stretch=2.0):
    """`points` y-coordinates on [0, length], clustered at both walls (tanh map)."""
    s = np.linspace(-1.0, 1.0, points)
    return 0.5 * length * (1 + np.tanh(stretch * s) / np.tanh(stretch))


def channel_problem(nx, ny, nz, lx=2 * np.pi, ly=2.0, lz=np.pi, dtype=np.float64):
    """The channel's pscr.Problem (x, z, y order: the walls' dimension last) and its meshes."""
    x = np.linspace(0.0, lx, nx + 1)  # one period: x[nx] is the image of x[0]
    z = np.linspace(0.0, lz, nz + 1)
    y = wall_mesh(ny, ly)
    factors = [pscr.poisson_periodic_factor(x), pscr.poisson_periodic_factor(z), pscr.poisson_neumann_factor(y)]
    return pscr.Problem(factors, 0.0, dtype=dtype), (x[:-1], z[:-1], y)


def run(nx=32, ny=33, nz=16, backend="reference", dtype=np.float64):
    """Solves the manufactured problem; returns the relative error, the
    reported incompatible part and the plan's methods."""
    problem, (x, z, y) = channel_problem(nx, ny, nz, dtype=dtype)
    X, Z, Y = np.meshgrid(x, z, y, indexing="ij")
    exact = np.cos(X) * np.sin(2 * Z) * np.cos(np.pi * Y / 2.0) + 0.3 * np.sin(X + Z) * Y**2
    f = problem.apply(exact.astype(problem.dtype)).astype(np.float64)
    f += 0.01  # an incompatible part (a constant): reported, removed
    plan = pscr.Plan(problem, backend=backend)
    p = plan.solve(f.astype(problem.dtype))
    # the answer of zero weighted mean: p* less its weighted mean
    w = np.ones(1)
    for fac in problem.factors:
        m = fac[1]
        rows = m[0].copy()
        if fac.periodic:
            rows += m[1] + np.roll(m[1], 1)
        else:
            rows[:-1] += m[1, :-1]
            rows[1:] += m[1, :-1]
        w = np.kron(w, rows)
    w = w.reshape(exact.shape)
    reference = exact - (w * exact).sum() / w.sum()
    error = np.abs(p - reference).max() / np.abs(reference).max()
    return {"error": float(error), "incompatible_part": plan.last_stats["incompatible_part"],
            "methods": plan.info["dimension_methods"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sizes", nargs="*", type=int, default=[32, 33, 16], help="nx ny nz")
    ap.add_argument("--backend", default="reference", choices=["reference", "opencl"])
    ap.add_argument("--float", action="store_true", help="single precision")
    a = ap.parse_args()
    r = run(*a.sizes, backend=a.backend, dtype=np.float32 if a.float else np.float64)
    print(f"channel {a.sizes}: relative error {r['error']:.2e}, incompatible part {r['incompatible_part']:.2e}, "
          f"methods {', '.join(r['methods'])}")


if __name__ == "__main__":
    main()
