// L1-mean-curvature denoising on the device (examples/denoise/l1mc.hpp has
// the method and the layout): vertex (x, y) at y W + x; cell (cx, cy) at
// c = cy (W − 1) + cx with its lower triangle's two components at 4c, 4c + 1
// and its upper triangle's at 4c + 2, 4c + 3. Every kernel mirrors the host
// reference arithmetic step by step (test_denoise compares the two).
// REAL: double (the default) or float (built with -cl-single-precision-constant).
#ifndef REAL
#define REAL double
#endif
#if REAL_IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef REAL real;

#define GROUP 256

#if REAL_IS_DOUBLE
#define BRENT_TOL 1e-6
#else
#define BRENT_TOL 1e-5
#endif

// ∇ of the vertex field v on cell (cx, cy): g[0..1] lower, g[2..3] upper.
inline void cell_gradient(__global const real* v, int W, int cx, int cy, real invh, real* g) {
  const real a = v[cy * W + cx], b = v[cy * W + cx + 1], c = v[(cy + 1) * W + cx], d = v[(cy + 1) * W + cx + 1];
  g[0] = (b - a) * invh;
  g[1] = (d - b) * invh;
  g[2] = (d - c) * invh;
  g[3] = (c - a) * invh;
}

// Gᵀ of a field of cell components at vertex (x, y), gathered from the
// cells around it into `out`: CELL(cx, cy, t) puts the four components of
// cell (cx, cy) in t, read from a buffer or computed where they are needed
// (which saves a launch: the host's cost of a launch bounds small images).
#define GATHER_CELLS(W, H, x, y, invh, CELL, out)   \
  do {                                              \
    real acc_ = 0, t_[4];                           \
    if ((x) < (W) - 1 && (y) < (H) - 1) {           \
      CELL((x), (y), t_);                           \
      acc_ -= t_[0] + t_[3];                        \
    }                                               \
    if ((x) > 0 && (y) < (H) - 1) {                 \
      CELL((x) - 1, (y), t_);                       \
      acc_ += t_[0] - t_[1];                        \
    }                                               \
    if ((x) < (W) - 1 && (y) > 0) {                 \
      CELL((x), (y) - 1, t_);                       \
      acc_ += t_[3] - t_[2];                        \
    }                                               \
    if ((x) > 0 && (y) > 0) {                       \
      CELL((x) - 1, (y) - 1, t_);                   \
      acc_ += t_[1] + t_[2];                        \
    }                                               \
    (out) = acc_ * (invh);                          \
  } while (0)

inline void load_cell(__global const real* q, int W, int cx, int cy, real* t) {
  __global const real* s = q + 4 * ((size_t)cy * (W - 1) + cx);
  for (int k = 0; k < 4; ++k) t[k] = s[k];
}

// Gᵀ q at vertex (x, y) for q stored per cell.
inline real vertex_gather(__global const real* q, int W, int H, int x, int y, real invh) {
  real out;
#define STORED(cx, cy, t) load_cell(q, W, cx, cy, t)
  GATHER_CELLS(W, H, x, y, invh, STORED, out);
#undef STORED
  return out;
}

// p3 = (b − (h²/2) G v) / r2 on cell (cx, cy), v = S⁻¹ Gᵀ b (Woodbury).
inline void p3_of_cell(__global const real* b, __global const real* v, int W, int cx, int cy, real invh, real area,
                       real r2, real* t) {
  real g[4];
  cell_gradient(v, W, cx, cy, invh, g);
  const size_t c = (size_t)cy * (W - 1) + cx;
  for (int k = 0; k < 4; ++k) t[k] = (b[4 * c + k] - area * g[k]) / r2;
}

// The normal field ∇u/√(1+|∇u|²) on cell (cx, cy), per triangle.
inline void normal_of_cell(__global const real* u, int W, int cx, int cy, real invh, real* t) {
  real g[4];
  cell_gradient(u, W, cx, cy, invh, g);
  for (int tr = 0; tr < 2; ++tr) {
    const real s = 1 / sqrt(1 + g[2 * tr] * g[2 * tr] + g[2 * tr + 1] * g[2 * tr + 1]);
    t[2 * tr] = s * g[2 * tr];
    t[2 * tr + 1] = s * g[2 * tr + 1];
  }
}

inline real vertex_mass(int W, int H, int x, int y, real h) {
  const real wx = (x == 0 || x == W - 1) ? 0.5 : 1.0, wy = (y == 0 || y == H - 1) ? 0.5 : 1.0;
  return h * h * wx * wy;
}

