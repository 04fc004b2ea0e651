// Dimension 1 of 3D plans in one level (KernelParameters::dense_top,
// kernels/dense.cl) on the OpenCL backend (PoCL in CI, any device through
// PSCR_DEVICE), against the reference executor's PSCR levels and separate
// plans. Its own program: test_opencl fills its CTest time limit on a
// 2-core machine.
#define BOOST_TEST_MODULE dense_top
#include <boost/test/unit_test.hpp>

#include <boost/mpl/list.hpp>
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "pscr/opencl.hpp"
#include "support.hpp"

using Types = boost::mpl::list<float, double, std::complex<float>, std::complex<double>>;

// The first k leading dimensions in one level (KernelParameters::dense_top =
// k): their whole eigenvector bases applied by dense products
// (kernels/dense.cl, tiles of 64 by 64: n1 = 70 and 130 cut them, 1 and 3
// fill none), the lines of the last dimension below a dense one solved in
// place (stored [row][line], or [line][row] in 2D) or, halved, transposed to
// the line solver, against the reference executor's
// PSCR levels, for every scalar type, pure Neumann and Helmholtz; a
// dimension longer than the product of the others (n_d² > N: the basis
// would outgrow the data) keeps the levels, and so do those after it.
BOOST_AUTO_TEST_CASE_TEMPLATE(dense_top_dimension, T, Types) {
  for (int k : {1, 2}) {
  std::uint64_t seed = 900;
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.parameters = pscr::KernelParameters{};
  o.parameters->dense_top = k;
  const auto check = [&](const pscr::Problem<T>& p, const char* what) {
    pscr::Options r;
    r.radix = 4;
    pscr::Plan<T> ref(p, r);
    pscr::Plan<T> ocl(p, o);
    const auto f = test::random_vector<T>(p.unknowns() * 2, seed++);
    std::vector<T> u(f.size()), v(f.size());
    ref.solve_batch(f.data(), u.data(), 2);
    ocl.solve_batch(f.data(), v.data(), 2);
    const double tol = std::is_same_v<pscr::real_t<T>, double> ? 1e-12 : 1e-4;
    BOOST_TEST_CONTEXT(what << " T=" << pscr::scalar_name<T>() << " N=" << p.unknowns() << " dense_top " << k) {
      int dense = 0;
      while (dense < std::min(k, p.dims() - 1) && p.size(dense) * p.size(dense) <= p.unknowns()) ++dense;
      BOOST_TEST(ocl.info().parameters.dense_top == dense);
      for (int d = 0; d + 1 < p.dims(); ++d)
        BOOST_TEST((ocl.info().dimension_methods[d] == "dense products") == (d < dense));
      BOOST_TEST(test::rel_error(v, u) <= tol);
      // what the plan needs, stated before planning, is what it takes
      BOOST_TEST(pscr::opencl::device_bytes(p, o) == ocl.info().device_bytes);
    }
  };
  for (auto n : std::vector<std::vector<int>>{{70, 8, 9}, {130, 11, 12}, {3, 17, 6}, {1, 2, 3}, {40, 21}, {21, 40}, {41, 5, 8}}) {
    std::vector<pscr::Factor<T>> fs;
    for (std::size_t d = 0; d < n.size(); ++d) fs.push_back(test::random_factor<T>(n[d], seed + d, d % 2 == 1));
    T c = T(0.25);
    if constexpr (pscr::is_complex_v<T>) c = T(-0.3, 0.1);
    check(pscr::Problem<T>(fs, c), "random");
  }
  if constexpr (std::is_same_v<T, double>) {
    const auto nn = [](int n) { return pscr::laplacian_factor(n, 1.0, pscr::Boundary::Neumann, pscr::Boundary::Neumann); };
    check(pscr::Problem<double>::make3d(nn(54), nn(6), nn(9), 0.0), "pure Neumann");
  }
  if constexpr (std::is_same_v<T, std::complex<double>>) {
    const auto b = pscr::graded_mesh(33, 1.0, 0.98);
    check(pscr::helmholtz3d(pscr::graded_mesh(80, 1.0, 1.01), pscr::graded_mesh(9, 1.0, 1.0), b, 5.0), "Helmholtz");
  }
  // lines past local memory (global CR, [row][line]) below a dense dimension
  check(pscr::Problem<T>::make2d(test::random_factor<T>(9, seed), test::random_factor<T>(5000, seed + 1), T(0.5)),
        "2D long lines");
  // halved lines (halve_lines = 2) below a dense dimension: in 3D transposed
  // to the line solver and back, in 2D the products' own layout
  o.parameters->halve_lines = 2;
  check(pscr::Problem<T>::make3d(test::random_factor<T>(41, seed), test::random_factor<T>(5, seed + 1, true),
                                 test::random_factor<T>(8, seed + 2), T(0.25)),
        "halved lines");
  check(pscr::Problem<T>::make2d(test::random_factor<T>(40, seed), test::random_factor<T>(21, seed + 1), T(0.25)),
        "2D halved lines");
  }
}

