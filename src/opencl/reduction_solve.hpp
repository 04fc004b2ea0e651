// The PSCR solve of a plan's reduction dimensions on the device (internal;
// docs/method.md): per level of dimension d the partial solutions (right-hand
// sides formed from the source rows, the child problems over dimension d + 1
// or the last dimension's lines), their weighted sums and the block products
// (the reduction's survivor update, the back substitution's boundary terms),
// with the kernels of kernels/level.cl over the buffers of plan_buffers.hpp.
// A dense dimension goes to dense_solve.hpp, whose child problems come back
// here.
#pragma once
#include <utility>

#include "../planner/plan_data.hpp"
#include "dense_solve.hpp"
#include "plan_buffers.hpp"
#include "runtime.hpp"

namespace pscr::ocl {

template <class T> class ReductionSolve {
 public:
  // p: the program's kernel parameters; b: the plan's buffers, uploaded
  // before the first solve.
  ReductionSolve(const Runtime& rt, const planner::PlanData<T>& pd, const KernelParameters& p, const PlanBuffers<T>& b);

  // PSCR over dimension d for `batch` independent problems stored [n][R][batch].
  void solve_dim(int d, cl_mem X, int batch, cl_mem sigma, cl_mem pinned) const;

  // The steps of one level, which a rank's device of a distributed plan
  // also takes one at a time (distributed/slab_device.hpp).
  void accumulate(const DimBufs& db, const LevelBufs& lb, cl_mem X, int batch, int to_sources, int whole) const;
  void partial_solutions(int d, const LevelBufs& lb, cl_mem X, int batch, cl_mem sigma, cl_mem pinned,
                         int use_boundary) const;
  void block_products(int d, const LevelBufs& lb, cl_mem X, int batch, cl_mem sigma, bool back) const;
  std::pair<cl_mem, cl_mem> child_shifts(const DimBufs& db, const LevelBufs& lb, int batch, cl_mem sigma,
                                         cl_mem pinned) const;
  const DenseSolve<T>& dense() const { return dense_; }
  // Whether solve_dim(0) flags a non-finite value of the solution as it
  // writes it (a dense top dimension, kernels/dense.cl), so that the
  // solution needs no scan of its own.
  bool flags_solution() const { return !b_.dims.empty() && b_.dims[0].dense; }

 private:
  void rest_factors(int d, cl_mem& A2, cl_mem& M2, int& n2, cl_mem& A3, cl_mem& M3, int& n3) const;

  const Runtime& rt_;
  const planner::PlanData<T>& pd_;
  const KernelParameters& p_;
  const PlanBuffers<T>& b_;
  int D_;
  DenseSolve<T> dense_;
};

}  // namespace pscr::ocl
