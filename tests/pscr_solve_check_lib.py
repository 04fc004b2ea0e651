"""What the checks of pscr-solve and pscr-solve-mpi share: random factor
files and the sparse matrix of a separable system (scipy)."""
import numpy as np
import scipy.sparse as sp


def factor(rng, n, dtype, complex_sym):
    a = np.zeros((2, n), dtype=dtype)
    m = np.zeros((2, n), dtype=dtype)
    a[0] = 2.0 + rng.uniform(0.5, 1.5, n)
    a[1, : n - 1] = -0.9 * rng.uniform(0.5, 1.5, n - 1)
    m[0] = 1.0 + 0.5 * rng.uniform(0.5, 1.5, n)
    m[1, : n - 1] = 0.2 * rng.uniform(0.5, 1.5, n - 1)
    if complex_sym:
        a[0, 0] += -0.7j
        a[0, -1] += -0.5j
        m[0, 0] += 0.3j
    return a, m


def tri(x, periodic=False):
    n = x.shape[1]
    t = sp.diags([x[1, : n - 1], x[0], x[1, : n - 1]], [-1, 0, 1], format="lil")
    if periodic:  # the corner, row n - 1 with row 0, in row 1's last entry
        t[0, n - 1] = t[n - 1, 0] = x[1, n - 1]
    return t.tocsr()


def periodic_factor(rng, n, dtype, complex_sym):
    """factor() with corner entries like its off-diagonal ones (a cyclic pencil)."""
    a, m = factor(rng, n, dtype, complex_sym)
    a[1, n - 1] = -0.9 * rng.uniform(0.5, 1.5)
    m[1, n - 1] = 0.2 * rng.uniform(0.5, 1.5)
    return a, m


def assemble(factors, c, periodic=()):
    periodic = list(periodic) + [False] * (len(factors) - len(periodic))
    As = [tri(a, p) for (a, _), p in zip(factors, periodic)]
    Ms = [tri(m, p) for (_, m), p in zip(factors, periodic)]

    def kron_all(ms):
        out = ms[0]
        for x in ms[1:]:
            out = sp.kron(out, x, format="csr")
        return out

    total = c * kron_all(Ms)
    for d in range(len(factors)):
        total = total + kron_all([As[e] if e == d else Ms[e] for e in range(len(factors))])
    return total.tocsc()


def neumann_factor(n):
    """The pixel-grid Laplacian with Neumann ends (zero row sums) and M = I:
    with c = 0 the pure-Neumann case, whose null space is the constants."""
    a = np.zeros((2, n))
    a[0] = 2.0
    a[0, 0] = a[0, -1] = 1.0
    a[1, : n - 1] = -1.0
    m = np.zeros((2, n))
    m[0] = 1.0
    return a, m


def save_factors(P, fs, prefix=""):
    """Saves factors (A_d, M_d) as {prefix}A{d}.npy and {prefix}M{d}.npy under
    the path function P; returns pscr-solve's factor arguments."""
    args = []
    for d, (a, m) in enumerate(fs, 1):
        np.save(P(f"{prefix}A{d}.npy"), a)
        np.save(P(f"{prefix}M{d}.npy"), m)
        args += [f"--A{d}", P(f"{prefix}A{d}.npy"), f"--M{d}", P(f"{prefix}M{d}.npy")]
    return args


def write_system(P, rng, ns, dtype, batch):
    """Random factor files and right-hand side under the path function P:
    returns the factors, the right-hand side and the factor arguments."""
    cplx = np.issubdtype(dtype, np.complexfloating)
    fs = [factor(rng, n, dtype, cplx) for n in ns]
    args = save_factors(P, fs)
    shape = ([batch] if batch > 1 else []) + ns
    f = rng.uniform(-1, 1, shape).astype(dtype)
    if cplx:
        f = f + 1j * rng.uniform(-1, 1, shape).astype(dtype)
    np.save(P("f.npy"), f)
    return fs, f, args
