// Gradient-domain compression (Fattal, Lischinski, Werman 2002) and the
// Reinhard global operator: luminance, Gaussian pyramid, attenuation,
// divergence, exposure histogram and the final 8-bit sRGB composition.

inline int clampi(int v, int lo, int hi) { return min(max(v, lo), hi); }

// Luminance (Rec. 709 weights) of linear RGB, negative components clamped to
// 0. bad receives the smallest index of a pixel with a NaN or infinite value.
__kernel void luminance(__global const float* rgb, int n, __global real* L, __global int* bad) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
  if (!isfinite(r) || !isfinite(g) || !isfinite(b)) atomic_min(bad, i);
  L[i] = 0.2126 * fmax((real)r, 0.0) + 0.7152 * fmax((real)g, 0.0) + 0.0722 * fmax((real)b, 0.0);
}

// H = log(max(L, floor·max L)): zero pixels get a finite log, `floor` below
// the brightest one.
__kernel void log_luminance(__global const real* L, int n, __global const real* slots, int max_slot, real floor_rel,
                            __global real* H) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const real lmax = slots[max_slot];
  const real lo = lmax > 0 ? floor_rel * lmax : 1e-300;
  H[i] = log(fmax(L[i], lo));
}

// One pyramid level down: 5x5 binomial blur (1 4 6 4 1)/16 per axis, sampled
// at the even pixels, borders clamped. coarse (X, Y) sits at fine (2X, 2Y).
__kernel void pyramid_down(__global const real* fine, int fw, int fh, __global real* coarse, int cw, int ch) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= cw || y >= ch) return;
  const real k[5] = {1, 4, 6, 4, 1};
  real s = 0;
  for (int j = -2; j <= 2; ++j) {
    const int yy = clampi(2 * y + j, 0, fh - 1);
    real row = 0;
    for (int i = -2; i <= 2; ++i) row += k[i + 2] * fine[yy * fw + clampi(2 * x + i, 0, fw - 1)];
    s += k[j + 2] * row;
  }
  coarse[y * cw + x] = s / 256;
}

// |∇H_k| by central differences scaled by 2^(k+1) (one-sided at borders).
__kernel void gradient_magnitude(__global const real* H, int w, int h, real scale, __global real* mag) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const real gx = (H[y * w + min(x + 1, w - 1)] - H[y * w + max(x - 1, 0)]) / scale;
  const real gy = (H[min(y + 1, h - 1) * w + x] - H[max(y - 1, 0) * w + x]) / scale;
  mag[y * w + x] = sqrt(gx * gx + gy * gy);
}

// Φ_k = φ_k · up(Φ_{k+1}), φ_k = ((|∇H_k| + noise) / a)^(β−1), a = alpha·mean |∇H_k|
// (the level's mean from slots[sum_slot] / (w·h)); the sum counts as at least
// 1e-3·a, so flat regions get a bounded factor even without noise. Levels
// finer than the detail level (apply = 0) only pass Φ on. up() is bilinear
// at coarse coordinates (x/2, y/2).
__kernel void attenuation(__global const real* mag, int w, int h, __global const real* slots, int sum_slot,
                          real alpha, real beta, real noise, int apply, __global const real* coarse, int cw, int ch,
                          int has_coarse, __global real* Phi) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const real a = alpha * slots[sum_slot] / ((real)w * h);
  real phi = 1;
  // exp/log instead of pow: the ratio is positive, and PoCL's double pow is several times slower
  if (apply && a > 0) phi = exp((beta - 1) * log(fmax(mag[y * w + x] + noise, 1e-3 * a) / a));
  if (has_coarse) {
    const real cx = fmin(x * 0.5, cw - 1.0), cy = fmin(y * 0.5, ch - 1.0);
    const int x0 = (int)cx, y0 = (int)cy, x1 = min(x0 + 1, cw - 1), y1 = min(y0 + 1, ch - 1);
    const real fx = cx - x0, fy = cy - y0;
    phi *= (coarse[y0 * cw + x0] * (1 - fx) + coarse[y0 * cw + x1] * fx) * (1 - fy) +
           (coarse[y1 * cw + x0] * (1 - fx) + coarse[y1 * cw + x1] * fx) * fy;
  }
  Phi[y * w + x] = phi;
}

// b = −div G with G = Φ ∇H by forward differences, Φ averaged onto the cell
// faces, G = 0 across the border (Neumann): the right-hand side of A I = b,
// A = −Δ (5-point, unit spacing).
__kernel void divergence(__global const real* H, __global const real* Phi, int w, int h, __global real* b) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const int i = y * w + x;
  real div = 0;
  if (x + 1 < w) div += 0.5 * (Phi[i] + Phi[i + 1]) * (H[i + 1] - H[i]);
  if (x > 0) div -= 0.5 * (Phi[i - 1] + Phi[i]) * (H[i] - H[i - 1]);
  if (y + 1 < h) div += 0.5 * (Phi[i] + Phi[i + w]) * (H[i + w] - H[i]);
  if (y > 0) div -= 0.5 * (Phi[i - w] + Phi[i]) * (H[i] - H[i - w]);
  b[i] = -div;
}

