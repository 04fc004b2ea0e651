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
// entries. The pivots' spikes and reciprocals stay in registers; where the
// factor is uniform they are the same for every chunk after the first (they
// depend only on the rows' coefficients and the line's shift, not on its
// right-hand side), so chunks 0 and 1 store theirs in local memory for all
// (`kp`) and no work-item keeps 2·LINE_ROWS of them in registers: on the H100
// that register footprint, not local memory, limited the lines resident per
// multiprocessor.
#ifndef LINE_ROWS
#define LINE_ROWS 16
#endif
// line_solve_pivots' rows per checkpoint: the host's kLineCheckpoint
// (src/opencl/program_options.hpp), which sizes the local memory
#ifndef LINE_CHECKPOINT
#error "LINE_CHECKPOINT is set by the host (program_options.cpp)"
#endif
#ifdef LINE_UNROLL
#define LINE_LOOP _Pragma("unroll")
#else
#define LINE_LOOP
#endif

// Local position of row r: r + r / k. One pad entry per chunk keeps the
// work-items, which walk their chunks in step, on distinct banks. Row i of
// chunk t is at i + t. Along rows r0, r0 + T, r0 + 2T, … (the coalesced loads
// and stores of a line) the position is stepped without a division per row:
// an integer division is a long instruction sequence on GPUs, and it was most
// of the arithmetic of a row. r = q·k + m is carried as r + q and m.
typedef struct { int pos, m, dpos, dm, k; } line_walk_t;
inline line_walk_t line_walk(int r0, int T, int k) {
  const int q = r0 / k, dq = T / k;
  line_walk_t w = {r0 + q, r0 - q * k, T + dq, T - dq * k, k};
  return w;
}
inline void line_step(line_walk_t* w) {
  w->pos += w->dpos;
  w->m += w->dm;
  if (w->m >= w->k) {
    w->m -= w->k;
    ++w->pos;
  }
}


// The packed entry of row i, the j-th of chunk t. With a uniform factor
// (rows 1 … n − 2 alike: uniform meshes) every work-item reads the same entry,
// one transaction per wavefront; otherwise each reads its own from the chunked
// copy, and that stream is four times the line's own data.
inline coef_t line_entry(__global const coef_t* C, __global const coef_t* CC, int uniform, int n, int i, int j, int t,
                         int T) {
  return uniform ? C[i > 0 && i < n - 1 ? 1 : i] : CC[j * T + t];
}

// Halved lines (longer than a work-group's local memory holds whole): the
// local solver eliminates level 1 of the line's cyclic reduction, whose row i
// is row 2i + 1 of the line (n0 rows) with rows 2i and 2i + 2 eliminated:
// M = n0 / 2 rows. That reduction is taken while the line is loaded, and the
// even rows follow from their own equations when it is stored, so the line is
// still read once and written once (its even rows are read again, mostly
// from cache). With a uniform factor, level-1 rows 1 … M − 2 are alike (they
// come from level-0 rows 2 … n0 − 2), as are level-0 rows 2 … n0 − 2.
inline row_t half_row(__global const coef_t* C, int n0, int i, scalar sg, int pin) {
  const row_t m = level0_coef(C, n0, 2 * i, sg, pin), c = level0_coef(C, n0, 2 * i + 1, sg, pin);
  const row_t p = 2 * i + 2 < n0 ? level0_coef(C, n0, 2 * i + 2, sg, pin) : identity_row();
  return cr_combine(m, c, p);
}

// A line's interior multipliers and even row, formed once (uniform factor).
typedef struct {
  cr_weights_t w;
  row_t even;
  scalar even_inv;
  int alike;
} half_line_t;
inline half_line_t half_line(__global const coef_t* C, int n0, scalar sg, int pin, int uniform) {
  half_line_t h;
  h.alike = uniform && !pin && n0 >= 6;  // level-0 rows 2, 3, 4 exist
  h.even = identity_row();
  h.w.wl = h.w.wr = h.even_inv = ZERO;
  if (h.alike) {
    const row_t m = level0_coef(C, n0, 2, sg, 0), c = level0_coef(C, n0, 3, sg, 0), p = level0_coef(C, n0, 4, sg, 0);
    h.w = cr_weights(m, c, p);
    h.even = m;
    h.even_inv = srecip(row_diag(m));
  }
  return h;
}

