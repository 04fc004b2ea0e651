// One PSCR level pass: right-hand sides of the partial solutions, their
// weighted sums, the survivor update and the back-substitution boundary terms.

// A group of one level. Rows are absolute in the PSCR dimension.
typedef struct {
  int start, end, nsrc, mode0, m;
  int src_row[NSRC];
  int src_pos[NSRC];
  int start_pos, end_pos;
} group_t;
// the host packs the same record (src/opencl/level_tables.hpp): a build of
// another layout fails here
typedef char group_t_matches_the_host_record[sizeof(group_t) == GROUP_RECORD_INTS * sizeof(int) ? 1 : -1];

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

// Where row r of partial solution `mode` (batch lane b) lives in Y: [r][mode][b],
// or, for the whole-line tridiagonal solver (line_solve.cl), [mode][b][r].
inline size_t y_index(int whole_lines, int r, int mode, int b, int R, int modes, int batch) {
  return whole_lines ? ((size_t)mode * batch + b) * R + r : ((size_t)r * modes + mode) * batch + b;
}

// Right-hand sides of the partial solutions: Y[r][mode][b] =
//   Σ_p W[src_p, l] X[src_p][r][b] − W[s, l] BL[g][r][b] − W[e, l] BR[g][r][b].
inline scalar partial_rhs(__global const scalar* X, const group_t* gp, int gi, const scalar* ws, scalar wl,
                          scalar wr, __global const scalar* BL, __global const scalar* BR, int r, int R, int batch,
                          int b, int use_boundary) {
  scalar s = ZERO;
  // a loop of compile-time length, so that the source loads are issued
  // together rather than one after the other
#pragma unroll
  for (int p = 0; p < NSRC; ++p)
    if (p < gp->nsrc) s += smul(ws[p], X[((size_t)gp->src_row[p] * R + r) * batch + b]);
  if (use_boundary) {
    const size_t o = ((size_t)gi * R + r) * batch + b;
    s -= smul(wl, BL[o]) + smul(wr, BR[o]);
  }
  return s;
}

// The eigenvector entries of one mode at its group's sources and ends.
inline void mode_weights(__global const scalar* W, const group_t* g, int mode, scalar* ws, scalar* wl, scalar* wr) {
  __global const scalar* w = W + (size_t)mode * KEPT;
  for (int p = 0; p < NSRC; ++p) ws[p] = p < g->nsrc ? w[g->src_pos[p]] : ZERO;
  *wl = w[g->start_pos];
  *wr = w[g->end_pos];
}

// Each work-item forms RHS_ROWS consecutive rows of one line, so the group
// and eigenvector look-ups are made once per RHS_ROWS outputs.
// Global size (batch, modes, ceil(R / RHS_ROWS)); RHS_ROWS is set by the host.
__kernel void form_rhs(__global const scalar* X, __global scalar* Y, __global const group_t* groups,
                       __global const int* mode_group, __global const scalar* W, __global const scalar* BL,
                       __global const scalar* BR, int R, int batch, int modes, int use_boundary) {
  const int b = get_global_id(0), mode = get_global_id(1), r0 = get_global_id(2) * RHS_ROWS;
  if (b >= batch || mode >= modes || r0 >= R) return;
  const int gi = mode_group[mode];
  const group_t g = groups[gi];
  scalar ws[NSRC], wl, wr;
  mode_weights(W, &g, mode, ws, &wl, &wr);
  const int r1 = min(r0 + RHS_ROWS, R);
  for (int r = r0; r < r1; ++r)
    Y[y_index(0, r, mode, b, R, modes, batch)] = partial_rhs(X, &g, gi, ws, wl, wr, BL, BR, r, R, batch, b, use_boundary);
}

