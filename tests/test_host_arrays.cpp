// Host-array solves on OpenCL (docs/host-arrays.md): single and batched
// solves through the page-locked staging give exactly the device-resident
// solve's answer, for every scalar type, odd sizes, pointers one scalar off
// an allocation's start, chunks smaller than a right-hand side, in place,
// from concurrent plans, and through the pageable fallback (forced, or after
// a refused page-locked allocation). Nothing here depends on timing.
#define BOOST_TEST_MODULE host_arrays
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <thread>

#include "pscr/opencl.hpp"
#include "support.hpp"

using Types = boost::mpl::list<float, double, std::complex<float>, std::complex<double>>;

namespace {

using test::ScopedEnv;

template <class T> pscr::Problem<T> random_problem(const std::vector<int>& n, std::uint64_t seed) {
  std::vector<pscr::Factor<T>> fs;
  for (std::size_t d = 0; d < n.size(); ++d) fs.push_back(test::random_factor<T>(n[d], seed + d, d % 2 == 1));
  T c = T(0.25);
  if constexpr (pscr::is_complex_v<T>) c = T(-0.3, 0.1);
  return pscr::Problem<T>(fs, c);
}

template <class T> pscr::Plan<T> opencl_plan(const pscr::Problem<T>& p) {
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  return pscr::Plan<T>(p, o);
}

// The device-resident solve of `count` right-hand sides: uploaded, solved in
// a buffer of the plan's context, read back.
template <class T> std::vector<T> device_solve(const pscr::Plan<T>& plan, const std::vector<T>& f, std::size_t count) {
  cl_context ctx = pscr::opencl::context(plan);
  cl_command_queue q = pscr::opencl::queue(plan);
  const std::size_t bytes = count * plan.problem().unknowns() * sizeof(T);
  cl_int st;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &st);
  BOOST_REQUIRE(st == CL_SUCCESS);
  BOOST_REQUIRE(clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, bytes, f.data(), 0, nullptr, nullptr) == CL_SUCCESS);
  pscr::opencl::solve(plan, buf, count);
  std::vector<T> u(count * plan.problem().unknowns());
  BOOST_REQUIRE(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, bytes, u.data(), 0, nullptr, nullptr) == CL_SUCCESS);
  clReleaseMemObject(buf);
  return u;
}

constexpr double tolerance(bool wide) { return wide ? 1e-11 : 1e-4; }

// Batch, singles and in place, from pointers one scalar past an
// allocation's start, against the device-resident solve (equal) and the
// reference backend (close). Returns the batch's stats.
template <class T> pscr::SolveStats check_host_solves(const pscr::Problem<T>& p, std::size_t count, std::uint64_t seed) {
  const pscr::Plan<T> plan = opencl_plan(p);
  const std::size_t N = p.unknowns();
  const auto f = test::random_vector<T>(count * N, seed);
  const std::vector<T> want = device_solve(plan, f, count);
  std::vector<T> ref(count * N);
  pscr::Plan<T>(p).solve_batch(f.data(), ref.data(), count);
  BOOST_TEST(test::rel_error(want, ref) <= tolerance(std::is_same_v<pscr::real_t<T>, double>));
  std::vector<T> fin(count * N + 1), uout(count * N + 1);  // f and u at data() + 1
  std::copy(f.begin(), f.end(), fin.begin() + 1);
  const pscr::SolveStats st = plan.solve_batch(fin.data() + 1, uout.data() + 1, count);
  BOOST_TEST(std::vector<T>(uout.begin() + 1, uout.end()) == want);
  BOOST_TEST(std::equal(f.begin(), f.end(), fin.begin() + 1));  // f untouched
  std::vector<T> single(count * N);
  for (std::size_t c = 0; c < count; ++c) plan.solve(f.data() + c * N, single.data() + c * N);
  BOOST_TEST(single == want);
  std::vector<T> in_place(fin.begin() + 1, fin.end());
  plan.solve_batch(in_place.data(), in_place.data(), count);
  BOOST_TEST(in_place == want);
  BOOST_TEST(st.transfer_seconds == st.copy_in_seconds + st.copy_out_seconds);
  BOOST_TEST(st.staging_bytes == (st.staging.rfind("page-locked", 0) == 0 ? plan.info().staging_bytes : 0u));
  return st;
}

}  // namespace

