// The OpenCL backend against the reference executor (PoCL in CI, any device
// through PSCR_DEVICE): every scalar type × 2D/3D × radix over awkward sizes.
#define BOOST_TEST_MODULE opencl
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <thread>
#include <boost/mpl/list.hpp>

#include <cmath>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "pscr/opencl.hpp"
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

// Radix q = 2 ... 16 against the banded direct solve (the reference executor
// is checked the same way in test_solve_matrix).
BOOST_AUTO_TEST_CASE(every_radix_against_direct_solve) {
  std::uint64_t seed = 300;
  for (int q = 2; q <= 16; ++q) {
    for (auto n : std::vector<std::vector<int>>{{q * q + 3, 7}, {2 * q + 1, q + 2, 3}}) {
      std::vector<pscr::Factor<double>> fs;
      for (std::size_t d = 0; d < n.size(); ++d) fs.push_back(test::random_factor<double>(n[d], seed + d, d == 1));
      const pscr::Problem<double> p(fs, 0.25);
      pscr::Options o;
      o.radix = q;
      o.backend = pscr::Backend::opencl;
      pscr::Plan<double> plan(p, o);
      const auto f = test::random_vector<double>(p.unknowns(), seed++);
      std::vector<double> u(f.size());
      plan.solve(f.data(), u.data());
      BOOST_TEST_CONTEXT("q=" << q << " N=" << p.unknowns()) {
        BOOST_TEST(test::rel_error(u, test::band_solve(p, f)) <= 1e-12);
      }
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
  // prepare_device: the same selection, and the context it makes is the plan's
  BOOST_CHECK_THROW(pscr::opencl::prepare_device("no-such-device-anywhere"), pscr::BackendError);
  pscr::opencl::prepare_device("");
  o.device = "";
  const pscr::Plan<double> a(p, o), b(p, o);
  BOOST_TEST(pscr::opencl::context(a) == pscr::opencl::context(b));
}

// $PSCR_KERNEL_DEFINES (trials of kernel variants): only definitions, each
// named when it is not one; a definition joins every program's build.
BOOST_AUTO_TEST_CASE(kernel_defines_from_the_environment) {
  const auto p = pscr::poisson2d(pscr::graded_mesh(9, 1.0, 1.0), pscr::graded_mesh(7, 1.0, 1.0));
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  const char* old = std::getenv("PSCR_KERNEL_DEFINES");
  const std::string kept = old ? old : "";
  for (const char* bad : {"-O3", "-DX=1 --foo", "-D"}) {
    setenv("PSCR_KERNEL_DEFINES", bad, 1);
    BOOST_CHECK_EXCEPTION(pscr::Plan<double>(p, o), pscr::InvalidArgument, [](const auto& e) {
      return std::string(e.what()).find("PSCR_KERNEL_DEFINES") != std::string::npos;
    });
  }
  setenv("PSCR_KERNEL_DEFINES", "-DPSCR_TRIAL_UNUSED=1", 1);
  const pscr::Plan<double> plan(p, o);
  const auto f = test::random_vector<double>(p.unknowns(), 3);
  std::vector<double> u(f.size());
  plan.solve(f.data(), u.data());
  BOOST_TEST(p.backward_error(f.data(), u.data()) < 1e-13);
  if (old) setenv("PSCR_KERNEL_DEFINES", kept.c_str(), 1);
  else unsetenv("PSCR_KERNEL_DEFINES");
}

// Every stage combination: global CR down to 4 rows, one or two levels per
// CR kernel, PCR depths 0..3, one and
// many lines per local group, tree sums of single terms, Newton–Raphson; whole
// lines on chip with one row per work-item (no elimination in registers) and
// several lines per work-group, uneven chunks with empty ones at the end;
// halved lines (non-uniform factors: rows generated one by one); whole and
// halved lines whose right-hand sides are formed apart by tiles of modes.
BOOST_AUTO_TEST_CASE_TEMPLATE(parameter_variants, T, Types) {
  std::vector<pscr::KernelParameters> sets(10);
  for (int s = 0; s < 4; ++s) sets[s].line_rows = 0;  // global CR
  sets[0].local_size = 4;
  sets[0].pcr_steps = 0;
  sets[0].cr_two_levels = 0;
  sets[1].local_size = 8;
  sets[1].pcr_steps = 3;
  sets[1].local_lines = 2;
  sets[1].newton_raphson = 1;
  sets[2].sum_terms = 1;
  sets[2].sum_work_group = 64;
  sets[2].cr_work_group = 16;
  sets[2].work_group = 16;
  sets[2].pcr_steps = 1;
  sets[3].local_size = 128;
  sets[3].local_lines = 1;
  sets[3].newton_raphson = 1;
  // right-hand sides of a batch (3D, n1 = 40: 35 and 40 nested problems)
  // formed a mode per work-item, and by tiles that cut groups of 7 modes
  sets[0].rhs_modes = 1;
  sets[1].rhs_modes = 4;
  sets[2].rhs_modes = 16;
  sets[4].line_rows = 1;
  sets[4].line_group = 1024;
  sets[5].line_rows = 3;
  sets[5].line_group = 32;
  sets[5].newton_raphson = 1;
  // halved lines, set 7 with the program of set 5 (halve_lines is not a
  // build option), set 6 forming each row once
  sets[6] = sets[4];
  sets[6].halve_lines = 2;
  sets[6].halved_rows_once = 1;
  sets[7] = sets[5];
  sets[7].halve_lines = 2;
  // with the programs of sets 4 and 7 (rhs_apart is not a build option)
  sets[8] = sets[4];
  sets[8].rhs_apart = 1;
  sets[9] = sets[7];
  sets[9].rhs_apart = 1;
  std::uint64_t seed = 40;
  for (const auto& kp : sets) {
    for (auto n : std::vector<std::vector<int>>{{37, 102}, {6, 33}, {17, 5, 19}, {40, 7, 6}, {9, 2}}) {
      std::vector<pscr::Factor<T>> fs;
      for (std::size_t d = 0; d < n.size(); ++d) fs.push_back(test::random_factor<T>(n[d], seed + d, d % 2 == 1));
      T c = T(0.25);
      if constexpr (pscr::is_complex_v<T>) c = T(-0.3, 0.1);
      const pscr::Problem<T> p(fs, c);
      pscr::Options o;
      pscr::Plan<T> ref(p, o);
      o.backend = pscr::Backend::opencl;
      o.parameters = kp;
      pscr::Plan<T> ocl(p, o);
      BOOST_TEST(ocl.info().parameters == kp);
      BOOST_TEST(ocl.info().parameters_source == "options");
      BOOST_TEST(ocl.info().line_solver == (kp.line_rows == 0                         ? "global CR"
                                            : kp.halve_lines == 2 && n.back() >= 4 ? "halved lines"
                                                                                   : "whole lines"));
      const auto f = test::random_vector<T>(p.unknowns(), ++seed);
      std::vector<T> u(f.size()), v(f.size());
      ref.solve(f.data(), u.data());
      ocl.solve(f.data(), v.data());
      const double tol = std::is_same_v<pscr::real_t<T>, double> ? 1e-12 : 1e-4;
      BOOST_TEST_CONTEXT("T=" << pscr::scalar_name<T>() << " N=" << p.unknowns() << " " << pscr::to_string(kp)) {
        BOOST_TEST(test::rel_error(v, u) <= tol);
      }
    }
  }
  // Pure Neumann (pinned null mode) through the global CR stages, fused first
  // steps included (leaf lengths above cover every n0 mod 4), and through
  // whole lines on chip with the pinned cut inside a chunk and at its edge.
  const auto nn = [](int n) { return pscr::laplacian_factor(n, 1.0, pscr::Boundary::Neumann, pscr::Boundary::Neumann); };
  const auto p = pscr::Problem<double>::make2d(nn(21), nn(40), 0.0);
  pscr::Options o;
  pscr::Plan<double> ref(p, o);
  const auto f = test::random_vector<double>(p.unknowns(), 99);
  std::vector<double> u(f.size());
  ref.solve(f.data(), u.data());
  // Halved lines: level 1 of a line of 40 rows with the pinned cut (rows 38
  // and 39) inside its last level-1 row.
  for (auto [line_rows, halve] : std::vector<std::pair<int, int>>{{0, 1}, {3, 1}, {2, 1}, {3, 2}, {16, 2}}) {
    pscr::KernelParameters kp;
    kp.local_size = 4;
    kp.line_rows = line_rows;
    kp.halve_lines = halve;
    o.backend = pscr::Backend::opencl;
    o.parameters = kp;
    pscr::Plan<double> ocl(p, o);
    BOOST_TEST(ocl.info().line_solver == (!line_rows ? "global CR" : halve == 2 ? "halved lines" : "whole lines"));
    std::vector<double> v(f.size());
    ocl.solve(f.data(), v.data());
    BOOST_TEST_CONTEXT("line_rows=" << line_rows << " halve_lines=" << halve) {
      BOOST_TEST(test::rel_error(v, u) <= 1e-12);
    }
  }
}

// Halved lines on uniform meshes (their interior rows formed once per line:
// form_solve_halved_uniform), odd and even lengths down to the shortest
// halved line (4 rows), every scalar type, both eliminations of real
// problems, 2D and 3D, against the reference backend.
template <class T>
void check_halved(const pscr::Problem<T>& p, pscr::Elimination e, double tol, const std::string& what,
                  std::uint64_t seed, int rows_once, int apart) {
  pscr::KernelParameters kp;
  kp.halve_lines = 2;
  kp.halved_rows_once = rows_once;
  kp.rhs_apart = apart;
  pscr::Options o;
  pscr::Plan<T> ref(p, o);
  o.backend = pscr::Backend::opencl;
  o.parameters = kp;
  o.elimination = e;
  pscr::Plan<T> ocl(p, o);
  const auto f = test::random_vector<T>(p.unknowns(), seed);
  std::vector<T> u(f.size()), v(f.size());
  ref.solve(f.data(), u.data());
  ocl.solve(f.data(), v.data());
  BOOST_TEST_CONTEXT(what << " " << ocl.info().elimination << " halved_rows_once=" << rows_once
                           << " rhs_apart=" << apart) {
    BOOST_TEST(ocl.info().line_solver == "halved lines");
    BOOST_TEST(test::rel_error(v, u) <= tol);
  }
}

BOOST_AUTO_TEST_CASE(halved_lines_on_uniform_meshes) {
  std::uint64_t seed = 700;
  // rows formed once (a stage between work-items) at n = 6, 7 and in 3D,
  // three per level-1 row elsewhere; at n = 5 and 40 the right-hand sides
  // are formed apart (form_rhs_lines_tiles, then line_solve)
  int rows_once = 0, apart = 0;
  const auto check = [&](const auto& p, pscr::Elimination e, double tol, const std::string& what) {
    check_halved(p, e, tol, what, ++seed, rows_once, apart);
  };
  const auto mesh = [](int n) { return pscr::graded_mesh(n + 2, 1.0, 1.0); };
  // (n = 37 and 64 both ways: a work-item's level-1 rows cross chunk
  // boundaries over 16 passes, and rows formed once keep their even rows'
  // right-hand sides for the store)
  for (int n : {4, 5, 6, 7, 37, 37, 40, 64, 64}) {
    rows_once = n == 6 || n == 7 || ((n == 37 || n == 64) && !rows_once);
    apart = n == 5 || n == 40;
    const auto what = "n=" + std::to_string(n);
    const auto p = pscr::poisson2d(mesh(11), mesh(n));
    check(p, pscr::Elimination::automatic, 1e-12, "poisson2d " + what);
    check(p, pscr::Elimination::ordinary, 1e-12, "poisson2d " + what);
    check(p.cast<float>(), pscr::Elimination::automatic, 1e-4, "poisson2d float " + what);
    check(pscr::helmholtz2d(mesh(9), mesh(n), 3.0), pscr::Elimination::automatic, 1e-12, "helmholtz2d " + what);
  }
  rows_once = 1;
  apart = 0;
  check(pscr::poisson3d(mesh(7), mesh(6), mesh(33)), pscr::Elimination::automatic, 1e-12, "poisson3d");
}

// Right-hand sides of 3D's nested problems by tiles of modes (batches of 32
// or more: form_rhs_tiles on global CR, form_solve_tiles_uniform on whole
// lines) on uniform meshes (groups of 7 modes at radix 8 are cut, the last
// tile of lanes is partly empty), double, float and complex double, against
// the reference backend.
template <class T> void check_tiles(const pscr::Problem<T>& p, double tol, const std::string& what) {
  pscr::Options o;
  pscr::Plan<T> ref(p, o);
  const auto f = test::random_vector<T>(p.unknowns(), 7);
  std::vector<T> u(f.size()), v(f.size());
  ref.solve(f.data(), u.data());
  o.backend = pscr::Backend::opencl;
  // the defaults (whole lines, tiles of 4 modes) and global CR with tiles of
  // 16 (parameter_variants covers other tiles on non-uniform factors)
  for (int line_rows : {16, 0}) {
    pscr::KernelParameters kp;
    kp.line_rows = line_rows;
    kp.rhs_modes = line_rows == 0 ? 16 : 4;
    o.parameters = kp;
    pscr::Plan<T> ocl(p, o);
    ocl.solve(f.data(), v.data());
    BOOST_TEST_CONTEXT(what << " " << pscr::to_string(kp)) { BOOST_TEST(test::rel_error(v, u) <= tol); }
  }
}

BOOST_AUTO_TEST_CASE(tiled_right_hand_sides_in_3d) {
  const auto mesh = [](int n) { return pscr::graded_mesh(n + 2, 1.0, 1.0); };
  const auto p = pscr::poisson3d(mesh(45), mesh(9), mesh(13));
  check_tiles(p, 1e-12, "poisson3d");
  check_tiles(p.cast<float>(), 1e-4, "poisson3d float");
  check_tiles(pscr::helmholtz3d(mesh(38), mesh(7), mesh(10), 2.0), 1e-12, "helmholtz3d");
}

// A plan larger than the device is refused before anything is allocated,
// naming the buffer, its size and the device's limit; the device itself is
// asked for its limits here.
BOOST_AUTO_TEST_CASE(plan_larger_than_the_device_is_refused) {
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  const auto small = pscr::poisson2d(pscr::graded_mesh(9, 1.0, 1.0), pscr::graded_mesh(9, 1.0, 1.0));
  const pscr::Plan<double> probe(small, o);
  cl_device_id dev = nullptr;
  clGetCommandQueueInfo(pscr::opencl::queue(probe), CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr);
  cl_ulong global = 0, largest = 0;
  clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, nullptr);
  clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof largest, &largest, nullptr);
  // n^2 doubles past the device's memory: the solution vector alone exceeds
  // its largest allocation (the eigen data stay small: O(n q))
  const int n = int(std::sqrt(double(global) / 8.0)) + 64;
  const auto huge = pscr::poisson2d(pscr::graded_mesh(n + 2, 1.0, 1.0), pscr::graded_mesh(n + 2, 1.0, 1.0));
  BOOST_CHECK_EXCEPTION(pscr::Plan<double>(huge, o), pscr::AllocationTooLarge, [&](const pscr::AllocationTooLarge& e) {
    const std::string m = e.what();
    BOOST_TEST_MESSAGE(m);
    return m.find("solution vector needs " + std::to_string(std::size_t(n) * n * 8)) != std::string::npos &&
           m.find(std::to_string(largest)) != std::string::npos;
  });
}

