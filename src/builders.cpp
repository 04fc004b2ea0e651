#include "pscr/builders.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "pscr/errors.hpp"

namespace pscr {
namespace {

void check_mesh(const std::vector<double>& x, std::size_t min_points, const char* who) {
  if (x.size() < min_points) {
    std::ostringstream os;
    os << who << ": needs at least " << min_points << " mesh points, got " << x.size();
    throw InvalidArgument(os.str());
  }
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i])) throw NonFiniteInput(std::string(who) + ": non-finite mesh point at " + std::to_string(i));
  for (std::size_t i = 1; i < x.size(); ++i)
    if (!(x[i] - x[i - 1] > 0)) {
      std::ostringstream os;
      os << who << ": non-positive mesh step h = " << x[i] - x[i - 1] << " between points " << i - 1 << " and " << i;
      throw InvalidArgument(os.str());
    }
}

// The mesh steps. A mesh whose steps all agree with the mean step to a few
// units in the last place of its coordinates is uniform up to the rounding
// of the points themselves (linspace, or points accumulated step by step):
// its steps are taken equal, so that the factor is exactly Toeplitz and the
// planner can use the closed-form eigenpairs (docs/eigen.md). The change to
// any entry is at the rounding level of the coordinates.
std::vector<double> mesh_steps(const std::vector<double>& x) {
  const std::size_t n = x.size() - 1;
  std::vector<double> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = x[i + 1] - x[i];
  const double mean = (x[n] - x[0]) / double(n);
  const double tol = 8 * std::numeric_limits<double>::epsilon() * std::max(std::abs(x[0]), std::abs(x[n]));
  for (double s : h)
    if (!(std::abs(s - mean) <= tol)) return h;
  std::fill(h.begin(), h.end(), mean);
  return h;
}

}  // namespace

Factor<double> poisson_factor(const std::vector<double>& x) {
  check_mesh(x, 3, "poisson_factor");
  const std::size_t n = x.size() - 2;
  const std::vector<double> h = mesh_steps(x);
  Factor<double> f;
  f.A.diag.resize(n);
  f.A.off.resize(n - 1);
  f.M.diag.resize(n);
  f.M.off.assign(n - 1, 0.0);
  for (std::size_t l = 1; l <= n; ++l) {
    const double hl = h[l - 1], hr = h[l];
    f.A.diag[l - 1] = 1 / hl + 1 / hr;
    f.M.diag[l - 1] = (hl + hr) / 2;
    if (l < n) f.A.off[l - 1] = -1 / hr;
  }
  return f;
}

namespace {
// Linear elements on all points of x (boundary points are unknowns):
// stiffness 1/h [1 -1; -1 1], mass h/6 [2 1; 1 2] (or lumped h/2 [1 0; 0 1]).
Factor<double> linear_elements(const std::vector<double>& x, bool lumped) {
  const std::size_t n = x.size();
  const std::vector<double> steps = mesh_steps(x);
  Factor<double> f;
  f.A.diag.assign(n, 0.0);
  f.A.off.assign(n - 1, 0.0);
  f.M.diag.assign(n, 0.0);
  f.M.off.assign(n - 1, 0.0);
  for (std::size_t l = 0; l + 1 < n; ++l) {
    const double h = steps[l];
    f.A.diag[l] += 1 / h;
    f.A.diag[l + 1] += 1 / h;
    f.A.off[l] = -1 / h;
    f.M.diag[l] += lumped ? h / 2 : h / 3;
    f.M.diag[l + 1] += lumped ? h / 2 : h / 3;
    f.M.off[l] = lumped ? 0.0 : h / 6;
  }
  return f;
}
}  // namespace

Factor<double> poisson_neumann_factor(const std::vector<double>& x) {
  check_mesh(x, 2, "poisson_neumann_factor");
  return linear_elements(x, true);
}

Factor<double> poisson_periodic_factor(const std::vector<double>& x) {
  check_mesh(x, 4, "poisson_periodic_factor");
  const std::size_t n = x.size() - 1;
  const std::vector<double> h = mesh_steps(x);  // h[i] = x[i+1] - x[i], i = 0 .. n-1
  Factor<double> f;
  f.A.diag.resize(n);
  f.A.off.resize(n);
  f.M.diag.resize(n);
  f.M.off.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double hl = h[(i + n - 1) % n], hr = h[i];
    f.A.diag[i] = 1 / hl + 1 / hr;
    f.M.diag[i] = (hl + hr) / 2;
    f.A.off[i] = -1 / hr;  // off[n-1]: the corner, row n-1 with row 0
  }
  return f;
}

