"""Problems and plans: the NumPy face of pscr::Problem and pscr::Plan."""

import warnings
from collections.abc import Mapping

import numpy as np

from . import _core
from .errors import AccuracyWarning, InvalidArgument, SizeMismatch

## The four scalar types of libpscr (NumPy dtypes float32, float64, complex64, complex128).
DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64), np.dtype(np.complex128))
_PROBLEM = {d: getattr(_core, "Problem_" + d.name) for d in DTYPES}
_PLAN = {d: getattr(_core, "Plan_" + d.name) for d in DTYPES}
_PRECISION = {"single": (np.float32, np.complex64), "double": (np.float64, np.complex128)}


def _check_dtype(dt, what):
    """Refuses, naming the argument, what libpscr cannot take: values that are
    not numbers (strings, objects), and long double, which libpscr does not
    have (narrowed to float64 it would silently lose digits; convert it first)."""
    if dt.kind not in "biufc":
        raise InvalidArgument(f"{what}: dtype {dt} is not numeric")
    if dt.itemsize > (16 if dt.kind == "c" else 8):
        raise InvalidArgument(f"{what}: dtype {dt} (long double): libpscr computes in float32 and float64 "
                              "(complex64, complex128); convert it explicitly")


def _scalar_type(arrays, c, dtype, precision):
    """The plan's dtype: `dtype` if given, else NumPy's promotion of the factor
    arrays and c (ints count as float64), narrowed or widened by `precision`.
    The arrays and c have passed _check_dtype."""
    if dtype is not None:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise InvalidArgument(f"dtype {dtype!r} is not a dtype (needs float32, float64, complex64 or "
                                  "complex128)") from None
        if dt not in DTYPES:
            raise InvalidArgument(f"dtype {dt} (needs float32, float64, complex64 or complex128)")
        if precision is not None:
            raise InvalidArgument("give dtype or precision, not both")
        return dt
    dt = np.result_type(*arrays, c)
    if dt.kind in "biu":
        dt = np.dtype(np.float64)
    complex_ = dt.kind == "c"
    if precision is None:
        return np.dtype(np.complex64 if complex_ and dt.itemsize <= 8 else np.complex128 if complex_
                        else np.float32 if dt.itemsize <= 4 else np.float64)
    if not isinstance(precision, str) or precision not in _PRECISION:
        raise InvalidArgument(f"precision {precision!r} (needs 'single' or 'double')")
    return np.dtype(_PRECISION[precision][complex_])


def _cast(a, dt, what):
    """a as an array of dt; complex into real is refused rather than truncated,
    and so is what _check_dtype refuses."""
    a = np.asarray(a)
    _check_dtype(a.dtype, what)
    if a.dtype.kind == "c" and dt.kind != "c":
        raise InvalidArgument(f"{what}: complex values ({a.dtype}) for a {dt} plan")
    return np.ascontiguousarray(a, dtype=dt)


def _integer(value, what, lo=-2**31, hi=2**31 - 1, why="a C int"):
    """value as an integer in [lo, hi] (by default a C int): 2.5, "4" or 2**40 are
    refused by name rather than truncated or left to the binding's cast."""
    if not isinstance(value, (int, np.integer, np.bool_)):
        if not (isinstance(value, (float, np.floating)) and float(value).is_integer()):
            raise InvalidArgument(f"{what} = {value!r} (needs an integer)")
    v = int(value)
    if not lo <= v <= hi:
        raise InvalidArgument(f"{what} = {v} (out of range: {lo} ... {hi}, {why})")
    return v


def _string(value, what):
    """A string option (backend, elimination, ...): anything else is refused by
    name rather than left to the binding's cast."""
    if not isinstance(value, str):
        raise InvalidArgument(f"{what} = {value!r} (needs a string)")
    return value


def _kernel_parameters(parameters):
    """A dict of kernel parameters as the binding takes it (names, integers)."""
    if not isinstance(parameters, Mapping):
        raise InvalidArgument(f"parameters: needs a dict of kernel parameters, not {type(parameters).__name__}")
    return {str(k): _integer(v, f"parameters: {k}") for k, v in parameters.items()}


