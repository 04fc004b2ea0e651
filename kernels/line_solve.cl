// Whole lines on chip: the tridiagonal systems (A + σ M) y = g of the last
// dimension with one read and one write of each right-hand side (the global CR
// stages of tridiagonal.cl read and write each line about six times).
// Lines are stored whole, Y[line][row]. A work-group holds get_local_size(1)
// lines with T = get_local_size(0) work-items each (T a power of two);
// work-item t owns chunk t, rows a = t·k … b = min(a + k, n) − 1, k ≤ LINE_ROWS.
//  1. The line's right-hand side is read into local memory, coalesced.
//  2. Each work-item eliminates x_a … x_{b−1} in order with rows a … b−1 as
//     pivots. Pivot row i then couples x_i, x_{i+1} and, by fill-in (the
//     "spike"), x_{a−1}: the last row of the chunk before. What remains is row
//     b of every chunk, a tridiagonal system of T rows (the Schur complement
//     onto the chunks' last rows); its row t is completed by chunk t + 1,
//     whose eliminations also update row a − 1.
//  3. That reduced system is solved by PCR in local memory (cr_combine).
//  4. Back substitution inside each chunk from x_b and x_{a−1}; the solution
//     is written out, coalesced.
// Each elimination removes an unknown whose other couplings in the pivot row
// and in the updated row are disjoint, so with EXCESS_FORM the updated row's
// excess is e + |c|·ê/d exactly (ê the pivot row's excess, d its diagonal, c
// the coupling): additions of non-negative numbers only, as in cr_combine.
// Coefficients are generated from the packed factor (coef_t, tridiagonal.cl),
// never stored per line; CC holds it chunk by chunk, CC[j·T + t] = C[t·k + j],
// so that work-items stepping through their chunks together read consecutive
// entries. The pivots' spikes and reciprocals stay in registers.
#ifndef LINE_ROWS
#define LINE_ROWS 16
#endif
#ifdef LINE_UNROLL
#define LINE_LOOP _Pragma("unroll")
#else
#define LINE_LOOP
#endif

// Local position of row r: one pad entry per chunk keeps the work-items,
// which walk their chunks in step, on distinct banks.
inline int line_pos(int r, int k) { return r + r / k; }


// Local memory per line: `span` scalars (src/opencl/tridiagonal_solver.cpp),
// the reduced system (3T) and then the padded rows (line_pos).
__kernel void line_solve(__global scalar* Y, int n, int k, int L, __global const coef_t* C, __global const coef_t* CC,
                         __global const scalar* sigma, __global const int* pinned, __global int* flags, int span,
                         __local scalar* buf) {
  const int t = get_local_id(0), T = get_local_size(0), lg = get_local_id(1);
  const int line = get_group_id(1) * get_local_size(1) + lg;
  const int active = line < L;
  __local scalar* ro = buf + (size_t)lg * span;  // reduced system: ro[j] couples rows j and j + stride
  __local scalar* rs = ro + T;                    // its excess (EXCESS_FORM) or diagonal
  __local scalar* rg = rs + T;                    // its right-hand side, then solution
  __local scalar* g = rg + T;                     // the line's right-hand side, then solution
  __global scalar* y = Y + (size_t)(active ? line : 0) * n;
  const scalar sg = active ? sigma[line] : ZERO;
  const int pin = active ? pinned[line] : 0;
  if (active)
    for (int r = t; r < n; r += T) g[line_pos(r, k)] = y[r];
  barrier(CLK_LOCAL_MEM_FENCE);

  const int a = t * k, b = min(a + k, n) - 1;
  const int live = a < n;  // chunks past the end are identity rows of the reduced system
  scalar keep_spike[LINE_ROWS], keep_inv[LINE_ROWS];
  scalar spike = ZERO;                  // the current row's coupling to x_{a−1}
  scalar cur_s = FROM_REAL(1), cur_g = ZERO;  // its excess or diagonal and right-hand side
  scalar prev_s = ZERO, prev_g = ZERO;  // what the eliminations add to row a − 1
  scalar up = ZERO;                     // its coupling to x_{i+1}
  if (live) {
    const row_t r = level0_coef(C, n, a, sg, pin);
    spike = r.lo;
    up = r.up;
    cur_s = r.s;
    cur_g = g[line_pos(a, k)];
  }
  LINE_LOOP
  for (int j = 0; j < LINE_ROWS; ++j) {
    const int i = a + j;
    if (live && i < b) {
#ifdef EXCESS_FORM
      const scalar inv = srecip(cur_s + fabs(spike) + fabs(up));
      const scalar ratio = cur_s * inv;  // ê/d of the pivot
      prev_s += fabs(spike) * ratio;
#else
      const scalar inv = srecip(cur_s);
      prev_s -= smul(smul(spike, inv), spike);
#endif
      keep_spike[j] = spike;
      keep_inv[j] = inv;
      g[line_pos(i, k)] = cur_g;
      prev_g -= smul(smul(spike, inv), cur_g);
      const row_t nx = level0_row(CC[(j + 1) * T + t], up, C, n, i + 1, sg, pin);
      const scalar w = smul(up, inv);
#ifdef EXCESS_FORM
      cur_s = nx.s + fabs(up) * ratio;
#else
      const scalar tn = smul(w, up);
      cur_s = nx.s - tn;
      if (active && sabs(cur_s) < (real)PIVOT_LIMIT * (sabs(nx.s) + sabs(tn))) flags[1] = line + 1;
#endif
      cur_g = g[line_pos(i + 1, k)] - smul(w, cur_g);
      spike = -smul(w, spike);
      up = nx.up;
    }
  }
  // Row b of this chunk is row t of the reduced system; the fill-in coupling
  // to the previous chunk's row b is ro[t − 1] (symmetric storage).
  rs[t] = cur_s;
  rg[t] = cur_g;
  if (t > 0) ro[t - 1] = spike;
  if (t == T - 1) ro[t] = ZERO;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t > 0) {
    rs[t - 1] += prev_s;
    rg[t - 1] += prev_g;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int st = 1; st < T; st *= 2) {
    const row_t c = local_row(ro, rs, rg, t, st, 1, 0);
    const row_t m = t >= st ? local_row(ro, rs, rg, t - st, st, 1, 0) : identity_row();
    const row_t p = t + st < T ? local_row(ro, rs, rg, t + st, st, 1, 0) : identity_row();
    const row_t o = cr_combine(m, c, p);
    if (active) watch_pivot(o, flags, line);
    barrier(CLK_LOCAL_MEM_FENCE);
    ro[t] = o.up;
    rs[t] = o.s;
    rg[t] = o.g;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const scalar xb = back_solve(local_row(ro, rs, rg, t, T, 1, 0), ZERO, ZERO);
  barrier(CLK_LOCAL_MEM_FENCE);
  rg[t] = xb;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (live) {
    const scalar xa = t > 0 ? rg[t - 1] : ZERO;  // x_{a−1}
    scalar x = xb;
    g[line_pos(b, k)] = x;
    LINE_LOOP
    for (int j = LINE_ROWS - 1; j >= 0; --j) {
      const int i = a + j;
      if (i < b) {
        const scalar o = pin && i == n - 2 ? ZERO : level0_coupling(CC, j * T + t, sg);
        x = smul(g[line_pos(i, k)] - smul(keep_spike[j], xa) - smul(o, x), keep_inv[j]);
        g[line_pos(i, k)] = x;
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (active)
    for (int r = t; r < n; r += T) y[r] = g[line_pos(r, k)];
}
