// Iterative solvers for A u = b, A = −Δ (5-point, unit spacing, Neumann:
// a border cell has fewer neighbours): damped Jacobi, red-black Gauss–Seidel
// / SOR, and the multigrid transfers. deg = number of neighbours in the grid.

inline real neighbours(__global const real* u, int x, int y, int w, int h, int* deg) {
  const int i = y * w + x;
  real s = 0;
  int d = 0;
  if (x > 0) s += u[i - 1], ++d;
  if (x + 1 < w) s += u[i + 1], ++d;
  if (y > 0) s += u[i - w], ++d;
  if (y + 1 < h) s += u[i + w], ++d;
  *deg = d;
  return s;
}

__kernel void jacobi(__global const real* u, __global const real* b, int w, int h, real omega, __global real* unew) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const int i = y * w + x;
  int d;
  const real s = neighbours(u, x, y, w, h, &d);
  unew[i] = d > 0 ? u[i] + omega * (b[i] + s - d * u[i]) / d : u[i];
}

// One colour of red-black SOR (omega = 1: Gauss–Seidel); colour = (x+y) mod 2.
// The global x range covers half the row.
__kernel void sor_colour(__global real* u, __global const real* b, int w, int h, int colour, real omega) {
  const int y = get_global_id(1);
  const int x = 2 * get_global_id(0) + ((y + colour) & 1);
  if (x >= w || y >= h) return;
  const int i = y * w + x;
  int d;
  const real s = neighbours(u, x, y, w, h, &d);
  if (d > 0) u[i] += omega * (b[i] + s - d * u[i]) / d;
}

__kernel void residual(__global const real* u, __global const real* b, int w, int h, __global real* r) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const int i = y * w + x;
  int d;
  const real s = neighbours(u, x, y, w, h, &d);
  r[i] = b[i] - (d * u[i] - s);
}

// Coarse right-hand side: the sum of the (up to 4) fine residuals of each
// coarse cell. With unit-spacing stencils on every level this is the
// rediscretised coarse equation (h² scaling folded in).
__kernel void restrict_sum(__global const real* r, int fw, int fh, __global real* bc, int cw, int ch) {
  const int X = get_global_id(0), Y = get_global_id(1);
  if (X >= cw || Y >= ch) return;
  real s = 0;
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 2; ++i) {
      const int x = 2 * X + i, y = 2 * Y + j;
      if (x < fw && y < fh) s += r[y * fw + x];
    }
  bc[Y * cw + X] = s;
}

// u += bilinear interpolation of the coarse correction (cell centres: fine x
// sits at coarse (x + 0.5)/2 − 0.5), constant extrapolation at borders.
__kernel void prolong_add(__global const real* ec, int cw, int ch, __global real* u, int fw, int fh) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= fw || y >= fh) return;
  const real cx = clamp((x + 0.5) * 0.5 - 0.5, 0.0, cw - 1.0), cy = clamp((y + 0.5) * 0.5 - 0.5, 0.0, ch - 1.0);
  const int x0 = (int)cx, y0 = (int)cy, x1 = min(x0 + 1, cw - 1), y1 = min(y0 + 1, ch - 1);
  const real fx = cx - x0, fy = cy - y0;
  u[y * fw + x] += (ec[y0 * cw + x0] * (1 - fx) + ec[y0 * cw + x1] * fx) * (1 - fy) +
                   (ec[y1 * cw + x0] * (1 - fx) + ec[y1 * cw + x1] * fx) * fy;
}

// The coarsest level (a few dozen cells): one work-item, Gauss–Seidel sweeps
// on the compatible part of b, then zero mean.
__kernel void coarse_solve(__global real* u, __global const real* b, int w, int h, int sweeps) {
  if (get_global_id(0) != 0) return;
  const int n = w * h;
  real mb = 0;
  for (int i = 0; i < n; ++i) mb += b[i];
  mb /= n;
  for (int i = 0; i < n; ++i) u[i] = 0;
  for (int k = 0; k < sweeps; ++k)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        int d;
        const real s = neighbours(u, x, y, w, h, &d);
        if (d > 0) u[y * w + x] = (b[y * w + x] - mb + s) / d;
      }
  real mu = 0;
  for (int i = 0; i < n; ++i) mu += u[i];
  mu /= n;
  for (int i = 0; i < n; ++i) u[i] -= mu;
}

// u -= mean (slots[sum_slot] / n): zero-mean representative of a Neumann solution.
__kernel void subtract_slot_mean(__global real* u, int n, __global const real* slots, int sum_slot) {
  const int i = get_global_id(0);
  if (i >= n) return;
  u[i] -= slots[sum_slot] / n;
}