// opencl::device_bytes states a plan's device memory before any of it is
// allocated: the same bytes as the plan's PlanInfo::device_bytes once made,
// and the same refusals.
BOOST_AUTO_TEST_CASE(device_memory_is_stated_before_planning) {
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  const auto p2 = pscr::poisson2d(pscr::graded_mesh(33, 1.0, 1.02), pscr::graded_mesh(20, 1.0, 1.0));
  const auto p3 = pscr::poisson3d(pscr::graded_mesh(9, 1.0, 1.0), pscr::graded_mesh(12, 1.0, 1.1),
                                  pscr::graded_mesh(7, 1.0, 1.0));
  const auto h2 = pscr::helmholtz2d(pscr::graded_mesh(17, 1.0, 1.0), pscr::graded_mesh(23, 1.0, 1.0), 6.0);
  std::size_t one = 0;
  for (int shifts : {1, 3}) {
    o.shifts = shifts;
    const std::size_t b2 = pscr::opencl::device_bytes(p2, o), b3 = pscr::opencl::device_bytes(p3, o);
    BOOST_TEST_MESSAGE("device bytes, shifts " << shifts << ": 2D " << b2 << ", 3D " << b3);
    BOOST_TEST(b2 == pscr::Plan<double>(p2, o).info().device_bytes);
    BOOST_TEST(b3 == pscr::Plan<double>(p3, o).info().device_bytes);
    if (shifts == 1) one = b2;
    else BOOST_TEST(b2 > one);  // the work buffers hold three problems
  }
  o.shifts = 1;
  BOOST_TEST(pscr::opencl::device_bytes(h2, o) == pscr::Plan<std::complex<double>>(h2, o).info().device_bytes);
  // refusals
  pscr::Options ref;
  BOOST_CHECK_THROW(pscr::opencl::device_bytes(p2, ref), pscr::InvalidArgument);  // not the OpenCL backend
  o.shifts = 0;
  BOOST_CHECK_THROW(pscr::opencl::device_bytes(p2, o), pscr::InvalidArgument);
  o.shifts = 1;
  cl_ulong global = 0;
  {
    const pscr::Plan<double> probe(p2, o);
    cl_device_id dev = nullptr;
    clGetCommandQueueInfo(pscr::opencl::queue(probe), CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr);
    clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, nullptr);
  }
  const int n = int(std::sqrt(double(global) / 8.0)) + 64;
  const auto huge = pscr::poisson2d(pscr::graded_mesh(n + 2, 1.0, 1.0), pscr::graded_mesh(n + 2, 1.0, 1.0));
  BOOST_CHECK_THROW(pscr::opencl::device_bytes(huge, o), pscr::AllocationTooLarge);
}

