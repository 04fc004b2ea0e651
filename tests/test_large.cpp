// Larger problems by backward error; batched and in-place solves.
#define BOOST_TEST_MODULE large
#include <boost/test/unit_test.hpp>

#include "support.hpp"

using Z = std::complex<double>;

namespace {
template <class T> double solve_bwd(const pscr::Problem<T>& p, int radix, std::uint64_t seed) {
  pscr::Options o;
  o.radix = radix;
  pscr::Plan<T> plan(p, o);
  const auto f = test::random_vector<T>(p.unknowns(), seed);
  std::vector<T> u(f.size());
  plan.solve(f.data(), u.data());
  return p.backward_error(f.data(), u.data());
}
}  // namespace

BOOST_AUTO_TEST_CASE(poisson_2d_1023) {
  const auto a = pscr::graded_mesh(1025, 1.0, 1.002), b = pscr::graded_mesh(1025, 1.0, 0.998);
  const auto p = pscr::poisson2d(a, b);
  BOOST_TEST(solve_bwd(p, 4, 1) <= 1e-13);
  BOOST_TEST(solve_bwd(p, 2, 2) <= 1e-13);
  BOOST_TEST(solve_bwd(p.cast<float>(), 4, 3) <= 1e-5);
}

BOOST_AUTO_TEST_CASE(helmholtz_2d_1023) {
  const auto a = pscr::graded_mesh(1023, 1.0, 1.001);
  const auto p = pscr::helmholtz2d(a, a, 30.0);
  BOOST_TEST(solve_bwd(p, 4, 4) <= 1e-11);
  BOOST_TEST(solve_bwd(p.cast<std::complex<float>>(), 4, 5) <= 1e-5);
}

BOOST_AUTO_TEST_CASE(poisson_3d_63) {
  const auto a = pscr::graded_mesh(65, 1.0, 1.02);
  const auto p = pscr::poisson3d(a, a, a);
  BOOST_TEST(solve_bwd(p, 4, 6) <= 1e-13);
  BOOST_TEST(solve_bwd(p, 2, 7) <= 1e-13);
  BOOST_TEST(solve_bwd(p.cast<float>(), 4, 8) <= 1e-5);
}

BOOST_AUTO_TEST_CASE(helmholtz_3d_63) {
  const auto a = pscr::graded_mesh(63, 1.0, 1.01);
  const auto p = pscr::helmholtz3d(a, a, a, 12.0);
  BOOST_TEST(solve_bwd(p, 4, 9) <= 1e-11);
}

BOOST_AUTO_TEST_CASE(batched_and_in_place_match_single_solves) {
  const auto a = pscr::graded_mesh(40, 1.0, 1.05), b = pscr::graded_mesh(30, 1.0, 0.97);
  const auto p = pscr::helmholtz2d(a, b, 7.0);
  pscr::Plan<Z> plan(p);
  const std::size_t N = p.unknowns(), count = 3;
  const auto f = test::random_vector<Z>(N * count, 11);
  std::vector<Z> batch(N * count), single(N);
  plan.solve_batch(f.data(), batch.data(), count);
  std::vector<Z> inplace(f);
  plan.solve_batch(inplace.data(), inplace.data(), count);
  for (std::size_t c = 0; c < count; ++c) {
    plan.solve(f.data() + c * N, single.data());
    for (std::size_t i = 0; i < N; ++i) {
      BOOST_TEST(std::abs(single[i] - batch[c * N + i]) == 0.0);
      BOOST_TEST(std::abs(single[i] - inplace[c * N + i]) == 0.0);
    }
    BOOST_TEST(p.backward_error(f.data() + c * N, single.data()) <= 1e-11);
  }
}