// set_parameters moves a 3D plan between PSCR levels and the dense dimension
// 1 (another plan: rebuilt), and shifted problems in one solve take it too
// (the dense products then run over a batch of right-hand sides interleaved).
BOOST_AUTO_TEST_CASE(dense_top_set_and_shifts) {
  const auto fa = pscr::poisson_factor(pscr::graded_mesh(68, 1.0, 1.03));
  const auto fb = pscr::poisson_neumann_factor(pscr::graded_mesh(12, 2.0, 1.0));
  const auto fc = pscr::laplacian_factor(9, 0.1, pscr::Boundary::Dirichlet, pscr::Boundary::Neumann);
  const double c = 0.25;
  const auto p = pscr::Problem<double>::make3d(fa, fb, fc, c);
  const std::size_t N = p.unknowns();
  const auto f = test::random_vector<double>(3 * N, 11);
  std::vector<double> u(N), v(N);
  pscr::Plan<double>(p).solve(f.data(), u.data());
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.shifts = 3;
  pscr::Plan<double> plan(p, o);
  pscr::KernelParameters kp = plan.info().parameters;
  for (int dense : {1, 0, 1}) {
    kp.dense_top = dense;
    plan.set_parameters(kp);
    BOOST_TEST(plan.info().parameters.dense_top == dense);
    plan.solve(f.data(), v.data());
    BOOST_TEST(test::rel_error(v, u) <= 1e-12);
  }
  const std::vector<double> shifts{c, 3.0, 40.5};
  const std::size_t K = shifts.size();
  std::vector<double> mixed(K * N);
  for (std::size_t b = 0; b < K; ++b)
    for (std::size_t i = 0; i < N; ++i) mixed[i * K + b] = f[b * N + i];
  cl_int st;
  cl_mem buf = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_WRITE, K * N * sizeof(double), nullptr, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  cl_command_queue q = pscr::opencl::queue(plan);
  clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, K * N * sizeof(double), mixed.data(), 0, nullptr, nullptr);
  cl_event done = pscr::opencl::solve_shifts_async(plan, buf, shifts);
  BOOST_REQUIRE(done != nullptr);
  BOOST_TEST(clWaitForEvents(1, &done) == CL_SUCCESS);
  clReleaseEvent(done);
  clEnqueueReadBuffer(q, buf, CL_TRUE, 0, K * N * sizeof(double), mixed.data(), 0, nullptr, nullptr);
  clReleaseMemObject(buf);
  for (std::size_t b = 0; b < K; ++b) {
    std::vector<double> ref(N), got(N);
    pscr::Plan<double>(pscr::Problem<double>::make3d(fa, fb, fc, shifts[b])).solve(f.data() + b * N, ref.data());
    for (std::size_t i = 0; i < N; ++i) got[i] = mixed[i * K + b];
    BOOST_TEST_CONTEXT("shift " << shifts[b]) { BOOST_TEST(test::rel_error(got, ref) <= 1e-12); }
  }
}

