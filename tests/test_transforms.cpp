// Leading dimensions taken by fast sine transforms (KernelParameters::
// transforms, kernels/sine_transform.cl) on the OpenCL backend (PoCL in CI,
// any device through PSCR_DEVICE), against a dense-band direct solve in
// double and the reference executor's PSCR levels.
#define BOOST_TEST_MODULE transforms
#include <boost/test/unit_test.hpp>

#include <boost/mpl/list.hpp>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "pscr/builders.hpp"
#include "pscr/opencl.hpp"
#include "support.hpp"

using Types = boost::mpl::list<float, double, std::complex<float>, std::complex<double>>;

namespace {

template <class T> pscr::Factor<T> dirichlet(int n, double h) {
  return pscr::laplacian_factor(n, h, pscr::Boundary::Dirichlet, pscr::Boundary::Dirichlet).template cast<T>();
}

// Linear elements with the consistent mass matrix on a uniform mesh of n
// interior nodes, Dirichlet ends: A = tridiag(−1, 2, −1)/h, M = h/6 ·
// tridiag(1, 4, 1), Toeplitz to the last bit.
template <class T> pscr::Factor<T> consistent(int n, double h) {
  pscr::Factor<double> f;
  f.A.diag.assign(std::size_t(n), 2 / h);
  f.A.off.assign(std::size_t(n - 1), -1 / h);
  f.M.diag.assign(std::size_t(n), 4 * h / 6);
  f.M.off.assign(std::size_t(n - 1), h / 6);
  return f.template cast<T>();
}

template <class T> double eps() { return double(std::numeric_limits<pscr::real_t<T>>::epsilon()); }

}  // namespace

