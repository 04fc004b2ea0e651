// Builds against an installed libpscr and solves a small problem; the
// OpenCL header compiles from the package's flags alone, and the loaded
// library has the headers' version.
#include <pscr/opencl.hpp>
#include <pscr/pscr.hpp>

#include <cstring>

#include <cstdio>
#include <vector>

int main() {
  const auto x = pscr::graded_mesh(12, 1.0, 1.1);
  const auto p = pscr::poisson2d(x, x);
  pscr::Plan<double> plan(p);
  std::vector<double> f(p.unknowns(), 1.0), u(f.size());
  plan.solve(f.data(), u.data());
  const double r = p.relative_residual(f.data(), u.data());
  std::printf("consumer residual %.2e, library %s, headers %s\n", r, pscr::version(), PSCR_VERSION_STRING);
  if (std::strcmp(pscr::version(), PSCR_VERSION_STRING) != 0) return 1;
  // an OpenCL entry point of the API is reachable (a reference plan is refused by name)
  try {
    pscr::opencl::queue(plan);
    return 1;
  } catch (const pscr::InvalidArgument&) {
  }
  return r < 1e-12 ? 0 : 1;
}
