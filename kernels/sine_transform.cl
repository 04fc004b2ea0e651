// Dimensions taken whole by fast sine transforms (KernelParameters::transforms,
// PlanInfo::dimension_methods "sine transform"): a Toeplitz pencil with
// Dirichlet ends has the eigenvectors w_k[j] = scale_k · sin(π j k / N),
// N = n + 1, so both products with its basis are a DST-I:
//   to modes:   g_k = scale_k · Σ_j sin(π j k / N) x_j
//   from modes: x_j = Σ_k sin(π j k / N) · scale_k · g_k
// One work-group transforms C columns whole in local memory (N a power of
// two): the columns are contiguous in memory, the transformed index j is
// strided, so consecutive work-items take consecutive columns and every
// global access is coalesced. The DST-I of length N − 1 is the imaginary part
// of the real DFT of length 2N of the odd extension v (v_j = x_j, v_{2N−j} =
// −x_j, v_0 = v_N = 0): V_k = −2i X_k. That DFT is a complex FFT of length N
// of z_m = v_{2m} + i v_{2m+1} with the usual unfolding, so every output is
// an FFT's sum (error O(ε log N)); the half-length folding with a running
// sum over the odd outputs loses about √N times more, 8 to 17 times an FFT
// solver's error at 255² ... 511² in float. Real data of any scalar type: a
// complex array is transformed as its real and imaginary parts, two columns
// each.

