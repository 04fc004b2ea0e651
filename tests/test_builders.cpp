// Problem builders: second-order convergence of the Poisson discretisation on
// non-uniform meshes, Helmholtz with absorbing boundaries against a direct
// solve, and the entries the builders produce.
#define BOOST_TEST_MODULE builders
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "support.hpp"

using Z = std::complex<double>;

namespace {

// Nodal max error of the 2D/3D Poisson FE solution for u = Π sin(π x_d) with
// a lumped right-hand side on meshes graded by `ratio`.
double poisson_error(int n, int dims, double ratio) {
  std::vector<std::vector<double>> x;
  for (int d = 0; d < dims; ++d) x.push_back(pscr::graded_mesh(n + 2, 1.0, d % 2 ? ratio : 1.0 / ratio));
  const auto p = dims == 2 ? pscr::poisson2d(x[0], x[1]) : pscr::poisson3d(x[0], x[1], x[2]);
  const std::size_t N = p.unknowns();
  std::vector<double> f(N), exact(N), u(N);
  for (std::size_t idx = 0; idx < N; ++idx) {
    std::size_t r = idx;
    double val = 1, mass = 1;
    for (int d = dims - 1; d >= 0; --d) {
      const std::size_t i = r % n;
      r /= n;
      val *= std::sin(M_PI * x[d][i + 1]);
      mass *= p.factor(d).M.diag[i];
    }
    exact[idx] = val;
    f[idx] = dims * M_PI * M_PI * val * mass;
  }
  pscr::Plan<double> plan(p);
  plan.solve(f.data(), u.data());
  double err = 0;
  for (std::size_t i = 0; i < N; ++i) err = std::max(err, std::abs(u[i] - exact[i]));
  return err;
}

}  // namespace

BOOST_AUTO_TEST_CASE(poisson_second_order_convergence) {
  for (int dims : {2, 3}) {
    const std::vector<int> ns = dims == 2 ? std::vector<int>{31, 63, 127, 255} : std::vector<int>{15, 31, 63};
    std::vector<double> errs;
    for (int n : ns) errs.push_back(poisson_error(n, dims, std::pow(1.5, 1.0 / n)));
    for (std::size_t i = 1; i < errs.size(); ++i) {
      const double order = std::log(errs[i - 1] / errs[i]) / std::log(double(ns[i] + 1) / (ns[i - 1] + 1));
      BOOST_TEST_CONTEXT("dims=" << dims << " n=" << ns[i] << " err=" << errs[i]) { BOOST_TEST(order > 1.85); }
    }
  }
}

BOOST_AUTO_TEST_CASE(helmholtz_against_direct_solve) {
  for (int q : {2, 4}) {
    pscr::Options o;
    o.radix = q;
    const auto a = pscr::graded_mesh(33, 1.0, 1.02), b = pscr::graded_mesh(21, 1.5, 0.97), c = pscr::graded_mesh(9, 0.5, 1.1);
    for (const auto& p : {pscr::helmholtz2d(a, b, 25.0), pscr::helmholtz3d(b, c, a, 9.0), pscr::helmholtz2d(c, a, 3.0)}) {
      pscr::Plan<Z> plan(p, o);
      const auto f = test::random_vector<Z>(p.unknowns(), p.unknowns());
      std::vector<Z> u(f.size());
      plan.solve(f.data(), u.data());
      BOOST_TEST(test::rel_error(u, test::band_solve(p, f)) <= 1e-9);
      BOOST_TEST(p.backward_error(f.data(), u.data()) <= 1e-11);
    }
  }
}

BOOST_AUTO_TEST_CASE(builder_entries) {
  const std::vector<double> x{0.0, 0.1, 0.3, 0.6, 1.0};
  const auto p = pscr::poisson_factor(x);  // 3 interior unknowns
  BOOST_TEST(p.size() == 3u);
  BOOST_TEST(std::abs(p.A.diag[0] - (1 / 0.1 + 1 / 0.2)) < 1e-12);
  BOOST_TEST(std::abs(p.A.off[1] - (-1 / 0.3)) < 1e-12);
  BOOST_TEST(std::abs(p.M.diag[2] - (0.3 + 0.4) / 2) < 1e-12);
  const auto h = pscr::helmholtz_factor(x, 2.0);  // 5 unknowns, boundary included
  BOOST_TEST(h.size() == 5u);
  BOOST_TEST(std::abs(h.A.diag[0] - Z(1 / 0.1, -1.0)) < 1e-12);
  BOOST_TEST(std::abs(h.M.diag[4] - Z(0.4 / 3, 0.25)) < 1e-12);
  BOOST_TEST(std::abs(h.M.off[3] - Z(0.4 / 6, 0)) < 1e-12);
  BOOST_TEST(std::abs(h.A.diag[2] - Z(1 / 0.2 + 1 / 0.3, 0)) < 1e-12);
  const auto l = pscr::laplacian_factor(4, 0.5, pscr::Boundary::Neumann, pscr::Boundary::Dirichlet);
  BOOST_TEST(l.A.diag[0] == 4.0);
  BOOST_TEST(l.A.diag[3] == 8.0);
  BOOST_TEST(l.A.off[0] == -4.0);
}

// Ratios whose steps overflow (ratio^1998: a NaN mesh) or vanish beside the
// length (repeated points), and non-finite lengths, are refused by name.
BOOST_AUTO_TEST_CASE(graded_mesh_refuses_meshes_it_cannot_represent) {
  auto names = [](const char* what) {
    return [what](const pscr::InvalidArgument& e) { return std::string(e.what()).find(what) != std::string::npos; };
  };
  BOOST_CHECK_EXCEPTION(pscr::graded_mesh(2000, 1.0, 2.0), pscr::InvalidArgument, names("ratio = 2"));
  BOOST_CHECK_EXCEPTION(pscr::graded_mesh(2000, 1.0, 0.5), pscr::InvalidArgument, names("ratio = 0.5"));
  BOOST_CHECK_EXCEPTION(pscr::graded_mesh(10, INFINITY, 1.0), pscr::InvalidArgument, names("length = inf"));
  BOOST_CHECK_EXCEPTION(pscr::graded_mesh(10, 1.0, NAN), pscr::InvalidArgument, names("ratio = nan"));
  const auto x = pscr::graded_mesh(1000, 1.0, 1.02);  // 1.02^998 = 4e8: representable
  BOOST_TEST(x.back() == 1.0);
}

// Steps whose squares leave the double range, and NaN arguments: refused naming the value.
BOOST_AUTO_TEST_CASE(builder_arguments_name_the_value) {
  for (double h : {1e-200, std::nan(""), -1.0, 0.0}) {
    try {
      pscr::laplacian_factor(5, h, pscr::Boundary::Dirichlet, pscr::Boundary::Dirichlet);
      BOOST_ERROR("laplacian_factor took h = " << h);
    } catch (const pscr::InvalidArgument& e) {
      BOOST_TEST(std::string(e.what()).find("mesh step h =") != std::string::npos, e.what());
    }
  }
  const auto f = pscr::laplacian_factor(5, 1e-150, pscr::Boundary::Dirichlet, pscr::Boundary::Dirichlet);
  BOOST_TEST(std::isfinite(f.A.diag[0]));
  try {
    pscr::helmholtz_factor(pscr::graded_mesh(5, 1.0, 1.0), std::nan(""));
    BOOST_ERROR("helmholtz_factor took omega = nan");
  } catch (const pscr::InvalidArgument& e) {
    BOOST_TEST(std::string(e.what()).find("omega = nan") != std::string::npos, e.what());
  }
}
