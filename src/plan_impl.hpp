// What a Plan holds (internal; shared by plan.cpp and the backend-specific APIs).
#pragma once
#include <memory>
#include <vector>

#include "planner/plan_data.hpp"
#include "pscr/plan.hpp"
#include "executor.hpp"

namespace pscr {

// Whether the plan's radix is chosen for the caller (neither Options::radix
// nor, on OpenCL, Options::parameters names it): the planner may then move it
// (planner::make_plan_data); the tuner's candidates must stay as given.
inline bool radix_free(const Options& options) {
  return options.radix == 0 && !(options.backend == Backend::opencl && options.parameters);
}

// Whether a plan of `problem` with `options` takes dimension 1 in one level
// (KernelParameters::dense_top of the OpenCL parameters; 3D plans on OpenCL only).
template <class T> bool plan_dense_top(const Problem<T>& problem, const Options& options);

// The layout and eigen data a plan of `p` with `o` and radix `radix`
// (plan_radix) executes: the one construction for plans and for what they
// would need (opencl::device_bytes).
template <class T> planner::PlanData<T> plan_data(const Problem<T>& p, const Options& o, int radix) {
  return planner::make_plan_data(p, radix, o.elimination == Elimination::automatic, radix_free(o),
                                 plan_dense_top(p, o));
}

template <class T> struct Plan<T>::Impl {
  // radix: the plan's q (plan_radix), which Options::radix leaves open when
  // 0; the planner may then take another (planner::make_plan_data)
  Impl(const Problem<T>& p, const Options& o, int radix) : options(o), data(plan_data(p, o, radix)) {}
  Options options;
  planner::PlanData<T> data;
  std::unique_ptr<Executor<T>> exec;
  PlanInfo info;
  std::vector<double> neumann_weights;  // pure Neumann: (M1 1)⊗(M2 1)[⊗(M3 1)]
  double neumann_weight_sum = 0;
  std::unique_ptr<Problem<wide_t<T>>> wide;  // Options::refine: the problem in double for residuals
};

// The radix a plan of `problem` with `options` uses: Options::radix, or when
// that is 0 the automatic choice (the OpenCL parameters' radix on the first
// device, else kReferenceRadix; the planner may then lower it to the smallest
// radix with as many levels, planner::make_plan_data). InvalidArgument for a
// negative or unit radix.
template <class T> int plan_radix(const Problem<T>& problem, const Options& options);
// InvalidArgument for options out of range (threads, refine, shifts).
void check_options(const Options& options);
// InvalidArgument for Options::threads out of range.
void check_threads(int threads);

}  // namespace pscr
