// How a plan is chosen from the options before planning (internal): its
// radix, dense top level and sine transforms, and the checks of the options.
// The Plan façade and the distributed backend both read them; neither needs
// the other's internals.
#pragma once
#include <algorithm>

#include "planner/plan_data.hpp"
#include "pscr/plan.hpp"

namespace pscr {

// Whether the plan's radix is chosen for the caller (neither Options::radix
// nor, on OpenCL, Options::parameters names it): the planner may then move it
// (planner::make_plan_data); the tuner's candidates must stay as given.
inline bool radix_free(const Options& options) {
  return options.radix == 0 && !(options.backend == Backend::opencl && options.parameters);
}

// What lays a plan out: its radix q (Options::radix, or when that is 0 the
// automatic choice: the OpenCL parameters' radix on the first device, else
// kReferenceRadix; the planner may then lower it to the smallest radix with as
// many levels, planner::make_plan_data) and how many leading dimensions are
// one level each (dense_leading: the OpenCL parameters and the problem). The
// OpenCL parameters are resolved once for both.
// sine_limit: the longest sine transform (n + 1) the plan's device takes, 0
// where transforms are off (KernelParameters::transforms, the reference
// backend, Options::shifts > 1, a split by rows over devices).
struct PlanChoice {
  int radix = 0;
  int dense_top = 0;  // leading dimensions in one level (dense products)
  int sine_limit = 0;
  bool operator==(const PlanChoice& o) const {
    return radix == o.radix && dense_top == o.dense_top && sine_limit == o.sine_limit;
  }
};
// InvalidArgument for a negative or unit radix, or one past kMaxOpenCLRadix on OpenCL.
template <class T> PlanChoice plan_choice(const Problem<T>& problem, const Options& options);

// KernelParameters::dense_top = k takes the first k leading dimensions (at
// most D − 1) in one level each, as long as each is no longer than the
// product of the others (n_d² <= N): its eigenvector basis, n_d² scalars on
// the device, then takes no more memory than one copy of the unknowns
// (16383 × 3 × 3 in complex double would have asked 4.3 GB for 2.4 MB of
// data), and its products no more than 4·N/n_d flops per unknown.
template <class T> int dense_leading(const KernelParameters& p, const Problem<T>& problem) {
  int k = 0;
  while (k < std::min(p.dense_top, problem.dims() - 1) &&
         problem.size(k) <= problem.unknowns() / problem.size(k))
    ++k;
  return k;
}

// The layout and eigen data a plan of `p` with `o` executes: the one
// construction for plans and for what they would need (opencl::device_bytes).
template <class T> planner::PlanData<T> plan_data(const Problem<T>& p, const Options& o, const PlanChoice& c) {
  return planner::make_plan_data(p, c.radix, o.elimination == Elimination::automatic, radix_free(o), c.dense_top,
                                 c.sine_limit);
}

// The radix alone, as plan_choice gives it (the OpenCL parameters resolved
// only when Options::radix is 0).
template <class T> int plan_radix(const Problem<T>& problem, const Options& options);
// InvalidArgument for options out of range (threads, refine, shifts) or that a
// row split cannot take (another backend, shifts > 1).
void check_options(const Options& options);
// That the options' enumerations name values (InvalidArgument otherwise).
void check_enumerations(const Options& options);
// InvalidArgument for Options::threads out of range.
void check_threads(int threads);

}  // namespace pscr