// g(σ) of subproblem 1 and the direction b1 + b2/√(1+σ²) (length in *len);
// c² stands for 1/(1+σ²), as on the host.
inline real pointwise_g(real sigma, real b10, real b11, real b20, real b21, real r1, real r2,
                          real* d0, real* d1, real* len) {
  const real c = rsqrt(1 + sigma * sigma);
  *d0 = b10 + c * b20;
  *d1 = b11 + c * b21;
  *len = sqrt(*d0 * *d0 + *d1 * *d1);
  return 0.5 * sigma * sigma * (r1 + r2 * (c * c)) - sigma * *len;
}

// g'(σ).
inline real pointwise_slope(real sigma, real b10, real b11, real b20, real b21, real r1, real r2) {
  const real c = rsqrt(1 + sigma * sigma), c2 = c * c;
  const real v0 = b10 + c * b20, v1 = b11 + c * b21, len = sqrt(v0 * v0 + v1 * v1);
  const real dc = -sigma * c2 * c;
  return r1 * sigma + r2 * sigma * (c2 * c2) - len - sigma * dc * (v0 * b20 + v1 * b21) / len;
}

// The global minimiser y of subproblem 1 (as L1mc::minimise_pointwise).
inline void minimise_pointwise(real b10, real b11, real b20, real b21, real r1, real r2, real* y0,
                               real* y1) {
  real d0, d1, len;
  *y0 = 0;
  *y1 = 0;
  const real nb = hypot(b10, b11) + hypot(b20, b21);
  if (!(nb > 0)) return;
  // the scan's sinh(k τ) from products of e^{±τ} (as the host); the
  // bracket's ends are the samples next to the best one, x
  const int K = 48;
  const real tmax = asinh(2 * nb / r1), up = exp(tmax / K), down = 1 / up;
  int best = 0;
  real gbest = 0, ek = 1, fk = 1, prev = 0, lo = 0, hi = 0, x = 0;
  for (int k = 1; k <= K; ++k) {
    ek *= up;
    fk *= down;
    const real sk = 0.5 * (ek - fk);
    const real v = pointwise_g(sk, b10, b11, b20, b21, r1, r2, &d0, &d1, &len);
    if (best == k - 1) hi = sk;  // the sample after the best so far
    if (v < gbest) {
      gbest = v;
      best = k;
      lo = prev;
      x = sk;
      hi = sk;  // the last sample, until another follows
    }
    prev = sk;
  }
  if (best == 0) return;
  // Brent's minimisation in [lo, hi] from the best sample, to BRENT_TOL
  // relative (the host: 1e-6; float's values resolve σ only to about √ε)
  real w = x, v = x, fx = gbest, fw = gbest, fv = gbest, step = 0, last = 0;
  const real golden = 0.5 * (3 - sqrt(5.0));
  for (int it = 0; it < 40; ++it) {
    const real mid = 0.5 * (lo + hi), tol = BRENT_TOL * x;
    if (fabs(x - mid) <= 2 * tol - 0.5 * (hi - lo)) break;
    bool parabolic = false;
    if (fabs(last) > tol) {
      const real r = (x - w) * (fx - fv);
      real q = (x - v) * (fx - fw), p = (x - v) * q - (x - w) * r;
      q = 2 * (q - r);
      if (q > 0) p = -p;
      q = fabs(q);
      if (fabs(p) < fabs(0.5 * q * last) && p > q * (lo - x) && p < q * (hi - x)) {
        last = step;
        step = p / q;
        const real u = x + step;
        if (u - lo < 2 * tol || hi - u < 2 * tol) step = mid > x ? tol : -tol;
        parabolic = true;
      }
    }
    if (!parabolic) {
      last = x >= mid ? lo - x : hi - x;
      step = golden * last;
    }
    const real u = fabs(step) >= tol ? x + step : x + (step > 0 ? tol : -tol);
    const real fu = pointwise_g(u, b10, b11, b20, b21, r1, r2, &d0, &d1, &len);
    if (fu <= fx) {
      if (u >= x) lo = x;
      else hi = x;
      v = w;
      fv = fw;
      w = x;
      fw = fx;
      x = u;
      fx = fu;
    } else {
      if (u < x) lo = u;
      else hi = u;
      if (fu <= fw || w == x) {
        v = w;
        fv = fw;
        w = u;
        fw = fu;
      } else if (fu <= fv || v == x || v == w) {
        v = u;
        fv = fu;
      }
    }
  }
  real sigma = x;
  {  // secant steps on g' = 0 (as the host: full accuracy, independent of rounding)
    real s0 = sigma, s1 = sigma * (1 + 1e-7);
    real f0 = pointwise_slope(s0, b10, b11, b20, b21, r1, r2), f1 = pointwise_slope(s1, b10, b11, b20, b21, r1, r2);
    for (int it = 0; it < 8 && f1 != f0 && isfinite(f1); ++it) {
      const real s2 = s1 - f1 * (s1 - s0) / (f1 - f0);
      if (!(fabs(s2 - sigma) <= 1e-4 * sigma)) break;
      s0 = s1;
      f0 = f1;
      s1 = s2;
      f1 = pointwise_slope(s1, b10, b11, b20, b21, r1, r2);
      if (fabs(s1 - s0) <= 1e-16 * s1) break;
    }
    if (fabs(f1) < fabs(pointwise_slope(sigma, b10, b11, b20, b21, r1, r2))) sigma = s1;
  }
  if (!(pointwise_g(sigma, b10, b11, b20, b21, r1, r2, &d0, &d1, &len) < 0) || !(len > 0)) return;
  *y0 = sigma * d0 / len;
  *y1 = sigma * d1 / len;
}

