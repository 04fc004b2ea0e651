// Level-3 tridiagonal solver: (A + σ M) y = g for L independent lines stored
// interleaved, [row][line], so every stage reads and writes coalesced.
// The coefficients of the original system are generated from the packed
// factor (coef_t below) and the line's shift σ, never stored. Stages:
//   cr_reduce  one CR step in global memory (odd rows kept; reduced systems
//              normalised to unit diagonal; see `mode` below for storage);
//              cr_reduce2 takes two steps at once,
//   cr_local   the remaining short system in local memory: PCR steps, then
//              Thomas on the 2^steps independent subsystems,
//   cr_back    one CR back-substitution step in global memory; cr_back2
//              two at once.
// Pinned lines (pure-Neumann null mode) are solved in the least-squares sense
// with their last unknown fixed at zero, after center_pinned.

// A row of a symmetric tridiagonal system,
//   lo x_{i-1} + diag x_i + up x_{i+1} = g,
// with s the diagonal, or with EXCESS_FORM its excess
// e = diag − |lo| − |up| (the diagonal dominance; docs/accuracy.md). In the
// excess form every elimination adds non-negative numbers only: the plan
// chooses it when every system it meets is diagonally dominant, so that a
// small shift σ is carried to full relative precision instead of being lost
// in the last bits of the diagonal.
// On the ordinary path, `watch` is the relative size of the pivot the row was
// formed with (|new diagonal| over the terms it came from; 1 if none): below
// PIVOT_LIMIT (√ε) more than half the digits are lost, and the kernel records
// the line in flags[1] for the host to report (the elimination does not pivot).
#ifdef EXCESS_FORM
typedef struct { scalar lo, s, up, g; } row_t;
#define WATCH_INIT
#define UNWATCHED(r)
#else
typedef struct { scalar lo, s, up, g; real watch; } row_t;
#define WATCH_INIT , 1
#define UNWATCHED(r) ((r).watch = 1)  // a row read or generated, not formed here
#endif
// Records a line whose elimination met a small pivot: flags[1] = line + 1,
// and its shift sg in the scalar FLAGS_SHIFT_INTS ints on (the host's
// kFlagsShiftOffset, solve_flags.hpp), which the host's report names (a line's index
// alone does not say which launch, and so which shifts, it belonged to).
#ifndef FLAGS_SHIFT_INTS
#error "FLAGS_SHIFT_INTS is set by the host (program_options.cpp)"
#endif
inline void near_singular(__global int* flags, int line, scalar sg) {
  flags[1] = line + 1;
  *(__global scalar*)(flags + FLAGS_SHIFT_INTS) = sg;
}
inline void watch_pivot(row_t r, __global int* flags, int line, scalar sg) {
#ifndef EXCESS_FORM
  if (r.watch < (real)PIVOT_LIMIT) near_singular(flags, line, sg);
#endif
}

#ifdef EXCESS_FORM
inline scalar row_diag(row_t r) { return r.s + fabs(r.lo) + fabs(r.up); }
#else
inline scalar row_diag(row_t r) { return r.s; }
#endif

// How a CR level is stored (`mode`):
//   1  level 0: coefficients generated from C and σ; g = S[i][line];
//   0  reduced levels: planes o | s | g of n rows, o_i the coupling of rows
//      i and i+1 (the system stays symmetric under CR).
// Levels are taken two at a time where possible (cr_reduce2, cr_back2): the
// level in between is never stored.
// n0 is the length of level 0. C is the last factor packed per row (built by
// src/opencl/line_coefficients.hpp): entry i holds the coupling of rows i and
// i+1 in A and M (zero for the last row) and, for the diagonal, A_ii and M_ii
// or, with EXCESS_FORM, the signed row sums ra_i and rm_i; entry n0 is row
// n0 − 2 without its right neighbour (pinned systems).
typedef struct {
  scalar ao, mo, ad, md;
} coef_t;
// the host packs the same rows (src/opencl/line_coefficients.hpp): a build of
// another layout fails here
typedef char coef_t_matches_the_host_rows[sizeof(coef_t) == COEF_SCALARS * sizeof(scalar) ? 1 : -1];