// Counts of v over `bins` (<= HIST_BINS) equal bins between slots[lo_slot]
// and slots[hi_slot]. Each work-group counts its items in local memory and adds
// its non-zero bins to the global counts: far fewer contended global atomics.
// The barriers are outside every conditional (uniform control flow).
#define HIST_BINS 4096
__kernel void histogram(__global const real* v, int n, __global const real* slots, int lo_slot, int hi_slot, int bins,
                        __global int* hist) {
  __local int local_hist[HIST_BINS];
  const int lid = get_local_id(0), ls = get_local_size(0);
  for (int k = lid; k < bins; k += ls) local_hist[k] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const real lo = slots[lo_slot], hi = slots[hi_slot];
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
    const int bin = hi > lo ? clampi((int)((v[i] - lo) / (hi - lo) * bins), 0, bins - 1) : 0;
    atomic_inc(&local_hist[bin]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = lid; k < bins; k += ls)
    if (local_hist[k]) atomic_add(&hist[k], local_hist[k]);
}

// Display values are computed in float: their rounding error (1e-7) is far
// below the 8-bit step. The sRGB code is found by a binary search in the
// table of the linear values where each code begins (srgb_table), not by a
// power: on CPUs (PoCL) float and double pow are the slowest thing here.
inline uchar srgb8(float v, __constant float* srgb_table) {
  int k = 0;
  for (int step = 128; step >= 1; step >>= 1)
    if (v >= srgb_table[k + step]) k += step;
  return (uchar)k;
}

// Colour restoration C_out = (C_in / L_in)^s · L_disp (0^s is 0, and 1 for
// s = 0) and sRGB encoding; linear (when not null) receives C_out unclipped.
// The power is exp2/log2 (5x faster than float pow on PoCL), and none for s = 1.
inline void compose(__global const float* rgb, __global const real* L, int i, real Ld, real s,
                    __constant float* srgb_table, __global uchar* out, __global float* linear) {
  const real Lin = L[i];
  for (int c = 0; c < 3; ++c) {
    const real Cin = fmax((real)rgb[3 * i + c], 0.0);
    const float q = (float)(Cin / Lin);
    const float ratio = Cin > 0 ? (s == 1 ? q : exp2((float)s * log2(q))) : (s == 0 ? 1.0f : 0.0f);
    const float v = Lin > 0 ? ratio * (float)Ld : 0.0f;
    out[3 * i + c] = srgb8(v, srgb_table);
    if (linear) linear[3 * i + c] = v;
  }
}

// Fattal: L_out = exp(I), mapped linearly so that elo = exp(lo) -> 0 and
// ehi = exp(hi) -> 1 (lo, hi: the black and white percentiles of I); a
// constant I gives grey 0.5.
__kernel void compose_fattal(__global const float* rgb, __global const real* L, __global const real* I, int n, real elo,
                             real ehi, real s, __constant float* srgb_table, __global uchar* out,
                             __global float* linear) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const real Ld = ehi > elo ? fmax((exp(I[i]) - elo) / (ehi - elo), 0.0) : 0.5;
  compose(rgb, L, i, Ld, s, srgb_table, out, linear);
}

// Reinhard global: L_s = key / L_avg · L, L_avg = exp(mean log(delta + L)) from
// slots[logsum_slot]; L_d = L_s (1 + L_s / L_white²) / (1 + L_s) with L_white
// the scaled maximum when white <= 0.
__kernel void compose_reinhard(__global const float* rgb, __global const real* L, int n, __global const real* slots,
                               int logsum_slot, int max_slot, real key, real white, real s,
                               __constant float* srgb_table, __global uchar* out, __global float* linear) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const real avg = exp(slots[logsum_slot] / n);
  const real scale = key / avg;
  const real Ls = scale * L[i];
  const real Lwhite = white > 0 ? white : fmax(scale * slots[max_slot], 1e-300);
  const real Ld = Ls * (1 + Ls / (Lwhite * Lwhite)) / (1 + Ls);
  compose(rgb, L, i, Ld, s, srgb_table, out, linear);
}

// The right-hand side to float and the solution back (PipelineOptions::float_solve).
__kernel void to_float(__global const real* x, ulong n, __global float* y) {
  const ulong i = get_global_id(0);
  if (i < n) y[i] = (float)x[i];
}
__kernel void to_double(__global const float* x, ulong n, __global real* y) {
  const ulong i = get_global_id(0);
  if (i < n) y[i] = (real)x[i];
}
