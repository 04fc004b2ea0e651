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
// A work-item's outputs and columns come in runs of DENSE_RUN consecutive
// indices (16 bytes of a real scalar), so that its operands are read from
// local memory as vectors: one 16-byte load for four floats where scalar
// loads, one per product row or column, bound the loop (H100).
#if defined(SCALAR_COMPLEX)
#define DENSE_RUN 1
#elif defined(SCALAR_DOUBLE)
#define DENSE_RUN 2
#else
#define DENSE_RUN 4
#endif
// rows of the staged operands, padded by a run: stores along k spread over
// the banks, and every row starts 16-byte aligned
#define DENSE_ROW_OUT (DENSE_TILE_OUT + DENSE_RUN)
#define DENSE_ROW_COLUMNS (DENSE_TILE_COLUMNS + DENSE_RUN)
typedef char dense_micro_tiles_are_runs[DENSE_MICRO_OUT % DENSE_RUN == 0 && DENSE_MICRO_COLUMNS % DENSE_RUN == 0 ? 1
                                                                                                                 : -1];
// Index a of a work-item's outputs (or columns) within the tile, for the
// work-item at position p along that side: runs of DENSE_RUN, DENSE_SIDE
// work-items' runs apart.
inline int dense_micro_index(int p, int a) {
  return (a / DENSE_RUN) * (DENSE_SIDE * DENSE_RUN) + p * DENSE_RUN + a % DENSE_RUN;
}
typedef char dense_tiles_are_whole_loads[(DENSE_DEPTH * DENSE_TILE_OUT) % (DENSE_SIDE * DENSE_SIDE) == 0 &&
                                                 (DENSE_DEPTH * DENSE_TILE_COLUMNS) % (DENSE_SIDE * DENSE_SIDE) == 0
                                             ? 1
                                             : -1];

// Y's entry (r, l, b) for column c = r·batch + b: (r·m + l)·batch + b.
inline size_t dense_modes_index(int l, int c, int m, int batch) {
  const int r = c / batch, b = c - r * batch;
  return ((size_t)r * m + l) * batch + b;
}

// A work-item's loads of one operand of dense_product, chunk after chunk
// (as mma_operand for the tensor cores): with G = DENSE_SIDE² work-items,
// entry e = f + s·G of a chunk of a tile of `tile` indices is
//   by_index:  (term, index) = (f / tile + (G / tile)·s, f % tile)
//   otherwise: (f % DENSE_DEPTH, f / DENSE_DEPTH + (G / DENSE_DEPTH)·s),
// so its element is base + its offset + (k0 + the term's step in s)·step,
// the offsets set once per work-group: a chunk's loads are additions, not a
// product, a column's modes position and two range checks each.
#define DENSE_GROUP (DENSE_SIDE * DENSE_SIDE)
#define DENSE_LOADS_W (DENSE_DEPTH * DENSE_TILE_OUT / DENSE_GROUP)
#define DENSE_LOADS_X (DENSE_DEPTH * DENSE_TILE_COLUMNS / DENSE_GROUP)
#define DENSE_LOADS_MAX (DENSE_LOADS_W > DENSE_LOADS_X ? DENSE_LOADS_W : DENSE_LOADS_X)
typedef struct {
  ulong base;                  // the element of the first term at the index of entry 0 of the tile
  uint at0, row_step;          // entry s from there: at0 + s·row_step, or (modes, not by_index) at[s]
  uint at[DENSE_LOADS_MAX];    // within a tile, so 32 bits hold them
  uint live;                   // bit s: whether entry s's index is in range
  int term0, step, term_step;  // the first term, elements per term, terms from s to s + 1
} dense_operand_t;