// The right-hand side of level-1 row i from g_{2i}, g_{2i+1}, g_{2i+2} (zero
// past the end), as cr_combine forms it.
inline scalar half_rhs(const half_line_t* h, __global const coef_t* C, int n0, int i, scalar sg, int pin, scalar gm,
                       scalar gc, scalar gp) {
  if (h->alike && i >= 1 && 2 * i + 2 <= n0 - 2) return cr_rhs(h->w, gm, gc, gp);
  const row_t m = level0_coef(C, n0, 2 * i, sg, pin), c = level0_coef(C, n0, 2 * i + 1, sg, pin);
  const row_t p = 2 * i + 2 < n0 ? level0_coef(C, n0, 2 * i + 2, sg, pin) : identity_row();
  return cr_rhs(cr_weights(m, c, p), gm, gc, gp);
}

// Even row r of the line from its right-hand side g and the solutions beside
// it (xl = x_{r−1}, xr = x_{r+1}; zero past the ends), as back_solve gives it.
inline scalar half_even(const half_line_t* h, __global const coef_t* C, int n0, int r, scalar sg, int pin, scalar g,
                        scalar xl, scalar xr) {
  if (h->alike && r >= 2 && r <= n0 - 2) return smul(g - smul(h->even.lo, xl) - smul(h->even.up, xr), h->even_inv);
  row_t e = level0_coef(C, n0, r, sg, pin);
  e.g = g;
  return back_solve(e, xl, xr);
}

// Row i of the system the local solver eliminates: level 0 of the line or,
// halved, level 1 (its pivots watched on the ordinary path, as cr_reduce does).
inline row_t system_row(__global const coef_t* C, int n0, int i, scalar sg, int pin, int halved, int active,
                        __global int* flags, int line) {
  if (!halved) return level0_coef(C, n0, i, sg, pin);
  const row_t r = half_row(C, n0, i, sg, pin);
  if (active) watch_pivot(r, flags, line, sg);
  return r;
}

// One elimination step of a chunk: the reciprocal of the pivot row's
// diagonal (EXCESS_FORM: excess s + |spike| + |up|, and ratio = ê/d), and the
// next row's excess or diagonal once the pivot row is eliminated from it
// (tn: the term taken away, for the pivot watch). Shared by the elimination
// and by line_solve_pivots' recomputation of its pivots, so that both take
// the same operations.
inline scalar pivot_recip(scalar s, scalar spike, scalar up, scalar* ratio) {
#ifdef EXCESS_FORM
  const scalar inv = srecip(s + fabs(spike) + fabs(up));
  *ratio = s * inv;
  return inv;
#else
  *ratio = ZERO;
  return srecip(s);
#endif
}
inline scalar eliminated_s(row_t nx, scalar up, scalar w, scalar ratio, scalar* tn) {
#ifdef EXCESS_FORM
  *tn = ZERO;
  return nx.s + fabs(up) * ratio;
#else
  *tn = smul(w, up);
  return nx.s - *tn;
#endif
}

