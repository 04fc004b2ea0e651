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