inline real2 cmul(real2 a, real2 b) { return (real2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
inline real2 times_minus_i(real2 v) { return (real2)(v.y, -v.x); }

// DFTs of 2, 4 and 8 points in registers, natural order in and out.
inline void dft2(real2* a, real2* b) {
  const real2 t = *a;
  *a = t + *b;
  *b = t - *b;
}
inline void dft4(real2* v0, real2* v1, real2* v2, real2* v3) {
  const real2 t0 = *v0 + *v2, t1 = *v0 - *v2, t2 = *v1 + *v3, t3 = times_minus_i(*v1 - *v3);
  *v0 = t0 + t2;
  *v2 = t0 - t2;
  *v1 = t1 + t3;
  *v3 = t1 - t3;
}
inline void dft8(real2* v) {
  const real h = (real)0.70710678118654752440;  // √½
  dft4(&v[0], &v[2], &v[4], &v[6]);
  dft4(&v[1], &v[3], &v[5], &v[7]);
  const real2 o1 = cmul(v[3], (real2)(h, -h)), o2 = times_minus_i(v[5]), o3 = cmul(v[7], (real2)(-h, -h));
  const real2 e0 = v[0], e1 = v[2], e2 = v[4], e3 = v[6];
  v[0] = e0 + v[1];
  v[4] = e0 - v[1];
  v[1] = e1 + o1;
  v[5] = e1 - o1;
  v[2] = e2 + o2;
  v[6] = e2 - o2;
  v[3] = e3 + o3;
  v[7] = e3 - o3;
}

// V_k of the real DFT of length 2N from the pair (Z_k, Z_{N−k}) of the
// packed FFT, w = e^{−iπk/N}: V_k = E − i w O with E, O the DFTs of the even
// and odd entries.
inline real2 real_dft_entry(real2 zk, real2 zm, real2 w) {
  const real2 e = (real2)(zk.x + zm.x, zk.y - zm.y) * (real)0.5;
  const real2 o = (real2)(zk.x - zm.x, zk.y + zm.y) * (real)0.5;
  const real2 wo = cmul(w, o);
  return (real2)(e.x + wo.y, e.y - wo.x);
}

// The unfolding around the packed FFT, shared by both ways of running its
// passes. m = N − k throughout; a pair with m == k writes once.

// The sine transform's outputs k and m from the FFT's (Z_k, Z_m): X_k =
// −Im V_k / 2, scaled to modes. Returns whether one is not finite.
inline int sine_outputs(real2 zk, real2 zm, int k, int m, __global real* xc, int stride_j,
                        __global const real2* table, __global const real* scale, int from_modes) {
  const real2 wk = table[k];
  real xk = (real)-0.5 * real_dft_entry(zk, zm, (real2)(wk.x, -wk.y)).y;
  if (!from_modes) xk *= scale[k - 1];
  xc[(size_t)(k - 1) * stride_j] = xk;
  int bad = !isfinite(xk);
  if (m != k) {
    const real2 wm = table[m];
    real xm = (real)-0.5 * real_dft_entry(zm, zk, (real2)(wm.x, -wm.y)).y;
    if (!from_modes) xm *= scale[m - 1];
    xc[(size_t)(m - 1) * stride_j] = xm;
    bad |= !isfinite(xm);
  }
  return bad;
}

// From modes: conj Z_0 of the constant and alternating modes, and conj Z_k,
// conj Z_m (k > 0) from the modes around them (zero where the column is not live).
inline real2 fourier_input_zero(int N, bool live, __global const real* xc, int stride_j, __global const real* scale) {
  const real a0 = live ? xc[0] * scale[0] : (real)0;
  const real aN = live ? xc[(size_t)(2 * N - 1) * stride_j] * scale[2 * N - 1] : (real)0;
  return (real2)(a0 + aN, -(a0 - aN));  // conj of (a0 + aN) + i (a0 − aN)
}
inline void fourier_inputs(int k, int m, bool live, __global const real* xc, int stride_j, __global const real2* table,
                           __global const real* scale, real2* zk, real2* zm) {
  // Y_k and Y_m (Y_m = a_m / 2 when k = N / 2 pairs with itself ... the same formula)
  real2 yk = (real2)(0, 0), ym = (real2)(0, 0);
  if (live) {
    yk = (real2)(xc[(size_t)(2 * k - 1) * stride_j] * scale[2 * k - 1], -xc[(size_t)(2 * k) * stride_j] * scale[2 * k]) * (real)0.5;
    ym = (real2)(xc[(size_t)(2 * m - 1) * stride_j] * scale[2 * m - 1], -xc[(size_t)(2 * m) * stride_j] * scale[2 * m]) * (real)0.5;
  }
  // Z_k = (Y_k + conj Y_m) + i (Y_k − conj Y_m) w_k, w_k = e^{iπk/N}; likewise Z_m
  const real2 wk = table[k], wm = table[m];
  const real2 ek = yk + (real2)(ym.x, -ym.y), dk = yk - (real2)(ym.x, -ym.y);
  const real2 em = ym + (real2)(yk.x, -yk.y), dm = ym - (real2)(yk.x, -yk.y);
  const real2 ok = cmul(dk, wk), om = cmul(dm, wm);
  *zk = (real2)(ek.x - ok.y, -(ek.y + ok.x));
  *zm = (real2)(em.x - om.y, -(em.y + om.x));
}

// To modes: g_0 and g_{n−1} from Z_0, and the cosine and sine coefficients of
// frequencies k and m from (Z_k, Z_m). Return whether one is not finite.
inline int fourier_outputs_zero(real2 z0, int N, __global real* xc, int stride_j, __global const real* scale) {
  const real g0 = (z0.x + z0.y) * scale[0], gN = (z0.x - z0.y) * scale[2 * N - 1];
  xc[0] = g0;
  xc[(size_t)(2 * N - 1) * stride_j] = gN;
  return !isfinite(g0) || !isfinite(gN);
}
inline int fourier_outputs(real2 zk, real2 zm, int k, int m, __global real* xc, int stride_j,
                           __global const real2* table, __global const real* scale) {
  const real2 wk = table[k], wm = table[m];
  const real2 Xk = real_dft_entry(zk, zm, (real2)(wk.x, -wk.y));
  const real ck = Xk.x * scale[2 * k - 1], sk = -Xk.y * scale[2 * k];
  xc[(size_t)(2 * k - 1) * stride_j] = ck;
  xc[(size_t)(2 * k) * stride_j] = sk;
  int bad = !isfinite(ck) || !isfinite(sk);
  if (m != k) {
    const real2 Xm = real_dft_entry(zm, zk, (real2)(wm.x, -wm.y));
    const real cm = Xm.x * scale[2 * m - 1], sm = -Xm.y * scale[2 * m];
    xc[(size_t)(2 * m - 1) * stride_j] = cm;
    xc[(size_t)(2 * m) * stride_j] = sm;
    bad |= !isfinite(cm) || !isfinite(sm);
  }
  return bad;
}

// The four transform kernels (sine and Fourier, complex-exchange and halves
// passes) share their arguments and their work-item's place: t the
// work-item, c its column among the group's C, s its slice of S, col the
// column it transforms (live: a column of the launch) and xc that column in x.
#define TRANSFORM_KERNEL(name)                                                                                 \
  __kernel __attribute__((reqd_work_group_size(SINE_GROUP, 1, 1))) void name(                                  \
      __global real* x, int N, int columns, int C, int stride_j, ulong stride_c, ulong stride_b,                \
      __global const real2* table,                                                                              \
      __global const real* scale, int from_modes, __local real2* z, __global int* nonfinite, int watch)
#define TRANSFORM_COLUMN                                                 \
  const int t = get_local_id(0), c = t % C, s = t / C, S = SINE_GROUP / C; \
  const int col = get_group_id(0) * C + c;                               \
  const bool live = col < columns;                                       \
  __global real* xc = x + get_group_id(1) * stride_b + (size_t)(live ? col : 0) * stride_c

// The transforms' input pair z_m = x_{2m} + i x_{2m+1} of column xc (zero
// where the column is not live).
inline real2 packed_input(__global const real* xc, int m, int stride_j, bool live) {
  return live ? (real2)(xc[(size_t)(2 * m) * stride_j], xc[(size_t)(2 * m + 1) * stride_j]) : (real2)(0, 0);
}
// The inverse's output pair x_{2m} + i x_{2m+1} = conj zm; whether it is not finite.
inline int packed_output(__global real* xc, int m, int stride_j, real2 zm) {
  xc[(size_t)(2 * m) * stride_j] = zm.x;
  xc[(size_t)(2 * m + 1) * stride_j] = -zm.y;
  return !isfinite(zm.x) || !isfinite(zm.y);
}
// The pair (k, N − k) that step e of slice s takes when it folds or unfolds
// the transform, or −1: the slices' pairs for e < SINE_ELEMENTS / 2, then
// k = N/2 on slice 0 (k = 0 is a pair of its own kind).
inline int unfold_pair(int e, int s, int S, int N) {
  const int k = e < SINE_ELEMENTS / 2 ? s + e * S : N / 2;
  return k >= N / 2 + (e == SINE_ELEMENTS / 2 && s == 0) ? -1 : k;
}

// A work-item's entries of a column before or after the FFT: up to
// SINE_ENTRIES, entry i at position idx[i] (negative: none).
#define SINE_ENTRIES (SINE_ELEMENTS + 2)

#if !SINE_HALVES
// One Stockham pass of radix R over the column's N entries in z (entry m of
// column c at z[m·C + c]): butterfly j reads entries j + r·N/R, twists them by
// e^{−2πi r (j mod Ns) / (Ns R)} and writes its DFT to (j − j mod Ns)·R + j
// mod Ns + r·Ns. The work-item's butterflies are j = s + b·S; it reads all of
// them into v before the barrier and writes them after it. Called with R a
// constant, so that the loops unroll and v stays in registers.
inline void sine_pass(const int R, int N, int Ns, int C, int c, int s, int S, __local real2* z, real2* v,
                      __global const real2* table) {
  const int span = N / R, step = 2 * N / (Ns * R), nb = span / S;
#pragma unroll
  for (int b = 0; b < SINE_ELEMENTS / R; ++b)
    if (b < nb) {
      const int j = s + b * S, k = j & (Ns - 1);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const real2 in = z[(j + r * span) * C + c];
        if (Ns == 1) {  // the first pass twists nothing
          v[b * R + r] = in;
        } else {
          const real2 w = table[r * k * step];
          v[b * R + r] = cmul(in, (real2)(w.x, -w.y));
        }
      }
      if (R == 8) dft8(&v[b * 8]);
      else if (R == 4) dft4(&v[b * 4], &v[b * 4 + 1], &v[b * 4 + 2], &v[b * 4 + 3]);
      else dft2(&v[b * 2], &v[b * 2 + 1]);
    }
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int b = 0; b < SINE_ELEMENTS / R; ++b)
    if (b < nb) {
      const int j = s + b * S, k = j & (Ns - 1), to = (j - k) * R + k;
#pragma unroll
      for (int r = 0; r < R; ++r) z[(to + r * Ns) * C + c] = v[b * R + r];
    }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// The FFT of length N of every column in z, in place: passes of radix 8,
// then one of 4 or 2.
inline void packed_fft(int N, int C, int c, int s, int S, __local real2* z, real2* v, __global const real2* table) {
  int Ns = 1;
  for (; N / Ns >= 8; Ns *= 8) sine_pass(8, N, Ns, C, c, s, S, z, v, table);
  if (N / Ns == 4) sine_pass(4, N, Ns, C, c, s, S, z, v, table);
  else if (N / Ns == 2) sine_pass(2, N, Ns, C, c, s, S, z, v, table);
}

// Entries `in` at positions idx[i] of the column into z, for packed_fft.
inline void fft_scatter(int N, int C, int c, int s, int S, __local real2* z, real2* v, const int* idx,
                        const real2* in) {
#pragma unroll
  for (int i = 0; i < SINE_ENTRIES; ++i)
    if (idx[i] >= 0) z[idx[i] * C + c] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
}
// The FFT's entries idx[i] from z after packed_fft, into out.
inline void fft_gather(int N, int C, int c, int s, int S, __local real2* z, const real2* v, const int* idx,
                       real2* out) {
#pragma unroll
  for (int i = 0; i < SINE_ENTRIES; ++i)
    if (idx[i] >= 0) out[i] = z[idx[i] * C + c];
}

// x: columns [group·C, group·C + C) of batch get_group_id(1), entry j
// (1 ≤ j ≤ N − 1) of column col at x[b·stride_b + (j − 1)·stride_j + col·stride_c],
// transformed in place. C = min(SINE_GROUP, SINE_GROUP·SINE_ELEMENTS / N)
// columns: each of the S = SINE_GROUP / C work-items of a column holds up to
// SINE_ELEMENTS of its N complex entries in registers. table[t] = (cos πt/N,
// sin πt/N), t < 2N. scale: n entries, applied to the input (from modes) or
// to the output (to modes). z: N · C complex entries, z[m·C + c]. nonfinite
// (the last transform of a solve): set to 1 where an output is a NaN or an
// infinity, so that the solution needs no scan of its own (find_nonfinite).
TRANSFORM_KERNEL(sine_transform) {
  TRANSFORM_COLUMN;
  __local real* zr = (__local real*)z;
  real2 v[SINE_ELEMENTS];
  // 1. the odd extension, packed in pairs: v_j at z_{j/2}, v_{2N−j} = −v_j at z_{N−(j+1)/2}
  real a[SINE_ELEMENTS];
#pragma unroll
  for (int e = 0; e < SINE_ELEMENTS; ++e) {
    const int j = s + e * S;
    a[e] = live && j > 0 && j < N ? xc[(size_t)(j - 1) * stride_j] : (real)0;
  }
#pragma unroll
  for (int e = 0; e < SINE_ELEMENTS; ++e) {
    const int j = s + e * S;
    if (j < N) {
      const real x = from_modes && j > 0 ? a[e] * scale[j - 1] : a[e];
      const int far = j == 0 ? N : 2 * N - j;  // v_{2N−j}, and v_N = 0 for j = 0
      zr[2 * ((j >> 1) * C + c) + (j & 1)] = x;    // v_j (v_0 = 0)
      zr[2 * ((far >> 1) * C + c) + (far & 1)] = -x;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // 2. FFT of length N: passes of radix 8, then one of 4 or 2
  packed_fft(N, C, c, s, S, z, v, table);
  if (!live) return;
  // 3. X_k = −Im V_k / 2 for the pairs (k, N − k), straight to memory
  int bad = 0;
#pragma unroll
  for (int e = 0; e <= SINE_ELEMENTS / 2; ++e) {
    const int k = unfold_pair(e, s, S, N);
    if (k <= 0) continue;
    const int m = N - k;
    bad |= sine_outputs(z[k * C + c], z[m * C + c], k, m, xc, stride_j, table, scale, from_modes);
  }
  if (watch && bad) *nonfinite = 1;
}

// Periodic dimensions taken whole by fast Fourier transforms (PlanInfo::
// dimension_methods "Fourier transform"): a circulant pencil's basis is the
// real Fourier one (planner::fourier_basis), n = 2N entries per column:
//   column 0: the constant, 2k − 1 and 2k: cos(2π j k / n) and sin(2π j k / n)
//   (1 ≤ k < N), n − 1: the alternating vector (−1)^j; each times scale_l.
// To modes, X_k = Σ_j x_j e^{−2πijk/n} = C_k − i S_k by the packed FFT of
// length N of z_m = x_{2m} + i x_{2m+1} and the unfolding of the sine
// transform: g_{2k−1} = scale·Re X_k, g_{2k} = −scale·Im X_k, g_0 = scale·X_0,
// g_{n−1} = scale·X_N. From modes, x_j = Σ_k Y_k e^{2πijk/n} with the
// Hermitian Y_k = (a_k − i b_k) / 2 (a, b: the scaled cosine and sine
// coefficients; Y_0 = a_0, Y_N = a_N): z_m = Σ_k Z_k e^{2πimk/N} with
// Z_k = (Y_k + Y_{k+N}) + i (Y_k − Y_{k+N}) e^{iπk/N}, Y_{k+N} = conj Y_{N−k},
// computed as the conjugate of the forward FFT of conj Z. Same launch shape,
// layout and table (t < 2N: e^{iπt/N}) as sine_transform.
TRANSFORM_KERNEL(fourier_transform) {
  TRANSFORM_COLUMN;
  real2 v[SINE_ELEMENTS];
  if (!from_modes) {
    // 1. z_m = x_{2m} + i x_{2m+1}
#pragma unroll
    for (int e = 0; e < SINE_ELEMENTS; ++e) {
      const int m = s + e * S;
      if (m < N) z[m * C + c] = packed_input(xc, m, stride_j, live);
    }
  } else {
    // 1. conj Z_k for the pairs (k, N − k) from the modes around them
#pragma unroll
    for (int e = 0; e <= SINE_ELEMENTS / 2; ++e) {
      const int k = unfold_pair(e, s, S, N);
      if (k < 0) continue;
      if (k == 0) {
        z[c] = fourier_input_zero(N, live, xc, stride_j, scale);
        continue;
      }
      const int m = N - k;
      real2 zk, zm;
      fourier_inputs(k, m, live, xc, stride_j, table, scale, &zk, &zm);
      z[k * C + c] = zk;
      if (m != k) z[m * C + c] = zm;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // 2. FFT of length N
  packed_fft(N, C, c, s, S, z, v, table);
  if (!live) return;
  int bad = 0;
  if (from_modes) {
    // 3. x_{2m} + i x_{2m+1} = conj of the FFT's output m
#pragma unroll
    for (int e = 0; e < SINE_ELEMENTS; ++e) {
      const int m = s + e * S;
      if (m < N) bad |= packed_output(xc, m, stride_j, z[m * C + c]);
    }
  } else {
    // 3. X_k for the pairs (k, N − k); X_0 and X_N from Z_0
#pragma unroll
    for (int e = 0; e <= SINE_ELEMENTS / 2; ++e) {
      const int k = unfold_pair(e, s, S, N);
      if (k < 0) continue;
      if (k == 0) {
        bad |= fourier_outputs_zero(z[c], N, xc, stride_j, scale);
        continue;
      }
      const int m = N - k;
      bad |= fourier_outputs(z[k * C + c], z[m * C + c], k, m, xc, stride_j, table, scale);
    }
  }
  if (watch && bad) *nonfinite = 1;
}

#else  // SINE_HALVES

// SINE_HALVES: the same transforms with the entries in registers between
// passes, exchanged through local memory in two rounds, the real parts and
// then the imaginary parts, through N·C reals: columns twice as long in the
// same local memory (each work-item holds SINE_ELEMENTS = twice as many
// entries), twice the barriers. Work-item (c, s) holds the butterflies
// j = s + b·S of each pass, R entries each (the passes as above). Helpers
// take R as a constant, so that their loops unroll and the entries stay in
// registers. (The same structure exchanging complex entries ran 1.28× slower
// than the passes above at 255³ double on the H100.)
#define SINE_ROUNDS 2

// Part `round` (0 real, 1 imaginary) of entry i into local memory, and back.
inline void put_entry(__local real2* z, int i, real2 v, int round) { ((__local real*)z)[i] = round ? v.y : v.x; }
inline void get_entry(__local const real2* z, int i, real2* v, int round) {
  const real a = ((__local const real*)z)[i];
  if (round) v->y = a;
  else v->x = a;
}
// One real part of entry i (the round's).
inline void put_part(__local real2* z, int i, real a) { ((__local real*)z)[i] = a; }

// The work-item's inputs of a pass of radix R from z.
inline void fft_load(const int R, int N, int C, int c, int s, int S, __local const real2* z, real2* v, int round) {
  const int span = N / R, nb = span / S;
#pragma unroll
  for (int b = 0; b < SINE_ELEMENTS / R; ++b)
    if (b < nb) {
      const int j = s + b * S;
#pragma unroll
      for (int r = 0; r < R; ++r) get_entry(z, (j + r * span) * C + c, &v[b * R + r], round);
    }
}
// Its outputs of the pass of radix R after Ns into z.
inline void fft_store(const int R, int N, int Ns, int C, int c, int s, int S, __local real2* z, const real2* v,
                      int round) {
  const int nb = N / R / S;
#pragma unroll
  for (int b = 0; b < SINE_ELEMENTS / R; ++b)
    if (b < nb) {
      const int j = s + b * S, k = j & (Ns - 1), to = (j - k) * R + k;
#pragma unroll
      for (int r = 0; r < R; ++r) put_entry(z, (to + r * Ns) * C + c, v[b * R + r], round);
    }
}
// The butterflies of the pass of radix R after Ns, in registers.
inline void fft_butterflies(const int R, int N, int Ns, int S, int s, real2* v, __global const real2* table) {
  const int nb = N / R / S, step = 2 * N / (Ns * R);
#pragma unroll
  for (int b = 0; b < SINE_ELEMENTS / R; ++b)
    if (b < nb) {
      const int k = (s + b * S) & (Ns - 1);
      if (Ns > 1)  // the first pass twists nothing
#pragma unroll
        for (int r = 1; r < R; ++r) {
          const real2 w = table[r * k * step];
          v[b * R + r] = cmul(v[b * R + r], (real2)(w.x, -w.y));
        }
      if (R == 8) dft8(&v[b * 8]);
      else if (R == 4) dft4(&v[b * 4], &v[b * 4 + 1], &v[b * 4 + 2], &v[b * 4 + 3]);
      else dft2(&v[b * 2], &v[b * 2 + 1]);
    }
}
// The inputs of the first pass (radix 8, or 4 for N = 4).
inline void fft_load_first(int N, int C, int c, int s, int S, __local const real2* z, real2* v, int round) {
  if (N >= 8) fft_load(8, N, C, c, s, S, z, v, round);
  else fft_load(4, N, C, c, s, S, z, v, round);
}
// The outputs of the last pass into z: the FFT in natural order.
inline void fft_store_result(int N, int C, int c, int s, int S, __local real2* z, const real2* v, int round) {
  int Ns = 1;
  while (N / Ns >= 8) Ns *= 8;
  if (N == Ns) fft_store(8, N, Ns / 8, C, c, s, S, z, v, round);
  else if (N / Ns == 4) fft_store(4, N, Ns, C, c, s, S, z, v, round);
  else fft_store(2, N, Ns, C, c, s, S, z, v, round);
}

// The FFT of length N of every column, v holding the first pass's inputs
// (fft_load_first) and then the last pass's outputs (fft_store_result puts
// them in order): passes of radix 8, then one of 4 or 2.
inline void packed_fft(int N, int C, int c, int s, int S, __local real2* z, real2* v, __global const real2* table) {
  int Ns = 1;
  for (; N / Ns >= 8; Ns *= 8) {
    fft_butterflies(8, N, Ns, S, s, v, table);
    const int rest = N / (Ns * 8);  // the length the later passes take
    if (rest == 1) break;
#pragma unroll
    for (int round = 0; round < SINE_ROUNDS; ++round) {
      fft_store(8, N, Ns, C, c, s, S, z, v, round);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (rest >= 8) fft_load(8, N, C, c, s, S, z, v, round);
      else if (rest == 4) fft_load(4, N, C, c, s, S, z, v, round);
      else fft_load(2, N, C, c, s, S, z, v, round);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  if (N / Ns == 4) fft_butterflies(4, N, Ns, S, s, v, table);
  else if (N / Ns == 2) fft_butterflies(2, N, Ns, S, s, v, table);
}

// Entries `in` into z and the first pass's inputs from it into v.
inline void fft_scatter(int N, int C, int c, int s, int S, __local real2* z, real2* v, const int* idx,
                        const real2* in) {
#pragma unroll
  for (int round = 0; round < SINE_ROUNDS; ++round) {
#pragma unroll
    for (int i = 0; i < SINE_ENTRIES; ++i)
      if (idx[i] >= 0) put_entry(z, idx[i] * C + c, in[i], round);
    barrier(CLK_LOCAL_MEM_FENCE);
    fft_load_first(N, C, c, s, S, z, v, round);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
// The FFT's entries idx[i] from the last pass's outputs in v, into out.
// Every work-item of the group calls it (barriers), live or not.
inline void fft_gather(int N, int C, int c, int s, int S, __local real2* z, const real2* v, const int* idx,
                       real2* out) {
#pragma unroll
  for (int round = 0; round < SINE_ROUNDS; ++round) {
    if (round > 0) barrier(CLK_LOCAL_MEM_FENCE);  // the reads of the round before
    fft_store_result(N, C, c, s, S, z, v, round);
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int i = 0; i < SINE_ENTRIES; ++i)
      if (idx[i] >= 0) get_entry(z, idx[i] * C + c, &out[i], round);
  }
}

// sine_transform as above (arguments, layout, launch), z holding N·C reals.
TRANSFORM_KERNEL(sine_transform) {
  TRANSFORM_COLUMN;
  real2 v[SINE_ELEMENTS];
  // 1. the odd extension, packed in pairs: v_j at z_{j/2}, v_{2N−j} = −v_j
  // at z_{N−(j+1)/2} (the parity of j the part: with halves, the even j in
  // the first round, the odd ones in the second)
  real a[SINE_ELEMENTS];
#pragma unroll
  for (int e = 0; e < SINE_ELEMENTS; ++e) {
    const int j = s + e * S;
    a[e] = live && j > 0 && j < N ? xc[(size_t)(j - 1) * stride_j] : (real)0;
    if (from_modes && j > 0 && j < N) a[e] *= scale[j - 1];
  }
#pragma unroll
  for (int round = 0; round < SINE_ROUNDS; ++round) {
#pragma unroll
    for (int e = 0; e < SINE_ELEMENTS; ++e) {
      const int j = s + e * S;
      if (j < N && (j & 1) == round) {
        const int far = j == 0 ? N : 2 * N - j;  // v_{2N−j}, and v_N = 0 for j = 0
        put_part(z, (j >> 1) * C + c, a[e]);  // v_j (v_0 = 0)
        put_part(z, (far >> 1) * C + c, -a[e]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    fft_load_first(N, C, c, s, S, z, v, round);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  // 2. FFT of length N
  packed_fft(N, C, c, s, S, z, v, table);
  // 3. X_k = −Im V_k / 2 for the pairs (k, N − k), straight to memory
  int idx[SINE_ENTRIES];
  real2 zs[SINE_ENTRIES];
#pragma unroll
  for (int e = 0; e <= SINE_ELEMENTS / 2; ++e) {
    const int k = unfold_pair(e, s, S, N);
    const bool pair = k > 0;
    idx[2 * e] = pair ? k : -1;
    idx[2 * e + 1] = pair ? N - k : -1;
  }
  fft_gather(N, C, c, s, S, z, v, idx, zs);
  if (!live) return;
  int bad = 0;
#pragma unroll
  for (int e = 0; e <= SINE_ELEMENTS / 2; ++e) {
    const int k = idx[2 * e], m = idx[2 * e + 1];
    if (k < 0) continue;
    bad |= sine_outputs(zs[2 * e], zs[2 * e + 1], k, m, xc, stride_j, table, scale, from_modes);
  }
  if (watch && bad) *nonfinite = 1;
}

// fourier_transform as above, z holding N·C reals.
TRANSFORM_KERNEL(fourier_transform) {
  TRANSFORM_COLUMN;
  real2 v[SINE_ELEMENTS];
  int idx[SINE_ENTRIES];
  real2 zs[SINE_ENTRIES];
#pragma unroll
  for (int i = 0; i < SINE_ENTRIES; ++i) idx[i] = -1;
  if (!from_modes) {
    // 1. z_m = x_{2m} + i x_{2m+1}
#pragma unroll
    for (int e = 0; e < SINE_ELEMENTS; ++e) {
      const int m = s + e * S;
      if (m < N) {
        idx[e] = m;
        zs[e] = packed_input(xc, m, stride_j, live);
      }
    }
  } else {
    // 1. conj Z_k for the pairs (k, N − k) from the modes around them
#pragma unroll
    for (int e = 0; e <= SINE_ELEMENTS / 2; ++e) {
      const int k = unfold_pair(e, s, S, N);
      if (k < 0) continue;
      idx[2 * e] = k;
      if (k == 0) {
        zs[2 * e] = fourier_input_zero(N, live, xc, stride_j, scale);
        continue;
      }
      const int m = N - k;
      fourier_inputs(k, m, live, xc, stride_j, table, scale, &zs[2 * e], &zs[2 * e + 1]);
      if (m != k) idx[2 * e + 1] = m;
    }
  }
  fft_scatter(N, C, c, s, S, z, v, idx, zs);
  // 2. FFT of length N
  packed_fft(N, C, c, s, S, z, v, table);
  // 3. the outputs this work-item writes
#pragma unroll
  for (int i = 0; i < SINE_ENTRIES; ++i) idx[i] = -1;
  if (from_modes) {
#pragma unroll
    for (int e = 0; e < SINE_ELEMENTS; ++e)
      if (s + e * S < N) idx[e] = s + e * S;
  } else {
#pragma unroll
    for (int e = 0; e <= SINE_ELEMENTS / 2; ++e) {
      const int k = unfold_pair(e, s, S, N);
      if (k < 0) continue;
      idx[2 * e] = k;
      if (k > 0) idx[2 * e + 1] = N - k;
    }
  }
  fft_gather(N, C, c, s, S, z, v, idx, zs);
  if (!live) return;
  int bad = 0;
  if (from_modes) {
    // x_{2m} + i x_{2m+1} = conj of the FFT's output m
#pragma unroll
    for (int e = 0; e < SINE_ELEMENTS; ++e) {
      const int m = idx[e];
      if (m >= 0) bad |= packed_output(xc, m, stride_j, zs[e]);
    }
  } else {
    // X_k for the pairs (k, N − k); X_0 and X_N from Z_0
#pragma unroll
    for (int e = 0; e <= SINE_ELEMENTS / 2; ++e) {
      const int k = idx[2 * e];
      if (k < 0) continue;
      if (k == 0) {
        bad |= fourier_outputs_zero(zs[2 * e], N, xc, stride_j, scale);
        continue;
      }
      bad |= fourier_outputs(zs[2 * e], zs[2 * e + 1], k, N - k, xc, stride_j, table, scale);
    }
  }
  if (watch && bad) *nonfinite = 1;
}

#endif  // SINE_HALVES

// Sine transforms twice as long as a work-group holds (N = 2M; ocl::
// SineTransform takes them so), by one step of decimation in frequency:
//   even modes: g_{2k} = Σ_{j<M} a_j sin(π j k / M), a_j = x_j − x_{N−j}, a DST-I
//     of length M − 1 (sine_transform with N = M);
//   odd modes: g_{2k+1} = Σ_{j≤M} b_j sin(π j (2k + 1) / N), b_j = x_j + x_{N−j},
//     b_M = x_M, i.e. (−1)^k times the DCT-III of c_i = b_{M−i} (sine_odd_modes).
// Each is an FFT of length M (error O(ε log N), as the whole transform's; the
// folding with a running sum would lose √N). Column positions: a_j at j − 1
// and b_j at N − j − 1 (c_i at M − 1 + i), where x_j and x_{N−j} were; the
// modes stay there, even modes 2k at k − 1 and odd 2k + 1 at M − 1 + k, an
// order the plan's line shifts follow (SineTransform::modes). From modes the
// transposes in reverse order: the DST-I, the DCT-II of (−1)^k h_k, and the
// butterfly back.

// To modes, the pairs (x_j, x_{N−j}), 1 ≤ j < M, to (a_j, b_j) in place; from
// modes, (E_j, O_j) of the two halves to x_j = O_j + E_j, x_{N−j} = O_j − E_j
// (x_M = O_M, flagged where watched). Work-item (j − 1, column, batch), j along
// dimension 0 of the range where j_first (contiguous lines), else the columns
// (contiguous columns), so that either way neighbours touch neighbours.
__kernel void sine_butterfly(__global real* x, int M, int columns, int stride_j, ulong stride_c, ulong stride_b,
                             int j_first, int from_modes, __global int* nonfinite, int watch) {
  const int i = get_global_id(j_first ? 0 : 1), col = get_global_id(j_first ? 1 : 0);
  if (i >= M || col >= columns) return;
  __global real* xc = x + get_global_id(2) * stride_b + col * stride_c;
  const int N = 2 * M;
  if (i == M - 1) {  // x_M, whole in the odd half
    if (watch && !isfinite(xc[(size_t)(M - 1) * stride_j])) *nonfinite = 1;
    return;
  }
  __global real* lo = xc + (size_t)i * stride_j;            // x_j, j = i + 1
  __global real* hi = xc + (size_t)(N - 2 - i) * stride_j;  // x_{N−j}
  const real p = *lo, q = *hi;
  const real u = from_modes ? q + p : p - q, w = from_modes ? q - p : p + q;
  *lo = u;
  *hi = w;
  if (watch && (!isfinite(u) || !isfinite(w))) *nonfinite = 1;
}

// The odd modes' half, in place on c (positions M − 1 … N − 2 of the columns,
// `offset` reals on), M = 2L, by complex FFTs of length L (the kernel's N):
// to modes, g_{2k+1} = scale_k (−1)^k y_k with y the DCT-III of c,
// y_k = Σ_i c_i cos(π i (2k + 1) / (2M)): y_{2n} = v_n and y_{2n+1} =
// v_{M−1−n}, v the real DFT of length M of the Hermitian G_k = conj(q_k)
// (c_k + i c_{M−k}) / 2 (G_0 = c_0, q_k = e^{iπk/(2M)}), packed as
// z_m = v_{2m} + i v_{2m+1} = FFT_L(A)_m, A_k = (G_k + G_{k+L}) + i ω^k (G_k −
// G_{k+L}), ω = e^{−2πi/M}. From modes, the transpose: O_i = Σ_k cos(π i (2k +
// 1) / (2M)) h'_k, h'_k = (−1)^k scale_k g_{2k+1}, a DCT-II: V = FFT_M of the
// real v (v_n = h'_{2n}, v_{M−1−n} = h'_{2n+1}) from the packed FFT_L, V_k =
// E_k + ω^k O_k and V_{k+L} = E_k − ω^k O_k for the pair (k, L − k), then
// O_i = Re(conj(q_i) V_i). Every output is an FFT's sum (error O(ε log N)),
// and the FFT is half as long as the real data's complex FFT of length M.
// table: (cos πt/L, sin πt/L) for t < 2L, then q_i for i < M. Launch shape,
// layout and local memory as sine_transform's with N = L.
// Makhoul's order: v_j is h'_k (from modes) or y_k (to modes) for this k.
inline int odd_modes_index(int j, int L) { return j < L ? 2 * j : 2 * (2 * L - 1 - j) + 1; }
inline real odd_modes_input(__global const real* xc, int j, int L, int stride_j, __global const real* scale) {
  const int k = odd_modes_index(j, L);
  const real a = xc[(size_t)k * stride_j] * scale[k];
  return (k & 1) ? -a : a;
}
inline void odd_modes_output(__global real* xc, int j, real v, int L, int stride_j, __global const real* scale) {
  const int k = odd_modes_index(j, L);
  xc[(size_t)k * stride_j] = ((k & 1) ? -v : v) * scale[k];
}
// Re(conj(q) v)
inline real odd_modes_real(real2 q, real2 v) { return q.x * v.x + q.y * v.y; }

__kernel __attribute__((reqd_work_group_size(SINE_GROUP, 1, 1))) void sine_odd_modes(
    __global real* x, ulong offset, int N, int columns, int C, int stride_j, ulong stride_c, ulong stride_b,
    __global const real2* table, __global const real* scale, int from_modes, __local real2* z) {
  x += offset;
  TRANSFORM_COLUMN;
  const int L = N, M = 2 * N;
  __global const real2* quarter = table + 2 * L;
  real2 v[SINE_ELEMENTS];
  int idx[SINE_ENTRIES];
  real2 zs[SINE_ENTRIES];
#pragma unroll
  for (int i = 0; i < SINE_ENTRIES; ++i) idx[i] = -1;
#pragma unroll
  for (int e = 0; e < SINE_ELEMENTS; ++e) {
    const int k = s + e * S;
    if (k >= L) continue;
    idx[e] = k;
    if (!live) {
      zs[e] = (real2)(0, 0);
    } else if (from_modes) {
      zs[e] = (real2)(odd_modes_input(xc, 2 * k, L, stride_j, scale), odd_modes_input(xc, 2 * k + 1, L, stride_j, scale));
    } else {
      const real ck = xc[(size_t)k * stride_j], cm = k > 0 ? xc[(size_t)(M - k) * stride_j] : (real)0;
      const real cp = xc[(size_t)(L + k) * stride_j], cq = xc[(size_t)(L - k) * stride_j];
      const real2 q = quarter[k], ql = quarter[k + L], w = table[k];
      const real2 gk = k > 0 ? cmul((real2)(q.x, -q.y), (real2)(ck, cm)) * (real)0.5 : (real2)(ck, 0);
      const real2 gl = cmul((real2)(ql.x, -ql.y), (real2)(cp, cq)) * (real)0.5;
      const real2 d = cmul((real2)(w.x, -w.y), gk - gl);  // ω^k (G_k − G_{k+L})
      zs[e] = gk + gl + (real2)(-d.y, d.x);
    }
  }
  fft_scatter(L, C, c, s, S, z, v, idx, zs);
  packed_fft(L, C, c, s, S, z, v, table);
#pragma unroll
  for (int i = 0; i < SINE_ENTRIES; ++i) idx[i] = -1;
  if (!from_modes) {
#pragma unroll
    for (int e = 0; e < SINE_ELEMENTS; ++e)
      if (s + e * S < L) idx[e] = s + e * S;
  } else {
#pragma unroll
    for (int e = 0; e <= SINE_ELEMENTS / 2; ++e) {
      const int k = unfold_pair(e, s, S, L);
      if (k < 0) continue;
      idx[2 * e] = k;
      if (k > 0 && L - k != k) idx[2 * e + 1] = L - k;
    }
  }
  fft_gather(L, C, c, s, S, z, v, idx, zs);
  if (!live) return;
  if (!from_modes) {
#pragma unroll
    for (int e = 0; e < SINE_ELEMENTS; ++e) {
      const int m = idx[e];
      if (m < 0) continue;
      odd_modes_output(xc, 2 * m, zs[e].x, L, stride_j, scale);
      odd_modes_output(xc, 2 * m + 1, zs[e].y, L, stride_j, scale);
    }
    return;
  }
#pragma unroll
  for (int e = 0; e <= SINE_ELEMENTS / 2; ++e) {
    const int k = idx[2 * e];
    if (k < 0) continue;
    if (k == 0) {  // E_0 = Re Z_0, O_0 = Im Z_0
      const real2 z0 = zs[2 * e];
      xc[0] = z0.x + z0.y;
      xc[(size_t)L * stride_j] = quarter[L].x * (z0.x - z0.y);
      continue;
    }
    const int m = L - k;
    const real2 zk = zs[2 * e], zm = m != k ? zs[2 * e + 1] : zk;
    const real2 ev = (real2)(zk.x + zm.x, zk.y - zm.y) * (real)0.5;   // (Z_k + conj Z_m) / 2
    const real2 dz = (real2)(zk.x - zm.x, zk.y + zm.y) * (real)0.5;   // (Z_k − conj Z_m) / 2
    const real2 od = (real2)(dz.y, -dz.x);                             // that / i
    const real2 w = table[k];
    const real2 wo = cmul((real2)(w.x, -w.y), od);
    const real2 vk = ev + wo, vl = ev - wo;  // V_k, V_{k+L}
    xc[(size_t)k * stride_j] = odd_modes_real(quarter[k], vk);
    xc[(size_t)(k + L) * stride_j] = odd_modes_real(quarter[k + L], vl);
    if (m != k) {
      xc[(size_t)m * stride_j] = odd_modes_real(quarter[m], (real2)(vl.x, -vl.y));          // V_{L−k} = conj V_{k+L}
      xc[(size_t)(M - k) * stride_j] = odd_modes_real(quarter[M - k], (real2)(vk.x, -vk.y));  // V_{M−k} = conj V_k
    }
  }
}

// out[c][r] = in[r][c] for a rows × cols array of scalars, by tiles of
// 16 × 16 staged through local memory so that both sides are coalesced (the
// lines of a transformed plan for the global CR solver, which takes them
// stored [row][line]).
#define TRANSPOSE_TILE 16
__kernel void transpose(
    __global const scalar* in, __global scalar* out, int rows, int cols) {
  __local scalar tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int c = get_group_id(0) * TRANSPOSE_TILE + tx, r = get_group_id(1) * TRANSPOSE_TILE + ty;
  if (r < rows && c < cols) tile[ty][tx] = in[(size_t)r * cols + c];
  barrier(CLK_LOCAL_MEM_FENCE);
  const int oc = get_group_id(1) * TRANSPOSE_TILE + tx, orow = get_group_id(0) * TRANSPOSE_TILE + ty;
  if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[tx][ty];
}
