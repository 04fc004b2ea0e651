#include "l1mc.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "pscr/errors.hpp"

namespace pscr::denoise {
namespace {

using clk = std::chrono::steady_clock;
double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }

// 1D factor of the pixel grid: the Neumann stiffness tridiag(−1, 2, −1) (end
// diagonals 1) and the trapezoidal-rule mass diag(1/2, 1, …, 1, 1/2); the 2D
// stiffness Gᵀ M_Q G of the triangulation is K⊗L + L⊗K, its lumped mass h² L⊗L.
Factor<double> grid_factor(int n) {
  Factor<double> f;
  f.A.diag.assign(n, 2.0);
  f.A.off.assign(n - 1, -1.0);
  f.M.diag.assign(n, 1.0);
  f.M.off.assign(n - 1, 0.0);
  f.A.diag.front() = f.A.diag.back() = 1.0;
  f.M.diag.front() = f.M.diag.back() = 0.5;
  return f;
}

}  // namespace

void Parameters::resolve() {
  auto check = [](double v, const std::string& name) {
    if (!std::isfinite(v) || !(v > 0))
      throw InvalidArgument("L1MC denoising: " + name + " must be finite and > 0, got " + std::to_string(v));
  };
  check(r0, "r0");
  check(h, "h");
  // 0 alone means "coupled": a negative or NaN value is an error, not a default
  auto coupled = [&](double& v, double from, const char* name, const char* formula) {
    if (v == 0) {
      v = from;
      check(v, std::string(name) + " = " + formula);
    } else {
      check(v, name);
    }
  };
  coupled(epsilon, r0 * h, "epsilon", "r0 h");
  coupled(r1, 10 * r0 * h, "r1", "10 r0 h");
  coupled(r2, 5 * r0, "r2", "5 r0");
  coupled(r3, 5 * r0 * h * h, "r3", "5 r0 h^2");
  check(tol, "tol");
  if (max_iterations < 1) throw InvalidArgument("L1MC denoising: max_iterations must be >= 1");
  // the shifts of the two separable solves
  check(h * h / r1, "the shift h^2/r1 of subproblem 4");
  check(r2 * h * h / r3, "the shift r2 h^2/r3 of subproblem 2");
}

Grid::Grid(int w, int hgt, double step) : width(w), height(hgt), h(step) {
  if (w < 2 || hgt < 2) throw InvalidArgument("L1MC denoising: the image needs at least 2 x 2 pixels");
}

double Grid::mass(int x, int y) const {
  const double wx = (x == 0 || x == width - 1) ? 0.5 : 1.0, wy = (y == 0 || y == height - 1) ? 0.5 : 1.0;
  return h * h * wx * wy;
}

void Grid::gradient(const double* u, double* q) const {
  const int W = width;
  const double s = 1 / h;
#pragma omp parallel for
  for (int y = 0; y < height - 1; ++y)
    for (int x = 0; x < W - 1; ++x) {
      const double a = u[y * W + x], b = u[y * W + x + 1], c = u[(y + 1) * W + x], d = u[(y + 1) * W + x + 1];
      double* t = q + 4 * (std::size_t(y) * (W - 1) + x);
      t[0] = (b - a) * s;  // lower: (x,y), (x+1,y), (x+1,y+1)
      t[1] = (d - b) * s;
      t[2] = (d - c) * s;  // upper: (x,y), (x,y+1), (x+1,y+1)
      t[3] = (c - a) * s;
    }
}

void Grid::gradient_adjoint(const double* q, double* v) const {
  const int W = width;
  const double s = 1 / h;
  // gathered per vertex (no write conflicts): the cells around (x, y)
#pragma omp parallel for
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < W; ++x) {
      double acc = 0;
      auto cell = [&](int cx, int cy) { return q + 4 * (std::size_t(cy) * (W - 1) + cx); };
      if (x < W - 1 && y < height - 1) {  // cell (x, y): vertex a
        const double* t = cell(x, y);
        acc -= t[0] + t[3];
      }
      if (x > 0 && y < height - 1) {  // cell (x−1, y): vertex b
        const double* t = cell(x - 1, y);
        acc += t[0] - t[1];
      }
      if (x < W - 1 && y > 0) {  // cell (x, y−1): vertex c
        const double* t = cell(x, y - 1);
        acc += t[3] - t[2];
      }
      if (x > 0 && y > 0) {  // cell (x−1, y−1): vertex d
        const double* t = cell(x - 1, y - 1);
        acc += t[1] + t[2];
      }
      v[std::size_t(y) * W + x] = acc * s;
    }
}