// One tile of form_rhs_tiles and form_tile (line_solve.cl): acc[j][i], the
// right-hand side of mode ma + i (i < nm, modes of group gi; w = W at row ma)
// at row rb + j·S (< R) of lane b.
inline void tile_rhs(__global const scalar* X, const group_t* g, int gi, __global const scalar* w, int nm,
                     __global const scalar* BL, __global const scalar* BR, int R, int batch, int b, int rb, int S,
                     int use_boundary, scalar acc[RHS_TILE_ROWS][RHS_MODES]) {
#pragma unroll
  for (int j = 0; j < RHS_TILE_ROWS; ++j)
#pragma unroll
    for (int i = 0; i < RHS_MODES; ++i) acc[j][i] = ZERO;
  for (int p = 0; p < g->nsrc; ++p) {
    scalar wp[RHS_MODES], x[RHS_TILE_ROWS];
#pragma unroll
    for (int i = 0; i < RHS_MODES; ++i) wp[i] = i < nm ? w[i * KEPT + g->src_pos[p]] : ZERO;
    __global const scalar* xs = X + ((size_t)g->src_row[p] * R + rb) * batch + b;
#pragma unroll
    for (int j = 0; j < RHS_TILE_ROWS; ++j) x[j] = rb + j * S < R ? xs[(size_t)j * S * batch] : ZERO;
#pragma unroll
    for (int j = 0; j < RHS_TILE_ROWS; ++j)
#pragma unroll
      for (int i = 0; i < RHS_MODES; ++i) acc[j][i] += smul(wp[i], x[j]);
  }
  if (use_boundary) {
    scalar wl[RHS_MODES], wr[RHS_MODES];
#pragma unroll
    for (int i = 0; i < RHS_MODES; ++i) {
      wl[i] = i < nm ? w[i * KEPT + g->start_pos] : ZERO;
      wr[i] = i < nm ? w[i * KEPT + g->end_pos] : ZERO;
    }
#pragma unroll
    for (int j = 0; j < RHS_TILE_ROWS; ++j)
      if (rb + j * S < R) {
        const size_t o = ((size_t)gi * R + rb + j * S) * batch + b;
        const scalar xl = BL[o], xr = BR[o];
#pragma unroll
        for (int i = 0; i < RHS_MODES; ++i) acc[j][i] -= smul(wl[i], xl) + smul(wr[i], xr);
      }
  }
}

// The same for a batch of problems (batch >= 32, 3D: the nested 2D
// problems), as a small matrix product per group: each work-item forms
// RHS_TILE_ROWS rows of RHS_MODES consecutive modes of one lane b. A
// wavefront's work-items are consecutive lanes and share no loads, so a
// mode per work-item costs q − 1 source loads per output; here a source value
// loaded once serves the tile's modes of its group and an eigenvector entry
// (the same for the whole wavefront) the tile's rows. The sums are those of
// partial_rhs, in the same order. Global size
// (batch, ceil(modes / RHS_MODES), ceil(R / RHS_TILE_ROWS)).
// Tile (m0, r0) of lane b: rows r0 + j·S (j < RHS_TILE_ROWS, < R) of modes
// m0 … m0 + RHS_MODES − 1 (< modes), the tile's runs of modes of one group
// each by tile_rhs, into Y laid out as y_index(whole_lines, …) says.
inline void form_tile_rows(__global const scalar* X, __global scalar* Y, __global const group_t* groups,
                           __global const int* mode_group, __global const scalar* W, __global const scalar* BL,
                           __global const scalar* BR, int R, int batch, int modes, int use_boundary, int b, int m0,
                           int r0, int S, int whole_lines) {
  const int m1 = min(m0 + RHS_MODES, modes);
  for (int ma = m0; ma < m1;) {
    const int gi = mode_group[ma];
    const group_t g = groups[gi];
    const int nm = min(m1, g.mode0 + g.m) - ma;
    scalar acc[RHS_TILE_ROWS][RHS_MODES];
    tile_rhs(X, &g, gi, W + (size_t)ma * KEPT, nm, BL, BR, R, batch, b, r0, S, use_boundary, acc);
#pragma unroll
    for (int j = 0; j < RHS_TILE_ROWS; ++j)
#pragma unroll
      for (int i = 0; i < RHS_MODES; ++i)
        if (r0 + j * S < R && i < nm) Y[y_index(whole_lines, r0 + j * S, ma + i, b, R, modes, batch)] = acc[j][i];
    ma += nm;
  }
}

