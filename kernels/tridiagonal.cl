// Level-3 tridiagonal solver: (A + σ M) y = g for L independent lines stored
// interleaved, [row][line], so every stage reads and writes coalesced.
// The coefficients of the original system are generated from the factor A, M
// (diag|off) and the line's shift σ, never stored. Stages:
//   cr_reduce  one CR step in global memory (odd rows kept; reduced systems
//              normalised to unit diagonal; see `mode` below for storage),
//   cr_local   the remaining short system in local memory: PCR steps, then
//              Thomas on the 2^steps independent subsystems,
//   cr_back    one CR back-substitution step in global memory.
// Pinned lines (pure-Neumann null mode) are solved in the least-squares sense
// with their last unknown fixed at zero, after center_pinned.

typedef struct { scalar a, c, d; } row_t;  // a x_{i-1} + x_i + c x_{i+1} = d

// How a CR level is stored (`mode`):
//   1  level 0: coefficients generated from A, M, σ; d = S[i][line];
//   2  level 1: coefficients generated from three level-0 rows; only the d
//      plane is stored (saves writing and reading two planes of n/2 rows);
//   0  deeper levels: planes a | c | d of n rows.
// n0 is the length of level 0.

// Row i of level 0 without its right-hand side, normalised to unit diagonal;
// the returned d is 1/diagonal.
inline row_t level0_coef(__global const scalar* A, __global const scalar* M, int n0, int i, scalar sg, int pin) {
  scalar lo = i > 0 ? A[n0 + i - 1] + smul(sg, M[n0 + i - 1]) : ZERO;
  scalar up = i + 1 < n0 ? A[n0 + i] + smul(sg, M[n0 + i]) : ZERO;
  scalar di = A[i] + smul(sg, M[i]);
  if (pin && i == n0 - 1) { lo = ZERO; di = FROM_REAL(1); }
  if (pin && i == n0 - 2) up = ZERO;
  row_t o;
  o.d = srecip(di);
  o.a = smul(lo, o.d);
  o.c = smul(up, o.d);
  return o;
}

inline size_t d_plane(int mode, int n) { return mode == 0 ? (size_t)2 * n : 0; }
// Where the right-hand side (and, after back substitution, the solution) of row i lives.
inline size_t x_index(int mode, int n, int L, int line, int i) { return (d_plane(mode, n) + i) * L + line; }

// Row i of a level of length n, normalised.
inline row_t get_row(int mode, __global const scalar* S, int n, int L, int line, int i, __global const scalar* A,
                     __global const scalar* M, int n0, scalar sg, int pin) {
  row_t o;
  if (mode == 1) {
    o = level0_coef(A, M, n0, i, sg, pin);
    o.d = smul(S[(size_t)i * L + line], o.d);
  } else if (mode == 2) {
    // level-1 row i is level-0 row 2i+1 with rows 2i and 2i+2 eliminated
    const row_t m = level0_coef(A, M, n0, 2 * i, sg, pin), c = level0_coef(A, M, n0, 2 * i + 1, sg, pin);
    row_t p = {ZERO, ZERO, ZERO};
    if (2 * i + 2 < n0) p = level0_coef(A, M, n0, 2 * i + 2, sg, pin);
    const scalar r = srecip(FROM_REAL(1) - smul(c.a, m.c) - smul(c.c, p.a));
    o.a = -smul(smul(c.a, m.a), r);
    o.c = -smul(smul(c.c, p.c), r);
    o.d = S[(size_t)i * L + line];
  } else {
    o.a = S[(size_t)i * L + line];
    o.c = S[((size_t)n + i) * L + line];
    o.d = S[((size_t)2 * n + i) * L + line];
  }
  return o;
}

// Least-squares pinning of the null mode: subtract the mean, fix the last row.
__kernel void center_pinned(__global scalar* Y, int n, int L, __global const int* pinned) {
  const int line = get_global_id(0);
  if (line >= L || !pinned[line]) return;
  scalar mean = ZERO;
  for (int i = 0; i < n; ++i) mean += Y[(size_t)i * L + line];
  mean = mean / (real)n;
  for (int i = 0; i < n; ++i) Y[(size_t)i * L + line] -= mean;
  Y[(size_t)(n - 1) * L + line] = ZERO;
}

// One CR reduction step: level (in, n rows) → level (out, n/2 rows), row j of
// the output being row 2j+1 of the input with its neighbours eliminated.
// Global size (L, n/2).
__kernel void cr_reduce(__global const scalar* in, ulong in_off, int n, int in_mode, __global scalar* out,
                        ulong out_off, int out_mode, int L, __global const scalar* A, __global const scalar* M, int n0,
                        __global const scalar* sigma, __global const int* pinned) {
  const int line = get_global_id(0), j = get_global_id(1), no = n / 2;
  if (line >= L || j >= no) return;
  in += in_off;
  out += out_off;
  const scalar sg = sigma[line];
  const int pin = pinned[line], i = 2 * j + 1;
  const row_t m = get_row(in_mode, in, n, L, line, i - 1, A, M, n0, sg, pin);
  const row_t c = get_row(in_mode, in, n, L, line, i, A, M, n0, sg, pin);
  row_t p = {ZERO, ZERO, ZERO};
  if (i + 1 < n) p = get_row(in_mode, in, n, L, line, i + 1, A, M, n0, sg, pin);
  const scalar r = srecip(FROM_REAL(1) - smul(c.a, m.c) - smul(c.c, p.a));
  out[x_index(out_mode, no, L, line, j)] = smul(c.d - smul(c.a, m.d) - smul(c.c, p.d), r);
  if (out_mode == 0) {
    out[(size_t)j * L + line] = -smul(smul(c.a, m.a), r);
    out[((size_t)no + j) * L + line] = -smul(smul(c.c, p.c), r);
  }
}

