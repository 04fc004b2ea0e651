// Periodic dimensions (cyclic factor pencils): every subset of dimensions
// periodic, every scalar type, both backends, against a dense direct solve
// of the assembled operator; the all-periodic pure-Neumann case; the
// builders; bad input.
#define BOOST_TEST_MODULE periodic
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numeric>
#include <thread>

#include "pscr/distributed.hpp"
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
      const bool eigenbasis = methods.back().find("(eigenbasis)") != std::string::npos;
      BOOST_TEST((plan.info().line_solver == "eigenbasis") == eigenbasis);
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

namespace {

// M_d 1 with the corner entries (the weights of the zero weighted mean).
std::vector<double> mass_row_sums(const pscr::Factor<double>& f) {
  const std::size_t n = f.size();
  std::vector<double> r(n);
  for (std::size_t i = 0; i < n; ++i) {
    r[i] = f.M.diag[i] + (i ? f.M.off[i - 1] : 0) + (i + 1 < n ? f.M.off[i] : 0);
    if (f.periodic() && (i == 0 || i + 1 == n)) r[i] += f.M.off[n - 1];
  }
  return r;
}

// The singular all-periodic (or periodic and Neumann) problem with c = 0:
// the compatible part solved, the incompatible part reported, the solution
// of zero weighted mean, in the precision T.
template <class T> void check_pure_neumann(const pscr::Problem<double>& pd, pscr::Backend backend) {
  std::vector<pscr::Factor<T>> fs;
  for (auto& f : pd.factors()) fs.push_back(f.template cast<T>());
  const pscr::Problem<T> p(fs, T(0));
  pscr::Options o;
  o.backend = backend;
  pscr::Plan<T> plan(p, o);
  BOOST_TEST(plan.info().pure_neumann);
  const std::size_t N = p.unknowns();
  std::vector<double> w{1.0};
  for (auto& fa : pd.factors()) {
    std::vector<double> next;
    for (double a : w)
      for (double r : mass_row_sums(fa)) next.push_back(a * r);
    w.swap(next);
  }
  // f = A u* + 0.3: compatible part A u* (A is symmetric: its range is
  // orthogonal to the constants), incompatible part the constant
  const auto ustar = test::random_vector<double>(N, 5 + N);
  std::vector<double> fc(N), f(N);
  pd.apply(ustar.data(), fc.data());
  for (std::size_t i = 0; i < N; ++i) f[i] = fc[i] + 0.3;
  std::vector<T> ft(f.begin(), f.end()), u(N);
  const auto st = plan.solve(ft.data(), u.data());
  BOOST_TEST(st.incompatible_part > 0.01);
  // the answer: u* less its weighted mean
  double wm = 0, ws = 0;
  for (std::size_t i = 0; i < N; ++i) { wm += w[i] * ustar[i]; ws += w[i]; }
  std::vector<double> ref(N);
  for (std::size_t i = 0; i < N; ++i) ref[i] = ustar[i] - wm / ws;
  const double err = test::rel_error(u, ref);
  // the operator's condition (without its null space) over ε: the Laplacian's n²
  double n2 = 0;
  for (auto& fa : pd.factors()) n2 = std::max(n2, double(fa.size() * fa.size()));
  BOOST_TEST_MESSAGE(pscr::scalar_name<T>() << " pure Neumann " << N << " unknowns: error " << err << " = "
                                            << err / (n2 * eps<T>()) << " n^2 eps");
  BOOST_TEST(err <= n2 * eps<T>());
  wide_t<T> um = 0;
  double umax = 0;
  for (std::size_t i = 0; i < N; ++i) { um += w[i] * wide_t<T>(u[i]); umax = std::max(umax, double(std::abs(u[i]))); }
  BOOST_TEST(std::abs(um / ws) <= 50 * eps<T>() * umax);
}

std::vector<pscr::Problem<double>> pure_neumann_problems() {
  const auto periodic = [](int n, double ratio) {
    return pscr::poisson_periodic_factor(pscr::graded_mesh(n + 1, 2.0, ratio));
  };
  return {
      // doubly periodic, uniform finite differences and graded elements
      pscr::Problem<double>::make2d(pscr::laplacian_factor(16, 0.5, Boundary::Periodic, Boundary::Periodic),
                                    pscr::laplacian_factor(13, 0.25, Boundary::Periodic, Boundary::Periodic), 0.0),
      pscr::Problem<double>::make2d(periodic(12, 1.1), periodic(15, 0.9), 0.0),
      // triply periodic
      pscr::Problem<double>::make3d(periodic(6, 1.0), periodic(8, 1.2), periodic(7, 1.0), 0.0),
      // a channel: periodic x and z, walls in y (Neumann, graded towards them), y last
      pscr::Problem<double>::make3d(periodic(8, 1.0), periodic(6, 1.0),
                                    pscr::poisson_neumann_factor(pscr::graded_mesh(9, 2.0, 1.3)), 0.0),
      // periodic y last, Neumann x before it
      pscr::Problem<double>::make2d(pscr::poisson_neumann_factor(pscr::graded_mesh(10, 1.0, 1.2)), periodic(9, 1.0),
                                    0.0),
  };
}

}  // namespace

