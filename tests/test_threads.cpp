// One plan used from several threads at once: every thread's solutions equal
// those of the same right-hand sides solved one after another. The reference
// backend runs the calls concurrently; the OpenCL backend takes them in turn.
// Run under ThreadSanitizer by tests/tsan_check.sh (reference backend).
#define BOOST_TEST_MODULE threads
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <thread>

#include "support.hpp"

namespace {

template <class T> void concurrent_solves(const pscr::Problem<T>& p, const pscr::Options& o, int nthreads, int rounds) {
  pscr::Plan<T> plan(p, o);
  const std::size_t N = p.unknowns();
  std::vector<std::vector<T>> f(nthreads), expect(nthreads), got(nthreads);
  for (int t = 0; t < nthreads; ++t) {
    f[t] = test::random_vector<T>(2 * N, 100 + t);
    expect[t].resize(2 * N);
    plan.solve_batch(f[t].data(), expect[t].data(), 2);
    got[t].resize(2 * N);
  }
  std::vector<int> mismatches(nthreads, 0);
  std::vector<std::string> errors(nthreads);
  std::vector<std::thread> pool;
  for (int t = 0; t < nthreads; ++t)
    pool.emplace_back([&, t] {
      try {
        for (int r = 0; r < rounds; ++r) {
          if (r % 2) plan.solve_batch(f[t].data(), got[t].data(), 2);
          else {
            plan.solve(f[t].data(), got[t].data());
            plan.solve(f[t].data() + N, got[t].data() + N);
          }
          if (got[t] != expect[t]) ++mismatches[t];
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < nthreads; ++t) {
    BOOST_TEST_CONTEXT("thread " << t << " backend " << plan.info().backend) {
      BOOST_TEST(errors[t].empty(), errors[t]);
      BOOST_TEST(mismatches[t] == 0);
    }
  }
}

bool reference_only() {
  const char* v = std::getenv("PSCR_TEST_REFERENCE_ONLY");
  return v && *v == '1';
}

}  // namespace

BOOST_AUTO_TEST_CASE(reference_backend) {
  pscr::Options o;
  o.threads = 1;
  concurrent_solves(pscr::poisson2d(pscr::graded_mesh(40, 1.0, 1.02), pscr::graded_mesh(23, 1.0, 1.0)), o, 4, 3);
  std::vector<pscr::Factor<std::complex<double>>> fs{test::random_factor<std::complex<double>>(9, 1),
                                                     test::random_factor<std::complex<double>>(7, 2),
                                                     test::random_factor<std::complex<double>>(6, 3)};
  concurrent_solves(pscr::Problem<std::complex<double>>(fs, {-0.2, 0.1}), o, 3, 2);
  if (reference_only()) return;  // ThreadSanitizer run: OpenMP teams of one (see tsan_check.sh)
  o.threads = 2;  // each call's own parallel region
  concurrent_solves(pscr::poisson2d(pscr::graded_mesh(70, 1.0, 1.0), pscr::graded_mesh(33, 1.0, 1.0)), o, 3, 2);
}

BOOST_AUTO_TEST_CASE(opencl_backend) {
  if (reference_only()) return;
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  concurrent_solves(pscr::poisson2d(pscr::graded_mesh(40, 1.0, 1.02), pscr::graded_mesh(23, 1.0, 1.0)), o, 4, 3);
  pscr::Plan<double> plan(pscr::poisson2d(pscr::graded_mesh(30, 1.0, 1.0), pscr::graded_mesh(30, 1.0, 1.0)), o);
  // profiling toggled while others solve
  std::thread toggler([&] {
    for (int i = 0; i < 20; ++i) plan.set_profiling(i % 2 == 0);
  });
  std::vector<double> f = test::random_vector<double>(plan.problem().unknowns(), 5), u(f.size());
  for (int i = 0; i < 5; ++i) plan.solve(f.data(), u.data());
  toggler.join();
  BOOST_TEST(plan.problem().relative_residual(f.data(), u.data()) <= 1e-12);
}
