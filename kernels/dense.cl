// A dimension taken in one level (KernelParameters::dense_top): its whole
// eigenvector basis W (n × n, W[j·n + l]) applied by dense products, the
// single-level limit of PSCR (a group of all n rows, every row a source), or
// the m of its columns that one rank of a distributed plan computes (W
// n × m, W[j·m + l]: the rank's share of the modes):
//   to modes:   Y[r][l][b] = Σ_j W[j, l] X[j][r][b]
//   from modes: X[j][r][b] = Σ_l W[j, l] Y[r][l][b]
// Both are out[i][c] = Σ_k W'[k, i] in[k][c] over the C = R·batch columns
// c = r·batch + b, tiled as a matrix product: a work-group of DENSE_SIDE²
// work-items computes DENSE_TILE_OUT outputs by DENSE_TILE_COLUMNS columns,
// each work-item a DENSE_MICRO_OUT × DENSE_MICRO_COLUMNS block of them in
// registers, the operands staged through local memory DENSE_DEPTH terms at a
// time (each value loaded from global memory once per tile, and from local
// memory once per DENSE_MICRO_OUT or DENSE_MICRO_COLUMNS products). The
// work-items along the output's contiguous index write consecutive addresses.
// DENSE_SIDE and the micro-tile come from the host (src/opencl/program_options.hpp),
// with DENSE_PRODUCTS: only plans that take them build them (a CPU compiler
// spends seconds on every program's unrolled loops).
#ifdef DENSE_PRODUCTS
#define DENSE_TILE_OUT (DENSE_SIDE * DENSE_MICRO_OUT)
#define DENSE_TILE_COLUMNS (DENSE_SIDE * DENSE_MICRO_COLUMNS)
#define DENSE_DEPTH 16
// rows of the staged operands, padded: loads along k hit distinct banks
#define DENSE_ROW_OUT (DENSE_TILE_OUT + 1)
#define DENSE_ROW_COLUMNS (DENSE_TILE_COLUMNS + 1)
typedef char dense_tiles_are_whole_loads[(DENSE_DEPTH * DENSE_TILE_OUT) % (DENSE_SIDE * DENSE_SIDE) == 0 &&
                                                 (DENSE_DEPTH * DENSE_TILE_COLUMNS) % (DENSE_SIDE * DENSE_SIDE) == 0
                                             ? 1
                                             : -1];

// Y's entry (r, l, b) for column c = r·batch + b: (r·m + l)·batch + b.
inline size_t dense_modes_index(int l, int c, int m, int batch) {
  const int r = c / batch, b = c - r * batch;
  return ((size_t)r * m + l) * batch + b;
}

