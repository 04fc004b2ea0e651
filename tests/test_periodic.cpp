// Periodic dimensions (cyclic factor pencils): every subset of dimensions
// periodic, every scalar type, both backends, against a dense direct solve
// of the assembled operator; the all-periodic pure-Neumann case; the
// builders; bad input.
#define BOOST_TEST_MODULE periodic
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numeric>

#include "support.hpp"

using pscr::Boundary;
using test::wide_t;

namespace {

// A random cyclic pencil: random_factor with corner entries like its
// off-diagonal ones (M's corner 0 where the mass is diagonal).
template <class T> pscr::Factor<T> random_cyclic_factor(int n, std::uint64_t seed, bool diag_mass = false) {
  pscr::Factor<T> f = test::random_factor<T>(n, seed, diag_mass);
  std::mt19937_64 rng(seed + 7);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  f.A.off.push_back(T(-0.9 * u(rng)));
  f.M.off.push_back(diag_mass ? T(0) : T(0.2 * u(rng)));
  return f;
}

// The assembled operator solved densely (LU with pivoting, double precision).
template <class T> std::vector<wide_t<T>> dense_solve(const pscr::Problem<T>& p, const std::vector<T>& f) {
  using W = wide_t<T>;
  const auto pw = p.template cast<W>();
  const int N = int(p.unknowns());
  std::vector<W> a(std::size_t(N) * N), e(N, W(0)), col(N);
  for (int j = 0; j < N; ++j) {
    e[j] = 1;
    pw.apply(e.data(), col.data());
    e[j] = 0;
    for (int i = 0; i < N; ++i) a[std::size_t(j) * N + i] = col[i];  // column major
  }
  std::vector<W> b(f.begin(), f.end());
  std::vector<lapack_int> ipiv(N);
  int info;
  if constexpr (pscr::is_complex_v<W>)
    info = LAPACKE_zgesv(LAPACK_COL_MAJOR, N, 1, a.data(), N, ipiv.data(), b.data(), N);
  else
    info = LAPACKE_dgesv(LAPACK_COL_MAJOR, N, 1, a.data(), N, ipiv.data(), b.data(), N);
  if (info != 0) throw std::runtime_error("dense_solve: gesv info " + std::to_string(info));
  return b;
}

template <class T> double eps() { return double(std::numeric_limits<pscr::real_t<T>>::epsilon()); }

// Sizes of the test problems: 2D 9 × 11, 3D 5 × 6 × 7 (each periodic
// dimension at least 3, odd and even lengths).
template <class T> pscr::Problem<T> random_problem(const std::vector<bool>& periodic, std::uint64_t seed) {
  static const int sizes2[] = {9, 11}, sizes3[] = {5, 6, 7};
  const int D = int(periodic.size());
  std::vector<pscr::Factor<T>> f;
  for (int d = 0; d < D; ++d) {
    const int n = D == 2 ? sizes2[d] : sizes3[d];
    f.push_back(periodic[d] ? random_cyclic_factor<T>(n, seed + d, d == 1) : test::random_factor<T>(n, seed + d));
  }
  return pscr::Problem<T>(f, T(0.3));
}

template <class T> void check_subsets(pscr::Backend backend) {
  for (int D : {2, 3})
    for (int mask = 1; mask < (1 << D); ++mask) {
      std::vector<bool> periodic;
      for (int d = 0; d < D; ++d) periodic.push_back(mask >> d & 1);
      const auto p = random_problem<T>(periodic, 100 + mask);
      pscr::Options o;
      o.backend = backend;
      pscr::Plan<T> plan(p, o);
      const auto f = test::random_vector<T>(p.unknowns(), 7 + mask);
      std::vector<T> u(p.unknowns());
      plan.solve(f.data(), u.data());
      const double err = test::rel_error(u, dense_solve(p, f));
      BOOST_TEST_MESSAGE(pscr::scalar_name<T>() << " D=" << D << " periodic mask " << mask << ": error " << err
                                                << " = " << err / eps<T>() << " eps");
      BOOST_TEST(err <= 200 * eps<T>(), "D=" << D << " mask " << mask << ": relative error " << err);
      const auto& methods = plan.info().dimension_methods;
      for (int d = 0; d + 1 < D; ++d)
        if (periodic[d]) BOOST_TEST(methods[d] == "dense products");
      BOOST_TEST((methods.back() == "cyclic lines (eigenbasis)") == bool(periodic[D - 1]));
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(cyclic_pencils_reference) {
  check_subsets<double>(pscr::Backend::reference);
  check_subsets<float>(pscr::Backend::reference);
  check_subsets<std::complex<double>>(pscr::Backend::reference);
  check_subsets<std::complex<float>>(pscr::Backend::reference);
}

BOOST_AUTO_TEST_CASE(cyclic_pencils_opencl) {
  check_subsets<double>(pscr::Backend::opencl);
  check_subsets<float>(pscr::Backend::opencl);
  check_subsets<std::complex<double>>(pscr::Backend::opencl);
  check_subsets<std::complex<float>>(pscr::Backend::opencl);
}
