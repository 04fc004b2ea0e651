// The lines of dimension 1 split over ranks, for a transformed split
// (src/opencl/transform_slab.cpp, docs/distributed.md): after the transforms
// of the other dimensions every mode is a line (A1 + σ M1) x = g along
// dimension 1, and a rank's slab holds its rows [b, e) of every line, stored
// [row][line] (consecutive lines adjacent: a work-item per line reads and
// writes coalesced). A slab is one chunk of line_solve.cl's local solver:
// rows b … e − 2 are pivots, eliminated top-down, each coupled after its
// elimination to x_{i+1} and (the spike) to x_{b−1}, the last row of the
// slab before. What is left is row e − 1, row `rank` of a reduced tridiagonal
// system on the slabs' last rows, and what the eliminations add to row
// b − 1. The pivots depend on the line's shift, not on its right-hand side:
// the set-up (solve = 0) computes every slab's reduced row once, and this
// slab's pivot state at every PARTITION_CHUNK-th pivot, from which the back
// substitution forms each chunk's pivots again in registers (storing them
// would double the slab's traffic). With EXCESS_FORM the rows carry their
// excess, and every update adds non-negative numbers (tridiagonal.cl).
// PARTITION_CHUNK (pivots between checkpoints) and PARTITION_MAX_RANKS (the
// reduced system's rows a work-item holds) come from the host
// (src/opencl/transform_slab.hpp).
#define PARTITION_AHEAD 4  // rows the elimination loads at a time

// Pivot row i (s: its excess or diagonal, up: coupling to x_{i+1}, spike: to
// x_{b−1}, g: right-hand side) eliminates x_i from row i + 1 (nx, right-hand
// side g_next) and from row b − 1 (prev_s, prev_g). The state moves on to row
// i + 1; returns the pivot's reciprocal. small: a pivot below PIVOT_LIMIT of
// the terms it came from (ordinary path).
inline scalar partition_step(scalar* s, scalar* spike, scalar* up, scalar* g, scalar* prev_s, scalar* prev_g,
                             row_t nx, scalar g_next, int* small) {
#ifdef EXCESS_FORM
  const scalar inv = srecip(*s + fabs(*spike) + fabs(*up));
  const scalar ratio = *s * inv;  // ê/d of the pivot
  *prev_s += fabs(*spike) * ratio;
#else
  const scalar inv = srecip(*s);
  *prev_s -= smul(smul(*spike, inv), *spike);
#endif
  *prev_g -= smul(smul(*spike, inv), *g);
  const scalar w = smul(*up, inv);
#ifdef EXCESS_FORM
  *s = nx.s + fabs(*up) * ratio;
#else
  const scalar tn = smul(w, *up);
  *s = nx.s - tn;
  *small |= abs1(*s) < (real)PIVOT_LIMIT * (abs1(nx.s) + abs1(tn));
#endif
  *g = g_next - smul(w, *g);
  *spike = -smul(w, *spike);
  *up = nx.up;
  return inv;
}

// Rows [b, e) of L lines (n0: the whole line's rows; C, sigma: the packed
// factor of dimension 1 and each line's shift). Solve: X[(i − b)·L + line]
// holds g_i and receives pivot i's eliminated right-hand side; ends[line]:
// the reduced row's right-hand side, ends[L + line]: what the eliminations add
// to that of row b − 1. Set-up of slab `slab`: reduced[(3·slab + 0, 1, 2)·L +
// line]: the reduced row's excess (or diagonal), its coupling to row b − 1
// (the reduced row before), what the eliminations add to that row's excess
// (or diagonal);
// with `checkpoints`, the state (s, spike) at every PARTITION_CHUNK-th pivot
// c, ck[2c·L + line] and ck[(2c + 1)·L + line].
__kernel void partition_eliminate(__global scalar* X, int b, int e, int n0, int L, __global const coef_t* C,
                                  __global const scalar* sigma, __global scalar* ends, __global scalar* reduced,
                                  __global scalar* ck, int checkpoints, int slab, int solve,
                                  __global int* flags) {
  const int line = get_global_id(0);
  if (line >= L) return;
  const scalar sg = sigma[line];
  const row_t first = level0_coef(C, n0, b, sg, 0);
  scalar s = first.s, spike = first.lo, up = first.up;  // lo is zero for row 0
  scalar g = solve ? X[line] : ZERO, prev_s = ZERO, prev_g = ZERO;
  int small = 0;
  // the right-hand sides are loaded PARTITION_AHEAD rows at a time, ahead
  // of the chain of eliminations that uses them
  for (int i0 = b; i0 < e - 1; i0 += PARTITION_AHEAD) {
    scalar g_next[PARTITION_AHEAD];
#pragma unroll
    for (int k = 0; k < PARTITION_AHEAD; ++k)
      g_next[k] = solve && i0 + k + 1 < e ? X[(size_t)(i0 + k + 1 - b) * L + line] : ZERO;
#pragma unroll
    for (int k = 0; k < PARTITION_AHEAD; ++k) {
      const int i = i0 + k;
      if (i >= e - 1) break;
      if (checkpoints && (i - b) % PARTITION_CHUNK == 0) {
        const size_t c = (size_t)((i - b) / PARTITION_CHUNK);
        ck[2 * c * L + line] = s;
        ck[(2 * c + 1) * L + line] = spike;
      }
      if (solve) X[(size_t)(i - b) * L + line] = g;
      const row_t nx = level0_row(C[i + 1], up, C, n0, i + 1, sg, 0);
      partition_step(&s, &spike, &up, &g, &prev_s, &prev_g, nx, g_next[k], &small);
    }
  }
  if (solve) {
    ends[line] = g;
    ends[L + line] = prev_g;
    if (small) flags[1] = line + 1;
  } else {
    reduced += (size_t)3 * slab * L;
    reduced[line] = s;
    reduced[L + line] = spike;
    reduced[2 * L + line] = prev_s;
  }
}

