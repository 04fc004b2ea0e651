// The lines of dimension 1 split over ranks, for a transformed split
// (src/opencl/transform_slab.cpp, docs/distributed.md): after the transforms
// of the other dimensions every mode is a line (A1 + σ M1) x = g along
// dimension 1. Each rank's slab of rows is cut into parts (partitions q,
// rows [bounds[q], bounds[q + 1]), numbered over all ranks), and a slab is
// stored [row][line] (consecutive lines adjacent: a work-item per line and
// part reads and writes coalesced). A part is one chunk of line_solve.cl's
// local solver: rows b … e − 2 are pivots, eliminated top-down, each coupled
// after its elimination to x_{i+1} and (the spike) to x_{b−1}, the last row
// of the part before. What is left is row e − 1, row q of a reduced
// tridiagonal system on the parts' last rows, and what the eliminations add
// to row b − 1. The pivots depend on the line's shift, not on its
// right-hand side: the set-up (solve = 0) computes every part's reduced row
// once, and this rank's parts' pivot state at every PARTITION_CHUNK-th
// pivot, from which the back substitution forms each chunk's pivots again in
// registers (storing them would double the slab's traffic). With
// EXCESS_FORM the rows carry their excess, and every update adds
// non-negative numbers (tridiagonal.cl). PARTITION_CHUNK comes from the host
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

// Every kernel here takes lines get_global_id(0) < line_end of the L that
// a row holds: the launch's global offset and line_end pick a range of
// them, so that ranks exchanging by messages send one range's rows while
// the next range is eliminated (distributed_solve.cpp).

// Part q = first + get_global_id(1) (of `count`), rows [b, e) = [bounds[q], bounds[q +
// 1]) of L lines (n0: the whole line's rows; C, sigma: the packed factor of
// dimension 1 and each line's shift); X holds this rank's slab from row x0,
// and j = q − own is the part's place among this rank's `parts`. Solve:
// X[(i − x0)·L + line] holds g_i, which is only read: the eliminated
// right-hand side of every PARTITION_CHUNK-th pivot c goes to
// gk[(j·stride + c)·L + line], from which partition_back forms the others
// again (writing every pivot's doubled the slab's traffic of the
// elimination); ends[j·L + line]: the reduced row's right-hand side,
// ends[(parts + j)·L + line]: what the eliminations add to that of row b − 1.
// Set-up: reduced[(3q + 0, 1, 2)·L + line]: the reduced row's excess (or
// diagonal), its coupling to row b − 1 (the reduced row before), what the
// eliminations add to that row's excess (or diagonal); and for this rank's
// parts the state (s, spike) at every PARTITION_CHUNK-th
// pivot c, ck[(2(j·stride + c))·L + line] and ck[(2(j·stride + c) + 1)·L + line].
__kernel void partition_eliminate(__global scalar* X, int x0, __global const int* bounds, int first, int count,
                                  int own, int parts, int n0, int L, __global const coef_t* C,
                                  __global const scalar* sigma, __global scalar* ends, __global scalar* reduced,
                                  __global scalar* ck, __global scalar* gk, int stride, int solve,
                                  __global int* flags, int line_end) {
  const int line = get_global_id(0), q = first + get_global_id(1), j = q - own;
  if (line >= line_end || get_global_id(1) >= count) return;
  const int b = bounds[q], e = bounds[q + 1];
  const bool keep = !solve && j >= 0 && j < parts;  // the set-up keeps this rank's parts' checkpoints
  const scalar sg = sigma[line];
  const row_t first_row = level0_coef(C, n0, b, sg, 0);
  scalar s = first_row.s, spike = first_row.lo, up = first_row.up;  // lo is zero for row 0
  scalar g = solve ? X[(size_t)(b - x0) * L + line] : ZERO, prev_s = ZERO, prev_g = ZERO;
  int small = 0;
  // the right-hand sides are loaded PARTITION_AHEAD rows at a time, ahead
  // of the chain of eliminations that uses them
  for (int i0 = b; i0 < e - 1; i0 += PARTITION_AHEAD) {
    scalar g_next[PARTITION_AHEAD];
#pragma unroll
    for (int k = 0; k < PARTITION_AHEAD; ++k)
      g_next[k] = solve && i0 + k + 1 < e ? X[(size_t)(i0 + k + 1 - x0) * L + line] : ZERO;
#pragma unroll
    for (int k = 0; k < PARTITION_AHEAD; ++k) {
      const int i = i0 + k;
      if (i >= e - 1) break;
      if ((i - b) % PARTITION_CHUNK == 0) {
        const size_t c = (size_t)j * stride + (i - b) / PARTITION_CHUNK;
        if (keep) {
          ck[2 * c * L + line] = s;
          ck[(2 * c + 1) * L + line] = spike;
        }
        if (solve) gk[c * L + line] = g;
      }
      const row_t nx = level0_row(C[i + 1], up, C, n0, i + 1, sg, 0);
      partition_step(&s, &spike, &up, &g, &prev_s, &prev_g, nx, g_next[k], &small);
    }
  }
  if (solve) {
    ends[(size_t)j * L + line] = g;
    ends[(size_t)(parts + j) * L + line] = prev_g;
    if (small) near_singular(flags, line, sg);
  } else {
    reduced += (size_t)3 * q * L;
    reduced[line] = s;
    reduced[L + line] = spike;
    reduced[2 * L + line] = prev_s;
  }
}

