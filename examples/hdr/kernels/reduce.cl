// Image client kernels, double precision. Images are row-major w x h, index
// y·w + x. Scalar results (sums, extrema) stay on the device in a small slot
// array, so stages chain without host round trips.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;

// One stage of a barrier-free reduction tree: out[off + j] = op over
// map(in[j + t·m]). op: 0 sum, 1 max, 2 min. map (first stage only):
// 0 x, 1 log(x + delta), 2 x². Deterministic for a fixed launch sequence.
__kernel void reduce_stage(__global const real* in, ulong n, ulong m, __global real* out, ulong off, int op,
                           int map, real delta) {
  const ulong j = get_global_id(0);
  if (j >= m) return;
  real acc = op == 0 ? 0.0 : (op == 1 ? -INFINITY : INFINITY);
  for (ulong i = j; i < n; i += m) {
    real v = in[i];
    if (map == 1) v = log(v + delta);
    else if (map == 2) v = v * v;
    acc = op == 0 ? acc + v : (op == 1 ? fmax(acc, v) : fmin(acc, v));
  }
  out[off + j] = acc;
}