// Subproblem 1 on one triangle (t = 0, 1) of a cell, subproblem 2's
// right-hand side b = r2 p2 + λ2 − G (r3 ψ − λ3) with the new p2, and
// subproblem 4's flux q = (h²/2)(r1 p1 − λ1) (a launch fewer). One
// work-item per triangle, not per cell: the minimisation is long and serial,
// and at 256² a work-item per cell left three quarters of the H100 idle.
__kernel void subproblem1(__global const real* u, __global const real* lambda1, __global const real* p3,
                          __global const real* lambda2, __global const real* psi,
                          __global const real* lambda3, __global real* p1, __global real* p2,
                          __global real* b, __global real* q, int W, int H, real invh, real area, real r1,
                          real r2, real r3) {
  const int gid = get_global_id(0), c = gid / 2, t = gid % 2;
  if (c >= (W - 1) * (H - 1)) return;
  const int cx = c % (W - 1), cy = c / (W - 1);
  real gu[4];
  cell_gradient(u, W, cx, cy, invh, gu);
  const real a = r3 * psi[cy * W + cx] - lambda3[cy * W + cx];
  const real bb = r3 * psi[cy * W + cx + 1] - lambda3[cy * W + cx + 1];
  const real cc = r3 * psi[(cy + 1) * W + cx] - lambda3[(cy + 1) * W + cx];
  const real d = r3 * psi[(cy + 1) * W + cx + 1] - lambda3[(cy + 1) * W + cx + 1];
  const real gw[4] = {(bb - a) * invh, (d - bb) * invh, (d - cc) * invh, (cc - a) * invh};
  const size_t i = 4 * (size_t)c + 2 * t;
  const real b10 = r1 * gu[2 * t] + lambda1[i], b11 = r1 * gu[2 * t + 1] + lambda1[i + 1];
  const real b20 = r2 * p3[i] - lambda2[i], b21 = r2 * p3[i + 1] - lambda2[i + 1];
  real y0, y1;
  minimise_pointwise(b10, b11, b20, b21, r1, r2, &y0, &y1);
  const real s = 1 / sqrt(1 + y0 * y0 + y1 * y1);
  p1[i] = y0;
  p1[i + 1] = y1;
  p2[i] = s * y0;
  p2[i + 1] = s * y1;
  b[i] = r2 * (s * y0) + lambda2[i] - gw[2 * t];
  b[i + 1] = r2 * (s * y1) + lambda2[i + 1] - gw[2 * t + 1];
  q[i] = area * (r1 * y0 - lambda1[i]);
  q[i + 1] = area * (r1 * y1 - lambda1[i + 1]);
}

// The right-hand sides of the two separable solves, interleaved (vertex i's
// at 2i and 2i + 1): subproblem 2's Gᵀ b, and subproblem 4's
// (M f + Gᵀ q) / r1 with q = M_Q (r1 p1 − λ1) from subproblem 1.
__kernel void solve_rhs(__global const real* b, __global const real* q, __global const real* f,
                        __global real* pair, int W, int H, real invh, real h, real r1) {
  const int i = get_global_id(0);
  if (i >= W * H) return;
  const int x = i % W, y = i / W;
  pair[2 * (size_t)i] = vertex_gather(b, W, H, x, y, invh);
  pair[2 * (size_t)i + 1] = (vertex_gather(q, W, H, x, y, invh) + vertex_mass(W, H, x, y, h) * f[i]) / r1;
}

