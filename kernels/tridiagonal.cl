// Level-3 tridiagonal solver: (A + σ M) y = g for L independent lines stored
// interleaved, [row][line], so every stage reads and writes coalesced.
// The coefficients of the original system are generated from the factor A, M
// (diag|off) and the line's shift σ, never stored. Stages:
//   cr_reduce  one CR step in global memory (odd rows kept; reduced systems
//              stored normalised to unit diagonal as a, c, d planes),
//   cr_local   the remaining short system in local memory: PCR steps, then
//              Thomas on the 2^steps independent subsystems,
//   cr_back    one CR back-substitution step in global memory.
// The level-0 right-hand side is formed on the fly (rhs_t, level.cl); the
// solution is written to Y[row][line]. Pinned lines (pure-Neumann null mode)
// are solved in the least-squares sense: right-hand side minus its mean
// (center_pinned), last unknown fixed at zero.
// RHS_ARGS: the arguments that locate the right-hand sides.
#define RHS_PARAMS                                                                                                  \
  __global const scalar *X, __global const group_t *groups, __global const int *mode_group, __global const scalar *W, \
      __global const scalar *BL, __global const scalar *BR, int batch, int use_boundary, __global const scalar *means
#define LINE_RHS(n, line) line_rhs(X, groups, mode_group, W, BL, BR, (n), batch, use_boundary, (line))

typedef struct { scalar a, c, d; } row_t;  // a x_{i-1} + x_i + c x_{i+1} = d

// Row i of a line, normalised. Level 0 (generated): from A, M, σ and the
// right-hand side S[i][line]; stored levels: planes a | c | d of n rows.
inline row_t get_row(int generated, __global const scalar* S, int n, int L, int line, int i,
                     __global const scalar* A, __global const scalar* M, scalar sg, int pin, const rhs_t* rs,
                     scalar mean) {
  row_t o;
  if (generated) {
    scalar lo = i > 0 ? A[n + i - 1] + smul(sg, M[n + i - 1]) : ZERO;
    scalar up = i + 1 < n ? A[n + i] + smul(sg, M[n + i]) : ZERO;
    scalar di = A[i] + smul(sg, M[i]);
    if (pin && i == n - 1) { lo = ZERO; di = FROM_REAL(1); }
    if (pin && i == n - 2) up = ZERO;
    const scalar r = srecip(di);
    o.a = smul(lo, r);
    o.c = smul(up, r);
    const scalar g = pin ? (i == n - 1 ? ZERO : rhs_at(rs, i) - mean) : rhs_at(rs, i);
    o.d = smul(g, r);
  } else {
    o.a = S[(size_t)i * L + line];
    o.c = S[((size_t)n + i) * L + line];
    o.d = S[((size_t)2 * n + i) * L + line];
  }
  return o;
}

// Where the solution of row i lives: Y at level 0, the d plane of a stored level.
inline size_t x_index(int generated, int n, int L, int line, int i) {
  return generated ? (size_t)i * L + line : ((size_t)2 * n + i) * L + line;
}

// Mean of the right-hand side of each pinned line (least-squares pinning of
// the null mode). Global size L.
__kernel void center_pinned(int n, int L, __global const int* pinned, RHS_PARAMS, __global scalar* out_means) {
  const int line = get_global_id(0);
  if (line >= L || !pinned[line]) return;
  const rhs_t rs = LINE_RHS(n, line);
  scalar mean = ZERO;
  for (int i = 0; i < n; ++i) mean += rhs_at(&rs, i);
  out_means[line] = mean / (real)n;
}

