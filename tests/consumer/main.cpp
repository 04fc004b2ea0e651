// Builds against an installed libpscr and solves a small problem.
#include <pscr/pscr.hpp>

#include <cstdio>
#include <vector>

int main() {
  const auto x = pscr::graded_mesh(12, 1.0, 1.1);
  const auto p = pscr::poisson2d(x, x);
  pscr::Plan<double> plan(p);
  std::vector<double> f(p.unknowns(), 1.0), u(f.size());
  plan.solve(f.data(), u.data());
  const double r = p.relative_residual(f.data(), u.data());
  std::printf("consumer residual %.2e\n", r);
  return r < 1e-12 ? 0 : 1;
}