BOOST_AUTO_TEST_CASE(pure_neumann_periodic) {
  for (const auto& p : pure_neumann_problems())
    for (auto backend : {pscr::Backend::reference, pscr::Backend::opencl}) {
      check_pure_neumann<double>(p, backend);
      check_pure_neumann<float>(p, backend);
      check_pure_neumann<std::complex<double>>(p, backend);
    }
}

BOOST_AUTO_TEST_CASE(periodic_builders) {
  // uniform points: poisson_periodic_factor is the laplacian_factor scaled by h (lumped mass h)
  const int n = 10;
  const double h = 0.3;
  std::vector<double> x(n + 1);
  for (int i = 0; i <= n; ++i) x[i] = 1.0 + h * i;
  const auto fe = pscr::poisson_periodic_factor(x);
  const auto fd = pscr::laplacian_factor(n, h, Boundary::Periodic, Boundary::Periodic);
  BOOST_TEST(fe.periodic());
  BOOST_TEST(fd.periodic());
  for (int i = 0; i < n; ++i) {
    BOOST_TEST(std::abs(fe.A.diag[i] - h * fd.A.diag[i]) <= 1e-12 * fd.A.diag[i] * h);
    BOOST_TEST(std::abs(fe.A.off[i] - h * fd.A.off[i]) <= 1e-12 * std::abs(fd.A.off[i]) * h);
    BOOST_TEST(std::abs(fe.M.diag[i] - h) <= 1e-12 * h);
  }
  // zero row sums with the corner: the constants are the null space
  std::vector<double> one(n, 1.0), y(n);
  fe.A.multiply(one.data(), y.data());
  for (double v : y) BOOST_TEST(std::abs(v) <= 1e-12 / h);
}

BOOST_AUTO_TEST_CASE(periodic_bad_input) {
  auto f3 = pscr::laplacian_factor(3, 1.0, Boundary::Periodic, Boundary::Periodic);
  auto d5 = pscr::laplacian_factor(5, 1.0, Boundary::Dirichlet, Boundary::Dirichlet);
  // size 2 (and 1): the corner would fall on the off-diagonal
  pscr::Factor<double> f2{{{2.0, 2.0}, {-1.0, -1.0}}, {{1.0, 1.0}, {0.0, 0.0}}};
  BOOST_CHECK_THROW(pscr::Problem<double>::make2d(f2, d5, 1.0), pscr::InvalidArgument);
  pscr::Factor<double> f1{{{2.0}, {-1.0}}, {{1.0}, {0.0}}};
  BOOST_CHECK_THROW(pscr::Problem<double>::make2d(f1, d5, 1.0), pscr::InvalidArgument);
  BOOST_CHECK_THROW(pscr::laplacian_factor(2, 1.0, Boundary::Periodic, Boundary::Periodic), pscr::InvalidArgument);
  // one side periodic
  BOOST_CHECK_THROW(pscr::laplacian_factor(8, 1.0, Boundary::Periodic, Boundary::Neumann), pscr::InvalidArgument);
  // M cyclic, A not
  auto bad = d5;
  bad.M.off.push_back(0.1);
  BOOST_CHECK_THROW(pscr::Problem<double>::make2d(bad, f3, 1.0), pscr::InvalidArgument);
  // a periodic M with A not cyclic names both
  try {
    pscr::Problem<double>::make2d(bad, f3, 1.0);
  } catch (const pscr::InvalidArgument& e) {
    BOOST_TEST(std::string(e.what()).find("M1 is periodic") != std::string::npos);
  }
  // a lumped M may leave out its corner: it is 0
  auto lumped = pscr::laplacian_factor(6, 1.0, Boundary::Periodic, Boundary::Periodic);
  lumped.M.off.pop_back();
  const auto p = pscr::Problem<double>::make2d(lumped, d5, 1.0);
  BOOST_TEST(p.factor(0).M.off.size() == 6u);
  // a singular periodic operator other than the constants' null space:
  // c = -(λ_1 + ν_0) with λ_1 = 2 − 2 cos(2π/8) of the 8-periodic Laplacian
  // and ν_0 = 0 of the periodic one
  const auto p8 = pscr::laplacian_factor(8, 1.0, Boundary::Periodic, Boundary::Periodic);
  const auto p6 = pscr::laplacian_factor(6, 1.0, Boundary::Periodic, Boundary::Periodic);
  const double lambda1 = 2 - 2 * std::cos(2 * M_PI / 8);
  for (auto backend : {pscr::Backend::reference, pscr::Backend::opencl}) {
    pscr::Options o;
    o.backend = backend;
    BOOST_CHECK_THROW(pscr::Plan<double>(pscr::Problem<double>::make2d(p8, p6, -lambda1), o), pscr::SingularPencil);
  }
}