// Odd sizes in 2D and 3D, with the default staging (one chunk holds a whole
// right-hand side) and with chunks of 1008 bytes (a right-hand side in many,
// the ring of four reused within one), batches of 1, 2 and 5.
BOOST_AUTO_TEST_CASE_TEMPLATE(host_solves_equal_device_solves, T, Types) {
  std::uint64_t seed = 11;
  for (const char* bytes : {static_cast<const char*>(nullptr), "4032"}) {
    const ScopedEnv staging_bytes("PSCR_HOST_STAGING_BYTES", bytes);
    const ScopedEnv mode("PSCR_HOST_STAGING", "pinned");  // the default pins on GPUs only
    for (auto n : std::vector<std::vector<int>>{{1, 1}, {37, 29}, {9, 7, 5}}) {
      for (std::size_t count : {1, 2, 5}) {
        BOOST_TEST_CONTEXT("T=" << pscr::scalar_name<T>() << " n1=" << n[0] << " dims=" << n.size() << " count="
                                << count << " staging bytes=" << (bytes ? bytes : "default")) {
          const auto p = random_problem<T>(n, seed);
          const pscr::SolveStats st = check_host_solves(p, count, seed);
          ++seed;
          BOOST_TEST(st.staging.rfind("page-locked", 0) == 0u, st.staging);
          // four chunks of a quarter of the bound, or of one right-hand side (whole scalars of 16 bytes) if smaller
          const std::size_t quarter = bytes ? 1008 : std::size_t(8) << 20, rhs = p.unknowns() * sizeof(T);
          BOOST_TEST(st.staging_bytes == 4 * std::min(quarter, (rhs + 15) / 16 * 16));
          if (count > 1) BOOST_TEST(st.staging.find("overlap") != std::string::npos, st.staging);
        }
      }
    }
  }
}

// Without page-locked memory, forced or refused by the driver: the same answers.
BOOST_AUTO_TEST_CASE_TEMPLATE(pageable_fallback_is_still_exact, T, Types) {
  std::uint64_t seed = 101;
  for (const char* mode : {"pageable", "fail"}) {
    const ScopedEnv env("PSCR_HOST_STAGING", mode);
    for (std::size_t count : {1, 3}) {
      BOOST_TEST_CONTEXT("T=" << pscr::scalar_name<T>() << " PSCR_HOST_STAGING=" << mode << " count=" << count) {
        const pscr::SolveStats st = check_host_solves(random_problem<T>({23, 17}, seed), count, seed);
        ++seed;
        BOOST_TEST(st.staging_bytes == 0u);
        BOOST_TEST(st.staging.rfind("pageable (", 0) == 0u, st.staging);
        if (std::string(mode) == "fail") BOOST_TEST(st.staging.find("could not be had") != std::string::npos, st.staging);
      }
    }
  }
  {  // a forced fallback is known when the plan is made
    const ScopedEnv env("PSCR_HOST_STAGING", "pageable");
    BOOST_TEST(opencl_plan(random_problem<T>({5, 4}, 1)).info().staging_bytes == 0u);
  }
  {  // by default: page-locked on GPUs, pageable on other devices (no bus to cross)
    const ScopedEnv env("PSCR_HOST_STAGING", nullptr);
    const auto p = random_problem<T>({23, 17}, 7);
    const pscr::Plan<T> plan = opencl_plan(p);
    cl_device_id dev = nullptr;
    cl_device_type type = 0;
    BOOST_REQUIRE(clGetCommandQueueInfo(pscr::opencl::queue(plan), CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr) ==
                  CL_SUCCESS);
    BOOST_REQUIRE(clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, nullptr) == CL_SUCCESS);
    const bool gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    std::vector<T> f = test::random_vector<T>(p.unknowns(), 3), u(p.unknowns());
    const pscr::SolveStats st = plan.solve(f.data(), u.data());
    BOOST_TEST(u == device_solve(plan, f, 1));
    BOOST_TEST(st.staging_bytes == plan.info().staging_bytes);
    BOOST_TEST((st.staging.find("not a GPU") != std::string::npos) == !gpu, st.staging);
    BOOST_TEST((st.staging_bytes > 0) == gpu);
  }
  const ScopedEnv env("PSCR_HOST_STAGING", "sometimes");
  BOOST_CHECK_THROW(opencl_plan(random_problem<T>({5, 4}, 1)), pscr::InvalidArgument);
  const ScopedEnv size("PSCR_HOST_STAGING_BYTES", "12 MiB");
  const ScopedEnv mode("PSCR_HOST_STAGING", nullptr);
  BOOST_CHECK_THROW(opencl_plan(random_problem<T>({5, 4}, 1)), pscr::InvalidArgument);
}

