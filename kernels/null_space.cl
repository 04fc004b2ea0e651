// Pure-Neumann problems on device buffers (c = 0, constants span the null
// space of A): the right-hand side is projected onto the range of A before the
// solve, and the solution's weighted mean is removed after it. The sums are a
// barrier-free tree: each stage adds `fan` strided entries per work-item, so
// the result is deterministic and no work-group synchronisation is needed.
// The sums are compensated (Kahan): in float, a plain running sum of the few
// hundred terms of a work-item would shift the mean by hundreds of ε.

// Stage 1. part[2j] = Σ w_i x_i and part[2j+1] = Σ |x_i|² over i ≡ j (mod m),
// w_i = w1[i1]·w2[i2]·w3[i3] for i = (i1·n2 + i2)·n3 + i3 (weighted != 0) or 1.
__kernel void null_space_partials(__global const scalar* x, ulong n, __global const real* w1,
                                  __global const real* w2, __global const real* w3, ulong n2, ulong n3,
                                  int weighted, ulong m, __global scalar* part) {
  const ulong j = get_global_id(0);
  if (j >= m) return;
  scalar s = ZERO, cs = ZERO;
  real q = 0;
  for (ulong i = j; i < n; i += m) {
    const scalar v = x[i];
#ifdef SCALAR_COMPLEX
    q += v.x * v.x + v.y * v.y;
#else
    q += v * v;
#endif
    if (weighted) {
      const ulong i3 = i % n3, i12 = i / n3;
      KAHAN_ADD(s, cs, v * (w1[i12 / n2] * w2[i12 % n2] * w3[i3]));
    } else {
      KAHAN_ADD(s, cs, v);
    }
  }
  part[2 * j] = s;
  part[2 * j + 1] = FROM_REAL(q);
}

// Later stages: out[2j+k] = Σ_t in[2(j + t·m) + k] over the `pairs` pairs of in.
__kernel void pair_sums(__global const scalar* in, ulong pairs, ulong m, __global scalar* out) {
  const ulong j = get_global_id(0);
  if (j >= m) return;
  scalar s0 = ZERO, s1 = ZERO, c0 = ZERO;
  for (ulong p = j; p < pairs; p += m) {
    KAHAN_ADD(s0, c0, in[2 * p]);
    s1 += in[2 * p + 1];
  }
  out[2 * j] = s0;
  out[2 * j + 1] = s1;
}

// x_i -= totals[0]·scale: removes the (weighted) mean.
__kernel void subtract_mean(__global scalar* x, ulong n, __global const scalar* totals, real scale) {
  const scalar mean = totals[0] * scale;
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) x[i] -= mean;
}