BOOST_AUTO_TEST_CASE(parameters_out_of_range_or_beyond_the_device) {
  const auto p = pscr::poisson2d(pscr::graded_mesh(9, 1.0, 1.0), pscr::graded_mesh(7, 1.0, 1.0));
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  pscr::KernelParameters kp;
  kp.work_group = 3;
  o.parameters = kp;
  auto names = [](const char* key) {
    return [key](const pscr::InvalidArgument& e) { return std::string(e.what()).find(key) != std::string::npos; };
  };
  BOOST_CHECK_EXCEPTION(pscr::Plan<double>(p, o), pscr::InvalidArgument, names("work_group = 3"));
  kp = {};
  kp.local_lines = 256;
  kp.pcr_steps = 8;  // 65536 work-items per group: no device allows that
  o.parameters = kp;
  BOOST_CHECK_EXCEPTION(pscr::Plan<double>(p, o), pscr::InvalidArgument, names("work-group limit"));
  kp = {};
  kp.local_size = 1024;
  kp.local_lines = 256;  // 6·1024·256·8 bytes of local memory
  o.parameters = kp;
  const auto big = pscr::poisson2d(pscr::graded_mesh(9, 1.0, 1.0), pscr::graded_mesh(1100, 1.0, 1.0));
  BOOST_CHECK_EXCEPTION(pscr::Plan<double>(big, o), pscr::InvalidArgument, names("local memory"));
}

BOOST_AUTO_TEST_CASE(tuning_file_is_loaded_and_checked) {
  const auto p = pscr::poisson2d(pscr::graded_mesh(40, 1.0, 1.0), pscr::graded_mesh(30, 1.0, 1.0));
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  const std::string device = pscr::Plan<double>(p, o).info().device;
  const std::string path = "test_opencl_tuning.json";
  std::remove(path.c_str());
  pscr::TuningEntry e;
  e.device = device;
  e.problem_class = "2d-real-double";
  e.min_n = 16;
  e.max_n = 64;
  e.parameters.local_size = 8;
  e.parameters.newton_raphson = 1;
  pscr::write_tuning(path, {e});
  o.tuning_file = path;
  pscr::Plan<double> tuned(p, o);
  BOOST_TEST(tuned.info().parameters == e.parameters);  // a small plan keeps the entry's radix
  BOOST_TEST(tuned.info().parameters_source.find(path) != std::string::npos);
  pscr::Plan<double> ref(p);
  const auto f = test::random_vector<double>(p.unknowns(), 5);
  std::vector<double> u(f.size()), v(f.size());
  ref.solve(f.data(), u.data());
  tuned.solve(f.data(), v.data());
  BOOST_TEST(test::rel_error(v, u) <= 1e-12);
  // Outside the entry's size range, or another class: not used.
  const auto small = pscr::poisson2d(pscr::graded_mesh(10, 1.0, 1.0), pscr::graded_mesh(9, 1.0, 1.0));
  BOOST_TEST(pscr::Plan<double>(small, o).info().parameters_source.find(path) == std::string::npos);
  BOOST_TEST(pscr::Plan<float>(p.cast<float>(), o).info().parameters_source.find(path) == std::string::npos);
  // An out-of-range value in the file stops the plan, naming file and key.
  {
    std::ofstream out(path);
    out << R"({"format": "libpscr-tuning", "version": 1, "entries": [{"device": ")" << device
        << R"(", "class": "2d-real-double", "parameters": {"pcr_steps": 99}}]})";
  }
  BOOST_CHECK_EXCEPTION(pscr::Plan<double>(p, o), pscr::InvalidArgument, [&](const pscr::InvalidArgument& err) {
    const std::string m = err.what();
    return m.find(path) != std::string::npos && m.find("pcr_steps") != std::string::npos;
  });
  std::remove(path.c_str());
  BOOST_CHECK_THROW(pscr::Plan<double>(p, o), pscr::FileFormatError);  // named file is missing
}

BOOST_AUTO_TEST_CASE(device_resident_solves) {
  const auto a = pscr::graded_mesh(35, 1.0, 1.02), b = pscr::graded_mesh(50, 1.0, 0.99);
  const auto p = pscr::poisson2d(a, b);
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  pscr::Plan<double> plan(p, o);
  const std::size_t N = p.unknowns();
  const auto f = test::random_vector<double>(2 * N, 11);
  std::vector<double> u(2 * N), v(2 * N);
  plan.solve_batch(f.data(), u.data(), 2);
  cl_int st;
  cl_context ctx = pscr::opencl::context(plan);
  cl_command_queue q = pscr::opencl::queue(plan);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 2 * N * sizeof(double), nullptr, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 2 * N * sizeof(double), f.data(), 0, nullptr, nullptr);
  pscr::opencl::solve(plan, buf, 1);  // first right-hand side only
  clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 2 * N * sizeof(double), v.data(), 0, nullptr, nullptr);
  BOOST_TEST(test::rel_error(std::vector<double>(v.begin(), v.begin() + N), std::vector<double>(u.begin(), u.begin() + N)) <= 1e-12);
  BOOST_TEST(test::rel_error(std::vector<double>(v.begin() + N, v.end()), std::vector<double>(f.begin() + N, f.end())) == 0.0);
  // Errors: too small for two right-hand sides, a reference plan, a NaN.
  cl_mem small = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(double), nullptr, &st);
  BOOST_CHECK_THROW(pscr::opencl::solve(plan, small, 2), pscr::SizeMismatch);
  BOOST_CHECK_THROW(pscr::opencl::context(pscr::Plan<double>(p)), pscr::InvalidArgument);
  std::vector<double> bad(N, 1.0);
  bad[N / 2] = std::nan("");
  clEnqueueWriteBuffer(q, small, CL_TRUE, 0, N * sizeof(double), bad.data(), 0, nullptr, nullptr);
  BOOST_CHECK_THROW(pscr::opencl::solve(plan, small, 1), pscr::NumericalBreakdown);
  clReleaseMemObject(small);
  clReleaseMemObject(buf);
}

// The solve's flags are cleared only where they may have been set since they
// were read as zero (SolveFlags::clear): checked solves after clean ones skip
// the clear; after an unchecked or asynchronous solve of a NaN, which leaves a
// flag set, a checked solve of clean data is still clean and right, and a NaN
// is still refused. A transformed plan (uniform 3D), a reduction (graded 2D)
// and a dense top dimension (graded 3D), float and double.
template <class T> void flags_case(const pscr::Problem<T>& p, int dense_top) {
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  if (dense_top > 0) {
    o.parameters = pscr::KernelParameters{};
    o.parameters->dense_top = dense_top;
  }
  pscr::Plan<T> plan(p, o);
  const std::size_t N = p.unknowns();
  const auto f = test::random_vector<T>(N, 7 + N);
  std::vector<T> u(N), v(N), bad(f);
  bad[N / 3] = T(std::numeric_limits<pscr::real_t<T>>::quiet_NaN());
  pscr::Plan<T>(p).solve(f.data(), u.data());
  cl_int st;
  cl_mem buf = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_WRITE, N * sizeof(T), nullptr, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  cl_command_queue q = pscr::opencl::queue(plan);
  const double tol = std::is_same_v<pscr::real_t<T>, double> ? 1e-12 : 1e-4;
  auto put = [&](const std::vector<T>& x) {
    clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, N * sizeof(T), x.data(), 0, nullptr, nullptr);
  };
  auto clean_solve = [&](const char* after) {
    BOOST_TEST_CONTEXT(after) {
      put(f);
      BOOST_CHECK_NO_THROW(pscr::opencl::solve(plan, buf));
      clEnqueueReadBuffer(q, buf, CL_TRUE, 0, N * sizeof(T), v.data(), 0, nullptr, nullptr);
      BOOST_TEST(test::rel_error(v, u) <= tol);
    }
  };
  BOOST_TEST_CONTEXT("T=" << pscr::scalar_name<T>() << " N=" << N << " dense_top=" << dense_top << " "
                          << plan.info().dimension_methods[0]) {
    clean_solve("first");
    clean_solve("a clean one");
    put(bad);
    BOOST_CHECK_NO_THROW(pscr::opencl::solve(plan, buf, 1, false));
    clean_solve("an unchecked NaN");
    put(bad);
    BOOST_CHECK_THROW(pscr::opencl::solve(plan, buf), pscr::NumericalBreakdown);
    clean_solve("a checked NaN");
    put(bad);
    cl_event done = pscr::opencl::solve_async(plan, buf);
    BOOST_TEST(clWaitForEvents(1, &done) == CL_SUCCESS);
    clReleaseEvent(done);
    clean_solve("an asynchronous NaN");
    put(bad);
    BOOST_CHECK_THROW(pscr::opencl::solve(plan, buf), pscr::NumericalBreakdown);
  }
  clReleaseMemObject(buf);
}