// One CR reduction step: level (in, n rows) → level (out, n/2 rows), row j of
// the output being row 2j+1 of the input with its neighbours eliminated.
// Global size (L, n/2).
__kernel void cr_reduce(__global const scalar* in, ulong in_off, int n, int generated, __global scalar* out,
                        ulong out_off, int L, __global const scalar* A, __global const scalar* M,
                        __global const scalar* sigma, __global const int* pinned, RHS_PARAMS) {
  const int line = get_global_id(0), j = get_global_id(1), no = n / 2;
  if (line >= L || j >= no) return;
  in += in_off;
  out += out_off;
  const scalar sg = sigma[line];
  const int pin = pinned[line], i = 2 * j + 1;
  rhs_t rs;
  if (generated) rs = LINE_RHS(n, line);
  const scalar mean = pin ? means[line] : ZERO;
  const row_t m = get_row(generated, in, n, L, line, i - 1, A, M, sg, pin, &rs, mean);
  const row_t c = get_row(generated, in, n, L, line, i, A, M, sg, pin, &rs, mean);
  row_t p = {ZERO, ZERO, ZERO};
  if (i + 1 < n) p = get_row(generated, in, n, L, line, i + 1, A, M, sg, pin, &rs, mean);
  const scalar r = srecip(FROM_REAL(1) - smul(c.a, m.c) - smul(c.c, p.a));
  out[(size_t)j * L + line] = -smul(smul(c.a, m.a), r);
  out[((size_t)no + j) * L + line] = -smul(smul(c.c, p.c), r);
  out[((size_t)2 * no + j) * L + line] = smul(c.d - smul(c.a, m.d) - smul(c.c, p.d), r);
}

// One CR back-substitution step: the solution of level (out, n/2 rows), held
// in its d plane, gives the odd rows of level (in, n rows); the even rows
// follow from their equations. Global size (L, (n+1)/2).
__kernel void cr_back(__global scalar* in, ulong in_off, int n, int generated, __global const scalar* out,
                      ulong out_off, int L, __global const scalar* A, __global const scalar* M,
                      __global const scalar* sigma, __global const int* pinned, RHS_PARAMS) {
  const int line = get_global_id(0), j = get_global_id(1), no = n / 2;
  if (line >= L || j >= (n + 1) / 2) return;
  const int pin = pinned[line];
  rhs_t rs;
  if (generated) rs = LINE_RHS(n, line);
  const scalar mean = pin ? means[line] : ZERO;
  in += in_off;
  out += out_off;
  const int i = 2 * j;
  const scalar xl = j > 0 ? out[((size_t)2 * no + j - 1) * L + line] : ZERO;
  const scalar xr = i + 1 < n ? out[((size_t)2 * no + j) * L + line] : ZERO;
  const row_t r = get_row(generated, in, n, L, line, i, A, M, sigma[line], pin, &rs, mean);
  in[x_index(generated, n, L, line, i)] = r.d - smul(r.a, xl) - smul(r.c, xr);
  if (i + 1 < n) in[x_index(generated, n, L, line, i + 1)] = xr;
}

// The short system of each line in local memory. Work-group (lanes, T) with
// T = 2^steps work-items per line: PCR steps until rows i and i±T decouple,
// then work-item t runs Thomas on rows t, t+T, t+2T, ... The solution
// replaces the right-hand side. `buf` holds 6·n·lanes scalars.
__kernel void cr_local(__global scalar* S, ulong off, int n, int generated, int L, __global const scalar* A,
                       __global const scalar* M, __global const scalar* sigma, __global const int* pinned,
                       RHS_PARAMS, __local scalar* buf) {
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
    rhs_t rs;
    if (generated) rs = LINE_RHS(n, line);
    const scalar mean = pin ? means[line] : ZERO;
    for (int i = t; i < n; i += T) {
      const row_t r = get_row(generated, S, n, L, line, i, A, M, sg, pin, &rs, mean);
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
  S[x_index(generated, n, L, line, last)] = x;
  for (int i = last - T; i >= 0; i -= T) {
    const int k = i * lanes + lane;
    x = d[k] - smul(c[k], x);
    S[x_index(generated, n, L, line, i)] = x;
  }
}