// out[i][c] = Σ_k W'[k, i] in[k][c]: W'[k, i] = W[k, i] (w_by_column: Wᵀ
// applied, to modes: k < n rows, i < m modes) or W[i, k] (W applied, from
// modes: k < m, i < n); in and out laid out [k][c] (contiguous in c) or,
// in_modes / out_modes, as Y (dense_modes_index).
inline void dense_product(__global const scalar* in, __global scalar* out, __global const scalar* W, int n, int m,
                          int C, int batch, int w_by_column, int in_modes, int out_modes, __local scalar* Ws,
                          __local scalar* Ins) {
  const int nk = w_by_column ? n : m, ni = w_by_column ? m : n;  // the sum's terms, the outputs
  const int tx = get_local_id(0), ty = get_local_id(1), f = ty * DENSE_SIDE + tx;
  const int i0 = get_group_id(1) * DENSE_TILE_OUT, c0 = get_group_id(0) * DENSE_TILE_COLUMNS;
  // the work-item's outputs: i along tx when the output is contiguous in i
  // (Y, to modes), c along tx when it is contiguous in c
  const int ib = out_modes ? tx : ty, cb = out_modes ? ty : tx;
  scalar acc[DENSE_MICRO_OUT][DENSE_MICRO_COLUMNS];
#pragma unroll
  for (int a = 0; a < DENSE_MICRO_OUT; ++a)
#pragma unroll
    for (int e = 0; e < DENSE_MICRO_COLUMNS; ++e) acc[a][e] = ZERO;
  for (int k0 = 0; k0 < nk; k0 += DENSE_DEPTH) {
    // DENSE_DEPTH terms of each operand, read along the index that is
    // contiguous in memory. W[j, l]: to modes k = j and i = l (contiguous
    // in i), from modes k = l and i = j (contiguous in k).
#pragma unroll
    for (int s = 0; s < DENSE_DEPTH * DENSE_TILE_OUT / (DENSE_SIDE * DENSE_SIDE); ++s) {
      const int e = f + s * DENSE_SIDE * DENSE_SIDE;
      const int wk = w_by_column ? e / DENSE_TILE_OUT : e % DENSE_DEPTH;
      const int wi = w_by_column ? e % DENSE_TILE_OUT : e / DENSE_DEPTH;
      const int gk = k0 + wk, gi = i0 + wi;
      Ws[wk * DENSE_ROW_OUT + wi] = gk < nk && gi < ni ? W[w_by_column ? (size_t)gk * m + gi : (size_t)gi * m + gk] : ZERO;
    }
    // the input: X contiguous in c (to modes), Y contiguous in its modes k
    // (from modes, a batch of one)
#pragma unroll
    for (int s = 0; s < DENSE_DEPTH * DENSE_TILE_COLUMNS / (DENSE_SIDE * DENSE_SIDE); ++s) {
      const int e = f + s * DENSE_SIDE * DENSE_SIDE;
      const int xk = in_modes ? e % DENSE_DEPTH : e / DENSE_TILE_COLUMNS;
      const int xc = in_modes ? e / DENSE_DEPTH : e % DENSE_TILE_COLUMNS;
      const int hk = k0 + xk, hc = c0 + xc;
      Ins[xk * DENSE_ROW_COLUMNS + xc] =
          hk < nk && hc < C ? in[in_modes ? dense_modes_index(hk, hc, m, batch) : (size_t)hk * C + hc] : ZERO;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // a chunk's DENSE_DEPTH terms summed apart, then added to the total: the
    // rounding of a sum of n terms grows with the partial sums it adds to
    // (n = 63, double: forward error 1.3e-15 summed in one run, against 8e-16
    // by PSCR levels, whose sums are compensated)
    scalar part[DENSE_MICRO_OUT][DENSE_MICRO_COLUMNS];
#pragma unroll
    for (int a = 0; a < DENSE_MICRO_OUT; ++a)
#pragma unroll
      for (int e = 0; e < DENSE_MICRO_COLUMNS; ++e) part[a][e] = ZERO;
#pragma unroll 4
    for (int kk = 0; kk < DENSE_DEPTH; ++kk) {
      scalar w[DENSE_MICRO_OUT], x[DENSE_MICRO_COLUMNS];
#pragma unroll
      for (int a = 0; a < DENSE_MICRO_OUT; ++a) w[a] = Ws[kk * DENSE_ROW_OUT + ib + a * DENSE_SIDE];
#pragma unroll
      for (int e = 0; e < DENSE_MICRO_COLUMNS; ++e) x[e] = Ins[kk * DENSE_ROW_COLUMNS + cb + e * DENSE_SIDE];
#pragma unroll
      for (int a = 0; a < DENSE_MICRO_OUT; ++a)
#pragma unroll
        for (int e = 0; e < DENSE_MICRO_COLUMNS; ++e) part[a][e] += smul(w[a], x[e]);
    }
#pragma unroll
    for (int a = 0; a < DENSE_MICRO_OUT; ++a)
#pragma unroll
      for (int e = 0; e < DENSE_MICRO_COLUMNS; ++e) acc[a][e] += part[a][e];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#pragma unroll
  for (int a = 0; a < DENSE_MICRO_OUT; ++a)
#pragma unroll
    for (int e = 0; e < DENSE_MICRO_COLUMNS; ++e) {
      const int i = i0 + ib + a * DENSE_SIDE, c = c0 + cb + e * DENSE_SIDE;
      if (i < ni && c < C) out[out_modes ? dense_modes_index(i, c, m, batch) : (size_t)i * C + c] = acc[a][e];
    }
}

// Global size (DENSE_SIDE·⌈C / DENSE_TILE_COLUMNS⌉, DENSE_SIDE·⌈outputs / DENSE_TILE_OUT⌉), local
// (DENSE_SIDE, DENSE_SIDE); outputs: m modes (to modes), n rows (from modes).
__kernel void dense_to_modes(__global const scalar* X, __global scalar* Y, __global const scalar* W, int n, int m,
                             int C, int batch) {
  __local scalar Ws[DENSE_DEPTH * DENSE_ROW_OUT], Ins[DENSE_DEPTH * DENSE_ROW_COLUMNS];
  dense_product(X, Y, W, n, m, C, batch, 1, 0, 1, Ws, Ins);
}
__kernel void dense_from_modes(__global const scalar* Y, __global scalar* X, __global const scalar* W, int n, int m,
                               int C, int batch) {
  __local scalar Ws[DENSE_DEPTH * DENSE_ROW_OUT], Ins[DENSE_DEPTH * DENSE_ROW_COLUMNS];
  dense_product(Y, X, W, n, m, C, batch, 0, 1, 0, Ws, Ins);
}
// The cyclic lines of a periodic last dimension, stored Y[row][line] (C
// lines of n rows), solved in its eigenbasis: to modes Z = Wᵀ Y, the modes
// divided by ν_k + σ_line (eigenbasis_divide), back Y = W Z. Same grid as above.
__kernel void eigenbasis_to_modes(__global const scalar* Y, __global scalar* Z, __global const scalar* W, int n,
                                  int C) {
  __local scalar Ws[DENSE_DEPTH * DENSE_ROW_OUT], Ins[DENSE_DEPTH * DENSE_ROW_COLUMNS];
  dense_product(Y, Z, W, n, n, C, 1, 1, 0, 0, Ws, Ins);
}
__kernel void eigenbasis_from_modes(__global const scalar* Z, __global scalar* Y, __global const scalar* W, int n,
                                    int C) {
  __local scalar Ws[DENSE_DEPTH * DENSE_ROW_OUT], Ins[DENSE_DEPTH * DENSE_ROW_COLUMNS];
  dense_product(Z, Y, W, n, n, C, 1, 0, 0, 0, Ws, Ins);
}
// Z[k][line] /= ν_k + σ_line; the pure-Neumann null line's zero mode
// (pinned, k = zero_mode) is left out: 0. Global size (lines, n).
__kernel void eigenbasis_divide(__global scalar* Z, __global const scalar* nu, __global const scalar* sigma,
                                __global const int* pinned, int zero_mode, int n, int C) {
  const int line = get_global_id(0), k = get_global_id(1);
  if (line >= C || k >= n) return;
  const size_t i = (size_t)k * C + line;
  Z[i] = pinned[line] && k == zero_mode ? ZERO : sdiv(Z[i], nu[k] + sigma[line]);
}
#endif  // DENSE_PRODUCTS
