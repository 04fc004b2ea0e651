// Generalized eigenpairs of tridiagonal pencils: Wᵀ M W = I and Wᵀ A W = Λ
// for every method, and agreement of the O(m²) methods with the dense one.
#define BOOST_TEST_MODULE eigen
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <numeric>
#include <atomic>
#include <cmath>
#include <random>
#include <thread>

#include <omp.h>

#include "planner/eigen_share.hpp"
#include "planner/pencil_eigen.hpp"
#include "pscr/distributed.hpp"
#include "pscr/builders.hpp"
#include "support.hpp"

using pscr::planner::EigenMethod;
using pscr::planner::pencil_eigen;
using Z = std::complex<double>;

namespace {

// max |Wᵀ M W − I| and max |Wᵀ A W − Λ| over the full eigenvector matrix.
template <class C> std::pair<double, double> orthogonality(const pscr::Factor<C>& f, EigenMethod method) {
  const int m = int(f.size());
  std::vector<int> all(m);
  std::iota(all.begin(), all.end(), 0);
  const auto pe = pencil_eigen(f.A, f.M, all, method);
  std::vector<C> col(m), mc(m), ac(m);
  double eo = 0, ea = 0, scale = 0;
  for (auto& l : pe.lambda) scale = std::max(scale, std::abs(l));
  for (int j = 0; j < m; ++j) {
    for (int i = 0; i < m; ++i) col[i] = pe.rows[std::size_t(i) * m + j];
    f.M.multiply(col.data(), mc.data());
    f.A.multiply(col.data(), ac.data());
    for (int l = 0; l < m; ++l) {
      C sm = 0, sa = 0;
      for (int i = 0; i < m; ++i) { sm += pe.rows[std::size_t(i) * m + l] * mc[i]; sa += pe.rows[std::size_t(i) * m + l] * ac[i]; }
      eo = std::max(eo, std::abs(sm - C(l == j ? 1.0 : 0.0)));
      ea = std::max(ea, std::abs(sa - (l == j ? pe.lambda[j] : C(0))) / scale);
    }
  }
  return {eo, ea};
}

template <class C> std::vector<C> sorted_eigs(const pscr::Factor<C>& f, EigenMethod method) {
  auto v = pencil_eigen(f.A, f.M, {0}, method).lambda;
  std::sort(v.begin(), v.end(), [](C a, C b) { return std::real(a) < std::real(b); });
  return v;
}

// Every eigenvalue of `a` matched to a distinct one of `b` within tol · max|b|.
void match_spectra(std::vector<Z> a, std::vector<Z> b, double tol) {
  BOOST_REQUIRE(a.size() == b.size());
  double scale = 0;
  for (auto& v : b) scale = std::max(scale, std::abs(v));
  std::vector<bool> used(b.size(), false);
  for (auto& v : a) {
    int best = -1;
    for (std::size_t j = 0; j < b.size(); ++j)
      if (!used[j] && (best < 0 || std::abs(b[j] - v) < std::abs(b[best] - v))) best = int(j);
    used[best] = true;
    BOOST_TEST(std::abs(b[best] - v) <= tol * scale);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(real_methods) {
  for (int m : {1, 2, 3, 7, 50, 200}) {
    auto diag = test::random_factor<double>(m, 10 + m, true);
    auto tri = test::random_factor<double>(m, 20 + m, false);
    for (auto [f, method] : {std::pair{diag, EigenMethod::twisted}, {diag, EigenMethod::mrrr}, {diag, EigenMethod::crawford},
                             {tri, EigenMethod::crawford}, {tri, EigenMethod::newton}, {tri, EigenMethod::dense}}) {
      auto [eo, ea] = orthogonality(f, method);
      BOOST_TEST_CONTEXT("m=" << m << " method=" << int(method)) {
        BOOST_TEST(eo < 1e-11);
        BOOST_TEST(ea < 1e-11);
      }
    }
    const auto a = sorted_eigs(tri, EigenMethod::crawford), b = sorted_eigs(tri, EigenMethod::dense);
    const auto c = sorted_eigs(tri, EigenMethod::newton);
    for (int i = 0; i < m; ++i) {
      BOOST_TEST(std::abs(a[i] - b[i]) <= 1e-11 * std::abs(b.back()));
      BOOST_TEST(std::abs(c[i] - b[i]) <= 1e-11 * std::abs(b.back()));
    }
  }
}

BOOST_AUTO_TEST_CASE(complex_symmetric_methods) {
  for (int m : {1, 2, 3, 7, 50, 200}) {
    const auto x = pscr::graded_mesh(m + 1, 1.0, 1.01);
    std::vector<pscr::Factor<Z>> cases{test::random_factor<Z>(m, 30 + m, false)};
    if (m >= 1) cases.push_back(pscr::helmholtz_factor(pscr::graded_mesh(m + 1, 1.0, 1.01), 15.0));
    for (auto& f : cases) {
      for (auto method : {EigenMethod::crawford, EigenMethod::dense}) {
        auto [eo, ea] = orthogonality(f, method);
        BOOST_TEST_CONTEXT("m=" << f.size() << " method=" << int(method)) {
          BOOST_TEST(eo < 1e-9);
          BOOST_TEST(ea < 1e-9);
        }
      }
      // every Crawford eigenvalue matched to a distinct dense one
      match_spectra(sorted_eigs(f, EigenMethod::crawford), sorted_eigs(f, EigenMethod::dense), 1e-10);
    }
  }
}

BOOST_AUTO_TEST_CASE(identical_sub_pencils_are_shared) {
  const auto u = pscr::graded_mesh(257, 1.0, 1.0), g = pscr::graded_mesh(257, 1.0, 1.01);
  pscr::Options o;
  o.radix = 4;
  pscr::Plan<double> uniform(pscr::poisson2d(u, u), o), graded(pscr::poisson2d(g, g), o);
  // 255 = 4^4 - 1: uniform mesh has one distinct pencil per level.
  BOOST_TEST(uniform.info().eigen_problems == 4u);
  BOOST_TEST(graded.info().eigen_problems == 64u + 16u + 4u + 1u);
  // radix 16: 255 = 16^2 - 1, two levels
  o.radix = 16;
  BOOST_TEST(pscr::Plan<double>(pscr::poisson2d(u, u), o).info().eigen_problems == 2u);
  BOOST_TEST(pscr::Plan<double>(pscr::poisson2d(g, g), o).info().eigen_problems == 16u + 1u);
}

BOOST_AUTO_TEST_CASE(singular_mass_is_refused) {
  pscr::Tridiagonal<double> A({2, 2, 2}, {-1, -1}), M({1, 0, 1}, {0, 0});
  BOOST_CHECK_THROW(pencil_eigen(A, M, {0}, EigenMethod::mrrr), pscr::SingularPencil);
  BOOST_CHECK_THROW(pencil_eigen(A, M, {0}, EigenMethod::automatic), pscr::SingularPencil);
  BOOST_CHECK_THROW(pencil_eigen(A, M, {0}, EigenMethod::crawford), pscr::SingularPencil);
}

// Diagonally dominant pencils get their small eigenvalues to high relative
// accuracy (relative_eigen.hpp): a uniform Laplacian against the closed form
// 4 sin²(πk/(2(n+1))), where an absolute-accuracy solver gets λ_min of size
// n = 1023 to only about n²ε ≈ 1e-10; graded meshes (ratio 1e3 between cells,
// Dirichlet and Neumann) against Rayleigh quotients summed from non-negative
// terms, wᵀAw = Σ e_i w_i² + Σ |o_i| (w_i + sign(o_i) w_{i+1})²; and
// Wᵀ M W = I for all of them.
BOOST_AUTO_TEST_CASE(relative_accuracy_of_diagonally_dominant_pencils) {
  const int n = 1023;
  // h = 1/1024 makes the diagonal 2/h² the midpoint of the Gershgorin interval: the
  // first bisection point hits a zero pivot exactly.
  for (const double h : {1.0, 1.0 / 1024, 0.37}) {
    std::vector<double> x(n + 2);
    for (int i = 0; i < n + 2; ++i) x[i] = i * h;
    const auto lap = pscr::poisson_factor(x);
    auto lam = pencil_eigen(lap.A, lap.M, {0}, EigenMethod::twisted).lambda;
    std::sort(lam.begin(), lam.end());
    double worst = 0;
    for (int k = 0; k < n; ++k) {
      const long double s = std::sin(3.14159265358979323846264338327950288L * (k + 1) / (2.0L * (n + 1)));
      const long double exact = 4 * s * s / ((long double)h * h);
      worst = std::max(worst, double(std::abs(lam[k] - exact) / exact));
    }
    BOOST_TEST_CONTEXT("h=" << h) { BOOST_TEST(worst <= 2e-13); }
  }
  const double ratio = std::pow(1e3, 1.0 / 600);
  for (const auto& f : {pscr::poisson_factor(pscr::graded_mesh(602, 1.0, ratio)),
                        pscr::poisson_neumann_factor(pscr::graded_mesh(600, 1.0, ratio))}) {
    const int m = int(f.size());
    std::vector<int> all(m);
    std::iota(all.begin(), all.end(), 0);
    const auto pe = pencil_eigen(f.A, f.M, all, EigenMethod::twisted);
    double rq_err = 0;
    for (int k = 0; k < m; ++k) {
      long double wAw = 0, wMw = 0;
      for (int i = 0; i < m; ++i) {
        const long double w = pe.rows[std::size_t(i) * m + k];
        long double e = f.A.diag[i];
        if (i > 0) e -= std::abs((long double)f.A.off[i - 1]);
        if (i + 1 < m) {
          e -= std::abs((long double)f.A.off[i]);
          const long double o = f.A.off[i], wn = pe.rows[std::size_t(i + 1) * m + k];
          wAw += std::abs(o) * (w + (o < 0 ? -wn : wn)) * (w + (o < 0 ? -wn : wn));
        }
        wAw += e * w * w;
        wMw += f.M.diag[i] * w * w;
      }
      const long double rq = wAw / wMw;
      const double top = *std::max_element(pe.lambda.begin(), pe.lambda.end());
      if (rq > 1e-14L * top) rq_err = std::max(rq_err, double(std::abs(pe.lambda[k] - rq) / rq));
      else rq_err = std::max(rq_err, std::abs(pe.lambda[k]) / top);  // the Neumann null mode: λ ≈ 0
    }
    auto [eo, ea] = orthogonality(f, EigenMethod::twisted);
    BOOST_TEST_CONTEXT("graded m=" << m) {
      BOOST_TEST(rq_err <= 1e-12);
      BOOST_TEST(eo < 1e-11);
      BOOST_TEST(ea < 1e-11);
    }
  }
}

// The twisted method on pencils whose eigenvalues cluster: two identical
// blocks coupled by a zero off-diagonal (exact double eigenvalues, which
// bisection cannot separate) and Wilkinson's W21+ (pairs agreeing to 1e-14):
// eigenvalues against the dense solver, and Wᵀ M W = I.
BOOST_AUTO_TEST_CASE(clustered_eigenvalues_against_dense) {
  std::vector<pscr::Factor<double>> cases;
  {
    auto b = pscr::laplacian_factor(40, 1.0, pscr::Boundary::Dirichlet, pscr::Boundary::Neumann);
    pscr::Factor<double> twice;
    twice.A.diag = b.A.diag;
    twice.A.diag.insert(twice.A.diag.end(), b.A.diag.begin(), b.A.diag.end());
    twice.A.off = b.A.off;
    twice.A.off.push_back(0.0);
    twice.A.off.insert(twice.A.off.end(), b.A.off.begin(), b.A.off.end());
    twice.M.diag.assign(80, 1.0);
    twice.M.off.assign(79, 0.0);
    cases.push_back(twice);
  }
  {
    pscr::Factor<double> w;  // W21+: diag |10 − i|, off 1
    for (int i = 0; i < 21; ++i) w.A.diag.push_back(std::abs(10.0 - i));
    w.A.off.assign(20, 1.0);
    w.M.diag.assign(21, 1.0);
    w.M.off.assign(20, 0.0);
    cases.push_back(w);
  }
  for (auto& f : cases) {
    const int m = int(f.size());
    const auto tw = sorted_eigs(f, EigenMethod::twisted), de = sorted_eigs(f, EigenMethod::dense);
    for (int i = 0; i < m; ++i) BOOST_TEST(std::abs(tw[i] - de[i]) <= 1e-13 * std::abs(de.back()));
    auto [eo, ea] = orthogonality(f, EigenMethod::twisted);
    BOOST_TEST_CONTEXT("m=" << m) {
      BOOST_TEST(eo < 1e-12);
      BOOST_TEST(ea < 1e-12);
    }
  }
}

// Kept rows of a large uniform pencil (middle relative gaps near π/m) against
// the closed form: eigenvalues 4 sin²(θ_k)/h², M-normalised vectors
// sqrt(2/((m+1)h)) sin((i+1)(k+1)π/(m+1)).
// A uniform Dirichlet pencil (exactly Toeplitz: h a power of two) by the
// twisted method and by the closed form, against the closed form evaluated
// here in long double.
BOOST_AUTO_TEST_CASE(large_uniform_pencil_against_closed_form) {
 for (EigenMethod method : {EigenMethod::twisted, EigenMethod::automatic}) {
  const int m = 16383;
  const double h = 1.0 / (m + 1);
  std::vector<double> x(m + 2);
  for (int i = 0; i < m + 2; ++i) x[i] = i * h;
  const auto f = pscr::poisson_factor(x);
  const std::vector<int> keep{0, 4095, 8191, 12287, m - 1};
  const auto pe = pencil_eigen(f.A, f.M, keep, method);
  BOOST_TEST(std::string(pe.method) == (method == EigenMethod::twisted ? "relative" : "toeplitz"));
  const long double pi = 3.14159265358979323846264338327950288L;
  auto exact_row = [&](int i, int k) {
    return std::sqrt(2.0L / ((m + 1) * (long double)h)) * std::sin(pi * (i + 1) * (k + 1) / (m + 1));
  };
  double lam_err = 0, vec_err = 0;
  for (int k = 0; k < m; ++k) {
    const long double s = std::sin(pi * (k + 1) / (2.0L * (m + 1)));
    const long double exact = 4 * s * s / ((long double)h * h);
    lam_err = std::max(lam_err, double(std::abs(pe.lambda[k] - exact) / exact));
    // the sign of a vector is free: take it from its largest kept entry
    long double sign = 1, big = 0;
    for (std::size_t t = 0; t < keep.size(); ++t) {
      const long double w = exact_row(keep[t], k);
      if (std::abs(w) > big) { big = std::abs(w); sign = (w > 0) == (pe.rows[t * m + k] > 0) ? 1 : -1; }
    }
    for (std::size_t t = 0; t < keep.size(); ++t)
      vec_err = std::max(vec_err, double(std::abs(sign * pe.rows[t * m + k] - exact_row(keep[t], k)) *
                                         std::sqrt((long double)h)));
  }
  BOOST_TEST(lam_err <= 2e-13);
  BOOST_TEST(vec_err <= 1e-12);
 }
}

// Closed-form eigenpairs of Toeplitz pencils, every combination of
// Dirichlet and Neumann ends, diagonal and tridiagonal mass, against the
// dense solver; pencils not exactly of that form are left to the other methods.
BOOST_AUTO_TEST_CASE(toeplitz_pencils_against_dense) {
  using pscr::Boundary;
  for (int m : {3, 4, 17, 100}) {
    for (Boundary l : {Boundary::Dirichlet, Boundary::Neumann})
      for (Boundary r : {Boundary::Dirichlet, Boundary::Neumann})
        for (int mass : {0, 1}) {
          auto f = pscr::laplacian_factor(m, 0.25, l, r);
          if (mass) {  // a tridiagonal M = I − L/8 (entries exact in binary): 3/4 inside, 7/8 at a Neumann end
            f.M.diag.assign(m, 0.75);
            f.M.off.assign(m - 1, 0.125);
            if (l == Boundary::Neumann) f.M.diag[0] = 0.875;
            if (r == Boundary::Neumann) f.M.diag[m - 1] = 0.875;
          }
          BOOST_TEST_CONTEXT("m " << m << " ends " << int(l) << int(r) << " mass " << mass) {
            const auto pe = pencil_eigen(f.A, f.M, {0}, EigenMethod::toeplitz);
            BOOST_TEST(std::string(pe.method) == "toeplitz");
            BOOST_TEST(std::is_sorted(pe.lambda.begin(), pe.lambda.end()));
            const auto dense = sorted_eigs(f, EigenMethod::dense);
            double scale = 0, err = 0;
            for (double v : dense) scale = std::max(scale, std::abs(v));
            for (int k = 0; k < m; ++k) err = std::max(err, std::abs(pe.lambda[k] - dense[k]) / scale);
            BOOST_TEST(err <= 1e-14);
            const auto [eo, ea] = orthogonality(f, EigenMethod::toeplitz);
            BOOST_TEST(eo <= 1e-13);
            BOOST_TEST(ea <= 1e-13);
          }
        }
  }
  // relative accuracy of the smallest eigenvalue of a badly scaled Dirichlet pencil
  const int m = 1000;
  const auto f = pscr::laplacian_factor(m, 1e-3, Boundary::Dirichlet, Boundary::Dirichlet);
  const auto pe = pencil_eigen(f.A, f.M, {0}, EigenMethod::toeplitz);
  const long double s = std::sin(3.14159265358979323846264338327950288L / (2 * (m + 1)));
  const long double exact = 4 * s * s * (long double)f.A.diag[1] / 2;
  BOOST_TEST(std::abs(pe.lambda[0] - exact) / exact <= 1e-14);
  // not exactly Toeplitz: one entry off by one unit in the last place, a
  // non-Neumann end, end types of A and M that disagree, an indefinite M
  auto g = pscr::laplacian_factor(20, 1.0, Boundary::Dirichlet, Boundary::Dirichlet);
  g.A.diag[7] = std::nextafter(g.A.diag[7], 3.0);
  BOOST_CHECK_THROW(pencil_eigen(g.A, g.M, {0}, EigenMethod::toeplitz), pscr::InvalidArgument);
  BOOST_TEST(std::string(pencil_eigen(g.A, g.M, {0}).method) != "toeplitz");
  g = pscr::laplacian_factor(20, 1.0, Boundary::Dirichlet, Boundary::Dirichlet);
  g.A.diag[0] = 1.5;
  BOOST_CHECK_THROW(pencil_eigen(g.A, g.M, {0}, EigenMethod::toeplitz), pscr::InvalidArgument);
  g = pscr::laplacian_factor(20, 1.0, Boundary::Neumann, Boundary::Dirichlet);
  g.M.off.assign(19, 0.125);  // M's left end is of Dirichlet type, A's of Neumann type
  BOOST_CHECK_THROW(pencil_eigen(g.A, g.M, {0}, EigenMethod::toeplitz), pscr::InvalidArgument);
  g = pscr::laplacian_factor(20, 1.0, Boundary::Dirichlet, Boundary::Dirichlet);
  g.M.off.assign(19, 0.625);  // 1 + 1.25 cos θ < 0 for θ near π
  BOOST_CHECK_THROW(pencil_eigen(g.A, g.M, {0}, EigenMethod::toeplitz), pscr::InvalidArgument);
}

// The Crawford path computes its vectors in chunks over the host threads (each
// chunk recomputing the window of vectors before it): a complex symmetric
// pencil large enough for several chunks against the dense solver.
BOOST_AUTO_TEST_CASE(crawford_chunks_against_dense) {
  const auto f = pscr::helmholtz_factor(pscr::graded_mesh(601, 1.0, 1.002), 40.0);
  auto [eo, ea] = orthogonality(f, EigenMethod::crawford);
  BOOST_TEST(eo < 1e-11);  // measured 2.3e-13
  BOOST_TEST(ea < 1e-11);
  const auto a = sorted_eigs(f, EigenMethod::crawford), b = sorted_eigs(f, EigenMethod::dense);
  double scale = 0;
  for (auto& v : b) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < a.size(); ++i) {
    double best = 1e300;
    for (auto& v : b) best = std::min(best, std::abs(v - a[i]));
    BOOST_TEST(best <= 1e-10 * scale);
  }
}

// The roots of det(A − λM) (pencil_roots.hpp): real pencils with tridiagonal M
// by Sturm counts and Newton, complex symmetric ones by the Aberth iteration
// from the real part's eigenvalues. Helmholtz pencils with absorbing ends at
// both ends (the whole factor) and at one end (a group touching one
// boundary, where the eigenvalues move about half a gap from the real
// part's and the seeds are poor), wave numbers 15 to 300, against the dense
// solver; Wᵀ M W = I and Wᵀ A W = Λ.
BOOST_AUTO_TEST_CASE(roots_methods_against_dense) {
  for (int m : {2, 5, 60, 300}) {
    for (double omega : {15.0, 80.0, 300.0}) {
      const auto whole = pscr::helmholtz_factor(pscr::graded_mesh(m + 1, 1.0, 1.003), omega);
      // the absorbing end first (a group at the left boundary) or last (at
      // the right one: its leading blocks are real, and a real seed can sit
      // on one of their eigenvalues)
      auto left = whole, right = whole;
      for (auto* t : {&left.A, &left.M}) { t->diag.pop_back(); t->off.pop_back(); }
      for (auto* t : {&right.A, &right.M}) { t->diag.erase(t->diag.begin()); t->off.erase(t->off.begin()); }
      for (const pscr::Factor<Z>* f : std::initializer_list<const pscr::Factor<Z>*>{&whole, &left, &right}) {
        BOOST_TEST_CONTEXT("m=" << f->size() << " omega=" << omega
                                << (f == &whole ? " both ends" : f == &left ? " left end" : " right end")) {
          auto [eo, ea] = orthogonality(*f, EigenMethod::aberth);
          BOOST_TEST(eo < 1e-10);
          BOOST_TEST(ea < 1e-10);
          match_spectra(sorted_eigs(*f, EigenMethod::aberth), sorted_eigs(*f, EigenMethod::dense), 1e-11);
          // its real part: a real pencil with tridiagonal M
          pscr::Factor<double> r;
          for (auto& v : f->A.diag) r.A.diag.push_back(v.real());
          for (auto& v : f->A.off) r.A.off.push_back(v.real());
          for (auto& v : f->M.diag) r.M.diag.push_back(v.real());
          for (auto& v : f->M.off) r.M.off.push_back(v.real());
          auto [ro, ra] = orthogonality(r, EigenMethod::newton);
          BOOST_TEST(ro < 1e-11);
          BOOST_TEST(ra < 1e-11);
          const auto a = sorted_eigs(r, EigenMethod::newton), b = sorted_eigs(r, EigenMethod::dense);
          for (std::size_t i = 0; i < a.size(); ++i) BOOST_TEST(std::abs(a[i] - b[i]) <= 1e-12 * std::abs(b.back()));
        }
      }
    }
  }
  // A group at the right boundary of a plan of 1023² (omega 0.3 n, as in
  // pscr-accuracy): a real seed met an eigenvalue of a real leading block,
  // whose pivot's derivative overflowed; the iteration must step off it.
  {
    std::vector<double> x(1023);
    for (int i = 0; i < 1023; ++i) x[i] = i / 1024.0;
    const auto big = pscr::helmholtz_factor(x, 0.3 * 1023);
    pscr::Factor<Z> g;
    for (auto [t, src] : {std::pair{&g.A, &big.A}, {&g.M, &big.M}}) {
      t->diag.assign(src->diag.end() - 255, src->diag.end());
      t->off.assign(src->off.end() - 254, src->off.end());
    }
    auto [eo, ea] = orthogonality(g, EigenMethod::aberth);
    BOOST_TEST(eo < 1e-10);
    BOOST_TEST(ea < 1e-10);
  }
  // The whole factor of that mesh has two eigenvalues 3e-5 apart (3e-10 of
  // their size): two roots, not one root found twice, so the Aberth result
  // stands (it used to go to the Crawford path, 3.8 s at 4095 rows on the
  // H100 host).
  {
    std::vector<double> x(1023);
    for (int i = 0; i < 1023; ++i) x[i] = i / 1024.0;
    const auto whole = pscr::helmholtz_factor(x, 0.3 * 1023);
    auto [eo, ea] = orthogonality(whole, EigenMethod::aberth);
    BOOST_TEST(eo < 1e-10);  // measured 1.2e-13 (Crawford 1.1e-13)
    BOOST_TEST(ea < 1e-10);
  }
  // At 4095 rows the lowest and highest seeds meet 4.4e-6 apart (3e-12 of
  // their size); the sum of the eigenvalues, tr(M⁻¹A), shows a double root
  // there, not a missed one: the Aberth result stands (it went to the
  // Crawford path: 3.1 s on the H100 host against 0.3 s). Its two vectors
  // are finite and M-normalised.
  {
    std::vector<double> x(4095);
    for (int i = 0; i < 4095; ++i) x[i] = i / 4096.0;
    const auto whole = pscr::helmholtz_factor(x, 0.3 * 4095);
    const auto pe = pencil_eigen(whole.A, whole.M, {0, 4094}, EigenMethod::aberth);
    BOOST_TEST(std::string(pe.method) == "aberth");
    for (auto& v : pe.rows) BOOST_TEST(std::isfinite(std::abs(v)));
  }
  // the automatic choice takes these paths
  const auto f = pscr::helmholtz_factor(pscr::graded_mesh(201, 1.0, 1.003), 20.0);
  BOOST_TEST(std::string(pencil_eigen(f.A, f.M, {0}).method) == "aberth");
  pscr::Tridiagonal<double> A(std::vector<double>(50, 2.0), std::vector<double>(49, -1.0)),
      M(std::vector<double>(50, 4.0), std::vector<double>(49, 1.0));
  BOOST_TEST(std::string(pencil_eigen(A, M, {0}).method) == "toeplitz");
  A.diag[10] = 2.5;  // no longer Toeplitz
  BOOST_TEST(std::string(pencil_eigen(A, M, {0}).method) == "newton");
}

// The eigen data do not depend on the number of host threads (the batches
// and bisection rounds are fixed by the pencil alone): plans are reproducible.
BOOST_AUTO_TEST_CASE(eigen_data_independent_of_thread_count) {
  const double ratio = std::pow(1e3, 1.0 / 3000);
  const auto graded = pscr::poisson_factor(pscr::graded_mesh(3002, 1.0, ratio));
  const auto helm = pscr::helmholtz_factor(pscr::graded_mesh(700, 1.0, 1.001), 25.0);
  const auto uniform = pscr::helmholtz_factor(pscr::graded_mesh(900, 1.0, 1.0), 400.0);
  const int saved = omp_get_max_threads();
  std::vector<std::vector<double>> real_runs;
  std::vector<std::vector<Z>> complex_runs, closed_form_runs;
  for (int threads : {1, 3}) {
    omp_set_num_threads(threads);
    auto a = pencil_eigen(graded.A, graded.M, {0, 100, 2000, 2999}, EigenMethod::automatic);
    a.lambda.insert(a.lambda.end(), a.rows.begin(), a.rows.end());
    real_runs.push_back(a.lambda);
    auto b = pencil_eigen(helm.A, helm.M, {0, 350, 699}, EigenMethod::automatic);
    BOOST_TEST(std::string(b.method) == "aberth");
    b.lambda.insert(b.lambda.end(), b.rows.begin(), b.rows.end());
    complex_runs.push_back(b.lambda);
    auto c = pencil_eigen(uniform.A, uniform.M, {0, 450, 899}, EigenMethod::automatic);
    BOOST_TEST(std::string(c.method) == "toeplitz");
    c.lambda.insert(c.lambda.end(), c.rows.begin(), c.rows.end());
    closed_form_runs.push_back(c.lambda);
  }
  omp_set_num_threads(saved);
  BOOST_TEST((real_runs[0] == real_runs[1]));
  BOOST_TEST((complex_runs[0] == complex_runs[1]));
  BOOST_TEST((closed_form_runs[0] == closed_form_runs[1]));
}

// Helmholtz factors of uniform meshes (absorbing terms at one end, at both,
// or none: the groups of a plan) take the closed form for Toeplitz pencils
// with changed ends; against zggev and the Aberth path, and Wᵀ M W = I,
// Wᵀ A W = Λ over the full vectors. The cases include bound modes (an end
// term large enough to hold a mode at its end: labels that fail and roots
// found by the deflated iteration) and the pair of nearly equal eigenvalues
// of symmetric ends (3e-10 apart at m = 1023, omega 0.3 m).
BOOST_AUTO_TEST_CASE(toeplitz_with_absorbing_ends_against_dense) {
  for (int m : {5, 40, 200, 1023}) {
    for (double omega : {2.0, 40.0, 0.3 * m, 1.2 * m}) {
      std::vector<double> x(m);
      for (int i = 0; i < m; ++i) x[i] = i / double(m - 1);
      const auto whole = pscr::helmholtz_factor(x, omega);
      auto left = whole, right = whole, inner = whole;
      const int g = m / 2;
      for (auto* t : {&left.A, &left.M}) { t->diag.resize(g); t->off.resize(g - 1); }
      for (auto* t : {&right.A, &right.M}) { t->diag.erase(t->diag.begin(), t->diag.begin() + (m - g)); t->off.erase(t->off.begin(), t->off.begin() + (m - g)); }
      for (auto* t : {&inner.A, &inner.M}) {
        t->diag = std::vector<Z>(t->diag.begin() + 1, t->diag.begin() + g);
        t->off = std::vector<Z>(t->off.begin() + 1, t->off.begin() + g - 1);
      }
      for (const pscr::Factor<Z>* f : std::initializer_list<const pscr::Factor<Z>*>{&whole, &left, &right, &inner}) {
        if (f->size() < 4 || (m == 1023 && (f != &whole || omega < 100))) continue;
        BOOST_TEST_CONTEXT("m=" << f->size() << " omega=" << omega
                                << (f == &whole ? " both ends" : f == &left ? " left end" : f == &right ? " right end" : " inner")) {
          const auto pe = pencil_eigen(f->A, f->M, {0}, EigenMethod::toeplitz);
          BOOST_TEST(std::string(pe.method) == "toeplitz");
          // the whole decomposition: W square, Wᵀ M W = I and Wᵀ A W = Λ
          // (measured at most 3.8e-15 and 2.7e-15; the Aberth path 2e-13, or
          // 0.36 at m = 1023, omega 1.2 m, where the pencil is nearly defective)
          auto [eo, ea] = orthogonality(*f, EigenMethod::toeplitz);
          BOOST_TEST(eo < 2e-14);
          BOOST_TEST(ea < 1e-14);
          if (f->size() <= 40 || (f->size() <= 200 && omega <= 40))
            match_spectra(sorted_eigs(*f, EigenMethod::toeplitz), sorted_eigs(*f, EigenMethod::dense), 1e-12);
          if (m == 1023 && omega < m)
            match_spectra(sorted_eigs(*f, EigenMethod::toeplitz), sorted_eigs(*f, EigenMethod::aberth), 1e-12);
        }
      }
    }
  }
  // 4095 rows at omega 0.3 n: the two bound modes of the symmetric ends have
  // one eigenvalue to the last bit (a double root), with one vector of each parity.
  {
    std::vector<double> x(4095);
    for (int i = 0; i < 4095; ++i) x[i] = i / 4094.0;
    const auto whole = pscr::helmholtz_factor(x, 0.3 * 4095);
    const auto pe = pencil_eigen(whole.A, whole.M, {0, 2047, 4094}, EigenMethod::toeplitz);
    BOOST_TEST(std::string(pe.method) == "toeplitz");
    // the Aberth iteration settles on 4095 distinct values whose sum is off by
    // 1.3e-6 of Σ|λ|; the sum check now sends it to the Crawford path
    match_spectra(pe.lambda, pencil_eigen(whole.A, whole.M, {0}, EigenMethod::crawford).lambda, 1e-12);
    for (auto& v : pe.rows) BOOST_TEST(std::isfinite(std::abs(v)));
  }
  // 1500 rows at omega 0.3 n: the bound pair is 1e-16 apart, closer than
  // two distinct roots are told apart; one vector of each parity, M-orthogonal
  {
    const int m = 1500;
    std::vector<double> x(m);
    for (int i = 0; i < m; ++i) x[i] = i / double(m - 1);
    const auto f = pscr::helmholtz_factor(x, 0.3 * m);
    std::vector<int> all(m);
    std::iota(all.begin(), all.end(), 0);
    const auto pe = pencil_eigen(f.A, f.M, all, EigenMethod::automatic);
    BOOST_TEST(std::string(pe.method) == "toeplitz");
    int a = -1, b = -1;
    double closest = 1e300;
    for (int i = 0; i < m; ++i)
      for (int j = i + 1; j < m; ++j)
        if (std::abs(pe.lambda[i] - pe.lambda[j]) < closest) { closest = std::abs(pe.lambda[i] - pe.lambda[j]); a = i; b = j; }
    BOOST_TEST(closest <= 1e-12 * std::abs(pe.lambda[a]));
    std::vector<Z> va(m), vb(m), ma(m), mb(m), aa(m);
    for (int i = 0; i < m; ++i) { va[i] = pe.rows[std::size_t(i) * m + a]; vb[i] = pe.rows[std::size_t(i) * m + b]; }
    f.M.multiply(va.data(), ma.data());
    f.M.multiply(vb.data(), mb.data());
    f.A.multiply(va.data(), aa.data());
    Z ab = 0, aa_m = 0, bb_m = 0;
    double resid = 0, size = 0;
    for (int i = 0; i < m; ++i) {
      ab += va[i] * mb[i];
      aa_m += va[i] * ma[i];
      bb_m += vb[i] * mb[i];
      resid = std::max(resid, std::abs(aa[i] - pe.lambda[a] * ma[i]));
      size = std::max(size, std::abs(aa[i]));
    }
    BOOST_TEST(std::abs(ab) < 1e-13);
    BOOST_TEST(std::abs(aa_m - 1.0) < 1e-13);
    BOOST_TEST(std::abs(bb_m - 1.0) < 1e-13);
    BOOST_TEST(resid <= 1e-13 * size);
  }
  // not Toeplitz inside: refused by name, taken by Aberth automatically
  auto f = pscr::helmholtz_factor(pscr::graded_mesh(50, 1.0, 1.01), 20.0);
  BOOST_CHECK_THROW(pencil_eigen(f.A, f.M, {0}, EigenMethod::toeplitz), pscr::InvalidArgument);
  BOOST_TEST(std::string(pencil_eigen(f.A, f.M, {0}).method) == "aberth");
}

// The eigen work of a large pencil shared between the ranks of a
// distributed plan (planner/eigen_share.hpp; ranks here: threads with local
// communicators): every rank ends with the eigenpairs one process computes,
// to the bit, for 1, 2, 3 and 7 parts (700 rows: 6 eigenvector chunks of
// up to 128, so one part of 7 computes no vector).
// Random M tridiagonal: the Newton method; M diagonal: the twisted one.
BOOST_DATA_TEST_CASE(shared_eigen_work_gives_the_unshared_eigenpairs,
                     boost::unit_test::data::make({"newton", "twisted"}), expected_method) {
  std::mt19937 g(11);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  const int m = 700;
  const bool tridiagonal_mass = std::string(expected_method) == "newton";
  pscr::Factor<double> f;
  for (int i = 0; i < m; ++i) {
    f.A.diag.push_back(2.0 + u(g));
    f.M.diag.push_back(1.0 + 0.5 * u(g));
    if (i + 1 < m) {
      f.A.off.push_back(-0.9 * u(g));
      f.M.off.push_back(tridiagonal_mass ? 0.2 * u(g) : 0.0);
    }
  }
  const std::vector<int> keep = {0, 17, 350, 351, m - 1};
  const auto alone = pencil_eigen(f.A, f.M, keep);
  BOOST_TEST(std::string(alone.method) == std::string(expected_method));
  for (int parts : {1, 2, 3, 7}) {
    const auto comms = pscr::local_communicators(parts);
    std::vector<pscr::planner::PencilEigen<double>> got(static_cast<std::size_t>(parts));
    std::vector<std::thread> ranks;
    std::atomic<int> sums{0};         // the parts did share: they summed
    std::atomic<int> count_sums{0};   // of which the bisection's rounds (integers, at least kSharedCounts)
    for (int p = 0; p < parts; ++p)
      ranks.emplace_back([&, p] {
        pscr::Communicator& c = *comms[std::size_t(p)];
        const pscr::planner::EigenShare share{p, parts, [&](double* v, std::size_t n) {
          ++sums;
          c.sum(v, n);
          bool integers = n >= pscr::planner::kSharedCounts;
          for (std::size_t i = 0; i < n && integers; ++i) integers = v[i] == std::floor(v[i]) && v[i] <= m;
          if (integers && p == 0) ++count_sums;
        }};
        const pscr::planner::EigenShareScope scope(share);
        got[std::size_t(p)] = pencil_eigen(f.A, f.M, keep);
      });
    for (auto& t : ranks) t.join();
    BOOST_TEST((sums > 0) == (parts > 1));
    BOOST_TEST((count_sums > 0) == (parts > 1), count_sums << " rounds of Sturm counts shared");
    for (int p = 0; p < parts; ++p) {
      BOOST_TEST_INFO("part " << p << " of " << parts);
      BOOST_TEST(got[std::size_t(p)].lambda == alone.lambda);
      BOOST_TEST(got[std::size_t(p)].rows == alone.rows);
    }
  }
}