void Grid::divergence(const double* q, double* v) const {
  gradient_adjoint(q, v);
  const double a = triangle_area();
#pragma omp parallel for
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) v[std::size_t(y) * width + x] *= -a / mass(x, y);
}

L1mc::L1mc(int width, int height, Parameters parameters, const Options& options)
    : par_((parameters.resolve(), parameters)),
      grid_(width, height, par_.h),
      problem_(Problem<double>::make2d(grid_factor(height), grid_factor(width), par_.h * par_.h / par_.r1)),
      problem2_(Problem<double>::make2d(grid_factor(height), grid_factor(width), par_.r2 * par_.h * par_.h / par_.r3)),
      plan_(std::make_unique<Plan<double>>(problem_, options)),
      plan2_(std::make_unique<Plan<double>>(problem2_, options)) {}

void L1mc::check_image(const std::vector<double>& f) const {
  if (f.size() != grid_.vertices())
    throw SizeMismatch("L1MC denoising: image has " + std::to_string(f.size()) + " values, the plan " +
                       std::to_string(grid_.vertices()));
  for (double v : f)
    if (!std::isfinite(v)) throw NonFiniteInput("L1MC denoising: non-finite image value");
}

State L1mc::start(const std::vector<double>& f) const {
  check_image(f);
  State s;
  const std::size_t nv = grid_.vertices(), nt = 2 * grid_.triangles();
  s.u.assign(nv, 0.0);
  s.psi.assign(nv, 0.0);
  s.lambda3.assign(nv, 0.0);
  s.p1.assign(nt, 0.0);
  s.p2.assign(nt, 0.0);
  s.p3.assign(nt, 0.0);
  s.lambda1.assign(nt, 0.0);
  s.lambda2.assign(nt, 0.0);
  return s;
}

