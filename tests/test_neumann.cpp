// The singular pure-Neumann case (c = 0): compatible part solved, incompatible
// part reported, zero weighted mean; mixed boundaries stay regular.
#define BOOST_TEST_MODULE neumann
#include <boost/test/unit_test.hpp>

#include <numeric>

#include "support.hpp"

using pscr::Boundary;

namespace {

pscr::Factor<double> neumann_fe(const std::vector<double>& x) { return pscr::poisson_neumann_factor(x); }

void check(const pscr::Problem<double>& p, int radix) {
  pscr::Options o;
  o.radix = radix;
  pscr::Plan<double> plan(p, o);
  BOOST_TEST(plan.info().pure_neumann);
  const std::size_t N = p.unknowns();
  auto f = test::random_vector<double>(N, 42 + N);
  for (auto& v : f) v += 0.3;  // clearly incompatible
  const double mean = std::accumulate(f.begin(), f.end(), 0.0) / double(N);
  double fn = 0;
  for (double v : f) fn += v * v;
  std::vector<double> u(N);
  const auto st = plan.solve(f.data(), u.data());
  BOOST_TEST(std::abs(st.incompatible_part - std::abs(mean) * std::sqrt(double(N)) / std::sqrt(fn)) <= 1e-12);
  std::vector<double> fc(f);
  for (auto& v : fc) v -= mean;
  BOOST_TEST(p.relative_residual(fc.data(), u.data()) <= 1e-12);
  // Zero weighted mean: sum over (M1 1)⊗(M2 1)[⊗(M3 1)] weights.
  std::vector<double> w{1.0};
  for (auto& fa : p.factors()) {
    std::vector<double> next;
    for (double a : w)
      for (std::size_t i = 0; i < fa.size(); ++i) {
        double s = fa.M.diag[i] + (i ? fa.M.off[i - 1] : 0) + (i + 1 < fa.size() ? fa.M.off[i] : 0);
        next.push_back(a * s);
      }
    w.swap(next);
  }
  double wm = 0, wsum = 0, umax = 0;
  for (std::size_t i = 0; i < N; ++i) { wm += w[i] * u[i]; wsum += w[i]; umax = std::max(umax, std::abs(u[i])); }
  BOOST_TEST(std::abs(wm / wsum) <= 1e-13 * umax);
  // A compatible right-hand side loses nothing.
  const auto st2 = plan.solve(fc.data(), u.data());
  BOOST_TEST(st2.incompatible_part <= 1e-14);
  BOOST_TEST(p.relative_residual(fc.data(), u.data()) <= 1e-12);
}

}  // namespace

BOOST_AUTO_TEST_CASE(pure_neumann_2d) {
  for (int q : {2, 4}) {
    check(pscr::Problem<double>::make2d(pscr::laplacian_factor(37, 1.0, Boundary::Neumann, Boundary::Neumann),
                                        pscr::laplacian_factor(20, 1.0, Boundary::Neumann, Boundary::Neumann), 0.0), q);
    check(pscr::Problem<double>::make2d(neumann_fe(pscr::graded_mesh(64, 1.0, 1.03)),
                                        neumann_fe(pscr::graded_mesh(17, 2.0, 0.95)), 0.0), q);
    check(pscr::Problem<double>::make2d(pscr::laplacian_factor(1, 1.0, Boundary::Neumann, Boundary::Neumann),
                                        pscr::laplacian_factor(5, 1.0, Boundary::Neumann, Boundary::Neumann), 0.0), q);
  }
  check(pscr::Problem<double>::make2d(pscr::laplacian_factor(300, 0.5, Boundary::Neumann, Boundary::Neumann),
                                      pscr::laplacian_factor(257, 0.5, Boundary::Neumann, Boundary::Neumann), 0.0), 4);
}

BOOST_AUTO_TEST_CASE(pure_neumann_3d) {
  for (int q : {2, 4}) {
    check(pscr::Problem<double>::make3d(neumann_fe(pscr::graded_mesh(14, 1.0, 1.05)),
                                        pscr::laplacian_factor(9, 1.0, Boundary::Neumann, Boundary::Neumann),
                                        neumann_fe(pscr::graded_mesh(7, 1.0, 0.9)), 0.0), q);
    check(pscr::Problem<double>::make3d(pscr::laplacian_factor(33, 1.0, Boundary::Neumann, Boundary::Neumann),
                                        pscr::laplacian_factor(17, 1.0, Boundary::Neumann, Boundary::Neumann),
                                        pscr::laplacian_factor(16, 1.0, Boundary::Neumann, Boundary::Neumann), 0.0), q);
  }
}

BOOST_AUTO_TEST_CASE(mixed_boundaries_are_regular) {
  const auto p = pscr::Problem<double>::make2d(pscr::laplacian_factor(31, 1.0, Boundary::Neumann, Boundary::Dirichlet),
                                               pscr::laplacian_factor(12, 1.0, Boundary::Neumann, Boundary::Neumann), 0.0);
  pscr::Plan<double> plan(p);
  BOOST_TEST(!plan.info().pure_neumann);
  const auto f = test::random_vector<double>(p.unknowns(), 5);
  std::vector<double> u(f.size());
  plan.solve(f.data(), u.data());
  BOOST_TEST(test::rel_error(u, test::band_solve(p, f)) <= 1e-12);
}