// The coupling of a row to the next at shift sg, from its packed entry.
inline scalar entry_coupling(coef_t c, scalar sg) { return c.ao + smul(sg, c.mo); }
// The coupling of rows i and i+1 of level 0 (zero past the end).
inline scalar level0_coupling(__global const coef_t* C, int i, scalar sg) { return entry_coupling(C[i], sg); }

// Row i of level 0 without its right-hand side, from its packed entry c and
// its coupling lo to row i − 1 (C is read only for the pinned cut).
inline row_t level0_row(coef_t c, scalar lo, __global const coef_t* C, int n0, int i, scalar sg, int pin) {
  row_t o;
  UNWATCHED(o);
  o.lo = lo;
  o.up = entry_coupling(c, sg);
  o.g = ZERO;
  if (pin && i == n0 - 1) {  // the pinned unknown: x = 0
    o.lo = ZERO;
    o.s = FROM_REAL(1);
    return o;
  }
  if (pin && i == n0 - 2) {  // its neighbour, cut from it
    o.up = ZERO;
    c = C[n0];
  }
#ifdef EXCESS_FORM
  o.s = c.ad + sg * c.md - 2 * fmax(o.lo, ZERO) - 2 * fmax(o.up, ZERO);
#else
  o.s = c.ad + smul(sg, c.md);
#endif
  return o;
}

// Row i of level 0 without its right-hand side.
inline row_t level0_coef(__global const coef_t* C, int n0, int i, scalar sg, int pin) {
  return level0_row(C[i], i > 0 ? level0_coupling(C, i - 1, sg) : ZERO, C, n0, i, sg, pin);
}

// The multipliers of one CR (or PCR) reduction of row c by its neighbours m
// and p: row c − wl·row m − wr·row p.
typedef struct {
  scalar wl, wr;
} cr_weights_t;
inline cr_weights_t cr_weights(row_t m, row_t c, row_t p) {
#if defined(SCALAR_DOUBLE) && !defined(SCALAR_COMPLEX)
  // one division for both reciprocals (the product of two diagonals stays in range for
  // diagonals between 1e-150 and 1e150)
  const scalar dm = row_diag(m), dp = row_diag(p), r = srecip(dm * dp);
  const scalar rm = dp * r, rp = dm * r;
#else
  const scalar rm = srecip(row_diag(m)), rp = srecip(row_diag(p));
#endif
  cr_weights_t w = {smul(c.lo, rm), smul(c.up, rp)};
  return w;
}
// The right-hand side of the reduced row.
inline scalar cr_rhs(cr_weights_t w, scalar gm, scalar gc, scalar gp) { return gc - smul(w.wl, gm) - smul(w.wr, gp); }

// The middle of three consecutive rows (m, c, p) with its neighbours
// eliminated: one CR (or PCR) reduction of one row. An absent p is the
// identity row with a zero right-hand side.
inline row_t cr_combine(row_t m, row_t c, row_t p) {
  const cr_weights_t w = cr_weights(m, c, p);
  const scalar wl = w.wl, wr = w.wr;
  row_t o;
  o.lo = -smul(wl, m.lo);
  o.up = -smul(wr, p.up);
  o.g = cr_rhs(w, m.g, c.g, p.g);
#ifdef EXCESS_FORM
  o.s = c.s + fabs(wl) * m.s + fabs(wr) * p.s;
#else
  const scalar tl = smul(wl, m.up), tr = smul(wr, p.lo);
  o.s = c.s - tl - tr;
  o.watch = fmin(fmin(m.watch, c.watch), fmin(p.watch, abs1(o.s) / (abs1(c.s) + abs1(tl) + abs1(tr))));
#endif
  return o;
}

inline row_t identity_row(void) {
  row_t o = {ZERO, FROM_REAL(1), ZERO, ZERO WATCH_INIT};
  return o;
}

// x_i from its row and the solutions on both sides.
inline scalar back_solve(row_t r, scalar xl, scalar xr) {
  return sdiv(r.g - smul(r.lo, xl) - smul(r.up, xr), row_diag(r));
}

inline size_t g_plane(int mode, int n) { return mode == 0 ? (size_t)2 * n : 0; }
// Where the right-hand side (and, after back substitution, the solution) of row i lives.
inline size_t x_index(int mode, int n, int L, int line, int i) { return (g_plane(mode, n) + i) * L + line; }