// A host solve after an asynchronous batch still in flight on the same plan:
// the batch's second right-hand side (209 doubles: not at the device's
// base-address alignment) goes through the plan's own vector, which the
// host solve's copies, on queues of their own, must not touch before the
// batch is done. Every result against the reference backend.
BOOST_AUTO_TEST_CASE(host_solve_after_an_unwaited_batch) {
  const auto p = pscr::poisson2d(pscr::graded_mesh(21, 1.0, 1.05), pscr::graded_mesh(13, 1.0, 0.95));
  const std::size_t N = p.unknowns();
  BOOST_REQUIRE(N * sizeof(double) % 128 != 0);
  for (const char* staging : {"auto", "pinned"}) {
    test::ScopedEnv env("PSCR_HOST_STAGING", staging);
    pscr::Options o;
    o.backend = pscr::Backend::opencl;
    pscr::Plan<double> plan(p, o);
    pscr::Plan<double> ref(p);
    const auto f = test::random_vector<double>(2 * N, 91), g = test::random_vector<double>(2 * N, 92);
    std::vector<double> want_f(2 * N), want_g(2 * N), u(2 * N), v(2 * N);
    ref.solve_batch(f.data(), want_f.data(), 2);
    ref.solve_batch(g.data(), want_g.data(), 2);
    cl_int st;
    cl_mem buf = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_WRITE, 2 * N * sizeof(double), nullptr, &st);
    BOOST_REQUIRE(st == CL_SUCCESS);
    cl_command_queue q = pscr::opencl::queue(plan);
    for (int round = 0; round < 3; ++round) {
      BOOST_TEST_CONTEXT("PSCR_HOST_STAGING=" << staging << " round " << round) {
        clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 2 * N * sizeof(double), f.data(), 0, nullptr, nullptr);
        cl_event done = pscr::opencl::solve_async(plan, buf, 2);  // not waited for
        if (round == 2) plan.solve_batch(g.data(), u.data(), 2);
        else plan.solve(g.data(), u.data());
        BOOST_TEST(test::rel_error(std::vector<double>(u.begin(), u.begin() + std::ptrdiff_t(round == 2 ? 2 * N : N)),
                                   std::vector<double>(want_g.begin(),
                                                       want_g.begin() + std::ptrdiff_t(round == 2 ? 2 * N : N))) <= 1e-12);
        BOOST_TEST(clWaitForEvents(1, &done) == CL_SUCCESS);
        clReleaseEvent(done);
        clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 2 * N * sizeof(double), v.data(), 0, nullptr, nullptr);
        BOOST_TEST(test::rel_error(v, want_f) <= 1e-12);
      }
    }
    clReleaseMemObject(buf);
  }
}

// A device solve carries the plan's accuracy warning as host solves do
// (docs/guide/errors.md), and a read-only buffer, which the solutions would
// be written into, is refused.
BOOST_AUTO_TEST_CASE(device_solves_carry_the_warning_and_refuse_read_only_buffers) {
  // indefinite float, c beside an eigenvalue sum: a plan warning
  const auto p = pscr::Problem<double>::make2d(test::dirichlet_laplacian(6), test::dirichlet_laplacian(40),
                                               -(test::dirichlet_eigenvalue(3, 6) + test::dirichlet_eigenvalue(7, 40)) *
                                                   (1 - 1e-5))
                     .cast<float>();
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  pscr::Plan<float> plan(p, o);
  BOOST_REQUIRE(!plan.info().warning.empty());
  const std::size_t N = p.unknowns();
  const auto f = test::random_vector<float>(N, 5);
  cl_int st;
  cl_mem buf = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_WRITE, N * sizeof(float), nullptr, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  clEnqueueWriteBuffer(pscr::opencl::queue(plan), buf, CL_TRUE, 0, N * sizeof(float), f.data(), 0, nullptr, nullptr);
  const pscr::SolveStats s = pscr::opencl::solve(plan, buf);
  BOOST_TEST(s.warning == plan.info().warning);
  clReleaseMemObject(buf);
  cl_mem ro = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_ONLY, N * sizeof(float), nullptr, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  try {
    pscr::opencl::solve(plan, ro);
    BOOST_ERROR("a read-only buffer was solved into");
  } catch (const pscr::InvalidArgument& e) {
    BOOST_TEST(std::string(e.what()).find("CL_MEM_READ_ONLY") != std::string::npos, e.what());
  }
  BOOST_CHECK_THROW(clReleaseEvent(pscr::opencl::solve_async(plan, ro)), pscr::InvalidArgument);
  clReleaseMemObject(ro);
}

using RealTypes = boost::mpl::list<float, double>;
BOOST_AUTO_TEST_CASE_TEMPLATE(flags_cleared_only_when_set, T, RealTypes) {
  const auto x = pscr::graded_mesh(17, 1.0, 1.0), g = pscr::graded_mesh(21, 1.0, 1.05);
  flags_case<T>(pscr::poisson3d(x, x, x).template cast<T>(), 0);
  flags_case<T>(pscr::poisson2d(g, x).template cast<T>(), 0);
  flags_case<T>(pscr::poisson3d(g, g, x).template cast<T>(), 1);
}

// Device batches of any size: right-hand sides at offsets c·N·sizeof(T) that
// are (odd N) and are not multiples of the device's base-address alignment,
// in 2D and 3D, real and complex, each against the host path of the same plan.
template <class T> void device_batch_case(const pscr::Problem<T>& p, std::size_t count) {
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  pscr::Plan<T> plan(p, o);
  const std::size_t N = p.unknowns();
  const auto f = test::random_vector<T>(count * N, 40 + N);
  std::vector<T> u(count * N), v(count * N);
  plan.solve_batch(f.data(), u.data(), count);
  cl_int st;
  cl_mem buf = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_WRITE, count * N * sizeof(T), nullptr, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  cl_command_queue q = pscr::opencl::queue(plan);
  clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, count * N * sizeof(T), f.data(), 0, nullptr, nullptr);
  pscr::opencl::solve(plan, buf, count);
  clEnqueueReadBuffer(q, buf, CL_TRUE, 0, count * N * sizeof(T), v.data(), 0, nullptr, nullptr);
  clReleaseMemObject(buf);
  BOOST_TEST_CONTEXT("T=" << pscr::scalar_name<T>() << " N=" << N << " count=" << count) {
    BOOST_TEST(test::rel_error(v, u) <= (std::is_same_v<pscr::real_t<T>, double> ? 1e-13 : 1e-6));
  }
}

BOOST_AUTO_TEST_CASE(device_batches_of_any_size) {
  device_batch_case(pscr::poisson2d(pscr::graded_mesh(34, 1.0, 1.02), pscr::graded_mesh(18, 1.0, 1.0)), 3);  // 33·17
  device_batch_case(pscr::poisson2d(pscr::graded_mesh(32, 1.0, 1.0), pscr::graded_mesh(36, 1.0, 1.0)), 4);  // 31·35
  device_batch_case(pscr::poisson3d(pscr::graded_mesh(8, 1.0, 1.0), pscr::graded_mesh(6, 1.0, 1.0),
                                    pscr::graded_mesh(10, 1.0, 1.0)), 5);  // 7·5·9
  device_batch_case(pscr::poisson2d(pscr::graded_mesh(17, 1.0, 1.0), pscr::graded_mesh(17, 1.0, 1.03)), 3);  // aligned: sub-buffers
  std::vector<pscr::Factor<std::complex<float>>> fs{test::random_factor<std::complex<float>>(13, 1),
                                                    test::random_factor<std::complex<float>>(11, 2)};
  device_batch_case(pscr::Problem<std::complex<float>>(fs, std::complex<float>(-0.3f, 0.1f)), 3);
}

// Pure Neumann on device buffers: the projection onto range(A) and the zero
// M-weighted mean are done on the device and must match Plan::solve of the
// reference backend (non-uniform masses, so the weights matter), for a batch
// of two incompatible right-hand sides in 2D and 3D.
BOOST_AUTO_TEST_CASE(device_resident_pure_neumann) {
  const auto fa = pscr::poisson_neumann_factor(pscr::graded_mesh(41, 1.0, 1.03));
  const auto fb = pscr::laplacian_factor(31, 0.5, pscr::Boundary::Neumann, pscr::Boundary::Neumann);
  const auto fc = pscr::poisson_neumann_factor(pscr::graded_mesh(7, 2.0, 0.95));
  // (odd N: the second right-hand side is not at an aligned offset)
  for (const auto& p : {pscr::Problem<double>::make2d(fa, fb, 0.0), pscr::Problem<double>::make3d(fc, fa, fb, 0.0)}) {
    pscr::Plan<double> ref(p);
    pscr::Options o;
    o.backend = pscr::Backend::opencl;
    pscr::Plan<double> plan(p, o);
    BOOST_REQUIRE(plan.info().pure_neumann);
    const std::size_t N = p.unknowns();
    auto f = test::random_vector<double>(2 * N, 21);
    for (std::size_t i = 0; i < N; ++i) f[i] += 0.3;  // a clearly incompatible part
    std::vector<double> u(2 * N), v(2 * N);
    const auto host = ref.solve_batch(f.data(), u.data(), 2);
    cl_int st;
    cl_mem buf = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_WRITE, 2 * N * sizeof(double), nullptr, &st);
    BOOST_REQUIRE(st == CL_SUCCESS);
    cl_command_queue q = pscr::opencl::queue(plan);
    clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 2 * N * sizeof(double), f.data(), 0, nullptr, nullptr);
    const auto dev = pscr::opencl::solve(plan, buf, 2);
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 2 * N * sizeof(double), v.data(), 0, nullptr, nullptr);
    clReleaseMemObject(buf);
    BOOST_TEST_CONTEXT("dims=" << p.dims() << " N=" << N) {
      BOOST_TEST(test::rel_error(v, u) <= 1e-11);
      BOOST_TEST(host.incompatible_part > 0.1);
      BOOST_TEST(std::abs(dev.incompatible_part - host.incompatible_part) <= 1e-12 * host.incompatible_part);
    }
  }
}

