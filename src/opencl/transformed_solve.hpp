// The solve of a transformed plan on the device (internal;
// planner::PlanData::transformed): every leading dimension to its modes by a
// sine or Fourier transform (sine_transform.hpp), one tridiagonal system per
// line of the last dimension with the shift c + Σ λ of its modes, and back
// (Fourier analysis with the lines solved).
#pragma once
#include <memory>
#include <vector>

#include "../planner/plan_data.hpp"
#include "runtime.hpp"
#include "sine_transform.hpp"
#include "tridiagonal_solver.hpp"

namespace pscr::ocl {

template <class T> class TransformedSolve {
 public:
  // lines: the solver of the last dimension's lines, one per line of the
  // leading dimensions' modes (line l1·n2 + l2 in 3D); shape: how the
  // transforms run (shape).
  TransformedSolve(Runtime& rt, const planner::PlanData<T>& pd, const TridiagonalSolver& lines, SineShape shape);
  // How the plan's transforms run on dev under parameters p (sine_group,
  // sine_halves, sine_split): sine_shape for the longest packed FFT a
  // work-group takes (group_length: split sine transforms take half).
  static SineShape shape(const Device& dev, const KernelParameters& p, const planner::PlanData<T>& pd);
  // In place on one right-hand side X; the last transform flags a non-finite
  // output in `nonfinite` (solve_flags.hpp), so the solution needs no scan.
  void solve(cl_mem X, cl_mem nonfinite) const;
  static std::size_t line_count(const planner::PlanData<T>& pd);
  // Each line's shift: c plus the eigenvalue of its mode in every leading
  // dimension (line l1·n2 + l2 in 3D, l_d the position that dimension's
  // transform leaves the mode at: SineTransform::modes).
  static std::vector<T> line_shift_values(const planner::PlanData<T>& pd,
                                          const std::vector<std::unique_ptr<SineTransform>>& transforms);

 private:
  Runtime& rt_;
  const TridiagonalSolver& lines_;
  std::size_t n_last_;
  std::vector<std::size_t> n_, R_;  // each leading dimension's size and the values per its row
  std::vector<std::unique_ptr<SineTransform>> transforms_;
  Mem line_sigma_, line_pinned_;
  Mem row_lines_;  // lines past local memory: a copy stored [row][line] for global CR
};

}  // namespace pscr::ocl