// The operand whose element (term k, index i) lies at W[k·m + i] (by_index,
// modes 0), W[i·m + k], in[k·C + i] (by_index) or Y's [r][k][b] of column
// i = r·batch + b (modes). Offsets from the base rather than a 64-bit
// address per entry, and a step where they are evenly spaced: registers
// bound the occupancy of these kernels.
inline dense_operand_t dense_operand(int f, int x0, int limit, int tile, int loads, int by_index, int modes, int m,
                                     int batch, int step) {
  dense_operand_t o;
  o.step = step;
  o.term0 = by_index ? f / tile : f % DENSE_DEPTH;
  o.term_step = by_index ? DENSE_GROUP / tile : 0;
  o.live = 0;
  const ulong row0 = modes ? dense_modes_index(0, x0, m, batch) : by_index ? (ulong)x0 : (ulong)x0 * m;
#pragma unroll
  for (int s = 0; s < DENSE_LOADS_MAX; ++s) {
    const int i = x0 + (by_index ? f % tile : f / DENSE_DEPTH + DENSE_GROUP / DENSE_DEPTH * s);
    const int on = s < loads && i < limit;
    o.live |= (uint)on << s;
    const int ii = on ? i : x0;
    const ulong row = modes ? dense_modes_index(0, ii, m, batch) : by_index ? (ulong)ii : (ulong)ii * m;
    o.at[s] = (uint)(row - row0);
  }
  const int i = x0 + (by_index ? f % tile : f / DENSE_DEPTH);
  o.at0 = (uint)((modes ? dense_modes_index(0, i, m, batch) : by_index ? (ulong)i : (ulong)i * m) - row0);
  o.row_step = by_index ? 0 : (uint)(DENSE_GROUP / DENSE_DEPTH * m);
  o.base = row0 + (ulong)o.term0 * step;
  return o;
}

// by_table: the offsets of Y's columns (modes, not by_index), not evenly
// spaced; small: an operand of fewer than 2³² elements (W), addressed in 32
// bits (a register per load in flight instead of two).
inline scalar dense_load(__global const scalar* a, const dense_operand_t* o, int s, int k0, int nk, int whole,
                         int by_table, int small) {
  const int term = o->term_step * s;
  const uint off = by_table ? o->at[s] : o->at0 + (uint)s * o->row_step;
  const ulong at = small ? (ulong)((uint)o->base + off + (uint)(k0 + term) * (uint)o->step)
                         : o->base + off + ((ulong)k0 + term) * o->step;
  if (whole) return a[at];
  return (o->live >> s & 1) && k0 + o->term0 + term < nk ? a[at] : ZERO;
}

// A chunk of both operands from term k0 into registers, so that the next
// chunk's loads are in flight while this one is multiplied; whole: every
// load in range (a uniform branch).
inline void dense_fetch(__global const scalar* in, __global const scalar* W, const dense_operand_t* wo,
                        const dense_operand_t* xo, int x_table, int k0, int nk, int whole, scalar* wnext,
                        scalar* xnext) {
  if (whole) {
#pragma unroll
    for (int s = 0; s < DENSE_LOADS_W; ++s) wnext[s] = dense_load(W, wo, s, k0, nk, 1, 0, 1);
#pragma unroll
    for (int s = 0; s < DENSE_LOADS_X; ++s) xnext[s] = dense_load(in, xo, s, k0, nk, 1, x_table, 0);
  } else {
#pragma unroll
    for (int s = 0; s < DENSE_LOADS_W; ++s) wnext[s] = dense_load(W, wo, s, k0, nk, 0, 0, 1);
#pragma unroll
    for (int s = 0; s < DENSE_LOADS_X; ++s) xnext[s] = dense_load(in, xo, s, k0, nk, 0, x_table, 0);
  }
}

