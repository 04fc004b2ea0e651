// libpscr OpenCL kernels: one PSCR level pass over arrays laid out
// [row][rest][batch] with the batch (independent problems) fastest, so that
// consecutive work-items touch consecutive addresses.
// Compile-time definitions: SCALAR_DOUBLE or not, SCALAR_COMPLEX or not,
// KEPT (q+1: eigenvector rows kept per group), NSRC (q-1). One rest dimension
// is passed as n3 = 0.
#ifdef SCALAR_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
#else
typedef float real;
typedef float2 real2;
#endif

#ifdef SCALAR_COMPLEX
typedef real2 scalar;
inline scalar smul(scalar a, scalar b) { return (scalar)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
inline scalar sdiv(scalar a, scalar b) {
  const real d = b.x * b.x + b.y * b.y;
  return (scalar)((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}
#define ZERO ((scalar)(0, 0))
#define FROM_REAL(v) ((scalar)((v), 0))
#else
typedef real scalar;
#define smul(a, b) ((a) * (b))
#define sdiv(a, b) ((a) / (b))
#define ZERO ((scalar)0)
#define FROM_REAL(v) ((scalar)(v))
#endif

// A group of one level. Rows are absolute in the PSCR dimension.
typedef struct {
  int start, end, nsrc, mode0, m;
  int src_row[NSRC];
  int src_pos[NSRC];
  int start_pos, end_pos;
} group_t;

// Factor pencils of the rest dimensions: diag/off of A and M for dimension
// d+1 (and d+2 when REST_DIMS == 2), packed as A.diag | A.off | M.diag | M.off.
inline scalar tri(__global const scalar* f, int n, int i, int j) {
  // entry (i, j) of the tridiagonal at f (diag n, off n-1)
  if (i == j) return f[i];
  if (j == i + 1) return f[n + i];
  if (j == i - 1) return f[n + j];
  return ZERO;
}

// y[r] = (alpha·M_r + beta·A_r) x at rest index r for one batch lane.
inline scalar apply_rest(__global const scalar* x, int r, int batch, int b, scalar alpha, scalar beta,
                         __global const scalar* A2, __global const scalar* M2, int n2,
                         __global const scalar* A3, __global const scalar* M3, int n3) {
  scalar s = ZERO;
  if (n3 == 0) {
  for (int a = max(r - 1, 0); a <= min(r + 1, n2 - 1); ++a) {
    const scalar c = smul(alpha, tri(M2, n2, r, a)) + smul(beta, tri(A2, n2, r, a));
    s += smul(c, x[(size_t)a * batch + b]);
  }
  } else {
  // (alpha M2 + beta A2)⊗M3 + M2⊗(beta A3)
  const int r2 = r / n3, r3 = r % n3;
  for (int a2 = max(r2 - 1, 0); a2 <= min(r2 + 1, n2 - 1); ++a2) {
    const scalar p = smul(alpha, tri(M2, n2, r2, a2)) + smul(beta, tri(A2, n2, r2, a2));
    const scalar m2 = tri(M2, n2, r2, a2);
    for (int a3 = max(r3 - 1, 0); a3 <= min(r3 + 1, n3 - 1); ++a3) {
      const scalar c = smul(p, tri(M3, n3, r3, a3)) + smul(m2, smul(beta, tri(A3, n3, r3, a3)));
      s += smul(c, x[((size_t)a2 * n3 + a3) * batch + b]);
    }
  }
  }
  return s;
}

// Right-hand sides of the partial solutions: Y[r][mode][b] =
//   Σ_p W[src_p, l] X[src_p][r][b] − W[s, l] BL[g][r][b] − W[e, l] BR[g][r][b].
// Global size (batch, modes, R).
__kernel void form_rhs(__global const scalar* X, __global scalar* Y, __global const group_t* groups,
                       __global const int* mode_group, __global const scalar* W, __global const scalar* BL,
                       __global const scalar* BR, int R, int batch, int modes, int use_boundary) {
  const int b = get_global_id(0), mode = get_global_id(1), r = get_global_id(2);
  if (b >= batch || mode >= modes || r >= R) return;
  const int gi = mode_group[mode];
  const group_t g = groups[gi];
  __global const scalar* w = W + (size_t)mode * KEPT;
  scalar s = ZERO;
  for (int p = 0; p < g.nsrc; ++p) s += smul(w[g.src_pos[p]], X[((size_t)g.src_row[p] * R + r) * batch + b]);
  if (use_boundary) {
    const size_t o = ((size_t)gi * R + r) * batch + b;
    s -= smul(w[g.start_pos], BL[o]) + smul(w[g.end_pos], BR[o]);
  }
  Y[((size_t)r * modes + mode) * batch + b] = s;
}

// Thomas solves of (A + σ M) y = g along the row index for every line, with
// per-line shifts. `pinned` lines are the pure-Neumann null mode: least-squares
// solve with y[n-1] = 0.
__kernel void thomas(__global scalar* Y, __global scalar* CP, __global const scalar* A, __global const scalar* M,
                     int n, __global const scalar* sigma, __global const int* pinned, int lines) {
  const int line = get_global_id(0);
  if (line >= lines) return;
  const scalar sg = sigma[line];
  int ne = n;
  if (pinned[line]) {
    scalar mean = ZERO;
    for (int i = 0; i < n; ++i) mean += Y[(size_t)i * lines + line];
    mean = mean / (real)n;
    for (int i = 0; i < n; ++i) Y[(size_t)i * lines + line] -= mean;
    Y[(size_t)(n - 1) * lines + line] = ZERO;
    ne = n - 1;
  }
  __global const scalar* Ad = A;
  __global const scalar* Ao = A + n;
  __global const scalar* Md = M;
  __global const scalar* Mo = M + n;
  scalar cprev = ZERO, yprev = ZERO;
  for (int i = 0; i < ne; ++i) {
    const scalar lo = i > 0 ? Ao[i - 1] + smul(sg, Mo[i - 1]) : ZERO;
    const scalar up = i + 1 < ne ? Ao[i] + smul(sg, Mo[i]) : ZERO;
    const scalar den = Ad[i] + smul(sg, Md[i]) - smul(lo, cprev);
    const size_t o = (size_t)i * lines + line;
    cprev = sdiv(up, den);
    yprev = sdiv(Y[o] - smul(lo, yprev), den);
    CP[o] = cprev;
    Y[o] = yprev;
  }
  for (int i = ne - 2; i >= 0; --i) {
    const size_t o = (size_t)i * lines + line;
    yprev = Y[o] - smul(CP[o], yprev);
    Y[o] = yprev;
  }
}

// Partial-solution outputs: out[g][t][r][b] = Σ_l W[pos_t, l] Y[r][mode0+l][b],
// for the kept positions listed in outpos[g][t]; written to OUT (reduction:
// buffer V, NOUT = 2) or straight into the source rows of X (back substitution).
// Global size (batch, R, groups*NOUT).
__kernel void accumulate(__global const scalar* Y, __global const group_t* groups, __global const scalar* W,
                         __global scalar* V, __global scalar* X, int R, int batch, int modes, int ngroups,
                         int to_sources) {
  const int b = get_global_id(0), r = get_global_id(1), gt = get_global_id(2);
  const int nout = to_sources ? NSRC : 2;
  if (b >= batch || r >= R || gt >= ngroups * nout) return;
  const int gi = gt / nout, t = gt % nout;
  const group_t g = groups[gi];
  int pos, row = -1;
  if (to_sources) {
    if (t >= g.nsrc) return;
    pos = g.src_pos[t];
    row = g.src_row[t];
  } else {
    pos = t == 0 ? g.start_pos : g.end_pos;
  }
  scalar s = ZERO;
  for (int l = 0; l < g.m; ++l)
    s += smul(W[(size_t)(g.mode0 + l) * KEPT + pos], Y[((size_t)r * modes + g.mode0 + l) * batch + b]);
  if (to_sources) X[((size_t)row * R + r) * batch + b] = s;
  else V[(((size_t)gi * 2 + t) * R + r) * batch + b] = s;
}

// Block products with the rest operator at shift sigma[b]:
//   B(j, j2) x = (A_d)_{j j2} M_r x + (M_d)_{j j2} (A_r + σ M_r) x.
inline scalar block(__global const scalar* Fd, int n, int j, int j2, __global const scalar* x, int r, int batch,
                    int b, scalar sg, __global const scalar* A2, __global const scalar* M2, int n2,
                    __global const scalar* A3, __global const scalar* M3, int n3) {
  const scalar a = tri(Fd, n, j, j2), m = tri(Fd + 2 * n - 1, n, j, j2);
  return apply_rest(x, r, batch, b, a + smul(m, sg), m, A2, M2, n2, A3, M3, n3);
}

// Reduction update of the rows of J_i: X_j -= B(j,j-1) v_e(left) + B(j,j+1) v_s(right).
// Global size (batch, R, survivors).
__kernel void update_survivors(__global scalar* X, __global const scalar* V, __global const int* survivors,
                               int nsurv, int ngroups, __global const scalar* Fd, int n, __global const scalar* sigma,
                               int R, int batch, __global const scalar* A2, __global const scalar* M2, int n2,
                               __global const scalar* A3, __global const scalar* M3, int n3) {
  const int b = get_global_id(0), r = get_global_id(1), t = get_global_id(2);
  if (b >= batch || r >= R || t >= nsurv) return;
  const int j = survivors[t];
  const scalar sg = sigma[b];
  scalar s = block(Fd, n, j, j - 1, V + ((size_t)t * 2 + 1) * R * batch, r, batch, b, sg, A2, M2, n2, A3, M3, n3);
  if (t + 1 < ngroups) s += block(Fd, n, j, j + 1, V + ((size_t)(t + 1) * 2) * R * batch, r, batch, b, sg, A2, M2, n2, A3, M3, n3);
  X[((size_t)j * R + r) * batch + b] -= s;
}

// Back-substitution boundary terms: BL[g] = B(s,s-1) u_{s-1}, BR[g] = B(e,e+1) u_{e+1}.
// Global size (batch, R, groups).
__kernel void boundary_terms(__global const scalar* X, __global scalar* BL, __global scalar* BR,
                             __global const group_t* groups, int ngroups, __global const scalar* Fd, int n,
                             __global const scalar* sigma, int R, int batch, __global const scalar* A2,
                             __global const scalar* M2, int n2, __global const scalar* A3, __global const scalar* M3,
                             int n3) {
  const int b = get_global_id(0), r = get_global_id(1), gi = get_global_id(2);
  if (b >= batch || r >= R || gi >= ngroups) return;
  const group_t g = groups[gi];
  const scalar sg = sigma[b];
  const size_t o = ((size_t)gi * R + r) * batch + b;
  BL[o] = g.start > 0 ? block(Fd, n, g.start, g.start - 1, X + (size_t)(g.start - 1) * R * batch, r, batch, b, sg, A2, M2, n2, A3, M3, n3) : ZERO;
  BR[o] = g.end < n - 1 ? block(Fd, n, g.end, g.end + 1, X + (size_t)(g.end + 1) * R * batch, r, batch, b, sg, A2, M2, n2, A3, M3, n3) : ZERO;
}

// Per-line shifts and null-mode flags for the child problems of a level:
// line = mode*batch + b.
__kernel void child_shifts(__global const scalar* sigma, __global const scalar* lambda, __global const int* pinned,
                           __global const int* zero_mode_flag, __global scalar* child_sigma, __global int* child_pinned,
                           int batch, int modes) {
  const int b = get_global_id(0), mode = get_global_id(1);
  if (b >= batch || mode >= modes) return;
  child_sigma[mode * batch + b] = sigma[b] + lambda[mode];
  child_pinned[mode * batch + b] = pinned[b] && zero_mode_flag[mode];
}
