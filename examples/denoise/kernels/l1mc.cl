// L1-mean-curvature denoising on the device (examples/denoise/l1mc.hpp has
// the method and the layout): vertex (x, y) at y W + x; cell (cx, cy) at
// c = cy (W − 1) + cx with its lower triangle's two components at 4c, 4c + 1
// and its upper triangle's at 4c + 2, 4c + 3. Every kernel mirrors the host
// reference arithmetic step by step (test_denoise compares the two).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define GROUP 256

// ∇ of the vertex field v on cell (cx, cy): g[0..1] lower, g[2..3] upper.
inline void cell_gradient(__global const double* v, int W, int cx, int cy, double invh, double* g) {
  const double a = v[cy * W + cx], b = v[cy * W + cx + 1], c = v[(cy + 1) * W + cx], d = v[(cy + 1) * W + cx + 1];
  g[0] = (b - a) * invh;
  g[1] = (d - b) * invh;
  g[2] = (d - c) * invh;
  g[3] = (c - a) * invh;
}

// Gᵀ q at vertex (x, y), gathered from the cells around it.
inline double vertex_gather(__global const double* q, int W, int H, int x, int y, double invh) {
  double acc = 0;
  if (x < W - 1 && y < H - 1) {
    __global const double* t = q + 4 * ((size_t)y * (W - 1) + x);
    acc -= t[0] + t[3];
  }
  if (x > 0 && y < H - 1) {
    __global const double* t = q + 4 * ((size_t)y * (W - 1) + x - 1);
    acc += t[0] - t[1];
  }
  if (x < W - 1 && y > 0) {
    __global const double* t = q + 4 * ((size_t)(y - 1) * (W - 1) + x);
    acc += t[3] - t[2];
  }
  if (x > 0 && y > 0) {
    __global const double* t = q + 4 * ((size_t)(y - 1) * (W - 1) + x - 1);
    acc += t[1] + t[2];
  }
  return acc * invh;
}

inline double vertex_mass(int W, int H, int x, int y, double h) {
  const double wx = (x == 0 || x == W - 1) ? 0.5 : 1.0, wy = (y == 0 || y == H - 1) ? 0.5 : 1.0;
  return h * h * wx * wy;
}

// g(σ) of subproblem 1 and the direction b1 + b2/√(1+σ²) (length in *len).
inline double pointwise_g(double sigma, double b10, double b11, double b20, double b21, double r1, double r2,
                          double* d0, double* d1, double* len) {
  const double c = 1 / sqrt(1 + sigma * sigma);
  *d0 = b10 + c * b20;
  *d1 = b11 + c * b21;
  *len = hypot(*d0, *d1);
  return 0.5 * sigma * sigma * (r1 + r2 / (1 + sigma * sigma)) - sigma * *len;
}

// g'(σ).
inline double pointwise_slope(double sigma, double b10, double b11, double b20, double b21, double r1, double r2) {
  const double c = 1 / sqrt(1 + sigma * sigma), q = 1 + sigma * sigma;
  const double v0 = b10 + c * b20, v1 = b11 + c * b21, len = hypot(v0, v1);
  const double dc = -sigma * c * c * c;
  return r1 * sigma + r2 * sigma / (q * q) - len - sigma * dc * (v0 * b20 + v1 * b21) / len;
}

