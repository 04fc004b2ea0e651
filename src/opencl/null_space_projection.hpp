// Pure-Neumann solves of device buffers (kernels/null_space.cl): the
// right-hand side is projected onto the range of A, f − mean(f), before the
// solve, and the solution's weighted mean (weights: the row sums of the mass
// matrices) is removed after it, as Plan::solve does on the host. The sums
// are left on the device, so the projection costs no wait.
#pragma once
#include "../planner/plan_data.hpp"
#include "runtime.hpp"

namespace pscr::ocl {

template <class T> class NullSpaceProjection {
 public:
  NullSpaceProjection() = default;
  // Uploads the weights and the scratch of the sums (named for the plan's
  // device-memory check).
  NullSpaceProjection(Runtime& rt, const Problem<T>& problem);
  // f − mean(f) in place; returns the buffer whose first pair holds
  // (Σ f_i, Σ |f_i|²) of the original f, valid until the next call.
  cl_mem project_rhs(cl_mem x) const;
  // u − (Σ w_i u_i) / Σ w_i in place: the solution of zero weighted mean.
  void remove_weighted_mean(cl_mem x) const;

 private:
  // (Σ w_i x_i, Σ |x_i|²) by a barrier-free tree of strided sums; weighted
  // = false: w_i = 1. Returns the buffer whose first pair holds them.
  cl_mem sums(cl_mem x, bool weighted) const;
  void subtract(cl_mem x, cl_mem totals, double scale) const;

  const Runtime* rt_ = nullptr;
  std::size_t n_ = 0;  // unknowns
  cl_ulong n2_ = 1, n3_ = 1;  // sizes of dimensions 2 and 3 (1 where absent)
  Mem weights_[3], scratch_[2];  // mass row sums per dimension; the two stages' sums
  double weight_sum_ = 0;  // Σ_i w_i
};

}  // namespace pscr::ocl
