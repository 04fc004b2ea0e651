// The level-3 tridiagonal solver on the device (internal): lines of
// (A + σ M) y = g stored [row][line], by global CR steps, then PCR and Thomas
// in local memory, then global CR back substitution (kernels/tridiagonal.cl).
#pragma once
#include <vector>

#include "pscr/parameters.hpp"
#include "runtime.hpp"

namespace pscr::ocl {

// Where the right-hand sides of the lines come from (see rhs_t in
// kernels/level.cl): the source rows of X, eigenvector rows W, boundary terms.
struct RhsSource {
  cl_mem X, groups, mode_group, W, BL, BR;
  int batch, use_boundary;
};

class TridiagonalSolver {
 public:
  // n: line length; A, M: the factor (diag|off) on the device; up to
  // max_lines lines per solve. Throws InvalidArgument when the parameters
  // exceed the device's work-group or local-memory limits.
  TridiagonalSolver(Runtime& rt, const KernelParameters& p, int n, std::size_t max_lines, std::size_t scalar_bytes,
                    cl_mem A, cl_mem M, bool may_pin);
  // Solves the `lines` lines with per-line shifts and null-mode flags; the
  // right-hand sides are formed from `rhs`, the solutions written to Y[row][line].
  void solve(cl_mem Y, int lines, cl_mem sigma, cl_mem pinned, const RhsSource& rhs) const;

 private:
  Runtime& rt_;
  KernelParameters p_;
  std::vector<int> rows_;  // system length per CR level; the last is solved in local memory
  std::size_t scalar_bytes_;
  cl_mem A_, M_;
  bool may_pin_;
  Mem levels_;  // planes a | c | d of every reduced level
  Mem means_;   // per-line mean of the right-hand side (pinned lines)
};

}  // namespace pscr::ocl