std::array<double, 2> L1mc::minimise_pointwise(const std::array<double, 2>& b1, const std::array<double, 2>& b2) const {
  const double r1 = par_.r1, r2 = par_.r2;
  const double nb = std::hypot(b1[0], b1[1]) + std::hypot(b2[0], b2[1]);
  if (!(nb > 0)) return {0, 0};
  // The minimiser is y = σ d(σ), d the direction of b1 + b2/√(1+σ²) (its
  // stationarity condition), so the problem is g(σ) over σ ≥ 0; g > g(0) = 0
  // beyond S = 2 (|b1| + |b2|) / r1.
  // c = 1/√(1+σ²) and c² for 1/(1+σ²); √ of the sum of squares, not
  // hypot (|v| is far from overflow): one square root and one reciprocal
  // square root per value, this minimisation is most of subproblem 1's time
  auto direction = [&](double sigma, double& len, double& c) {
    c = 1 / std::sqrt(1 + sigma * sigma);
    const double v0 = b1[0] + c * b2[0], v1 = b1[1] + c * b2[1];
    len = std::sqrt(v0 * v0 + v1 * v1);
    return std::array<double, 2>{v0, v1};
  };
  auto g = [&](double sigma) {
    double len, c;
    direction(sigma, len, c);
    return 0.5 * sigma * sigma * (r1 + r2 * (c * c)) - sigma * len;
  };
  // global: a scan in t = asinh σ (resolution ~(1 + σ)/K, finer than the
  // unit scale of the non-convex terms), then Brent's minimisation (parabolic
  // steps, golden-section steps where those fail) in the bracket around the
  // best sample, to 1e-6 relative: about 8 values where 30 golden-section
  // steps took 30. The scan's sinh(k τ) = (e^{kτ} − e^{−kτ})/2 come from
  // products of e^{±τ} (sample points off by at most K ulps, as good a grid).
  constexpr int K = 48;
  const double tmax = std::asinh(2 * nb / r1), up = std::exp(tmax / K), down = 1 / up;
  int best = 0;
  double gbest = 0, ek = 1, fk = 1, sample[K + 1];
  sample[0] = 0;
  for (int k = 1; k <= K; ++k) {
    ek *= up;
    fk *= down;
    sample[k] = 0.5 * (ek - fk);
    const double v = g(sample[k]);
    if (v < gbest) { gbest = v; best = k; }
  }
  if (best == 0) return {0, 0};
  double lo = sample[best - 1], hi = sample[std::min(best + 1, K)];
  double x = sample[best], w = x, v = x, fx = gbest, fw = fx, fv = fx, step = 0, last = 0;
  const double golden = 0.5 * (3 - std::sqrt(5.0));
  for (int it = 0; it < 40; ++it) {
    const double mid = 0.5 * (lo + hi), tol = 1e-6 * x;
    if (std::abs(x - mid) <= 2 * tol - 0.5 * (hi - lo)) break;
    bool parabolic = false;
    if (std::abs(last) > tol) {  // the parabola through x, w, v
      const double r = (x - w) * (fx - fv);
      double q = (x - v) * (fx - fw), p = (x - v) * q - (x - w) * r;
      q = 2 * (q - r);
      if (q > 0) p = -p;
      q = std::abs(q);
      // accepted if it falls inside the bracket and moves less than half the step before last
      if (std::abs(p) < std::abs(0.5 * q * last) && p > q * (lo - x) && p < q * (hi - x)) {
        last = step;
        step = p / q;
        const double u = x + step;
        if (u - lo < 2 * tol || hi - u < 2 * tol) step = mid > x ? tol : -tol;
        parabolic = true;
      }
    }
    if (!parabolic) {
      last = x >= mid ? lo - x : hi - x;
      step = golden * last;
    }
    const double u = std::abs(step) >= tol ? x + step : x + (step > 0 ? tol : -tol);
    const double fu = g(u);
    if (fu <= fx) {
      (u >= x ? lo : hi) = x;
      v = w; fv = fw;
      w = x; fw = fx;
      x = u; fx = fu;
    } else {
      (u < x ? lo : hi) = u;
      if (fu <= fw || w == x) {
        v = w; fv = fw;
        w = u; fw = fu;
      } else if (fu <= fv || v == x || v == w) {
        v = u; fv = fu;
      }
    }
  }
  // Function values locate a minimum only to √ε relative (g is flat
  // there); a few secant steps on g′ = 0 take σ to full accuracy, so that
  // the result does not depend on the rounding of the comparisons.
  auto slope = [&](double sigma) {
    const double c = 1 / std::sqrt(1 + sigma * sigma), c2 = c * c;
    const double v0 = b1[0] + c * b2[0], v1 = b1[1] + c * b2[1], len = std::sqrt(v0 * v0 + v1 * v1);
    const double dc = -sigma * c2 * c;
    return r1 * sigma + r2 * sigma * (c2 * c2) - len - sigma * dc * (v0 * b2[0] + v1 * b2[1]) / len;
  };
  double sigma = x;
  {
    double s0 = sigma, s1 = sigma * (1 + 1e-7), f0 = slope(s0), f1 = slope(s1);
    for (int it = 0; it < 8 && f1 != f0 && std::isfinite(f1); ++it) {
      const double s2 = s1 - f1 * (s1 - s0) / (f1 - f0);
      if (!(std::abs(s2 - sigma) <= 1e-4 * sigma)) break;
      s0 = s1;
      f0 = f1;
      s1 = s2;
      f1 = slope(s1);
      if (std::abs(s1 - s0) <= 1e-16 * s1) break;
    }
    if (std::abs(f1) < std::abs(slope(sigma))) sigma = s1;
  }
  if (!(g(sigma) < 0)) return {0, 0};
  double len, c;
  const auto d = direction(sigma, len, c);
  if (!(len > 0)) return {0, 0};
  return {sigma * d[0] / len, sigma * d[1] / len};
}

void L1mc::subproblem1(State& s) const {
  const std::size_t nt = grid_.triangles();
  std::vector<double> gu(2 * nt);
  grid_.gradient(s.u.data(), gu.data());
  const double r1 = par_.r1, r2 = par_.r2;
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t t = 0; t < std::ptrdiff_t(nt); ++t) {
    const std::size_t i = 2 * std::size_t(t);
    const std::array<double, 2> b1{r1 * gu[i] + s.lambda1[i], r1 * gu[i + 1] + s.lambda1[i + 1]};
    const std::array<double, 2> b2{r2 * s.p3[i] - s.lambda2[i], r2 * s.p3[i + 1] - s.lambda2[i + 1]};
    const auto y = minimise_pointwise(b1, b2);
    const double c = 1 / std::sqrt(1 + y[0] * y[0] + y[1] * y[1]);
    s.p1[i] = y[0];
    s.p1[i + 1] = y[1];
    s.p2[i] = c * y[0];
    s.p2[i + 1] = c * y[1];
  }
}

