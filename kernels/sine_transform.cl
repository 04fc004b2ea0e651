// Dimensions taken whole by fast sine transforms (KernelParameters::transforms,
// PlanInfo::dimension_methods "sine transform"): a Toeplitz pencil with
// Dirichlet ends has the eigenvectors w_k[j] = scale_k · sin(π j k / N),
// N = n + 1, so both products with its basis are a DST-I:
//   to modes:   g_k = scale_k · Σ_j sin(π j k / N) x_j
//   from modes: x_j = Σ_k sin(π j k / N) · scale_k · g_k
// One work-group transforms C columns whole in local memory (N a power of
// two): the columns are contiguous in memory, the transformed index j is
// strided, so consecutive work-items take consecutive columns and every
// global access is coalesced. The DST-I of length N − 1 is a real DFT of
// length N of
//   y_j = sin(π j / N)(x_j + x_{N−j}) + (x_j − x_{N−j}) / 2,
// computed as a complex FFT of length L = N / 2 of z_m = y_{2m} + i y_{2m+1}:
// with Y_k = R_k − i I_k, X_{2k} = I_k and X_{2k+1} = Σ_{i ≤ k} R_i − R_0 / 2
// (a prefix sum over the column, in local memory). Real data of any scalar
// type: a complex array is transformed as its real and imaginary parts, two
// columns each. With SINE_TRANSFORM only: only plans that take it build it.
#ifdef SINE_TRANSFORM

inline int bit_reverse(int m, int bits) {
  int r = 0;
  for (int b = 0; b < bits; ++b) r |= ((m >> b) & 1) << (bits - 1 - b);
  return r;
}

inline real2 cmul(real2 a, real2 b) { return (real2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// Y_k of the real DFT of length N from the pair (Z_k, Z_{L−k}) of the
// packed FFT, w = e^{−2πik/N}: Y_k = E − i w O with E, O the halves.
inline real2 real_dft_entry(real2 zk, real2 zm, real2 w) {
  const real2 e = (real2)(zk.x + zm.x, zk.y - zm.y) * (real)0.5;
  const real2 o = (real2)(zk.x - zm.x, zk.y + zm.y) * (real)0.5;
  const real2 wo = cmul(w, o);
  return (real2)(e.x + wo.y, e.y - wo.x);
}

// x: columns [group·C, group·C + C) of batch get_group_id(1), entry j
// (1 ≤ j ≤ N − 1) of column col at x[b·stride_b + (j − 1)·stride_j + col],
// transformed in place. table[j] = (cos πj/N, sin πj/N), j < N. scale: n
// entries, applied to the input (from modes) or to the output (to modes).
// z: N/2 · C complex entries, part: SINE_GROUP reals.
__kernel __attribute__((reqd_work_group_size(SINE_GROUP, 1, 1))) void sine_transform(
    __global real* x, int N, int log2_half, int columns, int C, int stride_j, ulong stride_b,
    __global const real2* table, __global const real* scale, int from_modes, __local real2* z, __local real* part) {
  const int t = get_local_id(0), c = t % C, s = t / C, S = SINE_GROUP / C, L = N / 2;
  const int col = get_group_id(0) * C + c;
  const bool live = col < columns;
  __global real* xc = x + get_group_id(1) * stride_b + (live ? col : 0);
  __local real* zr = (__local real*)z;
  // 1. the folded sequence y, packed and bit-reversed
  for (int j = s; j <= L; j += S) {
    real a = 0, b = 0;
    if (live && j > 0) {
      a = xc[(size_t)(j - 1) * stride_j];
      b = xc[(size_t)(N - j - 1) * stride_j];
      if (from_modes) {
        a *= scale[j - 1];
        b *= scale[N - j - 1];
      }
    }
    const real sum = table[j].y * (a + b), diff = (real)0.5 * (a - b);
    zr[2 * (bit_reverse(j >> 1, log2_half) * C + c) + (j & 1)] = j == 0 ? (real)0 : sum + diff;
    if (j > 0 && j < L) zr[2 * (bit_reverse((N - j) >> 1, log2_half) * C + c) + ((N - j) & 1)] = sum - diff;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // 2. radix-2 FFT of length L, decimation in time (natural order out)
  for (int h = 1; h < L; h <<= 1) {
    const int stride = N / h;
    for (int q = s; q < L / 2; q += S) {
      const int k = q & (h - 1), i = ((q - k) << 1) + k;
      const real2 tw = table[k * stride];
      const real2 u = z[i * C + c], v = cmul(z[(i + h) * C + c], (real2)(tw.x, -tw.y));
      z[i * C + c] = u + v;
      z[(i + h) * C + c] = u - v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  // 3. (R_k, I_k) in place of Z_k; a work-item owns both entries of a pair
  for (int k = s; k <= L / 2; k += S) {
    const int m = (L - k) & (L - 1);
    const real2 zk = z[k * C + c], zm = z[m * C + c];
    const real2 wk = table[2 * k], wm = table[2 * m];
    const real2 yk = real_dft_entry(zk, zm, (real2)(wk.x, -wk.y));
    z[k * C + c] = (real2)(yk.x, -yk.y);
    if (m != k) {
      const real2 ym = real_dft_entry(zm, zk, (real2)(wm.x, -wm.y));
      z[m * C + c] = (real2)(ym.x, -ym.y);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // 4. the odd outputs as a prefix sum of R: segments of G entries per
  // work-item, their totals scanned across the column's work-items
  const int G = (L + S - 1) / S, k0 = min(s * G, L), k1 = min(k0 + G, L);
  real total = 0;
  for (int k = k0; k < k1; ++k) total += z[k * C + c].x;
  part[t] = total;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < S; off <<= 1) {
    const real v = s >= off ? part[t - off * C] : (real)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    part[t] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (!live) return;
  real run = part[t] - total - (real)0.5 * z[c].x;
  for (int k = k0; k < k1; ++k) {
    const real2 ri = z[k * C + c];
    run += ri.x;
    real odd = run, even = ri.y;  // X_{2k+1}, X_{2k}
    if (!from_modes) {
      odd *= scale[2 * k];
      if (k > 0) even *= scale[2 * k - 1];
    }
    xc[(size_t)(2 * k) * stride_j] = odd;
    if (k > 0) xc[(size_t)(2 * k - 1) * stride_j] = even;
  }
}

#endif

// out[c][r] = in[r][c] for a rows × cols array of scalars, by tiles of
// 16 × 16 staged through local memory so that both sides are coalesced (the
// lines of a transformed plan for the global CR solver, which takes them
// stored [row][line]).
#ifdef SINE_TRANSFORM
#define TRANSPOSE_TILE 16
__kernel __attribute__((reqd_work_group_size(TRANSPOSE_TILE, TRANSPOSE_TILE, 1))) void transpose(
    __global const scalar* in, __global scalar* out, int rows, int cols) {
  __local scalar tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int c = get_group_id(0) * TRANSPOSE_TILE + tx, r = get_group_id(1) * TRANSPOSE_TILE + ty;
  if (r < rows && c < cols) tile[ty][tx] = in[(size_t)r * cols + c];
  barrier(CLK_LOCAL_MEM_FENCE);
  const int oc = get_group_id(1) * TRANSPOSE_TILE + tx, orow = get_group_id(0) * TRANSPOSE_TILE + ty;
  if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[tx][ty];
}
#endif