__kernel void form_rhs_tiles(__global const scalar* X, __global scalar* Y, __global const group_t* groups,
                             __global const int* mode_group, __global const scalar* W, __global const scalar* BL,
                             __global const scalar* BR, int R, int batch, int modes, int use_boundary) {
  const int b = get_global_id(0), m0 = get_global_id(1) * RHS_MODES, r0 = get_global_id(2) * RHS_TILE_ROWS;
  if (b >= batch || m0 >= modes || r0 >= R) return;
  form_tile_rows(X, Y, groups, mode_group, W, BL, BR, R, batch, modes, use_boundary, b, m0, r0, 1, 0);
}

// The same into whole lines, [mode][b][r]: work-item r0 forms rows r0,
// r0 + G, r0 + 2G, … (G = the global size in rows), so consecutive work-items
// write consecutive rows and the look-ups are shared. Global size
// (ceil(R / RHS_ROWS), modes, batch).
__kernel void form_rhs_lines(__global const scalar* X, __global scalar* Y, __global const group_t* groups,
                             __global const int* mode_group, __global const scalar* W, __global const scalar* BL,
                             __global const scalar* BR, int R, int batch, int modes, int use_boundary) {
  const int r0 = get_global_id(0), G = get_global_size(0), mode = get_global_id(1), b = get_global_id(2);
  if (b >= batch || mode >= modes || r0 >= R) return;
  const int gi = mode_group[mode];
  const group_t g = groups[gi];
  scalar ws[NSRC], wl, wr;
  mode_weights(W, &g, mode, ws, &wl, &wr);
  for (int r = r0; r < R; r += G)
    Y[y_index(1, r, mode, b, R, modes, batch)] = partial_rhs(X, &g, gi, ws, wl, wr, BL, BR, r, R, batch, b, use_boundary);
}

// The same by tiles of modes into whole lines of one problem (batch 1, 2D;
// KernelParameters::rhs_apart): work-item r0 forms rows r0, r0 + S, …
// (RHS_TILE_ROWS of them, S = the global size in rows) of RHS_MODES
// consecutive modes, so that a source row is read once per tile of modes
// instead of once per mode, consecutive work-items reading consecutive rows
// and writing consecutive rows of each line. Global size
// (≥ ceil(R / RHS_TILE_ROWS), ceil(modes / RHS_MODES)).
__kernel void form_rhs_lines_tiles(__global const scalar* X, __global scalar* Y, __global const group_t* groups,
                                   __global const int* mode_group, __global const scalar* W,
                                   __global const scalar* BL, __global const scalar* BR, int R, int modes,
                                   int use_boundary) {
  const int r0 = get_global_id(0), m0 = get_global_id(1) * RHS_MODES;
  if (r0 >= R || m0 >= modes) return;
  form_tile_rows(X, Y, groups, mode_group, W, BL, BR, R, 1, modes, use_boundary, 0, m0, r0, get_global_size(0), 1);
}

// Partial-solution outputs (the weighted vector sums):
//   out[g][t][r][b] = Σ_l W[pos_t, l] Y[r][mode0+l][b]
// for the kept positions t of group g, all read in one pass over Y; written to
// V (reduction: start and end rows) or straight into the source rows of X
// (back substitution). Global size (batch, T, R*groups), or with whole lines
// (R*groups, T, batch) so that consecutive work-items read consecutive rows:
// the T work-items of one sum each add every T-th term (accumulate: T = 1;
// accumulate_tree: T > 1, partial sums reduced as a tree in local memory).
inline int sum_lane_b(int whole_lines) { return get_global_id(whole_lines ? 2 : 0); }
inline int sum_index(int whole_lines) { return get_global_id(whole_lines ? 0 : 2); }
inline void partial_sums(__global const scalar* Y, __global const group_t* groups, __global const scalar* W, int R,
                         int batch, int modes, int ngroups, int nout, int to_sources, int whole_lines, int lane, int T,
                         scalar acc[KEPT]) {
  const int b = sum_lane_b(whole_lines), rg = sum_index(whole_lines);
  for (int t = 0; t < KEPT; ++t) acc[t] = ZERO;
  if (b >= batch || rg >= R * ngroups) return;
  const int r = rg % R;
  const group_t g = groups[rg / R];
  int pos[KEPT];
  for (int t = 0; t < KEPT; ++t) pos[t] = 0;
  if (to_sources) for (int t = 0; t < NSRC; ++t) pos[t] = g.src_pos[t];
  else { pos[0] = g.start_pos; pos[1] = g.end_pos; }
  // compensated: a work-item may add thousands of terms (long groups, few
  // work-items per sum), and a plain float sum would lose digits with each
  scalar comp[KEPT];
  for (int t = 0; t < KEPT; ++t) comp[t] = ZERO;
  // unrolled, so that several modes' loads are in flight at once
#pragma unroll 4
  for (int l = lane; l < g.m; l += T) {
    const scalar y = Y[y_index(whole_lines, r, g.mode0 + l, b, R, modes, batch)];
    __global const scalar* w = W + (size_t)(g.mode0 + l) * KEPT;
    // a loop of constant length keeps acc, comp and pos in registers
#pragma unroll
    for (int t = 0; t < KEPT; ++t)
      if (t < nout) KAHAN_ADD(acc[t], comp[t], smul(w[pos[t]], y));
  }
}