// Re-planning the kernel parameters keeps the eigenpairs and refuses what
// cannot run, leaving the plan as it was.
BOOST_AUTO_TEST_CASE(set_parameters_and_check) {
  const auto p = pscr::poisson2d(pscr::graded_mesh(40, 1.0, 1.01), pscr::graded_mesh(70, 1.0, 1.0));
  pscr::Options o;
  pscr::Plan<double> ref(p, o);
  o.backend = pscr::Backend::opencl;
  pscr::Plan<double> plan(p, o);
  const auto f = test::random_vector<double>(p.unknowns(), 5);
  std::vector<double> u(f.size()), v(f.size());
  ref.solve(f.data(), u.data());
  const pscr::KernelParameters before = plan.info().parameters;

  pscr::KernelParameters bad = before;
  bad.sum_terms = 3;  // not a power of two
  BOOST_TEST(plan.check_parameters(bad).find("sum_terms") != std::string::npos);
  BOOST_CHECK_THROW(plan.set_parameters(bad), pscr::InvalidArgument);
  bad = before;
  bad.local_lines = 256;
  bad.pcr_steps = 8;  // 65536 work-items per group
  BOOST_TEST(plan.check_parameters(bad).find("work-group limit") != std::string::npos);
  BOOST_CHECK_THROW(plan.set_parameters(bad), pscr::InvalidArgument);
  BOOST_TEST(plan.info().parameters == before);
  plan.solve(f.data(), v.data());
  BOOST_TEST(test::rel_error(v, u) <= 1e-12);

  pscr::KernelParameters good = before;
  good.local_size = 8;
  good.cr_two_levels = 0;
  good.newton_raphson = 1;
  BOOST_TEST(plan.check_parameters(good).empty());
  plan.set_parameters(good);
  BOOST_TEST(plan.info().parameters == good);
  BOOST_TEST(plan.info().parameters_source == "options");
  std::fill(v.begin(), v.end(), 0.0);
  plan.solve(f.data(), v.data());
  BOOST_TEST(test::rel_error(v, u) <= 1e-12);

  // another radix is another plan: rebuilt, and still the same answer
  BOOST_TEST(plan.info().radix == before.radix);
  good.radix = before.radix == 3 ? 5 : 3;
  plan.set_parameters(good);
  BOOST_TEST(plan.info().radix == good.radix);
  BOOST_TEST(plan.info().parameters == good);
  std::fill(v.begin(), v.end(), 0.0);
  plan.solve(f.data(), v.data());
  BOOST_TEST(test::rel_error(v, u) <= 1e-12);
  // an explicit Options::radix wins over the parameters' one
  o.radix = 6;
  o.parameters = good;
  pscr::Plan<double> fixed(p, o);
  BOOST_TEST(fixed.info().radix == 6);
  BOOST_TEST(fixed.info().parameters.radix == 6);
  fixed.set_parameters(good);
  BOOST_TEST(fixed.info().radix == 6);
  o.radix = 0;
  o.parameters.reset();

  BOOST_TEST(!ref.check_parameters(good).empty());
  BOOST_CHECK_THROW(ref.set_parameters(good), pscr::InvalidArgument);
}

// The cost model: at least the solution is read and written; complex
// arithmetic doubles the bytes and counts four real operations per one.
BOOST_AUTO_TEST_CASE(cost_estimates) {
  const auto p = pscr::poisson2d(pscr::graded_mesh(33, 1.0, 1.0), pscr::graded_mesh(45, 1.0, 1.0));
  pscr::Options o;
  BOOST_TEST(pscr::Plan<double>(p, o).info().flops == 0.0);
  o.backend = pscr::Backend::opencl;
  o.parameters = pscr::KernelParameters{};  // the same stages for both types, whatever tuning is shipped
  const pscr::PlanInfo transformed = pscr::Plan<double>(p, o).info();
  // the reduction's stages: complex arithmetic in every one (a complex
  // array's sine transform is two real ones, counted as such)
  o.parameters->transforms = 0;
  const pscr::PlanInfo real = pscr::Plan<double>(p, o).info();
  const pscr::PlanInfo cplx = pscr::Plan<std::complex<double>>(p.cast<std::complex<double>>(), o).info();
  BOOST_TEST(real.bytes >= 2.0 * p.unknowns() * sizeof(double));
  BOOST_TEST(real.flops >= 2.0 * p.unknowns());
  BOOST_TEST(cplx.bytes == 2 * real.bytes);
  BOOST_TEST(cplx.flops == 4 * real.flops);
  // transforms and one line solve: three passes over the unknowns, fewer than the reduction's levels
  BOOST_TEST(transformed.dimension_methods[0] == "sine transform");
  BOOST_TEST(transformed.bytes == 3.0 * 2 * p.unknowns() * sizeof(double));
  BOOST_TEST(transformed.bytes < real.bytes);
}

BOOST_AUTO_TEST_CASE(timed_device_solves) {
  const auto p = pscr::poisson2d(pscr::graded_mesh(20, 1.0, 1.0), pscr::graded_mesh(30, 1.0, 1.0));
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  pscr::Plan<double> plan(p, o);
  const auto f = test::random_vector<double>(p.unknowns(), 8);
  const auto ts = pscr::opencl::time_solves(plan, f.data(), 3);
  BOOST_TEST(ts.size() == 3u);
  for (double t : ts) BOOST_TEST(t > 0.0);
  BOOST_CHECK_THROW(pscr::opencl::time_solves(plan, f.data(), 0), pscr::InvalidArgument);
  BOOST_CHECK_THROW(pscr::opencl::time_solves(plan, static_cast<const double*>(nullptr), 2), pscr::InvalidArgument);
  BOOST_CHECK_THROW(pscr::opencl::time_solves(pscr::Plan<double>(p), f.data(), 2), pscr::InvalidArgument);
}