// Every leading dimension a uniform Dirichlet pencil with n + 1 a power of
// two: the plan takes them by sine transforms (2D and 3D, finite differences
// and consistent elements, c positive, zero or negative), whatever the last
// dimension is (random, graded, Neumann, complex symmetric), and solves as a
// direct solve does; with transforms = 0 the same plan takes the reduction.
BOOST_AUTO_TEST_CASE_TEMPLATE(sine_transform_dimensions, T, Types) {
  std::uint64_t seed = 4100;
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  const auto check = [&](const pscr::Problem<T>& p, const char* what) {
    BOOST_TEST_CONTEXT(what << " T=" << pscr::scalar_name<T>() << " sizes " << p.size(0) << " x " << p.size(1)
                            << (p.dims() == 3 ? " x " + std::to_string(p.size(2)) : std::string())) {
      pscr::Plan<T> plan(p, o);
      std::vector<std::string> want(std::size_t(p.dims() - 1), "sine transform");
      want.push_back("tridiagonal");
      BOOST_TEST(plan.info().dimension_methods == want, boost::test_tools::per_element());
      BOOST_TEST(plan.info().radix == 0);
      const auto f = test::random_vector<T>(p.unknowns() * 2, seed++);
      std::vector<T> u(f.size());
      plan.solve_batch(f.data(), u.data(), 2);
      // the plan's own estimate where its lines are eliminated by the
      // ordinary formulas (complex last factors: n² ε)
      const double tol = std::max(200 * eps<T>(), 4 * plan.info().predicted_error);
      for (int b = 0; b < 2; ++b) {
        const std::vector<T> fb(f.begin() + b * p.unknowns(), f.begin() + (b + 1) * p.unknowns());
        const std::vector<T> ub(u.begin() + b * p.unknowns(), u.begin() + (b + 1) * p.unknowns());
        BOOST_TEST(test::rel_error(ub, test::band_solve(p, fb)) <= tol);
      }
      BOOST_TEST(pscr::opencl::device_bytes(p, o) == plan.info().device_bytes);
    }
  };
  T c0 = T(0);
  for (int n : {3, 7, 15, 63}) check(pscr::Problem<T>::make2d(dirichlet<T>(n, 1.0 / (n + 1)), test::random_factor<T>(37, seed), c0), "2D FD, random last");
  check(pscr::Problem<T>::make2d(consistent<T>(31, 0.5), dirichlet<T>(31, 0.5), T(0.5)), "2D consistent mass, c > 0");
  check(pscr::Problem<T>::make2d(dirichlet<T>(127, 1.0 / 128),
                                 pscr::poisson_factor(pscr::graded_mesh(90, 1.0, 1.04)).template cast<T>(), c0),
        "2D FD by graded");
  // indefinite (c < 0): the lines eliminated by the ordinary formulas, as
  // complex types always are (a program of its own: double only)
  if constexpr (std::is_same_v<T, double>)
    check(pscr::Problem<T>::make2d(dirichlet<T>(15, 1.0),
                                   pscr::laplacian_factor(20, 1.0, pscr::Boundary::Neumann, pscr::Boundary::Neumann)
                                       .template cast<T>(),
                                   T(-0.1)),
          "2D Dirichlet by Neumann, indefinite c");
  check(pscr::Problem<T>::make3d(dirichlet<T>(7, 0.1), dirichlet<T>(15, 0.2), test::random_factor<T>(11, seed + 1), c0),
        "3D FD, random last");
  check(pscr::Problem<T>::make3d(consistent<T>(31, 1.0 / 32), dirichlet<T>(3, 0.25), dirichlet<T>(40, 0.1), T(1)),
        "3D consistent mass, FD");
  check(pscr::Problem<T>::make3d(dirichlet<T>(63, 1.0 / 64), dirichlet<T>(31, 1.0 / 32),
                                 pscr::poisson_factor(pscr::graded_mesh(21, 1.0, 1.2)).template cast<T>(), c0),
        "3D FD by graded");
  if constexpr (std::is_same_v<T, std::complex<double>>) {
    // an absorbing last dimension: complex shifts of the lines
    auto h = pscr::helmholtz_factor(pscr::graded_mesh(41, 1.0, 1.0), 6.0);
    check(pscr::Problem<T>::make2d(dirichlet<T>(31, 1.0 / 32), h, T(0)), "2D Helmholtz, absorbing last");
  }
  // Every sine transform of 64 entries or more split in two halves
  // (KernelParameters::sine_split; the same program), the modes in the
  // split's order in both leading dimensions of 3D.
  {
    pscr::KernelParameters split =
        pscr::Plan<T>(pscr::Problem<T>::make2d(dirichlet<T>(3, 0.25), dirichlet<T>(3, 0.25), c0), o).info().parameters;
    split.sine_split = 1;
    const auto keep = o.parameters;
    o.parameters = split;
    // (c = 1 with h = 1: well conditioned, so that the band solve's own error is small)
    check(pscr::Problem<T>::make2d(dirichlet<T>(127, 1.0), test::random_factor<T>(9, seed), T(1)),
          "sine_split: 2D FD, random last");
    check(pscr::Problem<T>::make3d(dirichlet<T>(63, 1.0), consistent<T>(127, 1.0), test::random_factor<T>(3, seed + 1),
                                   T(1)),
          "sine_split: 3D FD and consistent mass, random last");
    o.parameters = keep;
  }
  // Columns four times as long as a work-group of 64 work-items holds (one
  // more program, real types only): split twice, the even half split again
  // and both odd halves by FFTs of a quarter of their length.
  if constexpr (!pscr::is_complex_v<T>) {
    pscr::KernelParameters small =
        pscr::Plan<T>(pscr::Problem<T>::make2d(dirichlet<T>(3, 0.25), dirichlet<T>(3, 0.25), c0), o).info().parameters;
    small.sine_group = 64;
    const auto keep = o.parameters;
    o.parameters = small;
    const int n = 4 * 64 * int(sizeof(float) == sizeof(T) ? 32 : 16) - 1;  // 64 · sine_elements in halves, four times
    check(pscr::Problem<T>::make2d(dirichlet<T>(n, 1.0), test::random_factor<T>(3, seed), T(1)),
          "two split steps: 2D FD, random last");
    check(pscr::Problem<T>::make3d(dirichlet<T>(n, 1.0), dirichlet<T>(3, 1.0), test::random_factor<T>(2, seed + 1),
                                   T(1)),
          "two split steps: 3D FD first, random last");
    o.parameters = keep;
  }
  // The passes' exchange in halves (real parts, then imaginary parts), each
  // work-item holding twice the entries, on the device's own parameters
  // otherwise: columns twice as long in the same local memory. One more
  // program each, whose kernels PoCL compiles for tens of seconds: double and
  // complex float (both real types; a complex array is transformed as real
  // columns).
  if ((sizeof(pscr::real_t<T>) == sizeof(double)) == pscr::is_complex_v<T>) return;
  const pscr::KernelParameters own =
      pscr::Plan<T>(pscr::Problem<T>::make2d(dirichlet<T>(3, 0.25), dirichlet<T>(3, 0.25), c0), o).info().parameters;
  pscr::KernelParameters halves = own;
  halves.sine_halves = 1;
  o.parameters = halves;
  for (int n : {3, 63}) check(pscr::Problem<T>::make2d(dirichlet<T>(n, 1.0 / (n + 1)), test::random_factor<T>(9, seed), c0), "halves: 2D FD, random last");
  check(pscr::Problem<T>::make3d(dirichlet<T>(31, 0.1), dirichlet<T>(15, 0.2), test::random_factor<T>(5, seed + 1), T(1)),
        "halves: 3D FD, random last");
  // (c = 1 with h = 1: well conditioned, so that the band solve's own error is small)
  check(pscr::Problem<T>::make2d(dirichlet<T>(2047, 1.0), test::random_factor<T>(5, seed + 2), T(1)),
        "halves: 2D long columns");
  // Columns twice as long as a work-group holds in halves (n + 1 = 2 ·
  // sine_group · 16 in double, · 32 in float): split into a butterfly and two
  // transforms of half the length, the modes in the split's order (the lines'
  // shifts follow it); leading in 2D, in the middle of 3D.
  {
    const int per_item = sizeof(pscr::real_t<T>) == sizeof(double) ? 16 : 32;  // complex entries in halves
    const int n = 2 * own.sine_group * per_item - 1;
    check(pscr::Problem<T>::make2d(dirichlet<T>(n, 1.0), test::random_factor<T>(5, seed + 4), T(1)),
          "split: 2D columns twice a work-group's");
    check(pscr::Problem<T>::make3d(dirichlet<T>(n, 1.0), dirichlet<T>(3, 0.25), test::random_factor<T>(4, seed + 5),
                                   T(1)),
          "split: 3D, dimension 1 twice a work-group's");
    // in the middle, a batch of columns per row of dimension 1 (too wide a
    // band for the direct solve: against the reference backend's reduction)
    const auto p = pscr::Problem<T>::make3d(dirichlet<T>(3, 0.25), dirichlet<T>(n, 1.0),
                                            test::random_factor<T>(4, seed + 6), T(1));
    pscr::Plan<T> plan(p, o);
    BOOST_TEST(plan.info().dimension_methods[1] == "sine transform");
    pscr::Options ref;
    ref.backend = pscr::Backend::reference;
    const auto f = test::random_vector<T>(p.unknowns(), seed + 7);
    std::vector<T> u(f.size()), v(f.size());
    plan.solve(f.data(), u.data());
    pscr::Plan<T>(p, ref).solve(f.data(), v.data());
    BOOST_TEST(test::rel_error(u, v) <= 200 * eps<T>());
  }
  // a column longer than sine_group · 8 (16) complex entries takes the
  // halves on the device's own parameters (the program above)
  if constexpr (std::is_same_v<T, double>) {
    o.parameters = own;  // sine_halves = 0: the plan takes them
    const int n = 16 * own.sine_group - 1;
    check(pscr::Problem<T>::make2d(dirichlet<T>(n, 1.0), test::random_factor<T>(5, seed + 3), T(1)),
          "halves taken: 2D columns of 16 entries per work-item");
    BOOST_TEST(pscr::Plan<T>(pscr::Problem<T>::make2d(dirichlet<T>(n, 1.0), test::random_factor<T>(3, seed), T(1)), o)
                   .info()
                   .parameters.sine_halves == 1);
  }
}

