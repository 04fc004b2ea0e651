// Planning memory is O(n) per dimension: a plan whose first dimension has
// n = 16383 rows (one top-level pencil of that size, and a last dimension of
// 3 so that the solve workspace is small) raises the process's peak resident
// memory by O(n · host threads), not by the n² = 2 GiB that whole eigenvector
// matrices would take. Its own executable, so that the peak before planning
// is the process's small start-up peak. The peak is read from
// /proc/self/status (VmHWM), which Linux keeps for every process.
#define BOOST_TEST_MODULE plan_memory
#include <boost/test/unit_test.hpp>

#include <omp.h>

#include <fstream>
#include <string>

#include "pscr/builders.hpp"
#include "pscr/plan.hpp"

namespace {
// VmHWM or VmRSS of this process in bytes.
std::size_t status_bytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) return std::stoull(line.substr(key.size() + 1)) * 1024;
  return 0;
}
}  // namespace

BOOST_AUTO_TEST_CASE(plan_memory_is_linear_in_n) {
  const int n = 16383;
  const auto x = pscr::graded_mesh(n + 2, 1.0, 1.0), y = pscr::graded_mesh(5, 1.0, 1.0);
  const auto problem = pscr::poisson2d(x, y);
  const std::size_t before = status_bytes("VmHWM");
  BOOST_REQUIRE(before > 0);
  pscr::Plan<double> plan(problem);
  const std::size_t peak = status_bytes("VmHWM") - before;
  // per host thread 4 × 16 lanes of scratch per row; the kept rows; slack for the allocator
  const std::size_t bound = std::size_t(n) * 8 * (64 * omp_get_max_threads() + 64) + (std::size_t(32) << 20);
  BOOST_TEST_MESSAGE("peak planning memory " << (peak >> 20) << " MiB (bound " << (bound >> 20) << " MiB)");
  BOOST_TEST(peak <= bound);
  BOOST_TEST(plan.info().eigen_problems >= 1u);
  // and the plan is right: a manufactured solution
  std::vector<double> u(problem.unknowns()), f(u.size()), v(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = std::sin(0.001 * double(i)) + 0.25;
  problem.apply(u.data(), f.data());
  plan.solve(f.data(), v.data());
  double err = 0, big = 0;
  for (std::size_t i = 0; i < u.size(); ++i) { err = std::max(err, std::abs(v[i] - u[i])); big = std::max(big, std::abs(u[i])); }
  BOOST_TEST(err <= 1e-9 * big);
}
