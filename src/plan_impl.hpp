// What a Plan holds (internal; shared by plan.cpp and the backend-specific APIs).
#pragma once
#include <memory>
#include <vector>

#include "planner/plan_data.hpp"
#include "pscr/plan.hpp"
#include "executor.hpp"

namespace pscr {

template <class T> struct Plan<T>::Impl {
  explicit Impl(const Problem<T>& p, const Options& o)
      : options(o), data(planner::make_plan_data(p, o.radix, o.elimination == Elimination::automatic)) {}
  Options options;
  planner::PlanData<T> data;
  std::unique_ptr<Executor<T>> exec;
  PlanInfo info;
  std::vector<double> neumann_weights;  // pure Neumann: (M1 1)⊗(M2 1)[⊗(M3 1)]
  double neumann_weight_sum = 0;
  std::unique_ptr<Problem<wide_t<T>>> wide;  // Options::refine: the problem in double for residuals
};

}  // namespace pscr