// The program cache: a first plan compiles and stores, a second loads (same
// answers), corrupt or truncated entries are rebuilt and replaced, "off"
// compiles every time, and an unusable directory still gives a working plan.
BOOST_AUTO_TEST_CASE(program_cache) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("pscr-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto p = pscr::poisson2d(pscr::graded_mesh(30, 1.0, 1.01), pscr::graded_mesh(20, 1.0, 1.0));
  const auto f = test::random_vector<double>(p.unknowns(), 3);
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.program_cache = dir.string();
  auto solve = [&](const std::string& expect) {
    pscr::Plan<double> plan(p, o);
    BOOST_TEST(plan.info().program_cache.rfind(expect, 0) == 0, plan.info().program_cache << " (expected " << expect << ")");
    BOOST_TEST(plan.info().build_seconds > 0.0);
    BOOST_TEST(plan.info().eigen_seconds > 0.0);
    std::vector<double> u(f.size());
    plan.solve(f.data(), u.data());
    return u;
  };
  const auto u1 = solve("miss");
  std::vector<fs::path> entries;
  for (auto& e : fs::directory_iterator(dir)) entries.push_back(e.path());
  BOOST_REQUIRE(entries.size() == 1u);
  const auto u2 = solve("hit");
  BOOST_TEST(u2 == u1);
  {  // flip bytes in the middle of the binary
    std::fstream io(entries[0], std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(std::streamoff(fs::file_size(entries[0]) / 2));
    io.write("\xde\xad\xbe\xef", 4);
  }
  BOOST_TEST(solve("miss") == u1);
  BOOST_TEST(solve("hit") == u1);
  fs::resize_file(entries[0], fs::file_size(entries[0]) / 3);  // truncated
  BOOST_TEST(solve("miss") == u1);
  std::ofstream(entries[0], std::ios::trunc) << "not a cache entry";
  BOOST_TEST(solve("miss") == u1);
  o.program_cache = "off";
  BOOST_TEST(solve("off") == u1);
  // the default on PoCL: its own cache (a binary cost it every kernel's code)
  o.program_cache = "";
  if (!std::getenv("PSCR_PROGRAM_CACHE") &&
      pscr::Plan<double>(p, o).info().backend.find("Portable Computing Language") != std::string::npos)
    BOOST_TEST(solve("off (the driver caches its programs)") == u1);
  o.program_cache = (dir / "a-file").string();  // a file where the directory should be
  std::ofstream(dir / "a-file") << "x";
  BOOST_TEST(solve("miss (not stored") == u1);
  fs::remove_all(dir);
}

// Interop as with clFFT: a plan on the caller's own context and queue, device
// solves with and without the checks, asynchronous solves returning an event,
// set_parameters keeping the context (so the caller's buffers stay valid),
// and host batches through the page-locked staging equal to single solves.
BOOST_AUTO_TEST_CASE(caller_queue_async_and_batches) {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  {  // the device a default plan picks: the first GPU, else the first device
    pscr::Options probe;
    probe.backend = pscr::Backend::opencl;
    pscr::Plan<double> tmp(pscr::poisson2d(pscr::graded_mesh(4, 1.0, 1.0), pscr::graded_mesh(4, 1.0, 1.0)), probe);
    BOOST_REQUIRE(clGetCommandQueueInfo(pscr::opencl::queue(tmp), CL_QUEUE_DEVICE, sizeof device, &device, nullptr) ==
                  CL_SUCCESS);
    BOOST_REQUIRE(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) == CL_SUCCESS);
  }
  cl_int st;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  const auto p = pscr::poisson2d(pscr::graded_mesh(33, 1.0, 1.02), pscr::graded_mesh(20, 1.0, 1.0));  // 31·18
  const std::size_t N = p.unknowns(), count = 3;
  const auto f = test::random_vector<double>(count * N, 77);
  std::vector<double> ref(count * N), v(count * N);
  pscr::Plan<double>(p).solve_batch(f.data(), ref.data(), count);
  {
    pscr::Plan<double> plan(p, pscr::opencl::on_queue(q));
    BOOST_TEST(pscr::opencl::context(plan) == ctx);
    BOOST_TEST(pscr::opencl::queue(plan) == q);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, count * N * sizeof(double), nullptr, &st);
    BOOST_REQUIRE(st == CL_SUCCESS);
    // asynchronous: enqueue the upload, the solve and the download, then wait on nothing but the event
    clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, count * N * sizeof(double), f.data(), 0, nullptr, nullptr);
    cl_event done = pscr::opencl::solve_async(plan, buf, count);
    BOOST_REQUIRE(done != nullptr);
    BOOST_TEST(clWaitForEvents(1, &done) == CL_SUCCESS);
    clReleaseEvent(done);
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, count * N * sizeof(double), v.data(), 0, nullptr, nullptr);
    BOOST_TEST(test::rel_error(v, ref) <= 1e-12);
    // unchecked solve of a NaN: no exception (the caller asked for none); checked: NumericalBreakdown
    std::vector<double> bad(f.begin(), f.begin() + N);
    bad[5] = std::nan("");
    clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, N * sizeof(double), bad.data(), 0, nullptr, nullptr);
    BOOST_CHECK_NO_THROW(pscr::opencl::solve(plan, buf, 1, false));
    clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, N * sizeof(double), bad.data(), 0, nullptr, nullptr);
    BOOST_CHECK_THROW(pscr::opencl::solve(plan, buf, 1, true), pscr::NumericalBreakdown);
    // new kernel parameters, same context: the buffer made before still works
    pscr::KernelParameters kp = plan.info().parameters;
    kp.cr_two_levels = 1 - kp.cr_two_levels;
    plan.set_parameters(kp);
    BOOST_TEST(pscr::opencl::context(plan) == ctx);
    clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, count * N * sizeof(double), f.data(), 0, nullptr, nullptr);
    pscr::opencl::solve(plan, buf, count);
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, count * N * sizeof(double), v.data(), 0, nullptr, nullptr);
    BOOST_TEST(test::rel_error(v, ref) <= 1e-12);
    clReleaseMemObject(buf);
    // host batches (staged, overlapped) against single host solves
    std::vector<double> w(count * N);
    plan.solve_batch(f.data(), v.data(), count);
    for (std::size_t c = 0; c < count; ++c) plan.solve(f.data() + c * N, w.data() + c * N);
    BOOST_TEST(v == w);
    BOOST_TEST(test::rel_error(v, ref) <= 1e-12);
  }
  // the plan has released its references: the caller's queue and context are whole
  // (PoCL drops the references of finished commands from its own thread: give it a second)
  cl_uint refs = 0;
  for (int wait = 0; wait < 100; ++wait) {
    clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, nullptr);
    if (refs == 1u) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  BOOST_TEST(refs == 1u);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
}

// Asynchronous solves of a pure-Neumann problem: the projection and the zero
// weighted mean run on the device as for the waiting solve, so the answers agree.
// Several shifted problems in one solve (opencl::solve_shifts_async), each
// against a plan of its own for that shift on the reference backend; the
// shifts share the launches, so a wrong per-problem shift or layout shows.
BOOST_AUTO_TEST_CASE(shifted_problems_in_one_solve) {
  using pscr::Problem;
  const auto fa = pscr::poisson_factor(pscr::graded_mesh(31, 1.0, 1.03));
  const auto fb = pscr::poisson_neumann_factor(pscr::graded_mesh(18, 2.0, 1.0));
  const auto fc = pscr::laplacian_factor(9, 0.1, pscr::Boundary::Dirichlet, pscr::Boundary::Neumann);
  const double c = 0.25;
  const std::vector<double> shifts{c, 3.0, 40.5};
  const std::size_t K = shifts.size();
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  o.shifts = 4;
  for (const auto& p : {Problem<double>::make2d(fa, fb, c), Problem<double>::make3d(fc, fa, fb, c)}) {
    pscr::Plan<double> plan(p, o);
    BOOST_TEST_MESSAGE("shifted solves, " << p.dims() << "D: elimination " << plan.info().elimination);
    const std::size_t N = p.unknowns();
    const auto f = test::random_vector<double>(K * N, 5);  // problem b's right-hand side at f[b N, (b+1) N)
    std::vector<double> mixed(K * N), got(K * N);
    for (std::size_t b = 0; b < K; ++b)
      for (std::size_t i = 0; i < N; ++i) mixed[i * K + b] = f[b * N + i];
    cl_context ctx = pscr::opencl::context(plan);
    cl_command_queue q = pscr::opencl::queue(plan);
    cl_int st;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, K * N * sizeof(double), nullptr, &st);
    BOOST_REQUIRE(st == CL_SUCCESS);
    for (int round = 0; round < 2; ++round) {  // the second round: other shifts, uploaded again
      std::vector<double> s = shifts;
      if (round == 1) s = {7.0, c};
      const std::size_t k = s.size();
      for (std::size_t b = 0; b < k; ++b)
        for (std::size_t i = 0; i < N; ++i) mixed[i * k + b] = f[b * N + i];
      clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, k * N * sizeof(double), mixed.data(), 0, nullptr, nullptr);
      cl_event done = pscr::opencl::solve_shifts_async(plan, buf, s);
      BOOST_REQUIRE(done != nullptr);
      BOOST_TEST(clWaitForEvents(1, &done) == CL_SUCCESS);
      clReleaseEvent(done);
      clEnqueueReadBuffer(q, buf, CL_TRUE, 0, k * N * sizeof(double), mixed.data(), 0, nullptr, nullptr);
      for (std::size_t b = 0; b < k; ++b) {
        const Problem<double> pb = p.dims() == 2 ? Problem<double>::make2d(p.factor(0), p.factor(1), s[b])
                                                 : Problem<double>::make3d(p.factor(0), p.factor(1), p.factor(2), s[b]);
        std::vector<double> ref(N), u(N);
        pscr::Plan<double>(pb).solve(f.data() + b * N, ref.data());
        for (std::size_t i = 0; i < N; ++i) u[i] = mixed[i * k + b];
        BOOST_TEST(test::rel_error(u, ref) <= 1e-12, "round " << round << ", shift " << s[b]);
      }
    }
    // the plan's own single solves are unchanged by the larger batch, twice
    // in a row (a 3D plan's top level keeps the shifts of its c between
    // solves) and again after a shifted solve (which overwrites them)
    std::vector<double> ref(N);
    pscr::Plan<double>(p).solve(f.data(), ref.data());
    for (int again = 0; again < 3; ++again) {
      if (again == 2) clReleaseEvent(pscr::opencl::solve_shifts_async(plan, buf, std::vector<double>{9.5}));
      std::vector<double> one(f.begin(), f.begin() + N);
      clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, N * sizeof(double), one.data(), 0, nullptr, nullptr);
      pscr::opencl::solve(plan, buf, 1);
      clEnqueueReadBuffer(q, buf, CL_TRUE, 0, N * sizeof(double), one.data(), 0, nullptr, nullptr);
      BOOST_TEST(test::rel_error(one, ref) <= 1e-12, "plain solve " << again);
    }
    // refusals, each naming its reason
    auto refused = [&](const std::vector<double>& s, const char* what) {
      try {
        pscr::opencl::solve_shifts_async(plan, buf, s);
        BOOST_ERROR("shifts accepted: " << what);
      } catch (const pscr::InvalidArgument& e) {
        BOOST_TEST_MESSAGE(e.what());
        BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, e.what());
      }
    };
    refused({}, "no shifts");
    refused({1, 2, 3, 4, 5}, "at most 4");
    refused({1.0, 0.1}, "shift 1 = 0.1");
    refused({std::nan(""), 1.0}, "shift 0 = nan");
    refused({1.0, std::numeric_limits<double>::infinity()}, "shift 1 = inf");
    try {
      pscr::opencl::solve_shifts_async(plan, buf, std::vector<double>{c, c, c, c});  // the buffer holds three
      BOOST_ERROR("four shifted problems in a buffer of three");
    } catch (const pscr::SizeMismatch& e) {
      BOOST_TEST(std::string(e.what()).find("opencl::solve_shifts_async: buffer has") != std::string::npos, e.what());
      BOOST_TEST(std::string(e.what()).find("4 shifted problems need") != std::string::npos, e.what());
    }
    clReleaseMemObject(buf);
  }
  // plans that cannot take them
  {
    pscr::Plan<double> ref_plan(Problem<double>::make2d(fa, fb, c));
    BOOST_CHECK_THROW(pscr::opencl::solve_shifts_async(ref_plan, nullptr, std::vector<double>{c}),
                      pscr::InvalidArgument);
    pscr::Plan<double> neumann(Problem<double>::make2d(fb, fb, 0.0), o);
    cl_int st;
    cl_mem buf = clCreateBuffer(pscr::opencl::context(neumann), CL_MEM_READ_WRITE,
                                neumann.problem().unknowns() * sizeof(double), nullptr, &st);
    try {
      pscr::opencl::solve_shifts_async(neumann, buf, std::vector<double>{1.0});
      BOOST_ERROR("a pure Neumann plan took shifts");
    } catch (const pscr::InvalidArgument& e) {
      BOOST_TEST(std::string(e.what()).find("pure Neumann") != std::string::npos, e.what());
    }
    clReleaseMemObject(buf);
    // a plan made with the default Options::shifts = 1 plans no shifted solves
    pscr::Options one = o;
    one.shifts = 1;
    pscr::Plan<double> unshifted(Problem<double>::make2d(fa, fb, c), one);
    buf = clCreateBuffer(pscr::opencl::context(unshifted), CL_MEM_READ_WRITE,
                         unshifted.problem().unknowns() * sizeof(double), nullptr, &st);
    try {
      pscr::opencl::solve_shifts_async(unshifted, buf, std::vector<double>{c});
      BOOST_ERROR("a plan of Options::shifts = 1 took a shifted solve");
    } catch (const pscr::InvalidArgument& e) {
      BOOST_TEST(std::string(e.what()).find("Options::shifts = 1") != std::string::npos, e.what());
    }
    clReleaseMemObject(buf);
    pscr::Options bad = o;
    for (int n : {0, 65}) {
      bad.shifts = n;
      BOOST_CHECK_THROW(pscr::Plan<double>(Problem<double>::make2d(fa, fb, c), bad), pscr::InvalidArgument);
    }
  }
}