// line_solve_pivots' back substitution of chunk t (rows a … b − 1, x_b = x
// and x_{a−1} = xa known): each run of LINE_CHECKPOINT rows, last first,
// recomputes its pivots from the checkpoint its elimination left (the
// run's first excess or diagonal and spike, kp[2cT + t] and kp[(2c + 1)T + t]
// for run c) into registers, then substitutes. Two scalars per run in local
// memory instead of two per row: more lines resident per multiprocessor.
inline void substitute_runs(__local scalar* g, __local const scalar* kp, __global const coef_t* C,
                            __global const coef_t* CC, scalar xa, scalar x, int a, int b, int t, int T, int n,
                            scalar sg) {
  LINE_LOOP
  for (int c = (LINE_ROWS - 1) / LINE_CHECKPOINT; c >= 0; --c) {
    const int j0 = c * LINE_CHECKPOINT;
    if (a + j0 < b) {
      scalar s = kp[2 * c * T + t], spike = kp[(2 * c + 1) * T + t];
      scalar up = entry_coupling(CC[j0 * T + t], sg);
      scalar sp[LINE_CHECKPOINT], iv[LINE_CHECKPOINT], o[LINE_CHECKPOINT];
#pragma unroll
      for (int r = 0; r < LINE_CHECKPOINT; ++r) {
        const int i = a + j0 + r;
        sp[r] = spike;
        o[r] = up;
        scalar ratio;
        iv[r] = pivot_recip(s, spike, up, &ratio);
        if (r + 1 < LINE_CHECKPOINT && i + 1 < b) {
          const row_t nx = level0_row(CC[(j0 + r + 1) * T + t], up, C, n, i + 1, sg, 0);
          const scalar w = smul(up, iv[r]);
          scalar tn;
          s = eliminated_s(nx, up, w, ratio, &tn);
          spike = -smul(w, spike);
          up = nx.up;
        }
      }
#pragma unroll
      for (int r = LINE_CHECKPOINT - 1; r >= 0; --r) {
        const int i = a + j0 + r;
        if (i < b) {
          x = smul(g[i + t] - smul(sp[r], xa) - smul(o[r], x), iv[r]);
          g[i + t] = x;
        }
      }
    }
  }
}