// Row i of a level of length n.
inline row_t get_row(int mode, __global const scalar* S, int n, int L, int line, int i, __global const coef_t* C, int n0,
                     scalar sg, int pin) {
  row_t o;
  if (mode == 1) {
    o = level0_coef(C, n0, i, sg, pin);
    o.g = S[(size_t)i * L + line];
  } else {
    UNWATCHED(o);  // checked when it was formed
    o.lo = i > 0 ? S[(size_t)(i - 1) * L + line] : ZERO;
    o.up = i + 1 < n ? S[(size_t)i * L + line] : ZERO;
    o.s = S[((size_t)n + i) * L + line];
    o.g = S[((size_t)2 * n + i) * L + line];
  }
  return o;
}

// Stores row j of a reduced level (planes o | s | g of n rows).
inline void put_row(__global scalar* S, int n, int L, int line, int j, row_t r) {
  S[(size_t)j * L + line] = r.up;
  S[((size_t)n + j) * L + line] = r.s;
  S[((size_t)2 * n + j) * L + line] = r.g;
}

// Least-squares pinning of the null mode: subtract the mean, fix the last row.
// Row i of line l is Y[i·row_stride + l·line_stride] ([row][line]: L, 1;
// whole lines, line_solve.cl: 1, n).
__kernel void center_pinned(__global scalar* Y, int n, int L, ulong row_stride, ulong line_stride,
                            __global const int* pinned) {
  const int line = get_global_id(0);
  if (line >= L || !pinned[line]) return;
  Y += line * line_stride;
  scalar mean = ZERO;
  for (int i = 0; i < n; ++i) mean += Y[i * row_stride];
  mean = mean / (real)n;
  for (int i = 0; i < n; ++i) Y[i * row_stride] -= mean;
  Y[(n - 1) * row_stride] = ZERO;
}

// One CR reduction step: level (in, n rows) → level (out, n/2 rows), row j of
// the output being row 2j+1 of the input with its neighbours eliminated.
// Global size (L, n/2).
__kernel void cr_reduce(__global const scalar* in, ulong in_off, int n, int in_mode, __global scalar* out,
                        ulong out_off, int out_mode, int L, __global const coef_t* C, int n0, __global const scalar* sigma, __global const int* pinned,
                        __global int* flags) {
  const int line = get_global_id(0), j = get_global_id(1), no = n / 2;
  if (line >= L || j >= no) return;
  in += in_off;
  out += out_off;
  const scalar sg = sigma[line];
  const int pin = pinned[line], i = 2 * j + 1;
  const row_t m = get_row(in_mode, in, n, L, line, i - 1, C, n0, sg, pin);
  const row_t c = get_row(in_mode, in, n, L, line, i, C, n0, sg, pin);
  const row_t p = i + 1 < n ? get_row(in_mode, in, n, L, line, i + 1, C, n0, sg, pin) : identity_row();
  const row_t o = cr_combine(m, c, p);
  watch_pivot(o, flags, line, sg);
  if (out_mode == 0) put_row(out, no, L, line, j, o);
  else out[x_index(out_mode, no, L, line, j)] = o.g;
}

// Row i of the next level, computed from three rows of level (S, n rows).
inline row_t next_row(int mode, __global const scalar* S, int n, int L, int line, int i, __global const coef_t* C, int n0, scalar sg, int pin) {
  const row_t m = get_row(mode, S, n, L, line, 2 * i, C, n0, sg, pin);
  const row_t c = get_row(mode, S, n, L, line, 2 * i + 1, C, n0, sg, pin);
  const row_t p = 2 * i + 2 < n ? get_row(mode, S, n, L, line, 2 * i + 2, C, n0, sg, pin) : identity_row();
  return cr_combine(m, c, p);
}