// One CR back-substitution step: the solution of level (out, n/2 rows), held
// in its d plane, gives the odd rows of level (in, n rows); the even rows
// follow from their equations. Global size (L, (n+1)/2).
__kernel void cr_back(__global scalar* in, ulong in_off, int n, int in_mode, __global const scalar* out,
                      ulong out_off, int out_mode, int L, __global const scalar* A, __global const scalar* M, int n0,
                      __global const scalar* sigma, __global const int* pinned) {
  const int line = get_global_id(0), j = get_global_id(1), no = n / 2;
  if (line >= L || j >= (n + 1) / 2) return;
  in += in_off;
  out += out_off;
  const int i = 2 * j;
  const scalar xl = j > 0 ? out[x_index(out_mode, no, L, line, j - 1)] : ZERO;
  const scalar xr = i + 1 < n ? out[x_index(out_mode, no, L, line, j)] : ZERO;
  const row_t r = get_row(in_mode, in, n, L, line, i, A, M, n0, sigma[line], pinned[line]);
  in[x_index(in_mode, n, L, line, i)] = r.d - smul(r.a, xl) - smul(r.c, xr);
  if (i + 1 < n) in[x_index(in_mode, n, L, line, i + 1)] = xr;
}

// The short system of each line in local memory. Work-group (lanes, T) with
// T = 2^steps work-items per line: PCR steps until rows i and i±T decouple,
// then work-item t runs Thomas on rows t, t+T, t+2T, ... The solution
// replaces the right-hand side. `buf` holds 6·n·lanes scalars.
__kernel void cr_local(__global scalar* S, ulong off, int n, int mode, int L, __global const scalar* A,
                       __global const scalar* M, int n0, __global const scalar* sigma, __global const int* pinned,
                       __local scalar* buf) {
  const int lane = get_local_id(0), lanes = get_local_size(0);
  const int t = get_local_id(1), T = get_local_size(1);
  const int line = get_group_id(0) * lanes + lane;
  const int active = line < L;
  S += off;
  const size_t plane = (size_t)n * lanes;
  __local scalar* a = buf;
  __local scalar* c = buf + plane;
  __local scalar* d = buf + 2 * plane;
  __local scalar* a2 = buf + 3 * plane;
  __local scalar* c2 = buf + 4 * plane;
  __local scalar* d2 = buf + 5 * plane;
  if (active) {
    const scalar sg = sigma[line];
    const int pin = pinned[line];
    for (int i = t; i < n; i += T) {
      const row_t r = get_row(mode, S, n, L, line, i, A, M, n0, sg, pin);
      a[i * lanes + lane] = r.a;
      c[i * lanes + lane] = r.c;
      d[i * lanes + lane] = r.d;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 1; s < T; s *= 2) {
    for (int i = t; i < n; i += T) {
      const int k = i * lanes + lane, km = (i - s) * lanes + lane, kp = (i + s) * lanes + lane;
      const scalar ai = a[k], ci = c[k];
      const scalar am = i >= s ? a[km] : ZERO, cm = i >= s ? c[km] : ZERO, dm = i >= s ? d[km] : ZERO;
      const scalar ap = i + s < n ? a[kp] : ZERO, cp = i + s < n ? c[kp] : ZERO, dp = i + s < n ? d[kp] : ZERO;
      const scalar r = srecip(FROM_REAL(1) - smul(ai, cm) - smul(ci, ap));
      a2[k] = -smul(smul(ai, am), r);
      c2[k] = -smul(smul(ci, cp), r);
      d2[k] = smul(d[k] - smul(ai, dm) - smul(ci, dp), r);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // the rows just read are not read again: swap planes instead of copying
    __local scalar* tmp;
    tmp = a; a = a2; a2 = tmp;
    tmp = c; c = c2; c2 = tmp;
    tmp = d; d = d2; d2 = tmp;
  }
  if (!active || t >= n) return;
  // Thomas on rows t, t+T, ...: forward elimination, then back substitution.
  scalar cprev = ZERO, dprev = ZERO;
  int last = t;
  for (int i = t; i < n; i += T) {
    const int k = i * lanes + lane;
    const scalar r = srecip(FROM_REAL(1) - smul(a[k], cprev));
    cprev = smul(c[k], r);
    dprev = smul(d[k] - smul(a[k], dprev), r);
    c[k] = cprev;
    d[k] = dprev;
    last = i;
  }
  scalar x = d[last * lanes + lane];
  S[x_index(mode, n, L, line, last)] = x;
  for (int i = last - T; i >= 0; i -= T) {
    const int k = i * lanes + lane;
    x = d[k] - smul(c[k], x);
    S[x_index(mode, n, L, line, i)] = x;
  }
}