class Factor(tuple):
    """A factor pencil (A, M): a pair of (2, n) arrays (row 0 the diagonal,
    row 1 the off-diagonal in its first n - 1 entries) that unpacks as one,
    and whether its dimension is periodic: then A and M are cyclic, row 1's
    last entry the corner joining row n - 1 to row 0 (n >= 3). The builders
    return Factors; a plain (A, M) pair is a non-periodic factor unless the
    problem's `periodic` says otherwise."""

    def __new__(cls, A, M, periodic=False):
        if not isinstance(periodic, (bool, np.bool_)):
            raise InvalidArgument(f"Factor: periodic needs True or False, not {periodic!r}")
        self = super().__new__(cls, (A, M))
        ## Whether the dimension is periodic (A and M cyclic).
        self.periodic = bool(periodic)
        return self

    def __repr__(self):
        return f"pscr.Factor(n={np.shape(self[0])[-1]}, periodic={self.periodic})"


def _periodic_flags(factors, periodic):
    """Per dimension: periodic[d] where `periodic` is given (it overrides the
    factors' own flags), else the factor's own flag."""
    flags = [bool(getattr(f, "periodic", False)) for f in factors]
    if periodic is None:
        return flags
    try:
        given = [p for p in periodic]
    except TypeError:
        raise InvalidArgument("periodic: needs a sequence of booleans, one per dimension") from None
    if len(given) != len(flags):
        raise InvalidArgument(f"periodic: {len(given)} entries for {len(flags)} dimensions")
    out = []
    for d, (own, p) in enumerate(zip(flags, given), start=1):
        if not isinstance(p, (bool, np.bool_)):
            raise InvalidArgument(f"periodic[{d - 1}]: needs True or False, not {p!r}")
        out.append(bool(p))
    return out


def _factor_pairs(factors):
    try:
        pairs = [tuple(f) for f in factors]
    except TypeError:
        raise InvalidArgument("factors: needs a list of (A, M) pairs") from None
    if len(pairs) not in (2, 3):
        raise InvalidArgument(f"factors: {len(pairs)} pairs (needs 2 for 2D or 3 for 3D)")
    out = []
    for d, p in enumerate(pairs, start=1):
        if len(p) != 2:
            raise InvalidArgument(f"factor {d}: needs a pair (A{d}, M{d})")
        try:
            a, m = (np.asarray(x) for x in p)
        except ValueError as e:  # ragged nested lists
            raise InvalidArgument(f"factor {d}: {e}") from None
        for name, x in ((f"A{d}", a), (f"M{d}", m)):
            _check_dtype(x.dtype, name)
            if x.ndim != 2 or x.shape[0] != 2:
                raise SizeMismatch(f"{name}: shape {x.shape} (needs (2, n): row 0 the diagonal, "
                                   "row 1 the off-diagonal in its first n - 1 entries)")
        if a.shape != m.shape:
            raise SizeMismatch(f"A{d} has shape {a.shape} but M{d} has {m.shape}")
        out.append((a, m))
    return out


