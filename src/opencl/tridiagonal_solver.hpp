// The level-3 tridiagonal solver on the device (internal): lines of
// (A + σ M) y = g. Lines that fit one work-group's local memory, whole or
// after one CR step (halved), are stored whole, Y[line][row], and solved with
// one read and one write each (kernels/line_solve.cl); longer lines are stored [row][line] and solved by
// global CR steps, then PCR and Thomas in local memory, then global CR back
// substitution (kernels/tridiagonal.cl).
#pragma once
#include <string>
#include <vector>

#include "pscr/parameters.hpp"
#include "runtime.hpp"

namespace pscr::ocl {

class TridiagonalSolver {
 public:
  // n: line length; C: the factor packed per row on the device
  // (line_coefficients.hpp), packed: the same on the host (n + 1 entries of
  // four scalars); up to max_lines lines per solve. Throws
  // InvalidArgument when the parameters exceed the device's work-group or
  // local-memory limits.
  TridiagonalSolver(Runtime& rt, const KernelParameters& p, int n, std::size_t max_lines, std::size_t scalar_bytes,
                    cl_mem C, const void* packed, cl_mem flags, bool may_pin);
  // Why parameters p do not fit the device for lines of length n (empty when
  // they do): work-group and local-memory limits; local_stage_group is the
  // work-group limit of the cr_local kernel where it is known.
  static std::string limits(const Device& dev, const KernelParameters& p, int n, std::size_t scalar_bytes,
                            std::size_t local_stage_group = std::size_t(-1));
  // Solves in place: Y[line][row] (whole_lines()) or Y[row][line] for
  // `lines` lines with per-line shifts and null-mode flags.
  void solve(cl_mem Y, int lines, cl_mem sigma, cl_mem pinned) const;
  // Whole lines stored Y[row][line] instead (lines_across()), loaded and
  // stored by the line solver itself: no transposes around it.
  void solve_across(cl_mem Y, int lines, cl_mem sigma, cl_mem pinned) const;
  // Whether lines are solved whole on chip, stored Y[line][row].
  bool whole_lines() const { return line_threads_ > 0; }
  // Whether solve_across takes them: whole lines, not halved.
  bool lines_across() const { return whole_lines() && !halved_; }
  // Whether those lines are halved first (one CR step while loaded).
  bool halved_lines() const { return halved_; }
  // Rows of a whole (or halved) line that a work-item eliminates from the
  // first of them (kernels/line_solve.cl).
  int chunk_rows() const { return line_rows_; }
  // Whether form_and_solve can be used: whole lines, none pinned.
  bool forms_rhs() const { return whole_lines() && !may_pin_; }
  // The inputs of partial_rhs (kernels/level.cl) for form_and_solve.
  // The shift of line mode·batch + b is parent_sigma[b] + lambda[mode].
  struct RhsSources {
    cl_mem X, groups, mode_group, W, BL, BR;
    int batch, use_boundary;
    cl_mem parent_sigma, lambda;
  };
  // Forms the right-hand sides of the partial solutions of a level from
  // their sources and solves them (forms_rhs()), into Y[line][row] with
  // line = mode·batch + b: one pass instead of child_shifts, form_rhs_lines
  // and solve. The shifts are also stored in sigma.
  void form_and_solve(const RhsSources& src, cl_mem Y, int lines, cl_mem sigma) const;

 private:
  Runtime& rt_;
  KernelParameters p_;
  std::vector<int> rows_;    // system length per CR level; the last is solved in local memory
  std::vector<int> stored_;  // the levels kept in memory (all, or 0, 2, 4, … and the last)
  std::size_t scalar_bytes_;
  cl_mem C_;
  // whole lines: work-items per line (0: global CR), rows per work-item, lines per work-group
  int line_threads_ = 0, line_rows_ = 0, group_lines_ = 0;
  int pivot_lines_ = 0;  // lines per work-group of line_solve_pivots (0: not taken)
  bool halved_ = false;  // whole lines through level 1 of their cyclic reduction (kernels/line_solve.cl)
  int uniform_ = 0;  // rows 1 … n − 2 of the packed factor alike (kernels/line_solve.cl, line_entry)
  cl_mem flags_;  // flags[1] = line + 1 of a near-singular elimination (ordinary path)
  bool may_pin_;
  Mem levels_;   // planes o | s | g of every stored reduced level
  Mem chunked_;  // whole lines, not uniform: the packed factor chunk by chunk (kernels/line_solve.cl)
  // Launches line_solve or one of the form_solve kernels (src non-null).
  void launch_lines(const RhsSources* src, cl_mem Y, int lines, cl_mem sigma, cl_mem pinned, bool across = false) const;
};

}  // namespace pscr::ocl