inline void store_sums(__global const group_t* groups, __global scalar* V, __global scalar* X, int R, int batch,
                       int ngroups, int to_sources, int whole_lines, const scalar acc[KEPT]) {
  const int b = sum_lane_b(whole_lines), rg = sum_index(whole_lines);
  if (b >= batch || rg >= R * ngroups) return;
  const int r = rg % R, gi = rg / R;
  if (to_sources) {
    const group_t g = groups[gi];
#pragma unroll
    for (int t = 0; t < NSRC; ++t)
      if (t < g.nsrc) X[((size_t)g.src_row[t] * R + r) * batch + b] = acc[t];
  } else {
    for (int t = 0; t < 2; ++t) V[(((size_t)gi * 2 + t) * R + r) * batch + b] = acc[t];
  }
}

__kernel void accumulate(__global const scalar* Y, __global const group_t* groups, __global const scalar* W,
                         __global scalar* V, __global scalar* X, int R, int batch, int modes, int ngroups,
                         int to_sources, int whole_lines) {
  scalar acc[KEPT];
  partial_sums(Y, groups, W, R, batch, modes, ngroups, to_sources ? NSRC : 2, to_sources, whole_lines, 0, 1, acc);
  store_sums(groups, V, X, R, batch, ngroups, to_sources, whole_lines, acc);
}

__kernel void accumulate_tree(__global const scalar* Y, __global const group_t* groups, __global const scalar* W,
                              __global scalar* V, __global scalar* X, int R, int batch, int modes, int ngroups,
                              int to_sources, int whole_lines, __local scalar* part) {
  const int lane = get_local_id(1), T = get_local_size(1), wb = get_local_size(0);
  const int nout = to_sources ? NSRC : 2;
  scalar acc[KEPT];
  partial_sums(Y, groups, W, R, batch, modes, ngroups, nout, to_sources, whole_lines, lane, T, acc);
  const int p = (get_local_id(2) * T + lane) * wb + get_local_id(0);
#pragma unroll
  for (int t = 0; t < KEPT; ++t) {
    if (t >= nout) break;
    part[p] = acc[t];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = T / 2; s > 0; s >>= 1) {
      if (lane < s) part[p] += part[p + s * wb];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc[t] = part[p];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0) store_sums(groups, V, X, R, batch, ngroups, to_sources, whole_lines, acc);
}

// Block products with the rest operator at shift sigma[b]:
//   B(j, j2) x = (A_d)_{j j2} M_r x + (M_d)_{j j2} (A_r + σ M_r) x.
inline scalar block(__global const scalar* Ad, __global const scalar* Md, int n, int j, int j2, __global const scalar* x, int r, int batch,
                    int b, scalar sg, __global const scalar* A2, __global const scalar* M2, int n2,
                    __global const scalar* A3, __global const scalar* M3, int n3) {
  const scalar a = tri(Ad, n, j, j2), m = tri(Md, n, j, j2);
  return apply_rest(x, r, batch, b, a + smul(m, sg), m, A2, M2, n2, A3, M3, n3);
}