class Problem:
    """A = A1⊗M2 + M1⊗A2 + c·M1⊗M2 (2D) or its 3D form.

    factors: [(A1, M1), (A2, M2)[, (A3, M3)]], each a (2, n) array: row 0 the
    diagonal, row 1 the off-diagonal in its first n - 1 entries (as pscr-solve
    reads them). Index 1 is the slowest: u has shape (n1, n2[, n3]) in C order.
    periodic: one boolean per dimension, which overrides the factors' own
    flags (default: each factor's Factor.periodic, False for plain pairs); a
    periodic dimension's A and M are cyclic, row 1's last entry the corner
    joining row n - 1 to row 0.
    dtype: one of the four libpscr types; by default NumPy's promotion of the
    factors and c (float32 factors with a Python float c stay float32);
    precision='single'|'double' keeps real or complex and sets the width.
    """

    def __init__(self, factors, c=0.0, *, dtype=None, precision=None, periodic=None):
        pairs = _factor_pairs(factors)
        flags = _periodic_flags(list(factors), periodic)
        arrays = [x for p in pairs for x in p]
        c_arr = np.asarray(c)
        if c_arr.ndim != 0:
            raise InvalidArgument(f"c: needs a scalar, not an array of shape {c_arr.shape}")
        _check_dtype(c_arr.dtype, "c")
        # a Python scalar takes part in the promotion as a scalar (float32 stays float32)
        ## The problem's NumPy dtype, one of DTYPES.
        self.dtype = _scalar_type(arrays, c if np.isscalar(c) else c_arr, dtype, precision)
        c_arr = _cast(c_arr.reshape(1), self.dtype, "c")[0]
        cast = [(_cast(a, self.dtype, f"A{d}"), _cast(m, self.dtype, f"M{d}"))
                for d, (a, m) in enumerate(pairs, start=1)]
        self._core = _PROBLEM[self.dtype](cast, c_arr.item(), flags)

    @property
    def dims(self):
        """2 or 3."""
        return self._core.dims

    @property
    def shape(self):
        """The shape of one right-hand side: (n1, n2[, n3])."""
        return tuple(self._core.size(d) for d in range(self.dims))

    @property
    def unknowns(self):
        """n1 · n2 (· n3): the size of one right-hand side."""
        return self._core.unknowns

    @property
    def c(self):
        """The constant c."""
        return self._core.c

    @property
    def factors(self):
        """[Factor(A1, M1), ...]: (2, n) arrays of the problem's dtype, each with its periodic flag."""
        return [Factor(*self._core.factor(d)) for d in range(self.dims)]

    @property
    def periodic(self):
        """One boolean per dimension: whether it is periodic."""
        return tuple(f.periodic for f in self.factors)

    def apply(self, u):
        """A u for u of shape (n1, n2[, n3]) or a batch (k, n1, n2[, n3])."""
        u, count = _right_hand_sides(self, u, "u")
        y = np.empty_like(u)
        for k in range(count):
            self._core.apply(u.reshape(count, -1)[k], y.reshape(count, -1)[k])
        return y

    def backward_error(self, f, u):
        """‖f − A u‖∞ / (‖A‖∞ ‖u‖∞ + ‖f‖∞) for one right-hand side."""
        f = _cast(f, self.dtype, "f")
        u = _cast(u, self.dtype, "u")
        if f.shape != self.shape or u.shape != self.shape:
            raise SizeMismatch(f"f {f.shape} and u {u.shape} for a problem of shape {self.shape}")
        return self._core.backward_error(f, u)

    def to_sparse(self):
        """The assembled operator as a SciPy CSR matrix (for checks and small problems)."""
        import scipy.sparse as sp

        def tri(t, periodic):
            n = t.shape[1]
            out = sp.diags([t[1, :n - 1], t[0], t[1, :n - 1]], [-1, 0, 1], shape=(n, n), dtype=self.dtype).tolil()
            if periodic:
                out[0, n - 1] = out[n - 1, 0] = t[1, n - 1]
            return out.tocsr()

        As = [tri(f[0], f.periodic) for f in self.factors]
        Ms = [tri(f[1], f.periodic) for f in self.factors]

        def kron_all(mats):
            out = mats[0]
            for x in mats[1:]:
                out = sp.kron(out, x, format="csr")
            return out

        total = self.dtype.type(self.c) * kron_all(Ms)
        for d in range(self.dims):
            total = total + kron_all([As[e] if e == d else Ms[e] for e in range(self.dims)])
        return total.tocsr()

    def __repr__(self):
        periodic = f", periodic={self.periodic}" if any(self.periodic) else ""
        return f"pscr.Problem(shape={self.shape}, dtype={self.dtype.name}, c={self.c}{periodic})"


def _right_hand_sides(problem, f, what):
    """f as a C-contiguous array of the problem's dtype (no copy when it already
    is one) and the number of right-hand sides it holds."""
    f = np.asarray(f)
    shape, d = problem.shape, problem.dims
    if f.ndim not in (d, d + 1) or f.shape[f.ndim - d:] != shape:
        raise SizeMismatch(f"{what}: shape {f.shape} (needs {shape} or (batch, {', '.join(map(str, shape))}))")
    f = _cast(f, problem.dtype, what)
    return f, (f.shape[0] if f.ndim > d else 1)