// Two CR reduction steps at once: level k (in, n rows) → level k+2 (out,
// planes a | c | d of n/4 rows). Level k+1 is never written or read back,
// which halves the traffic of the reduction; its rows are regenerated in
// registers from level k. Global size (L, n/4).
__kernel void cr_reduce2(__global const scalar* in, ulong in_off, int n, int in_mode, __global scalar* out,
                         ulong out_off, int L, __global const coef_t* C, int n0, __global const scalar* sigma, __global const int* pinned,
                         __global int* flags) {
  const int line = get_global_id(0), j = get_global_id(1), n1 = n / 2, n2 = n1 / 2;
  if (line >= L || j >= n2) return;
  in += in_off;
  out += out_off;
  const scalar sg = sigma[line];
  const int pin = pinned[line];
  const row_t m = next_row(in_mode, in, n, L, line, 2 * j, C, n0, sg, pin);
  const row_t c = next_row(in_mode, in, n, L, line, 2 * j + 1, C, n0, sg, pin);
  const row_t p = 2 * j + 2 < n1 ? next_row(in_mode, in, n, L, line, 2 * j + 2, C, n0, sg, pin) : identity_row();
  const row_t o = cr_combine(m, c, p);  // its watch covers m, c and p
  watch_pivot(o, flags, line, sg);
  put_row(out, n2, L, line, j, o);
}

// One CR back-substitution step: the solution of level (out, n/2 rows), held
// in its d plane, gives the odd rows of level (in, n rows); the even rows
// follow from their equations. Global size (L, (n+1)/2).
__kernel void cr_back(__global scalar* in, ulong in_off, int n, int in_mode, __global const scalar* out,
                      ulong out_off, int out_mode, int L, __global const coef_t* C, int n0, __global const scalar* sigma, __global const int* pinned) {
  const int line = get_global_id(0), j = get_global_id(1), no = n / 2;
  if (line >= L || j >= (n + 1) / 2) return;
  in += in_off;
  out += out_off;
  const int i = 2 * j;
  const scalar xl = j > 0 ? out[x_index(out_mode, no, L, line, j - 1)] : ZERO;
  const scalar xr = i + 1 < n ? out[x_index(out_mode, no, L, line, j)] : ZERO;
  const row_t r = get_row(in_mode, in, n, L, line, i, C, n0, sigma[line], pinned[line]);
  in[x_index(in_mode, n, L, line, i)] = back_solve(r, xl, xr);
  if (i + 1 < n) in[x_index(in_mode, n, L, line, i + 1)] = xr;
}

// Two CR back-substitution steps at once: the solution of level k+2 (its d
// plane at out, n/4 rows) gives level k (in, n rows) in place. Work-item j
// writes rows 4j … 4j+3 of level k and reads only those rows of it; the
// level-(k+1) row in between is regenerated from them. Global size
// (L, ceil(n/4)).
__kernel void cr_back2(__global scalar* in, ulong in_off, int n, int in_mode, __global const scalar* out,
                       ulong out_off, int L, __global const coef_t* C, int n0, __global const scalar* sigma, __global const int* pinned) {
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
    const row_t r = next_row(in_mode, in, n, L, line, 2 * j, C, n0, sg, pin);
    xc = back_solve(r, xm, xp);
  }
  const row_t r0 = get_row(in_mode, in, n, L, line, 4 * j, C, n0, sg, pin);
  const scalar x0 = back_solve(r0, xm, xc);
  scalar x2 = ZERO;
  if (4 * j + 2 < n) {
    const row_t r2 = get_row(in_mode, in, n, L, line, 4 * j + 2, C, n0, sg, pin);
    x2 = back_solve(r2, xc, xp);
  }
  // every read of level k is done before the first write
  in[x_index(in_mode, n, L, line, 4 * j)] = x0;
  if (4 * j + 1 < n) in[x_index(in_mode, n, L, line, 4 * j + 1)] = xc;
  if (4 * j + 2 < n) in[x_index(in_mode, n, L, line, 4 * j + 2)] = x2;
  if (4 * j + 3 < n) in[x_index(in_mode, n, L, line, 4 * j + 3)] = xp;
}

// Row i of a PCR step with stride st in local memory: lo = o[i − st], up = o[i].
inline row_t local_row(__local const scalar* o, __local const scalar* s, __local const scalar* g, int i, int st,
                       int lanes, int lane) {
  row_t r;
  UNWATCHED(r);
  r.lo = i >= st ? o[(i - st) * lanes + lane] : ZERO;
  r.up = o[i * lanes + lane];
  r.s = s[i * lanes + lane];
  r.g = g[i * lanes + lane];
  return r;
}