void L1mc::apply_subproblem2(const double* q, double* out) const {
  const std::size_t nv = grid_.vertices(), nt2 = 2 * grid_.triangles();
  std::vector<double> v(nv);
  grid_.gradient_adjoint(q, v.data());
  for (int y = 0; y < grid_.height; ++y)
    for (int x = 0; x < grid_.width; ++x) v[std::size_t(y) * grid_.width + x] /= grid_.mass(x, y);
  grid_.gradient(v.data(), out);
  const double k = par_.r3 * grid_.triangle_area();
  for (std::size_t i = 0; i < nt2; ++i) out[i] = par_.r2 * q[i] + k * out[i];
}

void L1mc::subproblem2_rhs(const State& s, std::vector<double>& b) const {
  const std::size_t nv = grid_.vertices(), n = 2 * grid_.triangles();
  std::vector<double> w(nv);
  b.resize(n);
  for (std::size_t i = 0; i < nv; ++i) w[i] = par_.r3 * s.psi[i] - s.lambda3[i];
  grid_.gradient(w.data(), b.data());
  for (std::size_t i = 0; i < n; ++i) b[i] = par_.r2 * s.p2[i] + s.lambda2[i] - b[i];
}

void L1mc::subproblem2(State& s) {
  // B p3 = b with B = r2 I + r3 (h²/2) G M⁻¹ Gᵀ and b = r2 p2 + λ2 − G (r3 ψ − λ3)
  // (the weak form (19) with div_h = −M⁻¹ Gᵀ M_Q, divided by M_Q = h²/2).
  // Gᵀ G = (2/h²) K, so by the Sherman–Morrison–Woodbury formula
  //   B⁻¹ = (1/r2) [I − (h²/2) G S⁻¹ Gᵀ],  S = K + (r2 h²/r3) L⊗L,
  // and S is separable: one libpscr solve instead of the articles' conjugate
  // gradients.
  const std::size_t nv = grid_.vertices(), n = 2 * grid_.triangles();
  std::vector<double> b, v(nv), gv(n);
  subproblem2_rhs(s, b);
  grid_.gradient_adjoint(b.data(), v.data());
  plan2_->solve(v.data(), v.data());
  grid_.gradient(v.data(), gv.data());
  const double a = grid_.triangle_area();
  for (std::size_t i = 0; i < n; ++i) s.p3[i] = (b[i] - a * gv[i]) / par_.r2;
}

void L1mc::subproblem3(State& s) const {
  const std::size_t nv = grid_.vertices();
  std::vector<double> div(nv);
  grid_.divergence(s.p3.data(), div.data());
  for (std::size_t i = 0; i < nv; ++i) {
    const double xi = par_.r3 * div[i] + s.lambda3[i];
    s.psi[i] = std::copysign(std::max(0.0, std::abs(xi) - par_.epsilon), xi) / par_.r3;
  }
}

void L1mc::subproblem4(State& s, const std::vector<double>& f) {
  // (r1 K + M) u = M f + Gᵀ M_Q (r1 p1 − λ1), divided by r1 for the plan
  const std::size_t nv = grid_.vertices(), n = 2 * grid_.triangles();
  std::vector<double> q(n), rhs(nv);
  const double a = grid_.triangle_area();
  for (std::size_t i = 0; i < n; ++i) q[i] = a * (par_.r1 * s.p1[i] - s.lambda1[i]);
  grid_.gradient_adjoint(q.data(), rhs.data());
  for (int y = 0; y < grid_.height; ++y)
    for (int x = 0; x < grid_.width; ++x) {
      const std::size_t i = std::size_t(y) * grid_.width + x;
      rhs[i] = (rhs[i] + grid_.mass(x, y) * f[i]) / par_.r1;
    }
  plan_->solve(rhs.data(), s.u.data());
}

void L1mc::update_multipliers(State& s) const {
  const std::size_t nv = grid_.vertices(), n = 2 * grid_.triangles();
  std::vector<double> gu(n), div(nv);
  grid_.gradient(s.u.data(), gu.data());
  grid_.divergence(s.p3.data(), div.data());
  for (std::size_t i = 0; i < n; ++i) {
    s.lambda1[i] += par_.r1 * (gu[i] - s.p1[i]);
    s.lambda2[i] += par_.r2 * (s.p2[i] - s.p3[i]);
  }
  for (std::size_t i = 0; i < nv; ++i) s.lambda3[i] += par_.r3 * (div[i] - s.psi[i]);
}