namespace {

// A row split over `devices` copies of the first device: dimension 1 (dense:
// periodic, or before a periodic one) is one level whose modes the devices
// share, each summing its part of the solution; the result against the
// one-device plan's.
template <class T> void check_row_split(const pscr::Problem<T>& p, int devices, double tol, const char* what) {
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  pscr::Plan<T> one(p, o);
  o.devices.assign(std::size_t(devices), "0:0");
  o.device_split = pscr::DeviceSplit::rows;
  pscr::Plan<T> split(p, o);
  BOOST_TEST(split.info().dimension_methods[0] == "dense products");
  const auto f = test::random_vector<T>(p.unknowns() * 2, 5);
  std::vector<T> u1(f.size()), us(f.size());
  one.solve_batch(f.data(), u1.data(), 2);
  split.solve_batch(f.data(), us.data(), 2);
  const double err = test::rel_error(us, u1);
  BOOST_TEST_MESSAGE(what << " over " << devices << " devices: " << err << " from one device's");
  BOOST_TEST(err <= tol, what << " over " << devices << " devices: relative difference " << err);
}

}  // namespace

BOOST_AUTO_TEST_CASE(periodic_split_over_devices) {
  // every periodic subset in 2D and 3D, even and uneven splits (3 devices
  // over 9 or 5 rows; 4 over 5 leaves a device few modes)
  for (int D : {2, 3})
    for (int mask = 1; mask < (1 << D); ++mask) {
      std::vector<bool> periodic;
      for (int d = 0; d < D; ++d) periodic.push_back(mask >> d & 1);
      const std::string what = "D=" + std::to_string(D) + " periodic mask " + std::to_string(mask);
      for (int devices : {2, 3, 4})
        check_row_split(random_problem<double>(periodic, 200 + mask), devices, 1e-12, (what + " double").c_str());
      check_row_split(random_problem<float>(periodic, 200 + mask), 3, 20 * eps<float>(), (what + " float").c_str());
      check_row_split(random_problem<std::complex<double>>(periodic, 200 + mask), 2, 1e-12,
                      (what + " complex128").c_str());
    }
  // dimension 1 dense and longer than the OpenCL radix bound (64): its one
  // level is no radix (periodic itself, or before a periodic dimension)
  check_row_split(pscr::Problem<double>::make2d(random_cyclic_factor<double>(65, 31), test::random_factor<double>(6, 32),
                                                0.3),
                  2, 1e-12, "D=2 periodic 65 x 6");
  check_row_split(pscr::Problem<double>::make3d(test::random_factor<double>(70, 33), random_cyclic_factor<double>(5, 34),
                                                test::random_factor<double>(4, 35), 0.3),
                  3, 1e-12, "D=3 70 x periodic 5 x 4");
  // pure Neumann (all periodic, and the channel): the null mode on one
  // device's share, the weighted mean removed once over the whole solution
  for (const auto& p : pure_neumann_problems()) check_row_split(p, 3, 1e-12, "pure Neumann");
  // split by batches: each device the whole plan
  const auto p = pscr::Problem<double>::make2d(pscr::laplacian_factor(8, 1.0, Boundary::Periodic, Boundary::Periodic),
                                               pscr::laplacian_factor(6, 1.0, Boundary::Dirichlet, Boundary::Neumann),
                                               0.5);
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.devices = {"0:0", "0:0"};
  o.device_split = pscr::DeviceSplit::batches;
  pscr::Plan<double> plan(p, o);
  const auto f = test::random_vector<double>(p.unknowns() * 3, 5);
  std::vector<double> u(f.size());
  plan.solve_batch(f.data(), u.data(), 3);
  for (int b = 0; b < 3; ++b) {
    const std::vector<double> fb(f.begin() + b * 48, f.begin() + (b + 1) * 48), ub(u.begin() + b * 48, u.begin() + (b + 1) * 48);
    BOOST_TEST(test::rel_error(ub, dense_solve(p, fb)) <= 50 * eps<double>());
  }
}