// The short system of each line in local memory. Work-group (lanes, T) with
// T = 2^steps work-items per line: PCR steps until rows i and i±T decouple,
// then work-item t runs Thomas on rows t, t+T, t+2T, ... The solution
// replaces the right-hand side. `buf` holds 6·n·lanes scalars: planes
// o | s | g and their next PCR step, o_i the coupling of rows i and i+stride.
__kernel void cr_local(__global scalar* S, ulong off, int n, int mode, int L, __global const coef_t* C, int n0, __global const scalar* sigma,
                       __global const int* pinned, __global int* flags, __local scalar* buf) {
  const int lane = get_local_id(0), lanes = get_local_size(0);
  const int t = get_local_id(1), T = get_local_size(1);
  const int line = get_group_id(0) * lanes + lane;
  const int active = line < L;
  S += off;
  const size_t plane = (size_t)n * lanes;
  __local scalar* o = buf;
  __local scalar* s = buf + plane;
  __local scalar* g = buf + 2 * plane;
  __local scalar* o2 = buf + 3 * plane;
  __local scalar* s2 = buf + 4 * plane;
  __local scalar* g2 = buf + 5 * plane;
  const scalar sg = active ? sigma[line] : ZERO;
  if (active) {
    const int pin = pinned[line];
    for (int i = t; i < n; i += T) {
      const row_t r = get_row(mode, S, n, L, line, i, C, n0, sg, pin);
      o[i * lanes + lane] = r.up;
      s[i * lanes + lane] = r.s;
      g[i * lanes + lane] = r.g;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int st = 1; st < T; st *= 2) {
    for (int i = t; i < n; i += T) {
      const row_t c = local_row(o, s, g, i, st, lanes, lane);
      const row_t m = i >= st ? local_row(o, s, g, i - st, st, lanes, lane) : identity_row();
      const row_t p = i + st < n ? local_row(o, s, g, i + st, st, lanes, lane) : identity_row();
      const row_t r = cr_combine(m, c, p);
      if (active) watch_pivot(r, flags, line, sg);
      const int k = i * lanes + lane;
      o2[k] = r.up;
      s2[k] = r.s;
      g2[k] = r.g;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // the rows just read are not read again: swap planes instead of copying
    __local scalar* tmp;
    tmp = o; o = o2; o2 = tmp;
    tmp = s; s = s2; s2 = tmp;
    tmp = g; g = g2; g2 = tmp;
  }
  if (!active || t >= n) return;
  // Thomas on rows t, t+T, ...: forward elimination (the multiplier c' = up/p
  // goes to s, the eliminated right-hand side to g), then back substitution.
  scalar cprev = ZERO, gprev = ZERO;
#ifdef EXCESS_FORM
  scalar ratio = ZERO;  // ê/p of the previous row
#endif
  int last = t;
  for (int i = t; i < n; i += T) {
    const int k = i * lanes + lane;
    const row_t r = local_row(o, s, g, i, T, lanes, lane);
    const scalar lo = i >= T ? r.lo : ZERO;
#ifdef EXCESS_FORM
    const scalar e_hat = r.s + fabs(lo) * ratio;
    const scalar inv = srecip(e_hat + fabs(r.up));
    ratio = e_hat * inv;
#else
    const scalar t_lo = smul(lo, cprev), piv = r.s - t_lo;
    if (abs1(piv) < (real)PIVOT_LIMIT * (abs1(r.s) + abs1(t_lo))) near_singular(flags, line, sg);
    const scalar inv = srecip(piv);
#endif
    cprev = i + T < n ? smul(r.up, inv) : ZERO;
    gprev = smul(r.g - smul(lo, gprev), inv);
    s[k] = cprev;
    g[k] = gprev;
    last = i;
  }
  scalar x = g[last * lanes + lane];
  S[x_index(mode, n, L, line, last)] = x;
  for (int i = last - T; i >= 0; i -= T) {
    const int k = i * lanes + lane;
    x = g[k] - smul(s[k], x);
    S[x_index(mode, n, L, line, i)] = x;
  }
}