// Reduction update of the rows of J_i: X_j -= B(j,j-1) v_e(left) + B(j,j+1) v_s(right).
// Global size (batch, R, survivors).
__kernel void update_survivors(__global scalar* X, __global const scalar* V, __global const int* survivors,
                               int nsurv, int ngroups, __global const scalar* Ad, __global const scalar* Md, int n, __global const scalar* sigma,
                               int R, int batch, __global const scalar* A2, __global const scalar* M2, int n2,
                               __global const scalar* A3, __global const scalar* M3, int n3) {
  const int b = get_global_id(0), r = get_global_id(1), t = get_global_id(2);
  if (b >= batch || r >= R || t >= nsurv) return;
  const int j = survivors[t];
  const scalar sg = sigma[b];
  scalar s = block(Ad, Md, n, j, j - 1, V + ((size_t)t * 2 + 1) * R * batch, r, batch, b, sg, A2, M2, n2, A3, M3, n3);
  if (t + 1 < ngroups) s += block(Ad, Md, n, j, j + 1, V + ((size_t)(t + 1) * 2) * R * batch, r, batch, b, sg, A2, M2, n2, A3, M3, n3);
  X[((size_t)j * R + r) * batch + b] -= s;
}

// Back-substitution boundary terms: BL[g] = B(s,s-1) u_{s-1}, BR[g] = B(e,e+1) u_{e+1}.
// Global size (batch, R, groups).
__kernel void boundary_terms(__global const scalar* X, __global scalar* BL, __global scalar* BR,
                             __global const group_t* groups, int ngroups, __global const scalar* Ad, __global const scalar* Md, int n,
                             __global const scalar* sigma, int R, int batch, __global const scalar* A2,
                             __global const scalar* M2, int n2, __global const scalar* A3, __global const scalar* M3,
                             int n3) {
  const int b = get_global_id(0), r = get_global_id(1), gi = get_global_id(2);
  if (b >= batch || r >= R || gi >= ngroups) return;
  const group_t g = groups[gi];
  const scalar sg = sigma[b];
  const size_t o = ((size_t)gi * R + r) * batch + b;
  BL[o] = g.start > 0 ? block(Ad, Md, n, g.start, g.start - 1, X + (size_t)(g.start - 1) * R * batch, r, batch, b, sg, A2, M2, n2, A3, M3, n3) : ZERO;
  BR[o] = g.end < n - 1 ? block(Ad, Md, n, g.end, g.end + 1, X + (size_t)(g.end + 1) * R * batch, r, batch, b, sg, A2, M2, n2, A3, M3, n3) : ZERO;
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

// The rows a rank of a distributed plan exchanges, moved to and from one
// contiguous buffer B so that each way is one copy between host and device:
// row j of B is the R values at scalar offset offs[j] of X, or of the
// reduction buffer V where the offset has the bit `in_sums` set (the host's
// choice, opencl_executor.cpp). Global size (R, rows).
__kernel void gather_rows(__global const scalar* X, __global const scalar* V, __global const ulong* offs, int rows,
                          ulong R, ulong in_sums, __global scalar* B) {
  const size_t r = get_global_id(0), j = get_global_id(1);
  if (r >= R || j >= (size_t)rows) return;
  const ulong o = offs[j];
  B[j * R + r] = (o & in_sums) ? V[(o & ~in_sums) + r] : X[o + r];
}
__kernel void scatter_rows(__global scalar* X, __global scalar* V, __global const ulong* offs, int rows, ulong R,
                           ulong in_sums, __global const scalar* B) {
  const size_t r = get_global_id(0), j = get_global_id(1);
  if (r >= R || j >= (size_t)rows) return;
  const ulong o = offs[j];
  if (o & in_sums) V[(o & ~in_sums) + r] = B[j * R + r];
  else X[o + r] = B[j * R + r];
}

// flag = 1 when X[begin, end) holds a NaN or an infinity. Four loads per
// work-item and step are in flight together: one at a time, the pass ran at
// a fraction of the memory's bandwidth.
__kernel void find_nonfinite(__global const scalar* X, ulong begin, ulong end, __global int* flag) {
  const size_t G = get_global_size(0);
  size_t i = begin + get_global_id(0);
  int bad = 0;
  for (; i + 3 * G < end; i += 4 * G) {
    const scalar x0 = X[i], x1 = X[i + G], x2 = X[i + 2 * G], x3 = X[i + 3 * G];
    bad |= NONFINITE(x0) | NONFINITE(x1) | NONFINITE(x2) | NONFINITE(x3);
  }
  for (; i < end; i += G) bad |= NONFINITE(X[i]);
  if (bad) *flag = 1;
}