namespace {

// A uniform periodic pencil with a consistent mass: A = tridiag(−1, 2, −1)/h
// and M = h/6 · tridiag(1, 4, 1), both cyclic (circulant to the last bit).
template <class T> pscr::Factor<T> periodic_consistent(int n, double h) {
  pscr::Factor<double> f;
  f.A.diag.assign(std::size_t(n), 2 / h);
  f.A.off.assign(std::size_t(n), -1 / h);
  f.M.diag.assign(std::size_t(n), 4 * h / 6);
  f.M.off.assign(std::size_t(n), h / 6);
  return f.template cast<T>();
}

template <class T> pscr::Factor<T> periodic_fd(int n, double h) {
  return pscr::laplacian_factor(n, h, Boundary::Periodic, Boundary::Periodic).template cast<T>();
}

// halves: the transforms' passes exchange real and imaginary parts apart
// (KernelParameters::sine_halves), on the device's own parameters otherwise.
template <class T> void check_fourier(bool halves = false) {
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  std::uint64_t seed = 900;
  if (halves) {
    const auto f = periodic_fd<T>(8, 1.0);
    pscr::KernelParameters kp = pscr::Plan<T>(pscr::Problem<T>::make2d(f, f, T(1)), o).info().parameters;
    kp.sine_halves = 1;
    o.parameters = kp;
  }
  const auto check = [&](const pscr::Problem<T>& p, const std::vector<std::string>& want, const char* what) {
    BOOST_TEST_CONTEXT(what << " T=" << pscr::scalar_name<T>()) {
      pscr::Plan<T> plan(p, o);
      BOOST_TEST(plan.info().dimension_methods == want, boost::test_tools::per_element());
      BOOST_TEST(plan.info().parameters.sine_halves == (halves ? 1 : 0));
      const auto f = test::random_vector<T>(p.unknowns(), seed++);
      std::vector<T> u(f.size());
      plan.solve(f.data(), u.data());
      const double tol = std::max(200 * eps<T>(), 4 * plan.info().predicted_error);
      BOOST_TEST(test::rel_error(u, dense_solve(p, f)) <= tol);
    }
  };
  const std::string F = "Fourier transform", S = "sine transform", L = "tridiagonal";
  check(pscr::Problem<T>::make2d(periodic_fd<T>(16, 1.0 / 16), test::random_factor<T>(9, seed), T(0.3)), {F, L},
        "2D periodic FD by random");
  check(pscr::Problem<T>::make2d(periodic_consistent<T>(8, 0.25),
                                 pscr::poisson_factor(pscr::graded_mesh(12, 1.0, 1.3)).template cast<T>(), T(0)),
        {F, L}, "2D periodic consistent mass by graded Dirichlet");
  check(pscr::Problem<T>::make3d(periodic_fd<T>(8, 0.5),
                                 pscr::laplacian_factor(15, 0.1, Boundary::Dirichlet, Boundary::Dirichlet).template cast<T>(),
                                 test::random_factor<T>(5, seed + 1), T(0.1)),
        {F, S, L}, "3D periodic, Dirichlet, random");
  check(pscr::Problem<T>::make3d(periodic_fd<T>(32, 0.1), periodic_consistent<T>(16, 0.2),
                                 pscr::poisson_factor(pscr::graded_mesh(7, 1.0, 0.8)).template cast<T>(), T(0)),
        {F, F, L}, "3D channel with Dirichlet walls");
}

}  // namespace

// Periodic uniform leading dimensions of n / 2 a power of two: fast Fourier
// transforms on OpenCL (kernels/sine_transform.cl, fourier_transform),
// beside sine transforms, the lines tridiagonal.
BOOST_AUTO_TEST_CASE(fourier_transform_dimensions) {
  check_fourier<double>();
  check_fourier<float>();
  check_fourier<std::complex<double>>();
  check_fourier<std::complex<float>>();
  check_fourier<double>(true);  // one more program: PoCL compiles its kernels for tens of seconds
}

// The pure-Neumann channel by Fourier transforms: the line of the constant
// modes pinned, the compatible part solved, zero weighted mean.
BOOST_AUTO_TEST_CASE(fourier_pure_neumann_channel) {
  const auto p = pscr::Problem<double>::make3d(
      pscr::laplacian_factor(16, 0.25, Boundary::Periodic, Boundary::Periodic),
      pscr::poisson_periodic_factor(pscr::graded_mesh(9, 1.0, 1.0)),
      pscr::poisson_neumann_factor(pscr::graded_mesh(10, 2.0, 1.25)), 0.0);
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  BOOST_TEST(pscr::Plan<double>(p, o).info().dimension_methods[0] == "Fourier transform");
  check_pure_neumann<double>(p, pscr::Backend::opencl);
  check_pure_neumann<float>(p, pscr::Backend::opencl);
  check_pure_neumann<std::complex<double>>(p, pscr::Backend::opencl);
}