// The two solutions apart: v (subproblem 2's S⁻¹ Gᵀ b) and u.
__kernel void split(__global const real* pair, __global real* v, __global real* u, int n) {
  const int i = get_global_id(0);
  if (i >= n) return;
  v[i] = pair[2 * (size_t)i];
  u[i] = pair[2 * (size_t)i + 1];
}

// The new p3 (the Woodbury update of subproblem 2, stored for the cell whose
// lower-left vertex this is, computed for the others), then subproblem 3 (ψ
// by shrinkage) and the λ3 update; per vertex.
__kernel void subproblem3(__global const real* b, __global const real* v, __global real* p3,
                          __global real* lambda3, __global real* psi, int W, int H, real invh, real area, real h,
                          real r2, real r3, real epsilon) {
  const int i = get_global_id(0);
  if (i >= W * H) return;
  const int x = i % W, y = i / W;
  if (x < W - 1 && y < H - 1) {
    real t[4];
    p3_of_cell(b, v, W, x, y, invh, area, r2, t);
    for (int k = 0; k < 4; ++k) p3[4 * ((size_t)y * (W - 1) + x) + k] = t[k];
  }
  real div;
#define NEW_P3(cx, cy, t) p3_of_cell(b, v, W, cx, cy, invh, area, r2, t)
  GATHER_CELLS(W, H, x, y, invh, NEW_P3, div);
#undef NEW_P3
  div *= -area / vertex_mass(W, H, x, y, h);
  const real xi = r3 * div + lambda3[i];
  const real s = copysign(max(0.0, fabs(xi) - epsilon), xi) / r3;
  psi[i] = s;
  lambda3[i] += r3 * (div - s);
}

inline void group_sum(__local real* sh, real v, __global real* out) {
  const int l = get_local_id(0);
  sh[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (l < s) sh[l] += sh[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = sh[0];
}

// Per vertex: λ1 += r1 (∇u − p1), λ2 += r2 (p2 − p3) on the cell whose
// lower-left vertex this is; per work-group partial sums of the augmented
// Lagrangian's triangle terms with the new multipliers (at partial +
// offset_t, times M_Q afterwards on the host), of its vertex terms (at
// partial + offset_l) and of the objective J (at partial + offset_j): all
// the sums of an iteration in one buffer, one read. And a copy of u: the next
// iteration overwrites u before the host has tested this one.
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void multipliers_and_sums(
    __global const real* u, __global const real* f, __global const real* p1, __global const real* p2,
    __global const real* p3, __global real* lambda1, __global real* lambda2, __global const real* psi,
    __global const real* lambda3, __global real* partial, int offset_t, int offset_l, int offset_j,
    __global real* u_kept, int W, int H, real invh, real area, real h, real r1, real r2, real r3, real epsilon) {
  __local real sh[GROUP];
  const int i = get_global_id(0);
  real vt = 0, vl = 0, vj = 0;
  if (i < W * H) {
    const int x = i % W, y = i / W;
    if (x < W - 1 && y < H - 1) {
      const size_t c = (size_t)y * (W - 1) + x;
      real g[4];
      cell_gradient(u, W, x, y, invh, g);
      for (int k = 0; k < 4; ++k) {
        const size_t j = 4 * c + k;
        const real e1 = g[k] - p1[j], e2 = p2[j] - p3[j];
        const real l1 = lambda1[j] + r1 * e1, l2 = lambda2[j] + r2 * e2;
        lambda1[j] = l1;
        lambda2[j] = l2;
        vt += 0.5 * r1 * e1 * e1 + l1 * e1 + 0.5 * r2 * e2 * e2 + l2 * e2;
      }
    }
    const real m = vertex_mass(W, H, x, y, h);
    const real div = vertex_gather(p3, W, H, x, y, invh) * (-area / m);
    real kappa;
#define NORMAL(cx, cy, t) normal_of_cell(u, W, cx, cy, invh, t)
    GATHER_CELLS(W, H, x, y, invh, NORMAL, kappa);
#undef NORMAL
    kappa *= -area / m;
    const real e3 = div - psi[i], r = f[i] - u[i];
    vl = m * (epsilon * fabs(psi[i]) + 0.5 * r * r + 0.5 * r3 * e3 * e3 + lambda3[i] * e3);
    vj = m * (epsilon * fabs(kappa) + 0.5 * r * r);
    u_kept[i] = u[i];
  }
  group_sum(sh, vt, partial + offset_t);
  barrier(CLK_LOCAL_MEM_FENCE);
  group_sum(sh, vl, partial + offset_l);
  barrier(CLK_LOCAL_MEM_FENCE);
  group_sum(sh, vj, partial + offset_j);
}
