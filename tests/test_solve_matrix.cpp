// Every scalar type × 2D/3D × radix against a banded direct solve of the
// assembled matrix, over awkward sizes.
#define BOOST_TEST_MODULE solve_matrix
#include <boost/test/unit_test.hpp>
#include <boost/mpl/list.hpp>

#include "support.hpp"

using Types = boost::mpl::list<float, double, std::complex<float>, std::complex<double>>;

namespace {

template <class T> struct Tol {
  static constexpr bool dbl = std::is_same_v<pscr::real_t<T>, double>;
  double error() const { return !dbl ? 1e-3 : (pscr::is_complex_v<T> ? 1e-9 : 1e-12); }
  double backward() const { return !dbl ? 1e-5 : (pscr::is_complex_v<T> ? 1e-11 : 1e-13); }
};

template <class T> void check_case(std::vector<int> n, int radix, bool diag_mass, std::uint64_t seed) {
  std::vector<pscr::Factor<T>> fs;
  for (std::size_t d = 0; d < n.size(); ++d) fs.push_back(test::random_factor<T>(n[d], seed + 17 * d, diag_mass));
  // c shifts the spectrum a little; complex c for complex types.
  T c = T(0.25);
  if constexpr (pscr::is_complex_v<T>) c = T(-0.3, 0.1);
  pscr::Problem<T> p(fs, c);
  const auto f = test::random_vector<T>(p.unknowns(), seed + 99);
  pscr::Options o;
  o.radix = radix;
  pscr::Plan<T> plan(p, o);
  std::vector<T> u(f.size());
  plan.solve(f.data(), u.data());
  const auto ref = test::band_solve(p, f);
  const double err = test::rel_error(u, ref);
  const double bwd = p.backward_error(f.data(), u.data());
  Tol<T> tol;
  BOOST_TEST_CONTEXT("T=" << pscr::scalar_name<T>() << " q=" << radix << " n=" << n[0] << "x" << n[1]
                          << (n.size() > 2 ? "x" + std::to_string(n[2]) : "") << " diagM=" << diag_mass) {
    BOOST_TEST(err <= tol.error());
    BOOST_TEST(bwd <= tol.backward());
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(sizes_2d, T, Types) {
  for (int q : {2, 4}) {
    std::vector<int> ns{1, 2, 3, q - 1, q, q + 1, q * q - 1, q * q, q * q + 1, q * q * q - 1, q * q * q + 1, 17, 31, 37, 64};
    std::uint64_t seed = 1;
    for (int n1 : ns) {
      const int n2 = (n1 * 7) % 23 + 1;  // n2 ≠ n1, also small and prime sizes
      check_case<T>({n1, n2}, q, false, seed++);
      check_case<T>({n1, n2}, q, true, seed++);
    }
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(sizes_3d, T, Types) {
  for (int q : {2, 4}) {
    const std::vector<std::vector<int>> shapes{{1, 1, 1}, {2, 3, 1}, {3, 1, 2}, {q * q - 1, 5, 4},
                                               {q * q, 3, 7},  {q * q + 1, 6, 2}, {17, 5, 3}, {13, 11, 2}};
    std::uint64_t seed = 500;
    for (auto& s : shapes) {
      check_case<T>(s, q, false, seed++);
      check_case<T>(s, q, true, seed++);
    }
  }
}

// Radix q = 2 ... 16: groups with up to q - 1 sources, several levels, partial groups.
BOOST_AUTO_TEST_CASE_TEMPLATE(every_radix, T, Types) {
  std::uint64_t seed = 900;
  for (int q = 2; q <= 16; ++q) {
    check_case<T>({q * q + 3, 7}, q, false, seed++);
    check_case<T>({2 * q + 1, q + 2, 3}, q, true, seed++);
  }
}