// A non-finite value in the third right-hand side of a batch, found as it is
// copied (in a later chunk of it): NonFiniteInput naming its index in the
// whole batch, through page-locked and pageable staging.
BOOST_AUTO_TEST_CASE(nonfinite_input_named_by_its_index) {
  using T = double;
  const ScopedEnv staging_bytes("PSCR_HOST_STAGING_BYTES", "4032");
  for (const char* mode : {"pinned", "pageable"}) {
    const ScopedEnv env("PSCR_HOST_STAGING", mode);
    const auto p = random_problem<T>({37, 29}, 5);
    const pscr::Plan<T> plan = opencl_plan(p);
    const std::size_t N = p.unknowns(), bad = 2 * N + 700;
    auto f = test::random_vector<T>(4 * N, 9);
    f[bad] = std::numeric_limits<T>::infinity();
    std::vector<T> u(4 * N);
    // as a plan split over devices names it (test_transform_split), and the
    // reference backend, which checks f before solving
    const auto named = [&](const pscr::NonFiniteInput& e) {
      const std::string what = e.what();
      return what.find("right-hand side 2 of the batch: non-finite value at index " + std::to_string(bad)) !=
             std::string::npos;
    };
    BOOST_CHECK_EXCEPTION(plan.solve_batch(f.data(), u.data(), 4), pscr::NonFiniteInput, named);
    BOOST_CHECK_EXCEPTION(pscr::Plan<T>(p).solve_batch(f.data(), u.data(), 4), pscr::NonFiniteInput, named);
    // the plan solves on afterwards
    f[bad] = 1;
    plan.solve_batch(f.data(), u.data(), 4);
    BOOST_TEST(u == device_solve(plan, f, 4));
  }
}

// Two plans (each with its own staging and copy queue) and one plan shared
// by two threads, solving host arrays at once: every answer as when solved alone.
BOOST_AUTO_TEST_CASE(concurrent_plans) {
  using T = std::complex<double>;
  const ScopedEnv staging_bytes("PSCR_HOST_STAGING_BYTES", "8192"), mode("PSCR_HOST_STAGING", "pinned");
  const auto p1 = random_problem<T>({31, 19}, 21), p2 = random_problem<T>({8, 6, 5}, 31);
  const pscr::Plan<T> a = opencl_plan(p1), b = opencl_plan(p2);
  const std::size_t count = 3;
  const auto f1 = test::random_vector<T>(count * p1.unknowns(), 1), f2 = test::random_vector<T>(count * p2.unknowns(), 2);
  const auto want1 = device_solve(a, f1, count), want2 = device_solve(b, f2, count);
  auto work = [&](const pscr::Plan<T>& plan, const std::vector<T>& f, const std::vector<T>& want, bool& ok) {
    ok = true;
    std::vector<T> u(f.size());
    for (int r = 0; r < 4; ++r) {
      plan.solve_batch(f.data(), u.data(), count);
      ok = ok && u == want;
      std::fill(u.begin(), u.end(), T(0));
      const std::size_t N = plan.problem().unknowns();
      for (std::size_t c = 0; c < count; ++c) plan.solve(f.data() + c * N, u.data() + c * N);
      ok = ok && u == want;
    }
  };
  bool ok[3] = {false, false, false};
  std::thread t1(work, std::cref(a), std::cref(f1), std::cref(want1), std::ref(ok[0]));
  std::thread t2(work, std::cref(b), std::cref(f2), std::cref(want2), std::ref(ok[1]));
  std::thread t3(work, std::cref(a), std::cref(f1), std::cref(want1), std::ref(ok[2]));
  t1.join();
  t2.join();
  t3.join();
  BOOST_TEST(ok[0]);
  BOOST_TEST(ok[1]);
  BOOST_TEST(ok[2]);
}

