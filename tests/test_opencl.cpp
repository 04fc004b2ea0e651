// The OpenCL backend against the reference executor (PoCL in CI, any device
// through PSCR_DEVICE): every scalar type × 2D/3D × radix over awkward sizes.
#define BOOST_TEST_MODULE opencl
#include <boost/test/unit_test.hpp>
#include <boost/mpl/list.hpp>

#include "support.hpp"

using Types = boost::mpl::list<float, double, std::complex<float>, std::complex<double>>;

namespace {

template <class T> void compare(const pscr::Problem<T>& p, int radix, std::uint64_t seed) {
  pscr::Options o;
  o.radix = radix;
  pscr::Plan<T> ref(p, o);
  o.backend = pscr::Backend::opencl;
  pscr::Plan<T> ocl(p, o);
  const auto f = test::random_vector<T>(p.unknowns() * 2, seed);
  std::vector<T> u(f.size()), v(f.size());
  ref.solve_batch(f.data(), u.data(), 2);
  const auto st = ocl.solve_batch(f.data(), v.data(), 2);
  const double tol = std::is_same_v<pscr::real_t<T>, double> ? 1e-12 : 1e-4;
  BOOST_TEST_CONTEXT("T=" << pscr::scalar_name<T>() << " q=" << radix << " N=" << p.unknowns() << " on "
                          << ocl.info().backend) {
    BOOST_TEST(test::rel_error(v, u) <= tol);
    BOOST_TEST(st.transfer_seconds > 0.0);
    BOOST_TEST(ocl.info().device_bytes > 0u);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(against_reference, T, Types) {
  std::uint64_t seed = 1;
  for (int q : {2, 4}) {
    for (auto n : std::vector<std::vector<int>>{{1, 1}, {2, 3}, {q * q - 1, 5}, {q * q, 9}, {17, 4}, {37, 11},
                                                {3, 1, 2}, {q * q + 1, 6, 5}, {17, 5, 3}}) {
      std::vector<pscr::Factor<T>> fs;
      for (std::size_t d = 0; d < n.size(); ++d) fs.push_back(test::random_factor<T>(n[d], seed + d, d % 2 == 1));
      T c = T(0.25);
      if constexpr (pscr::is_complex_v<T>) c = T(-0.3, 0.1);
      compare(pscr::Problem<T>(fs, c), q, seed++);
    }
  }
}

BOOST_AUTO_TEST_CASE(helmholtz_and_neumann) {
  const auto a = pscr::graded_mesh(70, 1.0, 1.01), b = pscr::graded_mesh(33, 1.0, 0.98);
  compare(pscr::helmholtz2d(a, b, 20.0), 4, 7);
  compare(pscr::helmholtz3d(b, pscr::graded_mesh(9, 1.0, 1.0), b, 5.0), 4, 8);
  const auto nn = [](int n) { return pscr::laplacian_factor(n, 1.0, pscr::Boundary::Neumann, pscr::Boundary::Neumann); };
  compare(pscr::Problem<double>::make2d(nn(37), nn(20), 0.0), 4, 9);
  compare(pscr::Problem<double>::make3d(nn(17), nn(6), nn(9), 0.0), 2, 10);
}

BOOST_AUTO_TEST_CASE(device_selection_errors) {
  const auto p = pscr::poisson2d(pscr::graded_mesh(9, 1.0, 1.0), pscr::graded_mesh(7, 1.0, 1.0));
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.device = "no-such-device-anywhere";
  BOOST_CHECK_EXCEPTION(pscr::Plan<double>(p, o), pscr::BackendError,
                        [](auto& e) { return std::string(e.what()).find("available:") != std::string::npos; });
  o.device = "99:99";
  BOOST_CHECK_THROW(pscr::Plan<double>(p, o), pscr::BackendError);
}
