// A dense dimension on the device (internal; planner::DimensionMethod::dense,
// a periodic dimension among them): its one level's basis applied by dense
// products (kernels/dense.cl) to and from the modes, the child problems of
// the modes over the next dimension in between (reduction_solve.hpp, or the
// lines of the last dimension: periodic ones in their eigenbasis, the others
// by the line solver).
#pragma once
#include <cstddef>

#include "../planner/plan_data.hpp"
#include "plan_buffers.hpp"
#include "runtime.hpp"

namespace pscr::ocl {

template <class T> class ReductionSolve;

// Whether a dense dimension's products write its modes as the lines the
// line solver takes, [line][row] (kernels/dense.cl dense_to_lines): a single
// problem over the last dimension (2D, batch 1) whose lines the whole-line
// solver takes. Otherwise they are [row][line] (dense_to_modes), the layout
// of the child problems, of the periodic eigenbasis and of the global CR
// stages, and whole lines are transposed to and from it.
inline bool dense_modes_as_lines(int d, int D, int batch, bool periodic_lines, bool whole_lines) {
  return d + 2 == D && batch == 1 && !periodic_lines && whole_lines;
}

template <class T> class DenseSolve {
 public:
  // children: the solve of the child problems over the next dimension and of
  // their shifts (the ReductionSolve that holds this one).
  DenseSolve(const Runtime& rt, const planner::PlanData<T>& pd, const KernelParameters& p, const PlanBuffers<T>& b,
             const ReductionSolve<T>& children);
  // Dense dimension d for `batch` problems X stored [n][R][batch] with
  // shifts sigma and null-mode flags pinned.
  void solve(int d, cl_mem X, int batch, cl_mem sigma, cl_mem pinned) const;

 private:
  void solve_lines(cl_mem Y, std::size_t rows, std::size_t lines, cl_mem sigma, cl_mem pinned) const;
  void eigenbasis_lines(cl_mem Y, std::size_t rows, std::size_t lines, cl_mem sigma, cl_mem pinned) const;

  const Runtime& rt_;
  const planner::PlanData<T>& pd_;
  const KernelParameters& p_;
  const PlanBuffers<T>& b_;
  const ReductionSolve<T>& children_;
  int D_;
};

}  // namespace pscr::ocl