// Solves the line whose right-hand side is in local memory (`ro`: the
// reduced system, 3T scalars, then the padded rows at r + r / k) in place;
// kp: 4k scalars for the pivots of chunks 0 and 1 (uniform factors) or,
// every, every chunk's checkpoints, 2⌈k / LINE_CHECKPOINT⌉·T scalars
// (substitute_runs; run c of chunk t at kp[2cT + t] and kp[(2c + 1)T + t]:
// the work-items of a run on distinct banks).
// The system has n rows: the line's n0 or, halved, level 1 of its cyclic
// reduction (n = n0 / 2; CC is not read).
// Every work-item of the group calls it (it holds barriers).
inline void solve_line_local(__local scalar* ro, __local scalar* kp, int every, int n, int k, int t, int T,
                             int active, int line, __global const coef_t* C, __global const coef_t* CC, int uniform,
                             scalar sg, int pin, __global int* flags, int n0, int halved) {
  __local scalar* rs = ro + T;  // the reduced system's excess (EXCESS_FORM) or diagonal
  __local scalar* rg = rs + T;  // its right-hand side, then solution
  __local scalar* g = rg + T;   // the line's right-hand side, then solution
  const int a = t * k, b = min(a + k, n) - 1;
  const int live = a < n;  // chunks past the end are identity rows of the reduced system
  scalar keep_spike[LINE_ROWS], keep_inv[LINE_ROWS];
  scalar spike = ZERO;                  // the current row's coupling to x_{a−1}
  scalar cur_s = FROM_REAL(1), cur_g = ZERO;  // its excess or diagonal and right-hand side
  scalar prev_s = ZERO, prev_g = ZERO;  // what the eliminations add to row a − 1
  scalar up = ZERO;                     // its coupling to x_{i+1}
  // With a uniform factor the interior rows 2 … n − 2 are alike (their
  // coupling to the row before is the interior one too): formed once, not per
  // row, which takes a quarter of the elimination's arithmetic away.
  const int alike = uniform && !pin;
  row_t inner = identity_row();
  if (alike && (!halved || n0 >= 6))  // halved: level-1 rows 1 … M − 2 need n0 ≥ 6
    inner = halved ? system_row(C, n0, 1, sg, 0, 1, active, flags, line)
                   : level0_row(C[1], entry_coupling(C[1], sg), C, n, 1, sg, 0);
  if (live) {
    const row_t r = system_row(C, n0, a, sg, pin, halved, active, flags, line);
    spike = r.lo;
    up = r.up;
    cur_s = r.s;
    cur_g = g[a + t];
  }
  LINE_LOOP
  for (int j = 0; j < LINE_ROWS; ++j) {
    const int i = a + j;
    if (live && i < b) {
      scalar ratio;  // ê/d of the pivot (EXCESS_FORM)
      const scalar inv = pivot_recip(cur_s, spike, up, &ratio);
#ifdef EXCESS_FORM
      prev_s += fabs(spike) * ratio;
#else
      prev_s -= smul(smul(spike, inv), spike);
#endif
      if (every) {
        if (j % LINE_CHECKPOINT == 0) {
          kp[2 * (j / LINE_CHECKPOINT) * T + t] = cur_s;
          kp[(2 * (j / LINE_CHECKPOINT) + 1) * T + t] = spike;
        }
      } else if (!alike) {
        keep_spike[j] = spike;
        keep_inv[j] = inv;
      } else if (t < 2) {
        kp[2 * t * k + j] = spike;
        kp[(2 * t + 1) * k + j] = inv;
      }
      g[i + t] = cur_g;
      prev_g -= smul(smul(spike, inv), cur_g);
      row_t nx;
      if (alike && i + 1 >= 2 && i + 1 <= n - 2) nx = inner;
      else if (halved) nx = system_row(C, n0, i + 1, sg, pin, 1, active, flags, line);
      else nx = level0_row(line_entry(C, CC, uniform, n, i + 1, j + 1, t, T), up, C, n, i + 1, sg, pin);
      const scalar w = smul(up, inv);
      scalar tn;
      cur_s = eliminated_s(nx, up, w, ratio, &tn);
#ifndef EXCESS_FORM
      if (active && abs1(cur_s) < (real)PIVOT_LIMIT * (abs1(nx.s) + abs1(tn))) near_singular(flags, line, sg);
#endif
      cur_g = g[i + 1 + t] - smul(w, cur_g);
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
    if (active) watch_pivot(o, flags, line, sg);
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
  if (live && every) {
    g[b + t] = xb;
    substitute_runs(g, kp, C, CC, t > 0 ? rg[t - 1] : ZERO, xb, a, b, t, T, n, sg);
  } else if (live) {
    const scalar xa = t > 0 ? rg[t - 1] : ZERO;  // x_{a−1}
    __local const scalar* kc = kp + 2 * min(t, 1) * k;  // chunk t's pivots if alike
    scalar x = xb;
    g[b + t] = x;
    LINE_LOOP
    for (int j = LINE_ROWS - 1; j >= 0; --j) {
      const int i = a + j;
      if (i < b) {
        const scalar o = alike && i >= 1 ? inner.up
                         : halved            ? half_row(C, n0, i, sg, pin).up
                         : pin && i == n - 2 ? ZERO
                                             : entry_coupling(line_entry(C, CC, uniform, n, i, j, t, T), sg);
        const scalar sp = alike ? kc[j] : keep_spike[j];
        const scalar iv = alike ? kc[k + j] : keep_inv[j];
        x = smul(g[i + t] - smul(sp, xa) - smul(o, x), iv);
        g[i + t] = x;
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Stores rows 2i and 2i + 1 of a halved line: x_{2i+1} is level-1 row i,
// at w.pos in local memory (w the walk at row i), x_{2i−1} is row i − 1;
// g_even is the line's right-hand side at row 2i.
inline void store_halved_rows(__global scalar* y, __local const scalar* g, line_walk_t w, int i, int M,
                              const half_line_t* h, __global const coef_t* C, int n0, scalar sg, int pin,
                              scalar g_even) {
  const scalar xr = i < M ? g[w.pos] : ZERO;
  const scalar xl = i > 0 ? g[w.m == 0 ? w.pos - 2 : w.pos - 1] : ZERO;
  y[2 * i] = half_even(h, C, n0, 2 * i, sg, pin, g_even, xl, xr);
  if (i < M) y[2 * i + 1] = xr;
}

// Rows t, t + T, … of a line to and from its padded places in local memory
// (w the walk from row t). A work-item has at most LINE_ROWS of them (n ≤
// T·k, k ≤ LINE_ROWS), so the loop has a constant bound and unrolls: all of
// a work-item's loads are in flight at once, not one after the other (H100,
// 3D 255³ double: line_solve 302 → 248 µs).
inline void load_line_rows(__global const scalar* y, __local scalar* g, line_walk_t w, int t, int n, int T) {
  scalar v[LINE_ROWS];
  LINE_LOOP
  for (int j = 0; j < LINE_ROWS; ++j) v[j] = t + j * T < n ? y[t + j * T] : ZERO;
  LINE_LOOP
  for (int j = 0; j < LINE_ROWS; ++j)
    if (t + j * T < n) {
      g[w.pos] = v[j];
      line_step(&w);
    }
}
inline void store_line_rows(__global scalar* y, __local const scalar* g, line_walk_t w, int t, int n, int T) {
  LINE_LOOP
  for (int j = 0; j < LINE_ROWS; ++j)
    if (t + j * T < n) {
      y[t + j * T] = g[w.pos];
      line_step(&w);
    }
}

// Local memory per line: `span` scalars (src/opencl/tridiagonal_solver.cpp),
// the reduced system (3T), the padded rows (r + r / k) of the system (the
// line's n rows, or n / 2 halved), and last the 4k pivots of chunks 0 and 1
// (kp), or line_solve_pivots' checkpoints, 2⌈k / LINE_CHECKPOINT⌉·T. across:
// the lines are stored [row][line] (row r of line l at Y[r·L + l], a dense
// dimension's modes before the last), not halved; the
// work-items load and store them as form_solve loads a batch, work-item
// flat = t + lg·T taking rows flat / G, flat / G + T, … of line flat % G of
// the group, so that consecutive work-items touch consecutive lines.
inline void solve_lines(__global scalar* Y, int n, int k, int L, __global const coef_t* C, __global const coef_t* CC,
                        int uniform, __global const scalar* sigma, __global const int* pinned, int may_pin,
                        int every, __global int* flags, int halved, int across, int span, __local scalar* buf) {
  const int t = get_local_id(0), T = get_local_size(0), lg = get_local_id(1), G = get_local_size(1);
  const int line = get_group_id(1) * G + lg;
  const int active = line < L, M = halved ? n / 2 : n;
  __local scalar* ro = buf + (size_t)lg * span;
  __local scalar* g = ro + 3 * T;
  __global scalar* y = Y + (size_t)(active ? line : 0) * n;
  const scalar sg = active ? sigma[line] : ZERO;
  const int pin = may_pin && active ? pinned[line] : 0;
  const half_line_t h = half_line(C, n, sg, pin, uniform && halved);
  // across: this work-item's line u of the group (from row r0)
  const int flat = t + lg * T, u = flat % G, r0 = flat / G, ul = get_group_id(1) * G + u;
  if (across) {
    if (ul < L) {
      __local scalar* gu = buf + (size_t)u * span + 3 * T;
      line_walk_t w = line_walk(r0, T, k);
      for (int r = r0; r < n; r += T, line_step(&w)) gu[w.pos] = Y[(size_t)r * L + ul];
    }
  } else if (active) {
    line_walk_t w = line_walk(t, T, k);
    if (halved)
      for (int i = t; i < M; i += T, line_step(&w))
        g[w.pos] = half_rhs(&h, C, n, i, sg, pin, y[2 * i], y[2 * i + 1], 2 * i + 2 < n ? y[2 * i + 2] : ZERO);
    else
      load_line_rows(y, g, w, t, n, T);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  solve_line_local(ro, ro + span - (every ? 2 * ((k + LINE_CHECKPOINT - 1) / LINE_CHECKPOINT) * T : 4 * k), every, M,
                   k, t, T, active, line, C, CC, uniform, sg, pin, flags, n, halved);
  if (across) {
    if (ul < L) {
      __local const scalar* gu = buf + (size_t)u * span + 3 * T;
      line_walk_t w = line_walk(r0, T, k);
      for (int r = r0; r < n; r += T, line_step(&w)) Y[(size_t)r * L + ul] = gu[w.pos];
    }
  } else if (active) {
    line_walk_t w = line_walk(t, T, k);
    if (halved)
      for (int i = t; 2 * i < n; i += T, line_step(&w)) store_halved_rows(y, g, w, i, M, &h, C, n, sg, pin, y[2 * i]);
    else
      store_line_rows(y, g, w, t, n, T);
  }
}

// The kernels, one argument list for all three (the host picks one,
// TridiagonalSolver::launch_lines; the specialised ones ignore `uniform` and
// `halved`): line_solve takes any factor, pinned lines and halved ones;
// line_solve_uniform a uniform factor without either (the lines of
// transformed dimensions), where the constants drop the pivots that any
// factor keeps per work-item: 161 → 78 registers (double, ptxas for sm_90),
// so three work-groups of 256 share a multiprocessor instead of one (H100,
// 3D 255³ double: 248 → 163 µs); line_solve_pivots any factor without
// either, each chunk's pivots not in registers but recomputed in its back
// substitution from checkpoints in local memory (substitute_runs): 161 → 96
// registers, 2 scalars per LINE_CHECKPOINT rows of local memory (H100,
// graded 3D 255³ double: 441 µs with the pivots in registers, 366 with every
// row's in local memory, 333 with checkpoints every 4 rows).
#define LINE_SOLVE_KERNEL(name, UNIFORM, MAY_PIN, EVERY, HALVED)                                                     \
  __kernel void name(__global scalar* Y, int n, int k, int L, __global const coef_t* C, __global const coef_t* CC,  \
                     int uniform, __global const scalar* sigma, __global const int* pinned, __global int* flags,     \
                     int halved, int across, int span, __local scalar* buf) {                                         \
    solve_lines(Y, n, k, L, C, CC, UNIFORM, sigma, pinned, MAY_PIN, EVERY, flags, HALVED, across, span, buf);        \
  }
LINE_SOLVE_KERNEL(line_solve, uniform, 1, 0, halved)
LINE_SOLVE_KERNEL(line_solve_uniform, 1, 0, 0, 0)
LINE_SOLVE_KERNEL(line_solve_pivots, 0, 0, 1, 0)

// form_rhs_lines and line_solve in one pass: the right-hand side of each
// partial solution is formed straight into local memory (partial_rhs,
// level.cl), so Y is written once instead of written, read and written.
// Line = mode·batch + b. With batch > 1 (3D) the G lines of a work-group are
// read with the line index fastest, so that consecutive work-items read
// consecutive b of X[src][r][b]; with tile_modes = tm > 0 (a batch of 32 or
// more) a work-group's lines are tm modes by G / tm lanes, and each
// work-item forms a row of all tm modes (RHS_TILE_ROWS rows at a time, as
// form_rhs_tiles): a source value loaded once serves the modes of its group.
// Lines are not pinned (pure Neumann problems take center_pinned and
// line_solve). The shifts are formed here too (one launch fewer per level:
// child_shifts). Halved lines form their even rows again when they are
// stored.

// The line in slot u of tiled work-group wg (G slots), or −1 past the end.
inline int tile_line(int u, int wg, int G, int tm, int batch, int L) {
  const int bt = G / tm, nbt = (batch + bt - 1) / bt;
  const int mode = wg / nbt * tm + u / bt, b = wg % nbt * bt + u % bt;
  return mode < L / batch && b < batch ? mode * batch + b : -1;
}

// The tiled load phase: work-item `flat` forms rows r0, r0 + S, … (S = tm·T)
// of lane b for the tile's modes, into slots (mode − m0)·bt + ub.
inline void form_tile(__global const scalar* X, __global const group_t* groups, __global const int* mode_group,
                      __global const scalar* W, __global const scalar* BL, __global const scalar* BR, int batch,
                      int use_boundary, int n, int k, int L, int T, int G, int tm, int span, __local scalar* buf) {
  const int bt = G / tm, nbt = (batch + bt - 1) / bt, wg = get_group_id(1), S = tm * T;
  const int flat = get_local_id(0) + get_local_id(1) * T, ub = flat % bt, r0 = flat / bt;
  const int b = wg % nbt * bt + ub, m0 = wg / nbt * tm, m1 = min(m0 + tm, L / batch);
  if (b >= batch) return;
  for (int ma = m0; ma < m1;) {  // the tile's runs of modes of one group
    const int gi = mode_group[ma];
    const group_t gr = groups[gi];
    const int nm = min(m1, gr.mode0 + gr.m) - ma;
    __global const scalar* w = W + (size_t)ma * KEPT;
    __local scalar* g0 = buf + (size_t)((ma - m0) * bt + ub) * span + 3 * T;
    line_walk_t lw = line_walk(r0, S, k);
    for (int rb = r0; rb < n; rb += RHS_TILE_ROWS * S) {
      scalar acc[RHS_TILE_ROWS][RHS_MODES];
      tile_rhs(X, &gr, gi, w, nm, BL, BR, n, batch, b, rb, S, use_boundary, acc);
#pragma unroll
      for (int j = 0; j < RHS_TILE_ROWS; ++j)
        if (rb + j * S < n) {
#pragma unroll
          for (int i = 0; i < RHS_MODES; ++i)
            if (i < nm) g0[(size_t)i * bt * span + lw.pos] = acc[j][i];
          line_step(&lw);
        }
    }
    ma += nm;
  }
}

inline void form_solve(__global const scalar* X, __global const group_t* groups, __global const int* mode_group,
                       __global const scalar* W, __global const scalar* BL, __global const scalar* BR, int batch,
                       int use_boundary, __global scalar* Y, int n, int k, int L, __global const coef_t* C,
                       __global const coef_t* CC, int uniform, __global const scalar* parent_sigma,
                       __global const scalar* lambda, __global scalar* child_sigma, __global int* flags, int halved,
                       int tm, int span, __local scalar* buf) {
  const int t = get_local_id(0), T = get_local_size(0), lg = get_local_id(1), G = get_local_size(1);
  const int line0 = get_group_id(1) * G;
  const int line = tm > 0 ? tile_line(lg, get_group_id(1), G, tm, batch, L) : line0 + lg;
  const int active = tm > 0 ? line >= 0 : line < L, M = halved ? n / 2 : n;
  if (tm > 0) {
    form_tile(X, groups, mode_group, W, BL, BR, batch, use_boundary, n, k, L, T, G, tm, span, buf);
  } else {
    // with batch > 1 work-item (t, lg), the flat-th of the group, loads rows
    // flat / G, flat / G + T, … of line line0 + flat % G
    const int flat = t + lg * T, u = batch > 1 ? flat % G : lg, r0 = batch > 1 ? flat / G : t;
    const int ul = line0 + u, valid = ul < L;
    const int mode = valid ? ul / batch : 0, b = valid ? ul % batch : 0, gi = mode_group[mode];
    const group_t gr = groups[gi];
    scalar ws[NSRC], wl, wr;
    mode_weights(W, &gr, mode, ws, &wl, &wr);
    __local scalar* g = buf + (size_t)u * span + 3 * T;
    line_walk_t w = line_walk(r0, T, k);
    if (!halved) {
      if (valid)
        for (int r = r0; r < n; r += T, line_step(&w))
          g[w.pos] = partial_rhs(X, &gr, gi, ws, wl, wr, BL, BR, r, n, batch, b, use_boundary);
    } else {
#ifdef HALVED_ROWS_ONCE
      // Level-1 row i needs g_{2i}, g_{2i+1}, g_{2i+2}: a work-item forms
      // rows 2i + 1 and 2i + 2 and takes g_{2i} from the work-item before it
      // through a stage in the reduced system's room (free until the solve),
      // one barrier per pass over T rows.
      const scalar sgu = valid ? parent_sigma[b] + lambda[mode] : ZERO;
      const half_line_t h = half_line(C, n, sgu, 0, uniform);
      __local scalar* stage = buf + (size_t)u * span;
      scalar gm = valid && r0 == 0 ? partial_rhs(X, &gr, gi, ws, wl, wr, BL, BR, 0, n, batch, b, use_boundary) : ZERO;
      for (int s = 0, i = r0; s * T < M; ++s, i += T, line_step(&w)) {
        const int on = valid && i < M;
        scalar gc = ZERO, gp = ZERO;
        if (on) {
          gc = partial_rhs(X, &gr, gi, ws, wl, wr, BL, BR, 2 * i + 1, n, batch, b, use_boundary);
          if (2 * i + 2 < n) gp = partial_rhs(X, &gr, gi, ws, wl, wr, BL, BR, 2 * i + 2, n, batch, b, use_boundary);
        }
        __local scalar* st = stage + (s & 1) * T;  // two stages: the next pass writes the other
        st[r0] = gp;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (r0 > 0) gm = st[r0 - 1];
        if (on) g[w.pos] = half_rhs(&h, C, n, i, sgu, 0, gm, gc, gp);
        if (r0 == 0) gm = st[T - 1];  // g_{2i'} of this work-item's next row i' = i + T
      }
#else
      // Three rows formed per level-1 row, the even ones twice: no barrier.
      // Staging every even row in local memory and holding the reduced rows
      // in registers until all were read was slower on the H100 (8191^2
      // double 22.6 -> 24.2 ms, complex 4095^2 9.8 -> 14.7 ms).
      if (valid) {
        const scalar sgu = parent_sigma[b] + lambda[mode];
        const half_line_t h = half_line(C, n, sgu, 0, uniform);
        for (int i = r0; i < M; i += T, line_step(&w)) {
          const scalar gm = partial_rhs(X, &gr, gi, ws, wl, wr, BL, BR, 2 * i, n, batch, b, use_boundary);
          const scalar gc = partial_rhs(X, &gr, gi, ws, wl, wr, BL, BR, 2 * i + 1, n, batch, b, use_boundary);
          const scalar gp =
              2 * i + 2 < n ? partial_rhs(X, &gr, gi, ws, wl, wr, BL, BR, 2 * i + 2, n, batch, b, use_boundary) : ZERO;
          g[w.pos] = half_rhs(&h, C, n, i, sgu, 0, gm, gc, gp);
        }
      }
#endif
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  __local scalar* ro = buf + (size_t)lg * span;
  // the line's shift, as child_shifts (level.cl) would give it; stored for
  // the host's report of a near-singular line
  const scalar sg = active ? parent_sigma[line % batch] + lambda[line / batch] : ZERO;
  if (active && t == 0) child_sigma[line] = sg;
  solve_line_local(ro, ro + span - 4 * k, 0, M, k, t, T, active, line, C, CC, uniform, sg, 0, flags, n, halved);
  if (active) {
    __global scalar* y = Y + (size_t)line * n;
    __local scalar* g = ro + 3 * T;
    line_walk_t w = line_walk(t, T, k);
    if (halved) {
      const int mode = line / batch, b = line % batch, gi = mode_group[mode];
      const group_t gr = groups[gi];
      scalar ws[NSRC], wl, wr;
      mode_weights(W, &gr, mode, ws, &wl, &wr);
      const half_line_t h = half_line(C, n, sg, 0, uniform);
      for (int i = t; 2 * i < n; i += T, line_step(&w))
        store_halved_rows(y, g, w, i, M, &h, C, n, sg, 0,
                          partial_rhs(X, &gr, gi, ws, wl, wr, BL, BR, 2 * i, n, batch, b, use_boundary));
    } else {
      store_line_rows(y, g, w, t, n, T);
    }
  }
}

// The kernels of form_solve: any factor (the pivots kept per work-item, or
// halved lines' rows generated per row), a uniform one (`uniform` a
// constant, so the compiler drops the per-work-item pivot arrays), a
// uniform one with halved lines, and both factors with tiles of modes. The
// tiled load phase is a kernel of its own: its registers would otherwise
// count against every kernel's occupancy (H100 3D 255^3 8.7 -> 9.6 ms
// untiled). The same arguments for all five.
#define FORM_SOLVE_KERNEL(name, UNIFORM, HALVED, TILED)                                                               \
  __kernel void name(__global const scalar* X, __global const group_t* groups, __global const int* mode_group,       \
                     __global const scalar* W, __global const scalar* BL, __global const scalar* BR, int batch,       \
                     int use_boundary, __global scalar* Y, int n, int k, int L, __global const coef_t* C,            \
                     __global const coef_t* CC, __global const scalar* parent_sigma, __global const scalar* lambda, \
                     __global scalar* child_sigma, __global int* flags, int halved, int tile_modes, int span,       \
                     __local scalar* buf) {                                                                           \
    form_solve(X, groups, mode_group, W, BL, BR, batch, use_boundary, Y, n, k, L, C, CC, UNIFORM, parent_sigma,     \
               lambda, child_sigma, flags, HALVED, TILED ? tile_modes : 0, span, buf);                               \
  }
FORM_SOLVE_KERNEL(form_solve_lines, 0, halved, 0)
FORM_SOLVE_KERNEL(form_solve_lines_uniform, 1, 0, 0)
FORM_SOLVE_KERNEL(form_solve_halved_uniform, 1, 1, 0)
FORM_SOLVE_KERNEL(form_solve_tiles, 0, 0, 1)
FORM_SOLVE_KERNEL(form_solve_tiles_uniform, 1, 0, 1)