// The global minimiser y of subproblem 1 (as L1mc::minimise_pointwise).
inline void minimise_pointwise(double b10, double b11, double b20, double b21, double r1, double r2, double* y0,
                               double* y1) {
  double d0, d1, len;
  *y0 = 0;
  *y1 = 0;
  const double nb = hypot(b10, b11) + hypot(b20, b21);
  if (!(nb > 0)) return;
  const int K = 48;
  const double tmax = asinh(2 * nb / r1);
  int best = 0;
  double gbest = 0;
  for (int k = 1; k <= K; ++k) {
    const double v = pointwise_g(sinh(tmax * k / K), b10, b11, b20, b21, r1, r2, &d0, &d1, &len);
    if (v < gbest) {
      gbest = v;
      best = k;
    }
  }
  if (best == 0) return;
  double lo = sinh(tmax * (best - 1) / K), hi = sinh(tmax * min(best + 1, K) / K);
  const double phi = 0.5 * (sqrt(5.0) - 1);
  double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
  double ga = pointwise_g(a, b10, b11, b20, b21, r1, r2, &d0, &d1, &len);
  double gb = pointwise_g(b, b10, b11, b20, b21, r1, r2, &d0, &d1, &len);
  for (int it = 0; it < 30; ++it) {
    if (ga < gb) {
      hi = b;
      b = a;
      gb = ga;
      a = hi - phi * (hi - lo);
      ga = pointwise_g(a, b10, b11, b20, b21, r1, r2, &d0, &d1, &len);
    } else {
      lo = a;
      a = b;
      ga = gb;
      b = lo + phi * (hi - lo);
      gb = pointwise_g(b, b10, b11, b20, b21, r1, r2, &d0, &d1, &len);
    }
  }
  double sigma = 0.5 * (lo + hi);
  {  // secant steps on g' = 0 (as the host: full accuracy, independent of rounding)
    double s0 = sigma, s1 = sigma * (1 + 1e-7);
    double f0 = pointwise_slope(s0, b10, b11, b20, b21, r1, r2), f1 = pointwise_slope(s1, b10, b11, b20, b21, r1, r2);
    for (int it = 0; it < 8 && f1 != f0 && isfinite(f1); ++it) {
      const double s2 = s1 - f1 * (s1 - s0) / (f1 - f0);
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

// Subproblem 1 on both triangles of a cell, and subproblem 2's right-hand
// side b = r2 p2 + λ2 − G (r3 ψ − λ3) with the new p2.
__kernel void subproblem1(__global const double* u, __global const double* lambda1, __global const double* p3,
                          __global const double* lambda2, __global const double* psi,
                          __global const double* lambda3, __global double* p1, __global double* p2,
                          __global double* b, int W, int H, double invh, double r1, double r2, double r3) {
  const int c = get_global_id(0);
  if (c >= (W - 1) * (H - 1)) return;
  const int cx = c % (W - 1), cy = c / (W - 1);
  double gu[4];
  cell_gradient(u, W, cx, cy, invh, gu);
  const double a = r3 * psi[cy * W + cx] - lambda3[cy * W + cx];
  const double bb = r3 * psi[cy * W + cx + 1] - lambda3[cy * W + cx + 1];
  const double cc = r3 * psi[(cy + 1) * W + cx] - lambda3[(cy + 1) * W + cx];
  const double d = r3 * psi[(cy + 1) * W + cx + 1] - lambda3[(cy + 1) * W + cx + 1];
  const double gw[4] = {(bb - a) * invh, (d - bb) * invh, (d - cc) * invh, (cc - a) * invh};
  for (int t = 0; t < 2; ++t) {
    const size_t i = 4 * (size_t)c + 2 * t;
    const double b10 = r1 * gu[2 * t] + lambda1[i], b11 = r1 * gu[2 * t + 1] + lambda1[i + 1];
    const double b20 = r2 * p3[i] - lambda2[i], b21 = r2 * p3[i + 1] - lambda2[i + 1];
    double y0, y1;
    minimise_pointwise(b10, b11, b20, b21, r1, r2, &y0, &y1);
    const double s = 1 / sqrt(1 + y0 * y0 + y1 * y1);
    p1[i] = y0;
    p1[i + 1] = y1;
    p2[i] = s * y0;
    p2[i + 1] = s * y1;
    b[i] = r2 * (s * y0) + lambda2[i] - gw[2 * t];
    b[i + 1] = r2 * (s * y1) + lambda2[i + 1] - gw[2 * t + 1];
  }
}

// v = Gᵀ q (the right-hand side of subproblem 2's separable solve).
__kernel void gather(__global const double* q, __global double* v, int W, int H, double invh) {
  const int i = get_global_id(0);
  if (i >= W * H) return;
  v[i] = vertex_gather(q, W, H, i % W, i / W, invh);
}

// p3 = (b − (h²/2) G v) / r2, v = S⁻¹ Gᵀ b (Woodbury).
__kernel void update_p3(__global const double* b, __global const double* v, __global double* p3, int W, int H,
                        double invh, double area, double r2) {
  const int c = get_global_id(0);
  if (c >= (W - 1) * (H - 1)) return;
  double g[4];
  cell_gradient(v, W, c % (W - 1), c / (W - 1), invh, g);
  for (int k = 0; k < 4; ++k) p3[4 * (size_t)c + k] = (b[4 * (size_t)c + k] - area * g[k]) / r2;
}

// Subproblem 3 (ψ by shrinkage) and the λ3 update, per vertex.
__kernel void subproblem3(__global const double* p3, __global double* lambda3, __global double* psi, int W, int H,
                          double invh, double area, double h, double r3, double epsilon) {
  const int i = get_global_id(0);
  if (i >= W * H) return;
  const int x = i % W, y = i / W;
  const double div = vertex_gather(p3, W, H, x, y, invh) * (-area / vertex_mass(W, H, x, y, h));
  const double xi = r3 * div + lambda3[i];
  const double s = copysign(max(0.0, fabs(xi) - epsilon), xi) / r3;
  psi[i] = s;
  lambda3[i] += r3 * (div - s);
}

// Subproblem 4's right-hand side (M f + Gᵀ M_Q (r1 p1 − λ1)) / r1 into u,
// which the separable solve then overwrites with the solution.
__kernel void subproblem4_rhs(__global const double* p1, __global const double* lambda1, __global const double* f,
                              __global double* q, __global double* u, int W, int H, double invh, double area,
                              double h, double r1, int phase) {
  const int i = get_global_id(0);
  if (phase == 0) {  // per triangle component: q = (h²/2)(r1 p1 − λ1)
    if (i >= 4 * (W - 1) * (H - 1)) return;
    q[i] = area * (r1 * p1[i] - lambda1[i]);
  } else {
    if (i >= W * H) return;
    const int x = i % W, y = i / W;
    u[i] = (vertex_gather(q, W, H, x, y, invh) + vertex_mass(W, H, x, y, h) * f[i]) / r1;
  }
}

// λ1 += r1 (∇u − p1), λ2 += r2 (p2 − p3); and the normal field ∇u/√(1+|∇u|²)
// of the objective; per cell.
__kernel void update_triangles(__global const double* u, __global const double* p1, __global const double* p2,
                               __global const double* p3, __global double* lambda1, __global double* lambda2,
                               __global double* normal, int W, int H, double invh, double r1, double r2) {
  const int c = get_global_id(0);
  if (c >= (W - 1) * (H - 1)) return;
  double g[4];
  cell_gradient(u, W, c % (W - 1), c / (W - 1), invh, g);
  for (int t = 0; t < 2; ++t) {
    const size_t i = 4 * (size_t)c + 2 * t;
    const double s = 1 / sqrt(1 + g[2 * t] * g[2 * t] + g[2 * t + 1] * g[2 * t + 1]);
    for (int k = 0; k < 2; ++k) {
      lambda1[i + k] += r1 * (g[2 * t + k] - p1[i + k]);
      lambda2[i + k] += r2 * (p2[i + k] - p3[i + k]);
      normal[i + k] = s * g[2 * t + k];
    }
  }
}

inline void group_sum(__local double* sh, double v, __global double* out) {
  const int l = get_local_id(0);
  sh[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (l < s) sh[l] += sh[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = sh[0];
}

// Per work-group partial sums of the augmented Lagrangian's triangle terms
// (times M_Q afterwards on the host), over the triangle components.
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void lagrangian_triangles(
    __global const double* u, __global const double* p1, __global const double* p2, __global const double* p3,
    __global const double* lambda1, __global const double* lambda2, __global double* partial, int W, int H,
    double invh, double r1, double r2) {
  __local double sh[GROUP];
  const int c = get_global_id(0);
  double v = 0;
  if (c < (W - 1) * (H - 1)) {
    double g[4];
    cell_gradient(u, W, c % (W - 1), c / (W - 1), invh, g);
    for (int k = 0; k < 4; ++k) {
      const size_t i = 4 * (size_t)c + k;
      const double e1 = g[k] - p1[i], e2 = p2[i] - p3[i];
      v += 0.5 * r1 * e1 * e1 + lambda1[i] * e1 + 0.5 * r2 * e2 * e2 + lambda2[i] * e2;
    }
  }
  group_sum(sh, v, partial);
}

// Per work-group partial sums of the vertex terms of the augmented
// Lagrangian (partial_l) and of the objective J (partial_j).
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1))) void vertex_terms(
    __global const double* u, __global const double* f, __global const double* psi, __global const double* p3,
    __global const double* lambda3, __global const double* normal, __global double* partial_l,
    __global double* partial_j, int W, int H, double invh, double area, double h, double r3, double epsilon) {
  __local double sh[GROUP];
  const int i = get_global_id(0);
  double vl = 0, vj = 0;
  if (i < W * H) {
    const int x = i % W, y = i / W;
    const double m = vertex_mass(W, H, x, y, h);
    const double div = vertex_gather(p3, W, H, x, y, invh) * (-area / m);
    const double kappa = vertex_gather(normal, W, H, x, y, invh) * (-area / m);
    const double e3 = div - psi[i], r = f[i] - u[i];
    vl = m * (epsilon * fabs(psi[i]) + 0.5 * r * r + 0.5 * r3 * e3 * e3 + lambda3[i] * e3);
    vj = m * (epsilon * fabs(kappa) + 0.5 * r * r);
  }
  group_sum(sh, vl, partial_l);
  barrier(CLK_LOCAL_MEM_FENCE);
  group_sum(sh, vj, partial_j);
}