def _options(backend, radix, threads, device, devices, device_split, tuning_file, parameters, program_cache,
             refine, elimination, profile):
    """The pscr::Options of a plan, as a dict for the core module."""
    if not isinstance(profile, (bool, np.bool_)) and profile not in (0, 1):
        raise InvalidArgument(f"profile = {profile!r} (needs True or False)")
    options = {"backend": _string(backend, "backend"), "radix": _integer(radix, "radix"),
               "threads": _integer(threads, "threads"), "refine": _integer(refine, "refine"),
               "elimination": _string(elimination, "elimination"), "profile": bool(profile)}
    for key, value in (("device", device), ("tuning_file", tuning_file), ("program_cache", program_cache)):
        if value is not None:
            options[key] = str(value)
    if devices is not None:
        # a string is iterable too: "gpu" would be the devices "g", "p", "u"
        if isinstance(devices, (str, bytes)) or not hasattr(devices, "__iter__"):
            raise InvalidArgument(f"devices = {devices!r} (needs a list of device selectors)")
        options["devices"] = [str(d) for d in devices]
    options["device_split"] = _string(device_split, "device_split")
    if parameters is not None:
        options["parameters"] = _kernel_parameters(parameters)
    return options


def device_bytes(problem, *, radix=0, device=None, devices=None, device_split="batches", tuning_file=None,
                 parameters=None, program_cache=None, elimination="automatic"):
    """The device memory in bytes that Plan(problem, backend="opencl", ...) with
    these options would allocate on its (first) device, stated before any is
    allocated: the planner runs and the program is built, the plan's
    allocations are summed by the pass that checks them against the device
    (info["device_bytes"] of the plan, once made). Raises as the plan would,
    AllocationTooLarge for a plan past the device's memory.
    problem: a pscr.Problem."""
    if not isinstance(problem, Problem):
        raise InvalidArgument("device_bytes needs a pscr.Problem")
    options = _options("opencl", radix, 0, device, devices, device_split, tuning_file, parameters, program_cache,
                       0, elimination, False)
    return int(problem._core.device_bytes(options))


def _neumann_weights(problem):
    """w = (M1 1)⊗(M2 1)[⊗(M3 1)]: the weights of a pure Neumann solution's zero mean."""
    w = np.ones(1)
    for f in problem.factors:
        m = f[1]
        n = m.shape[1]
        rows = m[0].copy()
        rows[:n - 1] += m[1, :n - 1]
        rows[1:] += m[1, :n - 1]
        if f.periodic:
            rows[0] += m[1, n - 1]
            rows[n - 1] += m[1, n - 1]
        w = np.kron(w, rows)
    return w