// The fetched chunk into local memory, each operand by (term, index).
inline void dense_stage(const scalar* wnext, const scalar* xnext, int w_by_column, int x_by_column, int f,
                        __local scalar* Ws, __local scalar* Ins) {
#pragma unroll
  for (int s = 0; s < DENSE_LOADS_W; ++s) {
    const int e = f + s * DENSE_GROUP;
    const int wk = w_by_column ? e / DENSE_TILE_OUT : e % DENSE_DEPTH;
    const int wi = w_by_column ? e % DENSE_TILE_OUT : e / DENSE_DEPTH;
    Ws[wk * DENSE_ROW_OUT + wi] = wnext[s];
  }
#pragma unroll
  for (int s = 0; s < DENSE_LOADS_X; ++s) {
    const int e = f + s * DENSE_GROUP;
    const int xk = x_by_column ? e / DENSE_TILE_COLUMNS : e % DENSE_DEPTH;
    const int xc = x_by_column ? e % DENSE_TILE_COLUMNS : e / DENSE_DEPTH;
    Ins[xk * DENSE_ROW_COLUMNS + xc] = xnext[s];
  }
}

// A run of DENSE_RUN staged values (16-byte aligned) as one load.
inline void dense_read_run(__local const scalar* p, scalar* out) {
#if DENSE_RUN == 4
  const float4 v = *(__local const float4*)p;
  out[0] = v.x;
  out[1] = v.y;
  out[2] = v.z;
  out[3] = v.w;
#elif DENSE_RUN == 2
  const double2 v = *(__local const double2*)p;
  out[0] = v.x;
  out[1] = v.y;
#else
  out[0] = *p;
#endif
}