// Where a leading dimension is not a uniform Dirichlet pencil of n + 1 a
// power of two, the plan keeps the reduction in every leading dimension.
// The default parameters on every device: a tuned device's entries take some
// of those dimensions by dense products instead (the H100's, and an H200's by
// architecture), which is not what this test is about.
BOOST_AUTO_TEST_CASE(transforms_only_where_they_apply) {
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.parameters = pscr::KernelParameters{};
  const auto lead = [&](const pscr::Problem<double>& p) {
    return pscr::Plan<double>(p, o).info().dimension_methods[0];
  };
  const auto d = [](int n) { return dirichlet<double>(n, 1.0 / (n + 1)); };
  const auto nn = pscr::laplacian_factor(15, 1.0, pscr::Boundary::Neumann, pscr::Boundary::Neumann);
  BOOST_TEST(lead(pscr::Problem<double>::make2d(d(15), d(20), 0.0)) == "sine transform");
  BOOST_TEST(lead(pscr::Problem<double>::make2d(d(14), d(20), 0.0)) == "reduction");  // 15 not a power of two
  BOOST_TEST(lead(pscr::Problem<double>::make2d(nn, d(20), 0.0)) == "reduction");     // Neumann ends
  BOOST_TEST(lead(pscr::Problem<double>::make2d(test::random_factor<double>(15, 3), d(20), 0.0)) == "reduction");
  BOOST_TEST(lead(pscr::Problem<double>::make3d(d(15), nn, d(20), 0.0)) == "reduction");  // dimension 2 is not
  pscr::Options shifts = o;
  shifts.shifts = 2;
  BOOST_TEST(pscr::Plan<double>(pscr::Problem<double>::make2d(d(15), d(20), 0.0), shifts).info().dimension_methods[0] ==
             "reduction");
  pscr::Options ref;
  BOOST_TEST(pscr::Plan<double>(pscr::Problem<double>::make2d(d(15), d(20), 0.0), ref).info().dimension_methods[0] ==
             "reduction");
}