class Plan:
    """A plan: the eigenpairs and layout of a problem, built once, that solves
    any number of right-hand sides (FFTW-style plan/execute split).

        plan = pscr.Plan([(A1, M1), (A2, M2)], c=0.25, backend="opencl")
        u = plan.solve(f)          # f: (n1, n2) or (batch, n1, n2); 3D likewise

    problem: a list of (A, M) pairs or Factors (then c, dtype, precision,
    periodic as for Problem) or a pscr.Problem. Periodic dimensions, and every
    dimension before one, are taken through their whole eigenbasis: on OpenCL
    by fast Fourier transforms where the periodic mesh is uniform, n even,
    n >= 8 and n / 2 a power of two, and the last dimension is not periodic
    ("Fourier transform" in info["dimension_methods"]), else by dense products
    ("dense products"); a periodic last dimension's cyclic lines in its
    eigenbasis ("cyclic lines (eigenbasis)").
    backend: "reference" (multithreaded host executor) or "opencl".
    radix: q >= 2, or 0 (automatic: the tuned value of the OpenCL device,
    16 on the host; for diagonally dominant problems of a million unknowns or
    more lowered to the smallest radix with as many levels; info["radix"]
    tells which; on OpenCL, uniform Dirichlet leading dimensions whose n + 1 is
    a power of two are taken by sine transforms instead, radix 0, and
    info["dimension_methods"] says how each dimension was taken). threads: host threads of
    the reference executor (0 = all cores, at most 1024). Whole numbers only:
    2.5 or "4" is refused, not truncated. device: OpenCL device, a substring
    of its name or "platform:device" (default $PSCR_DEVICE, else the first GPU);
    devices: several of them; device_split: "batches" (each device the whole
    plan and a share of a batch's right-hand sides) or "rows" (every solve
    split over the devices by rows of dimension 1, docs/distributed.md).
    tuning_file, parameters (a dict of kernel parameters), program_cache
    ("off" or a directory), refine (steps of iterative refinement), elimination
    ("automatic" or "ordinary"), profile: as pscr::Options (include/pscr/options.hpp).
    queue: a pyopencl.CommandQueue; the plan then lives in its context and
    solve() accepts pyopencl arrays of that context.
    """

    def __init__(self, problem, c=0.0, *, dtype=None, precision=None, backend="reference", radix=0,
                 threads=0, device=None, devices=None, device_split="batches", tuning_file=None, parameters=None,
                 program_cache=None, refine=0, elimination="automatic", profile=False, queue=None, periodic=None):
        if not isinstance(problem, Problem):
            problem = Problem(problem, c, dtype=dtype, precision=precision, periodic=periodic)
        elif periodic is not None:
            raise InvalidArgument("periodic is part of the Problem; give it there")
        elif dtype is not None or precision is not None:
            problem = Problem(problem.factors, problem.c, dtype=dtype, precision=precision)
        elif c != 0.0:
            raise InvalidArgument("c is part of the Problem; give it there")
        ## The pscr.Problem the plan solves.
        self.problem = problem
        ## Its NumPy dtype.
        self.dtype = problem.dtype
        ## The shape of one right-hand side, (n1, n2[, n3]).
        self.shape = problem.shape
        options = _options(backend, radix, threads, device, devices, device_split, tuning_file, parameters,
                           program_cache, refine, elimination, profile)
        self._queue = queue  # the pyopencl queue lives as long as the plan that uses it
        if queue is not None:
            if not isinstance(getattr(queue, "int_ptr", None), int):
                raise InvalidArgument(f"queue: needs a pyopencl.CommandQueue, not {type(queue).__name__}")
            options["queue"] = queue.int_ptr
        self._core = _PLAN[self.dtype](problem._core, options)
        info = self._core.info()
        self._opencl = info["backend"].startswith("opencl")
        ## What the last solve reported (a dict, see pscr::SolveStats), None before the first.
        self.last_stats = None
        if info["warning"]:
            warnings.warn(info["warning"], AccuracyWarning, stacklevel=2)

    @property
    def info(self):
        """Sizes, memory, kernel parameters and their source, timings (a dict; see pscr::PlanInfo)."""
        d = self._core.info()
        d.update(shape=self.shape, dims=self.problem.dims, dtype=self.dtype.name,
                 unknowns=self.problem.unknowns)
        return d

    def kernel_times(self):
        """Per-kernel device times summed over all solves (OpenCL with profile=True)."""
        return [{"kernel": k, "seconds": s, "launches": n} for k, s, n in self._core.kernel_times()]

    def set_parameters(self, parameters):
        """OpenCL: run from now on with these kernel parameters (a dict)."""
        self._core.set_parameters(_kernel_parameters(parameters))

    def empty_pinned(self, count=None):
        """A zeroed array for right-hand sides or solutions, of the plan's dtype
        and shape (a leading batch axis of `count`), in page-locked memory of
        the plan's (first) OpenCL device: solve(f, out=u) with f and u both
        such arrays copies them to and from the devices directly, without the
        staging's host copy (docs/host-arrays.md; plan.last_stats["staging"]
        says so). OpenCL plans only, not split by rows."""
        shape = ((count,) if count is not None else ()) + tuple(self.shape)
        return self._core.pinned_empty(list(shape))

    def solve(self, f, out=None):
        """u with A u = f. f: (n1, n2[, n3]) or a batch (k, n1, n2[, n3]).

        A C-contiguous f of the plan's dtype is read in place (no copy); other
        inputs are converted first. out: an array to receive u (C-contiguous,
        the plan's dtype, f's shape); out=f solves in place. The GIL is released
        during the solve. A pyopencl.array.Array of the plan's context is solved
        on the device (in place when out is f) and a pyopencl array returned.
        NumPy arrays reach an OpenCL device through page-locked staging, the
        copies of a batch overlapping its solves (docs/host-arrays.md);
        plan.last_stats then gives copy_in_seconds, solve_seconds,
        copy_out_seconds and the staging used (staging, staging_bytes).
        """
        if hasattr(f, "context") and hasattr(f, "data") and hasattr(f, "queue"):
            return self._solve_device(f, out)
        f, count = _right_hand_sides(self.problem, f, "f")
        if out is None:
            out = np.empty_like(f)
        else:
            if not isinstance(out, np.ndarray) or out.dtype != self.dtype or out.shape != f.shape \
                    or not out.flags.c_contiguous or not out.flags.writeable:
                raise InvalidArgument(f"out: needs a writable C-contiguous {self.dtype} array of shape {f.shape}")
            if out is not f and np.shares_memory(out, f):
                raise InvalidArgument("out overlaps f without being f")
        self.last_stats = self._core.solve(f, out, count)
        return out

    def _solve_device(self, f, out):
        if not self._opencl:
            raise InvalidArgument("pyopencl arrays need an OpenCL plan (backend='opencl' or queue=)")
        if f.context.int_ptr != self._core.context_ptr():
            raise InvalidArgument("the pyopencl array lives in another OpenCL context than the plan "
                                  "(create the plan with queue=your_queue)")
        if np.dtype(f.dtype) != self.dtype or not f.flags.c_contiguous or f.offset != 0:
            raise InvalidArgument(f"pyopencl array: needs a C-contiguous {self.dtype} array without offset")
        shape = self.shape
        if tuple(f.shape[-len(shape):]) != shape or len(f.shape) not in (len(shape), len(shape) + 1):
            raise SizeMismatch(f"f: shape {tuple(f.shape)} (needs {shape} or (batch, ...))")
        count = f.shape[0] if len(f.shape) > len(shape) else 1
        if out is None:
            out = f.copy()
        elif out is not f:
            raise InvalidArgument("out: for pyopencl arrays only out=f (in place) is supported")
        if count == 0:  # an empty batch has no buffer (data is None)
            return out
        out.finish()  # the copy (or the caller's work) is done before the plan's queue reads it
        self.last_stats = self._core.solve_buffer(out.data.int_ptr, count)
        return out

    def as_linear_operator(self):
        """A SciPy LinearOperator applying A⁻¹ (a preconditioner for Krylov methods),
        to vectors (matvec) and columns (matmat), and its adjoint (rmatvec, rmatmat:
        op.H, lsqr). A is symmetric (complex symmetric), so (A⁻¹)ᴴ x = conj(A⁻¹ conj(x)).
        A pure Neumann plan applies its solve S = R A⁺ with R = I − 1wᵀ/(wᵀ1) (the
        zero weighted mean, w = (M1 1)⊗(M2 1)[⊗(M3 1)]), whose adjoint is
        conj(A⁺ Rᵀ conj(x)). A real plan takes complex vectors by their real and
        imaginary parts."""
        from scipy.sparse.linalg import LinearOperator

        n, shape = self.problem.unknowns, self.shape
        real_plan = self.dtype.kind != "c"
        weights = _neumann_weights(self.problem) if self.info["pure_neumann"] else None

        def solve_columns(X):  # A⁻¹ X for X of shape (n, k)
            if real_plan and X.dtype.kind == "c":
                return solve_columns(X.real) + 1j * solve_columns(X.imag)
            k = X.shape[1]
            if k == 0:
                return np.zeros((n, 0), np.result_type(X.dtype, self.dtype))
            return self.solve(np.ascontiguousarray(X.T).reshape((k,) + shape)).reshape(k, n).T

        def adjoint_columns(X):
            Z = np.conj(X)
            if weights is None:
                return np.conj(solve_columns(Z))
            # A⁺ y is the solve's result less its mean (the solve's R only adds a constant)
            Z = Z - np.outer(weights, Z.sum(axis=0)) / weights.sum()
            V = solve_columns(Z)
            return np.conj(V - V.mean(axis=0))

        def columns(x):
            return np.asarray(x).reshape(n, -1)

        return LinearOperator((n, n), dtype=self.dtype,
                              matvec=lambda x: solve_columns(columns(x)).reshape(-1),
                              matmat=lambda X: solve_columns(np.asarray(X)),
                              rmatvec=lambda x: adjoint_columns(columns(x)).reshape(-1),
                              rmatmat=lambda X: adjoint_columns(np.asarray(X)))

    def __repr__(self):
        return f"pscr.Plan(shape={self.shape}, dtype={self.dtype.name}, backend={self.info['backend']!r})"