// Indefinite lines below dense dimensions only: solved in the last pencil's
// eigenbasis, no pivots. Periodic 16 × Dirichlet 10 at c = −3 gives lines
// A2 − I with a zero first pivot (refused by the elimination before); on
// OpenCL the periodic mesh is graded (dense products, not transforms).
BOOST_AUTO_TEST_CASE(indefinite_lines_in_the_eigenbasis) {
  const auto dirichlet = pscr::laplacian_factor(10, 1.0, Boundary::Dirichlet, Boundary::Dirichlet);
  const auto uniform = pscr::laplacian_factor(16, 1.0, Boundary::Periodic, Boundary::Periodic);
  auto graded = pscr::poisson_periodic_factor(pscr::graded_mesh(17, 16.0, 1.05));
  for (auto backend : {pscr::Backend::reference, pscr::Backend::opencl}) {
    const auto& per = backend == pscr::Backend::reference ? uniform : graded;
    for (double c : {-3.0, -3.0 - 1e-7, -2.5}) {
      const auto p = pscr::Problem<double>::make2d(per, dirichlet, c);
      pscr::Options o;
      o.backend = backend;
      pscr::Plan<double> plan(p, o);
      BOOST_TEST(plan.info().dimension_methods.back() == "tridiagonal (eigenbasis)");
      BOOST_TEST(plan.info().line_solver == "eigenbasis");
      const auto f = test::random_vector<double>(p.unknowns(), 31);
      std::vector<double> u(f.size());
      plan.solve(f.data(), u.data());
      // against the dense LU: within the operator's condition (some hundreds here) times ε
      BOOST_TEST(test::rel_error(u, dense_solve(p, f)) <= 1e3 * eps<double>(), "c = " << c);
    }
  }
  // the line solver's parameters (halved lines here) do not apply to them,
  // and the plan says so
  pscr::KernelParameters kp;
  kp.dense_top = 1;
  kp.halve_lines = 2;
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.parameters = kp;
  const pscr::Plan<double> plan(pscr::Problem<double>::make2d(graded, dirichlet, -2.5), o);
  BOOST_TEST(plan.info().line_solver == "eigenbasis");
}

// A distributed plan on the reference backend says the same of its lines
// (a user trial found "thomas" there), and solves them.
BOOST_AUTO_TEST_CASE(distributed_reference_line_solver) {
  const auto dirichlet = pscr::laplacian_factor(40, 1.0, Boundary::Dirichlet, Boundary::Dirichlet);
  const auto periodic = pscr::laplacian_factor(32, 1.0, Boundary::Periodic, Boundary::Periodic);
  const auto p = pscr::Problem<double>::make2d(dirichlet, periodic, 0.1);
  const auto f = test::random_vector<double>(p.unknowns(), 3);
  const auto want = dense_solve(p, f);
  auto comms = pscr::local_communicators(2);
  std::vector<std::string> said(2);
  std::vector<double> err(2, 1.0);
  std::vector<std::thread> ranks;
  for (int r = 0; r < 2; ++r)
    ranks.emplace_back([&, r] {
      const pscr::DistributedPlan<double> plan(comms[std::size_t(r)], p);
      said[std::size_t(r)] = plan.info().plan.line_solver;
      const pscr::RowRange rows = plan.rows();
      const std::size_t R = plan.local_unknowns() / std::max<std::size_t>(rows.size(), 1);
      std::vector<double> mine(f.begin() + long(rows.begin * R), f.begin() + long(rows.end * R)), u(mine.size());
      plan.solve(mine.data(), u.data());
      double num = 0, den = 0;
      for (std::size_t i = 0; i < u.size(); ++i) {
        num = std::max(num, std::abs(u[i] - double(want[rows.begin * R + i])));
        den = std::max(den, std::abs(double(want[rows.begin * R + i])));
      }
      err[std::size_t(r)] = den > 0 ? num / den : num;
    });
  for (auto& t : ranks) t.join();
  for (int r = 0; r < 2; ++r) {
    BOOST_TEST(said[std::size_t(r)] == "eigenbasis");
    BOOST_TEST(err[std::size_t(r)] <= 1e-13);
  }
}