// Lines longer than the whole-line solver takes (here line_rows = 0: global
// CR) are solved stored [row][line]: the transformed plan transposes them
// (a complex scalar: the transpose moves scalars whole).
BOOST_AUTO_TEST_CASE(transformed_lines_by_global_cr) {
  using T = std::complex<float>;
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.parameters = pscr::KernelParameters{};
  o.parameters->line_rows = 0;
  const auto p = pscr::Problem<T>::make3d(dirichlet<T>(15, 0.1), dirichlet<T>(7, 0.3), test::random_factor<T>(45, 17), T(0));
  pscr::Plan<T> plan(p, o);
  BOOST_TEST(plan.info().line_solver == "global CR");
  BOOST_TEST(plan.info().dimension_methods[0] == "sine transform");
  const auto f = test::random_vector<T>(p.unknowns(), 5);
  std::vector<T> u(f.size());
  plan.solve(f.data(), u.data());
  BOOST_TEST(test::rel_error(u, test::band_solve(p, f)) <= 200 * eps<T>());
}

// set_parameters moves a plan between the transforms and the reduction.
BOOST_AUTO_TEST_CASE(transforms_set_parameters) {
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  const auto p = pscr::Problem<double>::make2d(dirichlet<double>(31, 0.1), test::random_factor<double>(20, 2), 0.0);
  pscr::Plan<double> plan(p, o);
  const auto f = test::random_vector<double>(p.unknowns(), 8);
  std::vector<double> u(f.size()), v(f.size());
  plan.solve(f.data(), u.data());
  BOOST_TEST(plan.info().dimension_methods[0] == "sine transform");
  auto kp = plan.info().parameters;
  kp.transforms = 0;
  plan.set_parameters(kp);
  BOOST_TEST(plan.info().dimension_methods[0] == "reduction");
  BOOST_TEST(plan.info().radix > 0);
  plan.solve(f.data(), v.data());
  BOOST_TEST(test::rel_error(u, v) <= 1e-13);
  kp.transforms = 1;
  plan.set_parameters(kp);
  BOOST_TEST(plan.info().dimension_methods[0] == "sine transform");
  plan.solve(f.data(), v.data());
  BOOST_TEST(test::rel_error(u, v) <= 1e-15);
}

// A transformed plan's last transform flags non-finite values as it writes
// the solution (no scan of its own): a NaN right-hand side in a device
// buffer is reported by a checked solve, not by an unchecked one, and a
// clean solve after it reports nothing.
BOOST_AUTO_TEST_CASE(transformed_device_solves_report_nonfinite) {
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  const auto p = pscr::Problem<double>::make3d(dirichlet<double>(7, 0.1), dirichlet<double>(15, 0.2),
                                               test::random_factor<double>(9, 4), 0.0);
  pscr::Plan<double> plan(p, o);
  BOOST_TEST(plan.info().dimension_methods[1] == "sine transform");
  const std::size_t N = p.unknowns();
  const auto f = test::random_vector<double>(N, 12);
  std::vector<double> bad(f), u(N);
  bad[N / 3] = std::nan("");
  cl_int st;
  cl_command_queue q = pscr::opencl::queue(plan);
  cl_mem buf = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_WRITE, N * sizeof(double), nullptr, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, N * sizeof(double), bad.data(), 0, nullptr, nullptr);
  BOOST_CHECK_NO_THROW(pscr::opencl::solve(plan, buf, 1, false));
  clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, N * sizeof(double), bad.data(), 0, nullptr, nullptr);
  BOOST_CHECK_THROW(pscr::opencl::solve(plan, buf, 1, true), pscr::NumericalBreakdown);
  clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, N * sizeof(double), f.data(), 0, nullptr, nullptr);
  BOOST_CHECK_NO_THROW(pscr::opencl::solve(plan, buf, 1, true));
  clEnqueueReadBuffer(q, buf, CL_TRUE, 0, N * sizeof(double), u.data(), 0, nullptr, nullptr);
  BOOST_TEST(test::rel_error(u, test::band_solve(p, f)) <= 1e-13);
  clReleaseMemObject(buf);
}