Factor<std::complex<double>> helmholtz_factor(const std::vector<double>& x, double omega) {
  check_mesh(x, 2, "helmholtz_factor");
  if (!std::isfinite(omega) || !(omega > 0)) {
    std::ostringstream os;
    os << "helmholtz_factor: wave number omega = " << omega << " (needs a finite omega > 0)";
    throw InvalidArgument(os.str());
  }
  using C = std::complex<double>;
  Factor<C> f = linear_elements(x, false).cast<C>();
  // Second-order absorbing boundary terms at both ends, (3.18).
  const C I(0, 1);
  for (std::size_t e : {std::size_t(0), x.size() - 1}) {
    f.A.diag[e] += -I * omega / 2.0;
    f.M.diag[e] += I / (2 * omega);
  }
  return f;
}

Factor<double> laplacian_factor(int n, double h, Boundary left, Boundary right) {
  if (n < 1) throw InvalidArgument("laplacian_factor: size n = " + std::to_string(n) + " (needs n >= 1)");
  const double s = 1 / (h * h);
  // 2/h² must be a finite double too (h = 1e-200 gave infinite entries)
  if (!std::isfinite(h) || !(h > 0) || !std::isfinite(2 * s)) {
    std::ostringstream os;
    os << "laplacian_factor: mesh step h = " << h << " (needs a finite h > 0 with 2/h^2 finite: h >= 1.1e-154)";
    throw InvalidArgument(os.str());
  }
  if ((left == Boundary::Periodic) != (right == Boundary::Periodic))
    throw InvalidArgument("laplacian_factor: one side periodic and the other not (a periodic dimension is "
                          "periodic at both ends)");
  const bool periodic = left == Boundary::Periodic;
  if (periodic && n < 3)
    throw InvalidArgument("laplacian_factor: a periodic dimension of size n = " + std::to_string(n) +
                          " (needs n >= 3)");
  Factor<double> f;
  f.A.diag.assign(n, 2 * s);
  f.A.off.assign(periodic ? n : n - 1, -s);
  f.M.diag.assign(n, 1.0);
  f.M.off.assign(periodic ? n : n - 1, 0.0);
  if (left == Boundary::Neumann) f.A.diag[0] -= s;
  if (right == Boundary::Neumann) f.A.diag[n - 1] -= s;
  return f;
}

std::vector<double> graded_mesh(int points, double length, double ratio) {
  if (points < 2) throw InvalidArgument("graded_mesh: needs at least 2 points");
  if (!std::isfinite(length) || !std::isfinite(ratio) || !(length > 0) || !(ratio > 0)) {
    std::ostringstream os;
    os << "graded_mesh: length = " << length << " and ratio = " << ratio << " must be finite and > 0";
    throw InvalidArgument(os.str());
  }
  std::vector<double> x(points, 0.0);
  double h = 1, total = 0;
  std::vector<double> steps(points - 1);
  for (auto& s : steps) { s = h; total += h; h *= ratio; }
  // ratio 1: each point rounded once (accumulated steps would drift by a
  // rounding per step, and the mesh would no longer be uniform to the last bit)
  if (ratio == 1)
    for (int i = 1; i < points; ++i) x[i] = length * double(i) / double(points - 1);
  else
    for (int i = 1; i < points; ++i) x[i] = x[i - 1] + steps[i - 1] * length / total;
  x[points - 1] = length;
  // steps that grow by ratio^(points - 2) overflow (a NaN mesh) or vanish
  // beside the length (repeated points) for extreme ratios
  for (int i = 1; i < points; ++i)
    if (!(x[i] > x[i - 1]) || !std::isfinite(x[i])) {
      std::ostringstream os;
      os << "graded_mesh: steps growing by ratio = " << ratio << " over " << points - 1
         << " steps overflow or vanish in double precision (between points " << i - 1 << " and " << i << ")";
      throw InvalidArgument(os.str());
    }
  return x;
}

Problem<double> poisson2d(const std::vector<double>& x1, const std::vector<double>& x2) {
  return Problem<double>::make2d(poisson_factor(x1), poisson_factor(x2), 0.0);
}
Problem<double> poisson3d(const std::vector<double>& x1, const std::vector<double>& x2,
                          const std::vector<double>& x3) {
  return Problem<double>::make3d(poisson_factor(x1), poisson_factor(x2), poisson_factor(x3), 0.0);
}
Problem<std::complex<double>> helmholtz2d(const std::vector<double>& x1, const std::vector<double>& x2,
                                          double omega) {
  return Problem<std::complex<double>>::make2d(helmholtz_factor(x1, omega), helmholtz_factor(x2, omega),
                                               -omega * omega);
}
Problem<std::complex<double>> helmholtz3d(const std::vector<double>& x1, const std::vector<double>& x2,
                                          const std::vector<double>& x3, double omega) {
  return Problem<std::complex<double>>::make3d(helmholtz_factor(x1, omega), helmholtz_factor(x2, omega),
                                               helmholtz_factor(x3, omega), -omega * omega);
}

}  // namespace pscr