// After the exchange: the reduced rows of every slab (reduced: 3 rows of L
// per rank, as the set-up wrote them, rank after rank) and their right-hand
// sides (ends: a row of L per rank, partition_eliminate's first row of that
// slab plus the next slab's second, summed on the host) form the
// reduced system on the slabs' last rows, solved per line by Thomas; then
// this slab's rows from its last row's solution y_rank and y_{rank−1} (x_{b−1}),
// back through each chunk's pivots, formed again from its checkpoint.
__kernel void partition_back(__global scalar* X, int b, int e, int n0, int L, __global const coef_t* C,
                             __global const scalar* sigma, __global const scalar* reduced,
                             __global const scalar* ends, int ranks, int rank, __global const scalar* ck,
                             __global int* flags) {
  const int line = get_global_id(0);
  if (line >= L) return;
  const scalar sg = sigma[line];
  // 1. The reduced system: row p couples y_p to y_{p−1} by slab p's spike and
  // to y_{p+1} by slab p + 1's (symmetric); slab p + 1's eliminations add to
  // its excess and right-hand side.
  scalar cp[PARTITION_MAX_RANKS], gp[PARTITION_MAX_RANKS];
  scalar cprev = ZERO, gprev = ZERO;
#ifdef EXCESS_FORM
  scalar ratio = ZERO;
#endif
  int small = 0;
  for (int p = 0; p < ranks; ++p) {
    const size_t r = (size_t)3 * p * L + line, rn = r + (size_t)3 * L;
    const bool next = p + 1 < ranks;
    const scalar lo = p > 0 ? reduced[r + L] : ZERO, up = next ? reduced[rn + L] : ZERO;
    const scalar sp = reduced[r] + (next ? reduced[rn + 2 * L] : ZERO);
    const scalar gr = ends[(size_t)p * L + line];
#ifdef EXCESS_FORM
    const scalar e_hat = sp + fabs(lo) * ratio;
    const scalar inv = srecip(e_hat + fabs(up));
    ratio = e_hat * inv;
#else
    const scalar t_lo = smul(lo, cprev), piv = sp - t_lo;
    small |= abs1(piv) < (real)PIVOT_LIMIT * (abs1(sp) + abs1(t_lo));
    const scalar inv = srecip(piv);
#endif
    cprev = smul(up, inv);
    gprev = smul(gr - smul(lo, gprev), inv);
    cp[p] = cprev;
    gp[p] = gprev;
  }
  if (small) flags[1] = line + 1;
  scalar y = gp[ranks - 1], y_rank = y, xa = ZERO;  // xa: y_{rank−1}, which is x_{b−1}
  for (int p = ranks - 2; p >= max(rank - 1, 0); --p) {
    y = gp[p] - smul(cp[p], y);
    if (p == rank) y_rank = y;
    if (p == rank - 1) xa = y;
  }
  // 2. This slab's rows, chunk by chunk from the last.
  X[(size_t)(e - 1 - b) * L + line] = y_rank;
  scalar x = y_rank;
  const int pivots = e - 1 - b;
  for (int c = (pivots + PARTITION_CHUNK - 1) / PARTITION_CHUNK - 1; c >= 0; --c) {
    const int i0 = b + c * PARTITION_CHUNK, i1 = min(i0 + PARTITION_CHUNK, e - 1);
    scalar s = ck[(size_t)2 * c * L + line], spike = ck[(size_t)(2 * c + 1) * L + line];
    scalar up = entry_coupling(C[i0], sg), unused_g = ZERO, unused_s = ZERO, unused_gp = ZERO;
    scalar keep_spike[PARTITION_CHUNK], keep_inv[PARTITION_CHUNK], keep_up[PARTITION_CHUNK], g[PARTITION_CHUNK];
    int unused_small = 0;
    // the chunk's eliminated right-hand sides, loaded before its pivots are
    // formed again, so that the loads overlap that chain
#pragma unroll
    for (int j = 0; j < PARTITION_CHUNK; ++j) g[j] = i0 + j < i1 ? X[(size_t)(i0 + j - b) * L + line] : ZERO;
#pragma unroll
    for (int j = 0; j < PARTITION_CHUNK; ++j)
      if (i0 + j < i1) {
        keep_spike[j] = spike;
        keep_up[j] = up;
        const row_t nx = level0_row(C[i0 + j + 1], up, C, n0, i0 + j + 1, sg, 0);
        keep_inv[j] = partition_step(&s, &spike, &up, &unused_g, &unused_s, &unused_gp, nx, ZERO, &unused_small);
      }
#pragma unroll
    for (int j = PARTITION_CHUNK - 1; j >= 0; --j)
      if (i0 + j < i1) {
        const size_t at = (size_t)(i0 + j - b) * L + line;
        x = smul(g[j] - smul(keep_spike[j], xa) - smul(keep_up[j], x), keep_inv[j]);
        X[at] = x;
      }
  }
}