// out[i][c] = Σ_k W'[k, i] in[k][c]: W'[k, i] = W[k, i] (w_by_column: Wᵀ
// applied, to modes: k < n rows, i < m modes) or W[i, k] (W applied, from
// modes: k < m, i < n); in and out laid out [k][c] (contiguous in c) or,
// in_modes / out_modes, as Y (dense_modes_index).
inline void dense_product(__global const scalar* in, __global scalar* out, __global const scalar* W, int n, int m,
                          int C, int batch, int w_by_column, int in_modes, int x_by_column, int out_modes,
                          __global int* nonfinite, int watch, __local scalar* Ws, __local scalar* Ins) {
  const int nk = w_by_column ? n : m, ni = w_by_column ? m : n;  // the sum's terms, the outputs
  const int tx = get_local_id(0), ty = get_local_id(1), f = ty * DENSE_SIDE + tx;
  // a column tile's output tiles in consecutive work-groups: they run
  // together and read its input through the cache, once from memory
  const int out_tiles = (ni + DENSE_TILE_OUT - 1) / DENSE_TILE_OUT, gid = get_group_id(0);
  const int i0 = (gid % out_tiles) * DENSE_TILE_OUT, c0 = (gid / out_tiles) * DENSE_TILE_COLUMNS;
  // the work-item's outputs: i along tx where the output is contiguous in i
  // (out_modes 1: Y written along its modes, batch 1), c along tx where it
  // is contiguous in c ([i][c], or out_modes 2: Y along its columns, batches
  // of 8 or more)
  const int ib = out_modes == 1 ? tx : ty, cb = out_modes == 1 ? ty : tx;
  scalar acc[DENSE_MICRO_OUT][DENSE_MICRO_COLUMNS];
#pragma unroll
  for (int a = 0; a < DENSE_MICRO_OUT; ++a)
#pragma unroll
    for (int e = 0; e < DENSE_MICRO_COLUMNS; ++e) acc[a][e] = ZERO;
  // DENSE_DEPTH terms of each operand a chunk, read along the index that is
  // contiguous in memory. W[j, l]: to modes k = j and i = l (contiguous in
  // i), from modes k = l and i = j (contiguous in k); the input: X
  // contiguous in c (to modes), Y contiguous in its modes k (from modes)
  const dense_operand_t wo =
      dense_operand(f, i0, ni, DENSE_TILE_OUT, DENSE_LOADS_W, w_by_column, 0, m, batch, w_by_column ? m : 1);
  const dense_operand_t xo =
      dense_operand(f, c0, C, DENSE_TILE_COLUMNS, DENSE_LOADS_X, x_by_column, in_modes, m, batch, in_modes ? batch : C);
  const int interior = i0 + DENSE_TILE_OUT <= ni && c0 + DENSE_TILE_COLUMNS <= C;  // every index of the tile in range
  scalar wnext[DENSE_LOADS_W], xnext[DENSE_LOADS_X];
  const int x_table = in_modes && !x_by_column;
  dense_fetch(in, W, &wo, &xo, x_table, 0, nk, interior && DENSE_DEPTH <= nk, wnext, xnext);
  for (int k0 = 0; k0 < nk; k0 += DENSE_DEPTH) {
    dense_stage(wnext, xnext, w_by_column, x_by_column, f, Ws, Ins);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (k0 + DENSE_DEPTH < nk)
      dense_fetch(in, W, &wo, &xo, x_table, k0 + DENSE_DEPTH, nk, interior && k0 + 2 * DENSE_DEPTH <= nk, wnext,
                  xnext);
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
      for (int a = 0; a < DENSE_MICRO_OUT; a += DENSE_RUN)
        dense_read_run(Ws + kk * DENSE_ROW_OUT + dense_micro_index(ib, a), w + a);
#pragma unroll
      for (int e = 0; e < DENSE_MICRO_COLUMNS; e += DENSE_RUN)
        dense_read_run(Ins + kk * DENSE_ROW_COLUMNS + dense_micro_index(cb, e), x + e);
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
  int bad = 0;
#pragma unroll
  for (int a = 0; a < DENSE_MICRO_OUT; ++a)
#pragma unroll
    for (int e = 0; e < DENSE_MICRO_COLUMNS; ++e) {
      const int i = i0 + dense_micro_index(ib, a), c = c0 + dense_micro_index(cb, e);
      if (i < ni && c < C) {
        out[out_modes ? dense_modes_index(i, c, m, batch) : (size_t)i * C + c] = acc[a][e];
        bad |= NONFINITE(acc[a][e]);
      }
    }
  if (watch && bad) *nonfinite = 1;
}

#ifdef DENSE_MMA
// The same products, real double, by the FP64 tensor cores (NVIDIA compute
// capability 8.0+, inline PTX). mma.m8n8k4 adds to an 8 × 8 fragment of
// outputs the product of an 8 × 4 fragment of W'ᵀ and a 4 × 8 fragment of the
// input, all three held by a warp's 32 work-items: lane 4·g + t holds W'ᵀ's
// (i = g, k = t), the input's (k = t, c = g) and the outputs (i = g,
// c = 2t, 2t + 1). A work-group of MMA_GROUP work-items (4 warps) computes
// MMA_TILE outputs by MMA_TILE columns, each warp 32 × 32 of them (4 × 4
// fragments); the operands pass through local memory MMA_DEPTH terms at a
// time, the next chunk's loads in flight while this one is multiplied; a
// chunk's terms are summed apart and then added, as above.
#ifndef MMA_DEPTH  // a trial may set it (PSCR_KERNEL_DEFINES)
#define MMA_DEPTH 16
#endif
// rows of the staged operands: a half-warp's fragment loads (k = t,
// index g: t·MMA_ROW + g) hit 16 distinct 64-bit banks
#define MMA_ROW (MMA_TILE + 4)
#define MMA_LOADS (MMA_DEPTH * MMA_TILE / MMA_GROUP)
typedef char mma_tiles_are_four_warps[MMA_TILE == 64 && MMA_GROUP == 128 ? 1 : -1];

// The instruction: mma.m8n8k4 (sm_80) or, on sm_90, m16n8k4 or m16n8k8
// (MMA_SHAPE 884, 1684, 1688): an MMA_M × MMA_K fragment of W'ᵀ times an
// MMA_K × 8 fragment of the input added to MMA_M × 8 outputs. Lane 4·g + t
// holds element j of them at
//   W'ᵀ: (i, k) = (g + 8·(j & 1), t + 4·(j >> 1)),  j < MMA_NA
//   input: (k, c) = (t + 4·j, g),                   j < MMA_NB
//   outputs: (i, c) = (g + 8·(j >> 1), 2t + (j & 1)), j < MMA_NC.
#if MMA_SHAPE == 884
#define MMA_M 8
#define MMA_K 4
#define MMA_OP(a, b, c)                                                                                       \
  {                                                                                                           \
    double e0, e1;                                                                                            \
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"             \
                 : "=d"(e0), "=d"(e1)                                                                         \
                 : "d"(a[0]), "d"(b[0]), "d"(c[0]), "d"(c[1]));                                               \
    c[0] = e0;                                                                                                \
    c[1] = e1;                                                                                                \
  }
#elif MMA_SHAPE == 1684
#define MMA_M 16
#define MMA_K 4
#define MMA_OP(a, b, c)                                                                                       \
  {                                                                                                           \
    double e0, e1, e2, e3;                                                                                    \
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" \
                 : "=d"(e0), "=d"(e1), "=d"(e2), "=d"(e3)                                                     \
                 : "d"(a[0]), "d"(a[1]), "d"(b[0]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]));              \
    c[0] = e0;                                                                                                \
    c[1] = e1;                                                                                                \
    c[2] = e2;                                                                                                \
    c[3] = e3;                                                                                                \
  }
#else
#define MMA_M 16
#define MMA_K 8
#define MMA_OP(a, b, c)                                                                                       \
  {                                                                                                           \
    double e0, e1, e2, e3;                                                                                    \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "   \
                 "{%10,%11,%12,%13};"                                                                         \
                 : "=d"(e0), "=d"(e1), "=d"(e2), "=d"(e3)                                                     \
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]), "d"(c[0]), "d"(c[1]),    \
                   "d"(c[2]), "d"(c[3]));                                                                     \
    c[0] = e0;                                                                                                \
    c[1] = e1;                                                                                                \
    c[2] = e2;                                                                                                \
    c[3] = e3;                                                                                                \
  }
#endif
#define MMA_NA (MMA_M * MMA_K / 32)
#define MMA_NB (MMA_K / 4)
#define MMA_NC (MMA_M / 4)
#define MMA_FI (32 / MMA_M)  // a warp's fragments along the outputs (32 of them), and 4 along the columns

// Entry e of a chunk of an operand (MMA_DEPTH terms by MMA_TILE outputs or
// columns) as (term, index): along the index where that is contiguous in
// memory (by_index), else in runs of 4 terms (32 bytes) over 8 indices per
// warp, so that a half-warp's stores (term·MMA_ROW + index) hit distinct banks.
inline int2 mma_entry(int e, int by_index) {
  if (by_index) return (int2)(e / MMA_TILE, e % MMA_TILE);
  const int run = e >> 2;
  return (int2)(4 * (run / MMA_TILE) + (e & 3), run % MMA_TILE);
}

// A work-item's loads of one operand, chunk after chunk. With MMA_GROUP =
// 2·MMA_TILE, entry e = f + s·MMA_GROUP of a chunk is, by mma_entry,
//   by_index:  (term, index) = (f / MMA_TILE + 2s, f % MMA_TILE)
//   otherwise: (f % 4 + 4(s >> 1), f / 4 + 32(s & 1)),
// so its element is at[s & 1] + (k0 + 2s or 4(s >> 1))·step, at[] set once
// per work-group (the term f / MMA_TILE or f % 4 included): a chunk's index
// arithmetic is a few additions, not a product and a range check per load,
// which held the loop's instructions at about 20 per mma.
typedef struct {
  ulong at[2];   // even and odd s: the element of the first term at the work-item's index
  int live[2];   // whether that index is in range
  int term0;     // the first term's place in the chunk
  int step;      // elements from one term to the next
} mma_operand_t;

// The operand whose element (term k, index i) lies at
//   W[k·m + i] (by_index, i < limit: Wᵀ's columns, to modes), W[i·m + k] (W's
//   rows, from modes), in[k·C + i] (by_index, i < C), or Y's [r][k][b] of
//   column i = r·batch + b (modes).
inline mma_operand_t mma_operand(int f, int x0, int limit, int by_index, int modes, int m, int batch, int step) {
  mma_operand_t o;
  o.step = step;
  o.term0 = by_index ? f / MMA_TILE : f & 3;
#pragma unroll
  for (int p = 0; p < 2; ++p) {
    const int i = x0 + (by_index ? f % MMA_TILE : (f >> 2) + 32 * p);
    o.live[p] = i < limit;
    const int ii = o.live[p] ? i : 0;
    const ulong row = modes ? dense_modes_index(0, ii, m, batch) : by_index ? (ulong)ii : (ulong)ii * m;
    o.at[p] = row + (ulong)o.term0 * step;
  }
  return o;
}

inline double mma_load(__global const double* a, const mma_operand_t* o, int by_index, int s, ulong k_at, int k0,
                       int nk, int whole) {
  const int p = by_index ? 0 : s & 1, term = by_index ? 2 * s : 4 * (s >> 1);
  if (whole) return a[o->at[p] + k_at + (ulong)term * o->step];
  return o->live[p] && k0 + o->term0 + term < nk ? a[o->at[p] + k_at + (ulong)term * o->step] : 0.0;
}

// The operands' entries e = f + s·MMA_GROUP of the chunk from term k0 into
// registers; whole: every one in range (a uniform branch).
inline void mma_fetch(__global const double* in, __global const double* W, const mma_operand_t* wo,
                      const mma_operand_t* xo, int w_by_column, int x_by_column, int k0, int nk, int whole,
                      double* wnext, double* xnext) {
  const ulong wk = (ulong)k0 * wo->step, xk = (ulong)k0 * xo->step;
  if (whole) {
#pragma unroll
    for (int s = 0; s < MMA_LOADS; ++s) {
      wnext[s] = mma_load(W, wo, w_by_column, s, wk, k0, nk, 1);
      xnext[s] = mma_load(in, xo, x_by_column, s, xk, k0, nk, 1);
    }
  } else {
#pragma unroll
    for (int s = 0; s < MMA_LOADS; ++s) {
      wnext[s] = mma_load(W, wo, w_by_column, s, wk, k0, nk, 0);
      xnext[s] = mma_load(in, xo, x_by_column, s, xk, k0, nk, 0);
    }
  }
}

// A warp's fragments of outputs (or of a chunk's partial sums) set to zero.
inline void mma_clear(double x[MMA_FI][4][MMA_NC]) {
#pragma unroll
  for (int a = 0; a < MMA_FI; ++a)
#pragma unroll
    for (int e = 0; e < 4; ++e)
#pragma unroll
      for (int j = 0; j < MMA_NC; ++j) x[a][e][j] = 0.0;
}

inline void dense_product_mma(__global const double* in, __global double* out, __global const double* W, int n,
                              int m, int C, int batch, int w_by_column, int in_modes, int x_by_column, int out_modes,
                              __global int* nonfinite, int watch, __local double* Ws, __local double* Ins) {
  const int nk = w_by_column ? n : m, ni = w_by_column ? m : n;
  const int f = get_local_id(0), lane = f & 31, warp = f >> 5, g = lane >> 2, t = lane & 3;
  const int out_tiles = (ni + MMA_TILE - 1) / MMA_TILE, gid = get_group_id(0);  // as dense_product
  const int i0 = (gid % out_tiles) * MMA_TILE, c0 = (gid / out_tiles) * MMA_TILE;
  const int wi0 = (warp & 1) * 32, wc0 = (warp >> 1) * 32;  // the warp's outputs and columns in the tile
  // W: Wᵀ's columns (to modes, contiguous in the outputs) or W's rows (from
  // modes, contiguous in the terms); the input: contiguous in its columns,
  // or Y (from modes: the modes are its terms)
  const mma_operand_t wo = mma_operand(f, i0, ni, w_by_column, 0, m, batch, w_by_column ? m : 1);
  const mma_operand_t xo = mma_operand(f, c0, C, x_by_column, in_modes, m, batch, in_modes ? batch : C);
  const int interior = i0 + MMA_TILE <= ni && c0 + MMA_TILE <= C;  // every index of the tile in range
  double wnext[MMA_LOADS], xnext[MMA_LOADS];
  mma_fetch(in, W, &wo, &xo, w_by_column, x_by_column, 0, nk, interior && MMA_DEPTH <= nk, wnext, xnext);
  double acc[MMA_FI][4][MMA_NC];
  mma_clear(acc);
  for (int k0 = 0; k0 < nk; k0 += MMA_DEPTH) {
#pragma unroll
    for (int s = 0; s < MMA_LOADS; ++s) {
      const int e = f + s * MMA_GROUP;
      const int2 w = mma_entry(e, w_by_column), x = mma_entry(e, x_by_column);
      Ws[w.x * MMA_ROW + w.y] = wnext[s];
      Ins[x.x * MMA_ROW + x.y] = xnext[s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (k0 + MMA_DEPTH < nk)
      mma_fetch(in, W, &wo, &xo, w_by_column, x_by_column, k0 + MMA_DEPTH, nk, interior && k0 + 2 * MMA_DEPTH <= nk,
                wnext, xnext);
    double part[MMA_FI][4][MMA_NC];
    mma_clear(part);
#pragma unroll
    for (int kk = 0; kk < MMA_DEPTH; kk += MMA_K) {
      double wa[MMA_FI][MMA_NA], xb[4][MMA_NB];
#pragma unroll
      for (int a = 0; a < MMA_FI; ++a)
#pragma unroll
        for (int j = 0; j < MMA_NA; ++j)
          wa[a][j] = Ws[(kk + t + 4 * (j >> 1)) * MMA_ROW + wi0 + MMA_M * a + g + 8 * (j & 1)];
#pragma unroll
      for (int e = 0; e < 4; ++e)
#pragma unroll
        for (int j = 0; j < MMA_NB; ++j) xb[e][j] = Ins[(kk + t + 4 * j) * MMA_ROW + wc0 + 8 * e + g];
#pragma unroll
      for (int a = 0; a < MMA_FI; ++a)
#pragma unroll
        for (int e = 0; e < 4; ++e) MMA_OP(wa[a], xb[e], part[a][e])
    }
#pragma unroll
    for (int a = 0; a < MMA_FI; ++a)
#pragma unroll
      for (int e = 0; e < 4; ++e)
#pragma unroll
        for (int j = 0; j < MMA_NC; ++j) acc[a][e][j] += part[a][e][j];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  int bad = 0;
#pragma unroll
  for (int a = 0; a < MMA_FI; ++a)
#pragma unroll
    for (int e = 0; e < 4; ++e)
#pragma unroll
      for (int j = 0; j < MMA_NC; ++j) {
        const int i = i0 + wi0 + MMA_M * a + g + 8 * (j >> 1), c = c0 + wc0 + 8 * e + 2 * t + (j & 1);
        if (i < ni && c < C) {
          out[out_modes ? dense_modes_index(i, c, m, batch) : (size_t)i * C + c] = acc[a][e][j];
          bad |= NONFINITE(acc[a][e][j]);
        }
      }
  if (watch && bad) *nonfinite = 1;
}
#define DENSE_KERNEL __kernel __attribute__((reqd_work_group_size(MMA_GROUP, 1, 1))) void
#define DENSE_STAGES __local scalar Ws[MMA_DEPTH * MMA_ROW], Ins[MMA_DEPTH * MMA_ROW]
#define DENSE_PRODUCT dense_product_mma
#else
#define DENSE_KERNEL __kernel void
#define DENSE_STAGES \
  __local scalar Ws[DENSE_DEPTH * DENSE_ROW_OUT] __attribute__((aligned(16))), \
      Ins[DENSE_DEPTH * DENSE_ROW_COLUMNS] __attribute__((aligned(16)))
#define DENSE_PRODUCT dense_product
#endif

// Global size (DENSE_SIDE·⌈outputs / DENSE_TILE_OUT⌉·⌈C / DENSE_TILE_COLUMNS⌉, DENSE_SIDE), local
// (DENSE_SIDE, DENSE_SIDE), or with DENSE_MMA MMA_GROUP·⌈outputs / MMA_TILE⌉·⌈C / MMA_TILE⌉, local
// MMA_GROUP; outputs: m modes (to modes), n rows (from modes).
// To modes, Y written along its columns (batches of 8 or more: a warp's
// stores contiguous in b) or, dense_to_modes_by_term, along its modes
// (contiguous where batch = 1). H100, graded float 3D 255³: the launch with
// batch 255 351 → 313 µs, 127³ 40.6 → 32.4 µs. The tensor cores' fragments
// store alike either way.
DENSE_KERNEL dense_to_modes(__global const scalar* X, __global scalar* Y, __global const scalar* W, int n, int m,
                            int C, int batch) {
  DENSE_STAGES;
  DENSE_PRODUCT(X, Y, W, n, m, C, batch, 1, 0, 1, 2, 0, 0, Ws, Ins);
}
DENSE_KERNEL dense_to_modes_by_term(__global const scalar* X, __global scalar* Y, __global const scalar* W, int n,
                                    int m, int C, int batch) {
  DENSE_STAGES;
  DENSE_PRODUCT(X, Y, W, n, m, C, batch, 1, 0, 1, 1, 0, 0, Ws, Ins);
}
// From modes, Y read along its columns c = r·batch + b (contiguous in b):
// batches of 8 or more; dense_from_modes_by_term reads it along its modes,
// contiguous where batch = 1. Along the columns a warp's loads are
// contiguous (H100, graded 3D 255³: the launch with batch 65025 385 → 350 µs
// on the FP64 tensor cores, float 372 → 350 µs).
// watch: the products write the solution; nonfinite[0] = 1 where one is a
// NaN or an infinity, so that it needs no scan of its own (find_nonfinite).
DENSE_KERNEL dense_from_modes(__global const scalar* Y, __global scalar* X, __global const scalar* W, int n, int m,
                              int C, int batch, __global int* nonfinite, int watch) {
  DENSE_STAGES;
  DENSE_PRODUCT(Y, X, W, n, m, C, batch, 0, 1, 1, 0, nonfinite, watch, Ws, Ins);
}
DENSE_KERNEL dense_from_modes_by_term(__global const scalar* Y, __global scalar* X, __global const scalar* W, int n,
                                      int m, int C, int batch, __global int* nonfinite, int watch) {
  DENSE_STAGES;
  DENSE_PRODUCT(Y, X, W, n, m, C, batch, 0, 1, 0, 0, nonfinite, watch, Ws, Ins);
}
// The same products with the modes as lines, Y[l][c] (contiguous in c): a
// 2D problem's lines for the whole-line solver (src/opencl/dense_solve.hpp,
// dense_modes_as_lines), and the cyclic lines of a periodic last dimension,
// stored Y[row][line] (C lines of n rows), solved in its eigenbasis: to modes
// Z = Wᵀ Y (m = n), the modes divided by ν_k + σ_line (eigenbasis_divide),
// back Y = W Z. Same grid as above.
DENSE_KERNEL dense_to_lines(__global const scalar* X, __global scalar* Y, __global const scalar* W, int n, int m,
                            int C) {
  DENSE_STAGES;
  DENSE_PRODUCT(X, Y, W, n, m, C, 1, 1, 0, 1, 0, 0, 0, Ws, Ins);
}
DENSE_KERNEL dense_from_lines(__global const scalar* Y, __global scalar* X, __global const scalar* W, int n, int m,
                              int C, __global int* nonfinite, int watch) {
  DENSE_STAGES;
  DENSE_PRODUCT(Y, X, W, n, m, C, 1, 0, 0, 1, 0, nonfinite, watch, Ws, Ins);
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