// After the exchange: the reduced system on the Q parts' last rows, per line
// by Thomas. reduced: 3 rows of L per part, as the set-up wrote them;
// ends: its right-hand sides, `per_rank` rows of L per rank of `parts`
// parts each. With per_rank = 2·parts they are partition_eliminate's rows
// as every rank wrote them (row j: part j's reduced row, row parts + j: what
// part j's eliminations add to the row before it), and row q of the reduced
// system sums part q's first and part q + 1's second; with per_rank = parts
// the host has summed them. Row q couples y_q to y_{q−1} by part q's spike
// and to y_{q+1} by part q + 1's (symmetric); part q + 1's eliminations add
// to its excess. y: 2·Q rows of L, the solution y_q in row q (the second
// half holds the elimination's multipliers on the way).
inline scalar reduced_rhs(__global const scalar* ends, int q, int Q, int parts, int per_rank, int L, int line) {
  const int r = q / parts, j = q - r * parts;
  scalar g = ends[(size_t)(r * per_rank + j) * L + line];
  if (per_rank == 2 * parts && q + 1 < Q) {
    const int rn = (q + 1) / parts, jn = q + 1 - rn * parts;
    g += ends[(size_t)(rn * per_rank + parts + jn) * L + line];
  }
  return g;
}

__kernel void partition_reduced(__global const scalar* reduced, __global const scalar* ends, int Q, int L,
                                int parts, int per_rank, __global scalar* y, __global int* flags, int line_end,
                                __global const scalar* sigma) {
  const int line = get_global_id(0);
  if (line >= line_end) return;
  scalar cprev = ZERO, gprev = ZERO;
#ifdef EXCESS_FORM
  scalar ratio = ZERO;
#endif
  int small = 0;
  for (int p = 0; p < Q; ++p) {
    const size_t r = (size_t)3 * p * L + line, rn = r + (size_t)3 * L;
    const bool next = p + 1 < Q;
    const scalar lo = p > 0 ? reduced[r + L] : ZERO, up = next ? reduced[rn + L] : ZERO;
    const scalar sp = reduced[r] + (next ? reduced[rn + 2 * L] : ZERO);
    const scalar gr = reduced_rhs(ends, p, Q, parts, per_rank, L, line);
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
    y[(size_t)(Q + p) * L + line] = cprev;
    y[(size_t)p * L + line] = gprev;
  }
  if (small) near_singular(flags, line, sigma[line]);
  scalar x = gprev;
  for (int p = Q - 2; p >= 0; --p) {
    x = y[(size_t)p * L + line] - smul(y[(size_t)(Q + p) * L + line], x);
    y[(size_t)p * L + line] = x;
  }
}

// This rank's part q = own + get_global_id(1) from the reduced solution: its
// last row y_q, and y_{q−1} (x_{b−1}), back through each chunk's pivots and
// eliminated right-hand sides, formed again from its checkpoints and the
// rows' own right-hand sides in X, which the solution replaces (arguments as
// partition_eliminate's). Pivot i's row is x_i = a_i − w_i x_{i+1} once
// x_{b−1} is known: two numbers a row kept in registers (the spike, the
// coupling and the pivot kept apart were three, and limited the lines
// resident).
__kernel void partition_back(__global scalar* X, int x0, __global const int* bounds, int own, int parts, int n0,
                             int L,
                             __global const coef_t* C, __global const scalar* sigma, __global const scalar* y,
                             __global const scalar* ck, __global const scalar* gk, int stride, int line_end) {
  const int line = get_global_id(0), j = get_global_id(1), q = own + j;
  if (line >= line_end || j >= parts) return;
  const int b = bounds[q], e = bounds[q + 1];
  const scalar sg = sigma[line];
  scalar x = y[(size_t)q * L + line];
  const scalar xa = q > 0 ? y[(size_t)(q - 1) * L + line] : ZERO;
  X[(size_t)(e - 1 - x0) * L + line] = x;
  const int pivots = e - 1 - b;
  for (int c = (pivots + PARTITION_CHUNK - 1) / PARTITION_CHUNK - 1; c >= 0; --c) {
    const int i0 = b + c * PARTITION_CHUNK, i1 = min(i0 + PARTITION_CHUNK, e - 1);
    const size_t at_ck = (size_t)j * stride + c;
    scalar s = ck[2 * at_ck * L + line], spike = ck[(2 * at_ck + 1) * L + line], gp = gk[at_ck * L + line];
    scalar up = entry_coupling(C[i0], sg), unused_s = ZERO, unused_gp = ZERO;
    scalar w[PARTITION_CHUNK], g[PARTITION_CHUNK];
    int unused_small = 0;
    // the chunk's rows' right-hand sides (the first's eliminated one is its
    // checkpoint), loaded before its pivots are formed again, so that the
    // loads overlap that chain
#pragma unroll
    for (int k = 1; k < PARTITION_CHUNK; ++k) g[k] = i0 + k < i1 ? X[(size_t)(i0 + k - x0) * L + line] : ZERO;
    // the pivots and eliminated right-hand sides again: g[k] becomes a_i,
    // i = i0 + k
#pragma unroll
    for (int k = 0; k < PARTITION_CHUNK; ++k)
      if (i0 + k < i1) {
        const scalar g_next = k + 1 < PARTITION_CHUNK ? g[k + 1] : ZERO;
        const scalar g_i = gp - smul(spike, xa), up_i = up;
        const row_t nx = level0_row(C[i0 + k + 1], up, C, n0, i0 + k + 1, sg, 0);
        const scalar inv = partition_step(&s, &spike, &up, &gp, &unused_s, &unused_gp, nx, g_next, &unused_small);
        g[k] = smul(g_i, inv);
        w[k] = smul(up_i, inv);
      }
#pragma unroll
    for (int k = PARTITION_CHUNK - 1; k >= 0; --k)
      if (i0 + k < i1) {
        x = g[k] - smul(w[k], x);
        X[(size_t)(i0 + k - x0) * L + line] = x;
      }
  }
}