// A plan on two devices (PoCL's one device twice) splits a host batch into
// shares: each share through its own device's staging, the same bits as one
// device, and a bad value in the second share named by its index in the batch.
BOOST_AUTO_TEST_CASE(batches_split_over_devices) {
  using T = float;
  const ScopedEnv staging_bytes("PSCR_HOST_STAGING_BYTES", "4032"), mode("PSCR_HOST_STAGING", "pinned");
  const auto p = random_problem<T>({29, 23}, 41);
  pscr::Options two;
  two.backend = pscr::Backend::opencl;
  two.devices = {"0:0", "0:0"};
  const pscr::Plan<T> single = opencl_plan(p), multi(p, two);
  BOOST_TEST(multi.info().staging_bytes == 2 * 4032u);
  const std::size_t N = p.unknowns(), count = 5;
  auto f = test::random_vector<T>(count * N, 3);
  std::vector<T> u(count * N);
  const pscr::SolveStats st = multi.solve_batch(f.data(), u.data(), count);
  BOOST_TEST(u == device_solve(single, f, count));
  BOOST_TEST(st.staging_bytes == 2 * 4032u);
  const std::size_t bad = 4 * N + 3;  // right-hand side 4: the second device's share (3 + 2)
  f[bad] = std::numeric_limits<T>::quiet_NaN();
  BOOST_CHECK_EXCEPTION(multi.solve_batch(f.data(), u.data(), count), pscr::NonFiniteInput, [&](const auto& e) {
    return std::string(e.what()).find("index " + std::to_string(bad)) != std::string::npos;
  });
}