BOOST_AUTO_TEST_CASE(async_pure_neumann) {
  const auto fa = pscr::poisson_neumann_factor(pscr::graded_mesh(21, 1.0, 1.03));
  const auto fb = pscr::laplacian_factor(17, 0.5, pscr::Boundary::Neumann, pscr::Boundary::Neumann);
  const auto p = pscr::Problem<double>::make2d(fa, fb, 0.0);
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  pscr::Plan<double> plan(p, o);
  const std::size_t N = p.unknowns();
  auto f = test::random_vector<double>(2 * N, 9);
  for (auto& v : f) v += 0.2;
  std::vector<double> ref(2 * N), v(2 * N);
  plan.solve_batch(f.data(), ref.data(), 2);
  cl_int st;
  cl_command_queue q = pscr::opencl::queue(plan);
  cl_mem buf = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_WRITE, 2 * N * sizeof(double), nullptr, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, 2 * N * sizeof(double), f.data(), 0, nullptr, nullptr);
  cl_event ev = pscr::opencl::solve_async(plan, buf, 2);
  clWaitForEvents(1, &ev);
  clReleaseEvent(ev);
  clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 2 * N * sizeof(double), v.data(), 0, nullptr, nullptr);
  clReleaseMemObject(buf);
  BOOST_TEST(test::rel_error(v, ref) <= 1e-11);
}

// One plan on several devices (here PoCL's one device twice: two executors
// with their own queues and buffers): batches are split, each share solved
// as on one device, so the result equals the single-device one bit for bit.
BOOST_AUTO_TEST_CASE(several_devices_share_batches) {
  using Z = std::complex<double>;
  const auto p = pscr::Problem<Z>::make2d(test::random_factor<Z>(37, 3), test::random_factor<Z>(29, 4), Z(0.3, -0.1));
  pscr::Options one;
  one.backend = pscr::Backend::opencl;
  pscr::Options two = one;
  two.devices = {"0:0", "0:0"};
  const pscr::Plan<Z> single(p, one), multi(p, two);
  BOOST_TEST(multi.info().backend.find(" + ") != std::string::npos, multi.info().backend);
  BOOST_TEST(multi.info().device_bytes >= 2 * single.info().device_bytes - 1024);
  for (std::size_t count : {1, 2, 5}) {
    const auto f = test::random_vector<Z>(p.unknowns() * count, 7 + count);
    std::vector<Z> a(f.size()), b(f.size());
    single.solve_batch(f.data(), a.data(), count);
    multi.solve_batch(f.data(), b.data(), count);
    BOOST_TEST((a == b), "count " << count);
    for (std::size_t c = 0; c < count; ++c)
      BOOST_TEST(p.backward_error(f.data() + c * p.unknowns(), b.data() + c * p.unknowns()) < 1e-13);
  }
  // a batch already on the devices: a share per device, each solved on its
  // own queue, the solves in flight together; the same bits as one device
  namespace ocl = pscr::opencl;
  BOOST_TEST(ocl::device_count(multi) == 2u);
  BOOST_TEST(ocl::device_count(single) == 1u);
  BOOST_TEST(ocl::queue(multi, 0) == ocl::queue(multi));
  // distinct queues, but on PoCL's CPU device: there every plan of the
  // process shares one (docs/guide/threads.md)
  {
    cl_device_id dev = nullptr;
    cl_platform_id plat = nullptr;
    cl_device_type type = 0;
    char name[256] = {0};
    clGetCommandQueueInfo(static_cast<cl_command_queue>(ocl::queue(multi, 1)), CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr);
    clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, nullptr);
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
    const bool pocl_cpu = !(type & CL_DEVICE_TYPE_GPU) && std::string(name).find("Portable Computing") != std::string::npos;
    BOOST_TEST((ocl::queue(multi, 1) == ocl::queue(multi, 0)) == pocl_cpu);
    BOOST_TEST((ocl::queue(single) == ocl::queue(multi, 0)) == pocl_cpu);
  }
  {
    const std::size_t count = 5, shares[2] = {3, 2}, N = p.unknowns();
    const auto f = test::random_vector<Z>(N * count, 21);
    std::vector<Z> a(f.size()), b(f.size());
    single.solve_batch(f.data(), a.data(), count);
    cl_mem buf[2];
    cl_event done[2];
    for (std::size_t i = 0, first = 0; i < 2; first += shares[i], ++i) {
      cl_int err;
      buf[i] = clCreateBuffer(ocl::context(multi, i), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, shares[i] * N * sizeof(Z),
                              const_cast<Z*>(f.data() + first * N), &err);
      BOOST_REQUIRE(err == CL_SUCCESS);
      done[i] = ocl::solve_async(multi, i, buf[i], shares[i]);
    }
    BOOST_REQUIRE(clWaitForEvents(2, done) == CL_SUCCESS);
    for (std::size_t i = 0; i < 2; ++i) {  // each share went to its device's queue
      cl_command_queue q = nullptr;
      BOOST_REQUIRE(clGetEventInfo(done[i], CL_EVENT_COMMAND_QUEUE, sizeof q, &q, nullptr) == CL_SUCCESS);
      BOOST_TEST(q == ocl::queue(multi, i));
    }
    for (std::size_t i = 0, first = 0; i < 2; first += shares[i], ++i) {
      BOOST_REQUIRE(clEnqueueReadBuffer(ocl::queue(multi, i), buf[i], CL_TRUE, 0, shares[i] * N * sizeof(Z),
                                        b.data() + first * N, 0, nullptr, nullptr) == CL_SUCCESS);
      clReleaseEvent(done[i]);
    }
    BOOST_TEST((a == b));
    // the blocking form checks the solutions, as solve() on one device
    std::vector<Z> c(N);
    BOOST_REQUIRE(clEnqueueWriteBuffer(ocl::queue(multi, 1), buf[1], CL_TRUE, 0, N * sizeof(Z), f.data(), 0, nullptr,
                                       nullptr) == CL_SUCCESS);
    BOOST_TEST(ocl::solve(multi, 1, buf[1]).seconds > 0);
    BOOST_REQUIRE(clEnqueueReadBuffer(ocl::queue(multi, 1), buf[1], CL_TRUE, 0, N * sizeof(Z), c.data(), 0, nullptr,
                                      nullptr) == CL_SUCCESS);
    BOOST_TEST((std::vector<Z>(a.begin(), a.begin() + N) == c));
    // a device past the plan's, and too short a buffer, are named
    const auto names = [](const std::string& what) {
      return [what](const pscr::Error& e) { return std::string(e.what()).find(what) != std::string::npos; };
    };
    BOOST_CHECK_EXCEPTION(ocl::context(multi, 2), pscr::InvalidArgument, names("device 2 of a plan on 2 devices"));
    BOOST_CHECK_EXCEPTION(ocl::solve_async(single, 1, buf[0]), pscr::InvalidArgument,
                          names("device 1 of a plan on 1 device"));
    BOOST_CHECK_EXCEPTION(ocl::solve(multi, 1, buf[1], 3), pscr::SizeMismatch, names("3 right-hand sides"));
    for (cl_mem m : buf) clReleaseMemObject(m);
  }
  // device buffers without a device go to the first; set_parameters keeps both devices
  BOOST_TEST(pscr::opencl::context(multi) != nullptr);
  pscr::Plan<Z> tuned(p, two);
  pscr::KernelParameters k = tuned.info().parameters;
  k.work_group = 32;
  tuned.set_parameters(k);
  BOOST_TEST(tuned.info().backend == multi.info().backend);
  BOOST_TEST(tuned.info().parameters.work_group == 32);
  // $PSCR_DEVICES when Options::devices is empty; named errors
  setenv("PSCR_DEVICES", "0:0,0:0", 1);
  BOOST_TEST(pscr::Plan<Z>(p, one).info().backend == multi.info().backend);
  setenv("PSCR_DEVICES", "0:0,,0:0", 1);
  BOOST_CHECK_EXCEPTION(pscr::Plan<Z>(p, one), pscr::InvalidArgument,
                        [](auto& e) { return std::string(e.what()).find("PSCR_DEVICES") != std::string::npos; });
  unsetenv("PSCR_DEVICES");
  two.devices = {"0:0", "no-such-device-anywhere"};
  BOOST_CHECK_EXCEPTION(pscr::Plan<Z>(p, two), pscr::BackendError,
                        [](auto& e) { return std::string(e.what()).find("device 1 of the plan") != std::string::npos; });
  two.devices = {"0:0", ""};
  BOOST_CHECK_THROW(pscr::Plan<Z>(p, two), pscr::InvalidArgument);
}

