// The level-3 tridiagonal solver on the device (internal): lines of
// (A + σ M) y = g stored [row][line], by global CR steps, then PCR and Thomas
// in local memory, then global CR back substitution (kernels/tridiagonal.cl).
#pragma once
#include <string>
#include <vector>

#include "pscr/parameters.hpp"
#include "runtime.hpp"

namespace pscr::ocl {

class TridiagonalSolver {
 public:
  // n: line length; A, M: the factor (diag|off) on the device; E: its
  // signed row sums for the excess form (kernels/tridiagonal.cl, built with
  // EXCESS_FORM), else unused; up to max_lines lines per solve. Throws InvalidArgument when the parameters
  // exceed the device's work-group or local-memory limits.
  TridiagonalSolver(Runtime& rt, const KernelParameters& p, int n, std::size_t max_lines, std::size_t scalar_bytes,
                    cl_mem A, cl_mem M, cl_mem E, cl_mem flags, bool may_pin);
  // Why parameters p do not fit the device for lines of length n (empty when
  // they do): work-group and local-memory limits; local_stage_group is the
  // work-group limit of the cr_local kernel where it is known.
  static std::string limits(const Device& dev, const KernelParameters& p, int n, std::size_t scalar_bytes,
                            std::size_t local_stage_group = std::size_t(-1));
  // Solves in place: Y[row][line] for `lines` lines with per-line shifts and
  // null-mode flags.
  void solve(cl_mem Y, int lines, cl_mem sigma, cl_mem pinned) const;

 private:
  Runtime& rt_;
  KernelParameters p_;
  std::vector<int> rows_;    // system length per CR level; the last is solved in local memory
  std::vector<int> stored_;  // the levels kept in memory (all, or 0, 2, 4, … and the last)
  std::size_t scalar_bytes_;
  cl_mem A_, M_, E_;
  cl_mem flags_;  // flags[1] = line + 1 of a near-singular elimination (ordinary path)
  bool may_pin_;
  Mem levels_;  // planes a | c | d of every stored reduced level
};

}  // namespace pscr::ocl