double L1mc::objective(const std::vector<double>& u, const std::vector<double>& f) const {
  const std::size_t nv = grid_.vertices(), n = 2 * grid_.triangles();
  std::vector<double> q(n), kappa(nv);
  grid_.gradient(u.data(), q.data());
  for (std::size_t i = 0; i < n; i += 2) {
    const double c = 1 / std::sqrt(1 + q[i] * q[i] + q[i + 1] * q[i + 1]);
    q[i] *= c;
    q[i + 1] *= c;
  }
  grid_.divergence(q.data(), kappa.data());
  double j = 0;
  for (int y = 0; y < grid_.height; ++y)
    for (int x = 0; x < grid_.width; ++x) {
      const std::size_t i = std::size_t(y) * grid_.width + x;
      j += grid_.mass(x, y) * (par_.epsilon * std::abs(kappa[i]) + 0.5 * (f[i] - u[i]) * (f[i] - u[i]));
    }
  return j;
}

double L1mc::lagrangian(const State& s, const std::vector<double>& f) const {
  const std::size_t nv = grid_.vertices(), n = 2 * grid_.triangles();
  std::vector<double> gu(n), div(nv);
  grid_.gradient(s.u.data(), gu.data());
  grid_.divergence(s.p3.data(), div.data());
  double tri = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e1 = gu[i] - s.p1[i], e2 = s.p2[i] - s.p3[i];
    tri += 0.5 * par_.r1 * e1 * e1 + s.lambda1[i] * e1 + 0.5 * par_.r2 * e2 * e2 + s.lambda2[i] * e2;
  }
  double vert = 0;
  for (int y = 0; y < grid_.height; ++y)
    for (int x = 0; x < grid_.width; ++x) {
      const std::size_t i = std::size_t(y) * grid_.width + x;
      const double e3 = div[i] - s.psi[i];
      vert += grid_.mass(x, y) * (par_.epsilon * std::abs(s.psi[i]) + 0.5 * (f[i] - s.u[i]) * (f[i] - s.u[i]) +
                                  0.5 * par_.r3 * e3 * e3 + s.lambda3[i] * e3);
    }
  return vert + grid_.triangle_area() * tri;
}

double L1mc::start_lagrangian(const std::vector<double>& f) const {
  double l = 0;
  for (int y = 0; y < grid_.height; ++y)
    for (int x = 0; x < grid_.width; ++x) {
      const double v = f[std::size_t(y) * grid_.width + x];
      l += 0.5 * grid_.mass(x, y) * v * v;
    }
  return l;
}

bool record_iteration(Result& r, double lagrangian, double objective, double start, double tol) {
  const double previous = r.lagrangian.empty() ? start : r.lagrangian.back();
  r.lagrangian.push_back(lagrangian);
  r.objective.push_back(objective);
  r.iterations = int(r.lagrangian.size());
  if (!std::isfinite(lagrangian)) throw NumericalBreakdown("L1MC denoising: the augmented Lagrangian is not finite");
  r.converged = std::abs(previous - lagrangian) < tol * std::abs(previous);
  return r.converged;
}

Result L1mc::denoise(const std::vector<double>& f, std::vector<double>& u) {
  State s = start(f);
  Result res;
  const double start = start_lagrangian(f);
  for (int it = 0; it < par_.max_iterations; ++it) {
    auto t = clk::now();
    subproblem1(s);
    res.mean.sub[0] += since(t);
    t = clk::now();
    subproblem2(s);
    res.mean.sub[1] += since(t);
    t = clk::now();
    subproblem3(s);
    res.mean.sub[2] += since(t);
    t = clk::now();
    subproblem4(s, f);
    res.mean.sub[3] += since(t);
    t = clk::now();
    update_multipliers(s);
    const bool done = record_iteration(res, lagrangian(s, f), objective(s.u, f), start, par_.tol);
    res.mean.misc += since(t);
    if (done) break;
  }
  for (double& v : res.mean.sub) v /= res.iterations;
  res.mean.misc /= res.iterations;
  u = s.u;
  return res;
}

}  // namespace pscr::denoise