// A dense top dimension writes the solution by dense products, which flag a
// non-finite value as they write it (kernels/dense.cl, watch) instead of a
// scan of the solution: a finite right-hand side whose solution overflows is
// refused on the host path and on the checked device path, an unchecked
// device solve returns, a NaN in a device buffer is refused, and the next
// solve is clean. Both precisions, 2D and 3D, one and two dense dimensions.
template <class T> void overflow_is_flagged(int dims, int dense) {
  using R = pscr::real_t<T>;
  const auto f1 = pscr::poisson_factor(pscr::graded_mesh(40, 1.0, 1.05));
  const auto f2 = pscr::poisson_factor(pscr::graded_mesh(dims == 2 ? 60 : 12, 1.0, 0.97));
  const auto f3 = pscr::poisson_factor(pscr::graded_mesh(9, 1.0, 1.0));
  const auto p = (dims == 2 ? pscr::Problem<double>::make2d(f1, f2, 0.0)
                            : pscr::Problem<double>::make3d(f1, f2, f3, 0.0)).template cast<T>();
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.parameters = pscr::KernelParameters{};
  o.parameters->dense_top = dense;
  pscr::Plan<T> plan(p, o);
  const auto methods = plan.info().dimension_methods;
  BOOST_REQUIRE(!methods.empty());
  BOOST_TEST(methods[0].rfind("dense products", 0) == 0, "dimension 0: " << methods[0]);
  const std::size_t N = p.unknowns();
  // a constant right-hand side g grows to a solution of size `gain`·g
  // (the operator's small eigenvalues, no shift): g = 8·max / gain overflows
  std::vector<T> u(N);
  pscr::Plan<T>(p).solve(std::vector<T>(N, T(1)).data(), u.data());
  double gain = 0;
  for (const T& x : u) gain = std::max(gain, double(std::abs(x)));
  BOOST_REQUIRE(gain > 64);
  const std::vector<T> big(N, T(R(double(std::numeric_limits<R>::max()) / gain * 8)));
  BOOST_CHECK_THROW(plan.solve(big.data(), u.data()), pscr::NumericalBreakdown);
  cl_int st;
  cl_mem buf = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_WRITE, N * sizeof(T), nullptr, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  cl_command_queue q = pscr::opencl::queue(plan);
  clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, N * sizeof(T), big.data(), 0, nullptr, nullptr);
  BOOST_CHECK_THROW(pscr::opencl::solve(plan, buf, 1, true), pscr::NumericalBreakdown);
  clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, N * sizeof(T), big.data(), 0, nullptr, nullptr);
  BOOST_CHECK_NO_THROW(pscr::opencl::solve(plan, buf, 1, false));
  std::vector<T> nan_rhs = test::random_vector<T>(N, 3);
  nan_rhs[N / 3] = T(std::numeric_limits<R>::quiet_NaN());
  clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, N * sizeof(T), nan_rhs.data(), 0, nullptr, nullptr);
  BOOST_CHECK_THROW(pscr::opencl::solve(plan, buf, 1, true), pscr::NumericalBreakdown);
  // then a clean solve, on both paths, against the reference backend
  const auto f = test::random_vector<T>(N, 4);
  std::vector<T> ref(N), v(N);
  pscr::Plan<T>(p).solve(f.data(), ref.data());
  plan.solve(f.data(), u.data());
  clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, N * sizeof(T), f.data(), 0, nullptr, nullptr);
  BOOST_CHECK_NO_THROW(pscr::opencl::solve(plan, buf, 1, true));
  clEnqueueReadBuffer(q, buf, CL_TRUE, 0, N * sizeof(T), v.data(), 0, nullptr, nullptr);
  clReleaseMemObject(buf);
  const double tol = 1e4 * std::numeric_limits<R>::epsilon();
  BOOST_TEST(test::rel_error(u, ref) <= tol);
  BOOST_TEST(test::rel_error(v, ref) <= tol);
}

BOOST_AUTO_TEST_CASE(dense_products_flag_a_nonfinite_solution) {
  for (int dims : {2, 3})
    for (int dense = 1; dense < dims; ++dense) {
      BOOST_TEST_CONTEXT(dims << "D, dense_top " << dense) {
        overflow_is_flagged<float>(dims, dense);
        overflow_is_flagged<double>(dims, dense);
      }
    }
}

// The lines below a dense top dimension with a non-uniform last factor take
// line_solve_pivots (kernels/line_solve.cl), whose back substitution
// recomputes each run of LINE_CHECKPOINT rows' pivots from a checkpoint:
// chunks of 1, 3, 8 and 32 rows and line lengths that leave short and
// partial runs (6 to 257 rows, 1 to 256 work-items per line); float and
// double (the excess form) and complex double (the ordinary formulas),
// against LAPACK's band solve in double: within 10× the reference backend's
// error in the same precision, or the plan's predicted error.
template <class T> void pivots_case(int n, int line_rows) {
  using R = pscr::real_t<T>;
  const auto lines = pscr::poisson_factor(pscr::graded_mesh(n + 2, 1.0, std::pow(50.0, 1.0 / (n + 1))));
  const auto p = pscr::Problem<double>::make2d(pscr::poisson_factor(pscr::graded_mesh(8, 1.0, 1.04)), lines, 0.3)
                     .template cast<T>();
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.parameters = pscr::KernelParameters{};
  o.parameters->dense_top = 1;
  o.parameters->line_rows = line_rows;
  pscr::Plan<T> plan(p, o);
  plan.set_profiling(true);
  const auto f = test::random_vector<T>(p.unknowns(), 31);
  std::vector<T> u(f.size()), v(f.size());
  plan.solve(f.data(), u.data());
  bool pivots = false;
  for (const auto& k : plan.kernel_times()) pivots |= k.kernel == "line_solve_pivots";
  BOOST_TEST(pivots, "line_solve_pivots not taken");
  pscr::Plan<T>(p).solve(f.data(), v.data());
  const auto exact = test::band_solve(p, f);
  const double eps = std::numeric_limits<R>::epsilon();
  const double bound = 10 * std::max({test::rel_error(v, exact), 10 * eps, plan.info().predicted_error});
  BOOST_TEST(test::rel_error(u, exact) <= bound);
}

BOOST_AUTO_TEST_CASE(line_solve_pivots_runs) {
  for (int line_rows : {1, 3, 8, 32})
    for (int n : {6, 7, 13, 67, line_rows == 1 ? 130 : 257})  // a line within 48 KB of local memory (GPUs)
      BOOST_TEST_CONTEXT("n = " << n << ", line_rows = " << line_rows) {
        pivots_case<float>(n, line_rows);
        pivots_case<double>(n, line_rows);
        pivots_case<std::complex<double>>(n, line_rows);
      }
}
