// What PlanInfo says of a plan's data (internal): the one description for
// the Plan façade and the distributed backend, before each adds what its
// executor says of itself.
#pragma once
#include <string>

#include "planner/plan_data.hpp"
#include "pscr/plan.hpp"

namespace pscr {

// PlanInfo::line_solver of a backend whose tridiagonal lines take
// `tridiagonal`: lines in the last pencil's eigenbasis (periodic, or
// indefinite below dense dimensions) are multiplied by it whatever the
// backend's line solver would take.
template <class T> std::string line_solver_name(const planner::PlanData<T>& data, std::string tridiagonal) {
  return data.periodic_lines() ? "eigenbasis" : tridiagonal;
}

// radix: the plan's choice (plan_choice), where the data lay out no levels
template <class T> void describe_plan_data(const planner::PlanData<T>& data, int radix, PlanInfo& info) {
  info.radix = data.transformed ? 0 : data.dims.empty() ? radix : data.reduction_radix(0);
  info.shift_amplification = data.shift_amplification;
  info.elimination_growth = data.elimination_growth;
  info.predicted_error = data.predicted_error;
  info.warning = data.warning;
  info.eigen_problems = data.eigen_problems;
  info.host_bytes = data.bytes();
  info.pure_neumann = data.pure_neumann;
  info.elimination = data.excess_form ? "excess" : "ordinary";
  info.eigen_methods.clear();
  for (auto& dp : data.dims) info.eigen_methods.push_back(dp.eigen_method);
  info.dimension_methods.clear();
  for (auto& dp : data.dims) info.dimension_methods.push_back(planner::method_name(dp.method));
  const bool cyclic = data.problem.factor(data.problem.dims() - 1).periodic();
  info.dimension_methods.push_back(!data.periodic_lines() ? "tridiagonal"
                                   : cyclic              ? "cyclic lines (eigenbasis)"
                                                         : "tridiagonal (eigenbasis)");
}

}  // namespace pscr