// One solve split over devices by rows (Options::device_split = rows; here
// PoCL's one device two and three times, ranks as threads): the same as one
// device to rounding, the sums of shared groups being added in another order.
template <class T> void split_against_single(const pscr::Problem<T>& p, const std::string& name, std::size_t count) {
  pscr::Options one;
  one.backend = pscr::Backend::opencl;
  const pscr::Plan<T> single(p, one);
  for (int devices : {2, 3}) {
    pscr::Options split = one;
    split.devices.assign(std::size_t(devices), "0:0");
    split.device_split = pscr::DeviceSplit::rows;
    const pscr::Plan<T> plan(p, split);
    BOOST_TEST(plan.info().backend.find("rows split over " + std::to_string(devices) + " devices") != std::string::npos,
               plan.info().backend);
    const auto f = test::random_vector<T>(p.unknowns() * count, 11);
    std::vector<T> a(f.size()), b(f.size());
    single.solve_batch(f.data(), a.data(), count);
    plan.solve_batch(f.data(), b.data(), count);
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      diff = std::max(diff, double(std::abs(a[i] - b[i])));
      scale = std::max(scale, double(std::abs(a[i])));
    }
    BOOST_TEST(diff <= 1e-12 * scale, name << " on " << devices << " devices: " << diff / scale);
  }
}

BOOST_AUTO_TEST_CASE(several_devices_split_rows) {
  using Z = std::complex<double>;
  split_against_single(pscr::Problem<double>::make2d(test::random_factor<double>(61, 3),
                                                     test::random_factor<double>(29, 4), 0.2),
                       "2D double", 2);
  split_against_single(pscr::Problem<Z>::make2d(test::random_factor<Z>(37, 5), test::random_factor<Z>(17, 6),
                                                Z(0.3, -0.1)),
                       "2D complex double", 1);
  split_against_single(pscr::Problem<double>::make3d(test::random_factor<double>(23, 7),
                                                     test::random_factor<double>(9, 8),
                                                     test::random_factor<double>(7, 9), 0.0),
                       "3D double", 1);
  const auto neumann = pscr::poisson_neumann_factor(pscr::graded_mesh(33, 1.0, 1.01));
  split_against_single(pscr::Problem<double>::make2d(neumann, neumann, 0.0), "2D pure Neumann", 1);
  // what a split plan cannot do, named
  const auto p = pscr::Problem<double>::make2d(test::random_factor<double>(20, 1), test::random_factor<double>(9, 2), 0.1);
  pscr::Options split;
  split.backend = pscr::Backend::opencl;
  split.devices = {"0:0", "0:0"};
  split.device_split = pscr::DeviceSplit::rows;
  pscr::Plan<double> plan(p, split);
  BOOST_CHECK_EXCEPTION(pscr::opencl::context(plan), pscr::InvalidArgument,
                        [](auto& e) { return std::string(e.what()).find("split over 2 devices") != std::string::npos; });
  pscr::KernelParameters k = plan.info().parameters;
  k.work_group = 32;
  BOOST_CHECK_THROW(plan.set_parameters(k), pscr::InvalidArgument);
  // a solve refused on every device (its solution overflows) leaves the plan usable
  std::vector<double> big(p.unknowns(), 1e308), out(big.size());
  BOOST_CHECK_THROW(plan.solve(big.data(), out.data()), pscr::NumericalBreakdown);
  const auto f = test::random_vector<double>(p.unknowns(), 5);
  const pscr::SolveStats st = plan.solve(f.data(), out.data());
  BOOST_TEST(p.backward_error(f.data(), out.data()) < 1e-13);
  // the stats carry the levels on the devices and the host's time at the exchanges
  BOOST_TEST(st.device_seconds > 0);
  BOOST_TEST(st.exchange_seconds + st.exchange_wait_seconds <= st.device_seconds);
  BOOST_TEST(st.transfer_seconds > 0);
  // a non-finite right-hand side named by its index in the whole array
  std::vector<double> nan_f = f;
  nan_f[p.unknowns() - 3] = std::nan("");
  BOOST_CHECK_EXCEPTION(plan.solve(nan_f.data(), out.data()), pscr::NonFiniteInput, [&](auto& e) {
    return std::string(e.what()).find("index " + std::to_string(p.unknowns() - 3)) != std::string::npos;
  });
  plan.solve(f.data(), out.data());
  BOOST_TEST(p.backward_error(f.data(), out.data()) < 1e-13);
  split.devices = {"0:0", "no-such-device-anywhere"};
  BOOST_CHECK_THROW(pscr::Plan<double>(p, split), pscr::BackendError);
  // options a split plan would ignore, refused with both named
  const auto names = [](std::vector<std::string> parts) {
    return [parts](const pscr::InvalidArgument& e) {
      for (const auto& part : parts)
        if (std::string(e.what()).find(part) == std::string::npos) return false;
      return true;
    };
  };
  pscr::Options host = split;  // the reference backend has no devices to split over
  host.devices = {"0:0", "0:0"};
  host.backend = pscr::Backend::reference;
  BOOST_CHECK_EXCEPTION(pscr::Plan<double>(p, host), pscr::InvalidArgument,
                        names({"device_split = rows", "backend = reference"}));
  host.devices.clear();
  BOOST_CHECK_EXCEPTION(pscr::Plan<double>(p, host), pscr::InvalidArgument,
                        names({"device_split = rows", "backend = reference"}));
  pscr::Options shifted = host;  // a split plan has no shifted solves (opencl::solve_shifts_async)
  shifted.backend = pscr::Backend::opencl;
  shifted.devices = {"0:0", "0:0"};
  shifted.shifts = 4;
  BOOST_CHECK_EXCEPTION(pscr::Plan<double>(p, shifted), pscr::InvalidArgument,
                        names({"shifts = 4", "device_split = rows over 2 devices"}));
  BOOST_CHECK_EXCEPTION(pscr::opencl::device_bytes(p, shifted), pscr::InvalidArgument, names({"shifts = 4"}));
  shifted.devices = {"0:0"};  // rows over one device is the plan on it: shifts as there
  BOOST_TEST(pscr::Plan<double>(p, shifted).info().backend.find("rows split") == std::string::npos);
}
