// Level-3 tridiagonal solver: (A + σ M) y = g for L independent lines stored
// interleaved, [row][line], so every stage reads and writes coalesced.
// The coefficients of the original system are generated from the factor A, M
// (diag|off) and the line's shift σ, never stored. Stages:
//   cr_reduce  one CR step in global memory (odd rows kept; reduced systems
//              normalised to unit diagonal; see `mode` below for storage);
//              cr_reduce2 takes two steps at once,
//   cr_local   the remaining short system in local memory: PCR steps, then
//              Thomas on the 2^steps independent subsystems,
//   cr_back    one CR back-substitution step in global memory; cr_back2
//              two at once.
// Pinned lines (pure-Neumann null mode) are solved in the least-squares sense
// with their last unknown fixed at zero, after center_pinned.

typedef struct { scalar a, c, d; } row_t;  // a x_{i-1} + x_i + c x_{i+1} = d

// How a CR level is stored (`mode`):
//   1  level 0: coefficients generated from A, M, σ; d = S[i][line];
//   0  reduced levels: planes a | c | d of n rows.
// Levels are taken two at a time where possible (cr_reduce2, cr_back2): the
// level in between is never stored.
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

// Row i of the middle of three consecutive rows (m, c, p) with its
// neighbours eliminated, normalised: one CR reduction of one row.
inline row_t cr_combine(row_t m, row_t c, row_t p) {
  const scalar r = srecip(FROM_REAL(1) - smul(c.a, m.c) - smul(c.c, p.a));
  row_t o;
  o.a = -smul(smul(c.a, m.a), r);
  o.c = -smul(smul(c.c, p.c), r);
  o.d = smul(c.d - smul(c.a, m.d) - smul(c.c, p.d), r);
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
  const row_t o = cr_combine(m, c, p);
  out[x_index(out_mode, no, L, line, j)] = o.d;
  if (out_mode == 0) {
    out[(size_t)j * L + line] = o.a;
    out[((size_t)no + j) * L + line] = o.c;
  }
}

// Row i of the next level, computed from three rows of level (S, n rows).
inline row_t next_row(int mode, __global const scalar* S, int n, int L, int line, int i, __global const scalar* A,
                      __global const scalar* M, int n0, scalar sg, int pin) {
  const row_t m = get_row(mode, S, n, L, line, 2 * i, A, M, n0, sg, pin);
  const row_t c = get_row(mode, S, n, L, line, 2 * i + 1, A, M, n0, sg, pin);
  row_t p = {ZERO, ZERO, ZERO};
  if (2 * i + 2 < n) p = get_row(mode, S, n, L, line, 2 * i + 2, A, M, n0, sg, pin);
  return cr_combine(m, c, p);
}

// Two CR reduction steps at once: level k (in, n rows) → level k+2 (out,
// planes a | c | d of n/4 rows). Level k+1 is never written or read back,
// which halves the traffic of the reduction; its rows are regenerated in
// registers from level k. Global size (L, n/4).
__kernel void cr_reduce2(__global const scalar* in, ulong in_off, int n, int in_mode, __global scalar* out,
                         ulong out_off, int L, __global const scalar* A, __global const scalar* M, int n0,
                         __global const scalar* sigma, __global const int* pinned) {
  const int line = get_global_id(0), j = get_global_id(1), n1 = n / 2, n2 = n1 / 2;
  if (line >= L || j >= n2) return;
  in += in_off;
  out += out_off;
  const scalar sg = sigma[line];
  const int pin = pinned[line];
  const row_t m = next_row(in_mode, in, n, L, line, 2 * j, A, M, n0, sg, pin);
  const row_t c = next_row(in_mode, in, n, L, line, 2 * j + 1, A, M, n0, sg, pin);
  row_t p = {ZERO, ZERO, ZERO};
  if (2 * j + 2 < n1) p = next_row(in_mode, in, n, L, line, 2 * j + 2, A, M, n0, sg, pin);
  const row_t o = cr_combine(m, c, p);
  out[(size_t)j * L + line] = o.a;
  out[((size_t)n2 + j) * L + line] = o.c;
  out[((size_t)2 * n2 + j) * L + line] = o.d;
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

// Two CR back-substitution steps at once: the solution of level k+2 (its d
// plane at out, n/4 rows) gives level k (in, n rows) in place. Work-item j
// writes rows 4j … 4j+3 of level k and reads only those rows of it; the
// level-(k+1) row in between is regenerated from them. Global size
// (L, ceil(n/4)).
__kernel void cr_back2(__global scalar* in, ulong in_off, int n, int in_mode, __global const scalar* out,
                       ulong out_off, int L, __global const scalar* A, __global const scalar* M, int n0,
                       __global const scalar* sigma, __global const int* pinned) {
  const int line = get_global_id(0), j = get_global_id(1), n1 = n / 2, n2 = n1 / 2;
  if (line >= L || j >= (n + 3) / 4) return;
  in += in_off;
  out += out_off;
  const scalar sg = sigma[line];
  const int pin = pinned[line];
  // level-(k+1) solutions at rows 2j-1, 2j, 2j+1 (level-k rows 4j-1, 4j+1, 4j+3)
  const scalar xm = j > 0 ? out[x_index(0, n2, L, line, j - 1)] : ZERO;
  const scalar xp = j < n2 ? out[x_index(0, n2, L, line, j)] : ZERO;
  scalar xc = ZERO;
  if (2 * j < n1) {
    const row_t r = next_row(in_mode, in, n, L, line, 2 * j, A, M, n0, sg, pin);
    xc = r.d - smul(r.a, xm) - smul(r.c, xp);
  }
  const row_t r0 = get_row(in_mode, in, n, L, line, 4 * j, A, M, n0, sg, pin);
  const scalar x0 = r0.d - smul(r0.a, xm) - smul(r0.c, xc);
  scalar x2 = ZERO;
  if (4 * j + 2 < n) {
    const row_t r2 = get_row(in_mode, in, n, L, line, 4 * j + 2, A, M, n0, sg, pin);
    x2 = r2.d - smul(r2.a, xc) - smul(r2.c, xp);
  }
  // every read of level k is done before the first write
  in[x_index(in_mode, n, L, line, 4 * j)] = x0;
  if (4 * j + 1 < n) in[x_index(in_mode, n, L, line, 4 * j + 1)] = xc;
  if (4 * j + 2 < n) in[x_index(in_mode, n, L, line, 4 * j + 2)] = x2;
  if (4 * j + 3 < n) in[x_index(in_mode, n, L, line, 4 * j + 3)] = xp;
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