// The caller's page-locked buffers (opencl::pinned_buffer): copied between
// them and the devices directly, every type, batches, singles and in place,
// on one device and on two (batches split), the same bits as the
// device-resident solve; a non-finite value named by its index; f or u
// outside such a buffer takes the staging; bad requests refused.
BOOST_AUTO_TEST_CASE_TEMPLATE(callers_page_locked_buffers, T, Types) {
  const auto p = random_problem<T>({29, 23}, 43);
  const std::size_t N = p.unknowns(), count = 5;
  pscr::Options two;
  two.backend = pscr::Backend::opencl;
  two.devices = {"0:0", "0:0"};
  const pscr::Plan<T> single = opencl_plan(p), multi(p, two);
  const auto f = test::random_vector<T>(count * N, 5);
  const std::vector<T> want = device_solve(single, f, count);
  for (const pscr::Plan<T>* plan : {&single, &multi}) {
    BOOST_TEST_CONTEXT((plan == &single ? "one device" : "two devices")) {
      pscr::opencl::PinnedBuffer fb = pscr::opencl::pinned_buffer(*plan, count * N),
                                 ub = pscr::opencl::pinned_buffer(*plan, count * N + 1);
      BOOST_TEST(fb.bytes() == count * N * sizeof(T));
      T* fp = static_cast<T*>(fb.data());
      T* up = static_cast<T*>(ub.data()) + 1;  // one scalar into its buffer
      BOOST_TEST(std::all_of(fp, fp + count * N, [](T v) { return v == T(0); }));  // zeroed
      std::copy(f.begin(), f.end(), fp);
      const pscr::SolveStats st = plan->solve_batch(fp, up, count);
      BOOST_TEST(std::vector<T>(up, up + count * N) == want);
      BOOST_TEST(st.staging.find("caller's page-locked") != std::string::npos, st.staging);
      // one device's five right-hand sides in three vectors, copies in and
      // out on queues of their own (the two devices' three and two: the
      // first also)
      BOOST_TEST(st.staging.find("three buffers, two copy queues") != std::string::npos, st.staging);
      BOOST_TEST(st.staging_bytes == 0u);
      for (std::size_t c = 0; c < count; ++c) plan->solve(fp + c * N, up + c * N);
      BOOST_TEST(std::vector<T>(up, up + count * N) == want);
      plan->solve_batch(fp, fp, count);  // in place
      BOOST_TEST(std::vector<T>(fp, fp + count * N) == want);
      // u in ordinary memory: the staging, the same answer
      std::copy(f.begin(), f.end(), fp);
      std::vector<T> u(count * N);
      const pscr::SolveStats mixed = plan->solve_batch(fp, u.data(), count);
      BOOST_TEST(u == want);
      BOOST_TEST(mixed.staging.find("caller's page-locked") == std::string::npos, mixed.staging);
      // a non-finite value in right-hand side 3: named after the solves
      // (f unscanned, every right-hand side solved), and in place at once
      // (right-hand side 4 not solved: f's values kept)
      const std::size_t bad = 3 * N + 7;
      fp[bad] = std::numeric_limits<pscr::real_t<T>>::infinity();
      const auto named = [&](const pscr::NonFiniteInput& e) {
        return std::string(e.what()).find("index " + std::to_string(bad)) != std::string::npos;
      };
      BOOST_CHECK_EXCEPTION(plan->solve_batch(fp, up, count), pscr::NonFiniteInput, named);
      fp[bad - 1] = std::numeric_limits<pscr::real_t<T>>::quiet_NaN();
      BOOST_CHECK_EXCEPTION(plan->solve_batch(fp, up, count), pscr::NonFiniteInput, [&](const auto& e) {
        return std::string(e.what()).find("index " + std::to_string(bad - 1)) != std::string::npos;
      });
      if (plan == &single) {
        BOOST_CHECK_EXCEPTION(plan->solve_batch(fp, fp, count), pscr::NonFiniteInput, [&](const auto& e) {
          return std::string(e.what()).find("index " + std::to_string(bad - 1)) != std::string::npos;
        });
        BOOST_TEST(std::equal(fp + 4 * N, fp + 5 * N, f.begin() + 4 * N));
      }
    }
  }
  BOOST_CHECK_THROW(pscr::opencl::pinned_buffer(single, 0), pscr::InvalidArgument);
  BOOST_CHECK_THROW(pscr::opencl::pinned_buffer(pscr::Plan<T>(p), 10), pscr::InvalidArgument);  // reference backend
  pscr::opencl::PinnedBuffer empty, moved = pscr::opencl::pinned_buffer(single, 8);
  BOOST_TEST(empty.data() == nullptr);
  BOOST_TEST(empty.bytes() == 0u);
  empty = std::move(moved);
  BOOST_TEST(empty.bytes() == 8 * sizeof(T));
}

// A pure-Neumann plan projects f on the host and solves the copy through the
// same staging: host and device-resident solves (projected on the device)
// agree to rounding, with the reference backend, and the batch with singles.
BOOST_AUTO_TEST_CASE(pure_neumann_through_the_staging) {
  const ScopedEnv staging_bytes("PSCR_HOST_STAGING_BYTES", "4032"), mode("PSCR_HOST_STAGING", "pinned");
  const auto p = pscr::Problem<double>::make2d(pscr::poisson_neumann_factor(pscr::graded_mesh(33, 1.0, 1.03)),
                                               pscr::poisson_neumann_factor(pscr::graded_mesh(21, 2.0, 0.95)), 0.0);
  const pscr::Plan<double> plan = opencl_plan(p);
  BOOST_REQUIRE(plan.info().pure_neumann);
  const std::size_t N = p.unknowns(), count = 3;
  const auto f = test::random_vector<double>(count * N, 17);
  std::vector<double> u(count * N), single(count * N), ref(count * N);
  const pscr::SolveStats st = plan.solve_batch(f.data(), u.data(), count);
  BOOST_TEST(st.staging.rfind("page-locked", 0) == 0u, st.staging);
  for (std::size_t c = 0; c < count; ++c) plan.solve(f.data() + c * N, single.data() + c * N);
  BOOST_TEST(single == u);
  pscr::Plan<double>(p).solve_batch(f.data(), ref.data(), count);
  BOOST_TEST(test::rel_error(u, ref) <= 1e-10);
  BOOST_TEST(test::rel_error(u, device_solve(plan, f, count)) <= 1e-10);
}
