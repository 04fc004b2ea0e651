// The backend interface: a backend executes a plan (internal).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "planner/elimination_growth.hpp"
#include "pscr/errors.hpp"
#include "pscr/plan.hpp"

namespace pscr {

// The near-singular watch of the ordinary eliminations: a pivot below
// sqrt(eps). Backends throw it after the solve has written its (inaccurate)
// solution, so that iterative refinement (Options::refine) can try to
// recover; callers see a NumericalBreakdown.
struct NearSingularElimination : NumericalBreakdown {
  using NumericalBreakdown::NumericalBreakdown;
};

// What a backend's own host solve (Executor::solve_host) reports.
struct HostSolveResult {
  std::size_t bad_input = std::size_t(-1);  // index of the first non-finite value of f (none: -1)
  bool nonfinite_output = false;            // a solution holds a NaN or an infinity
  SolveStats stats;                         // its copy and solve times and staging (not seconds, warning)
};

// A backend executes a plan: solves in place on host arrays.
template <class T> class Executor {
 public:
  virtual ~Executor() = default;
  // x holds `count` right-hand sides (already projected for pure Neumann);
  // on return the solutions. Returns the seconds spent on host-device copies.
  virtual double solve_in_place(T* x, std::size_t count) const = 0;
  // `count` right-hand sides from f into u (u == f, or disjoint), f read
  // where it lies (no copy of it first) and checked as it is read: at its
  // first non-finite value the solves stop (result.bad_input; solutions of
  // earlier right-hand sides may have been written; from the caller's
  // page-locked buffers with u != f every right-hand side is solved and the
  // first non-finite value of f named after). Near-singular
  // eliminations are thrown as by solve_in_place. False, touching nothing,
  // where the backend leaves host solves to solve_in_place on a copy.
  virtual bool solve_host(const T* /*f*/, T* /*u*/, std::size_t /*count*/, HostSolveResult& /*result*/) const {
    return false;
  }
  // Per-kernel device times (profiling backends only).
  virtual std::vector<KernelTime> kernel_times() const { return {}; }
  // OpenCL backend: its context and queue (cl_context, cl_command_queue) and
  // in-place solves on a buffer (cl_mem) of that context; null elsewhere.
  virtual void* opencl_context() const { return nullptr; }
  virtual void* opencl_queue() const { return nullptr; }
  // Pure Neumann: projects each right-hand side on the device and returns the
  // largest incompatible part (see SolveStats). check: scan the solutions and
  // report near-singular eliminations (waits for the solve). event non-null:
  // enqueue only, *event (a cl_event) completes with the solve, nothing checked.
  virtual double solve_device(void* /*buffer*/, std::size_t /*count*/, bool /*check*/, void** /*event*/) const {
    return 0;
  }
  // OpenCL backend: the shifted problems (c replaced by each of `shifts`) of
  // right-hand sides interleaved in `buffer` (unknown i of problem b at
  // i * shifts.size() + b), solved together in place; returns a cl_event.
  // Why not (InvalidArgument), checked first; then the solve (which assumes it).
  virtual void check_shifts(const std::vector<T>& /*shifts*/) const {
    throw InvalidArgument("opencl::solve_shifts_async: shifted solves need a plan on one OpenCL device");
  }
  virtual void* solve_shifts_device(void* /*buffer*/, const std::vector<T>& shifts) const {
    check_shifts(shifts);
    return nullptr;
  }
  virtual void set_profiling(bool /*on*/) {}
  // OpenCL devices the plan runs on (several: batches are split across them).
  virtual std::size_t device_count() const { return 1; }
  // The executor of device i of a plan whose batches are split over devices
  // (each holds the whole plan); this one for i = 0 on one device, else null.
  virtual const Executor* device_part(std::size_t i) const { return i == 0 ? this : nullptr; }
  // Why kernel parameters cannot run this plan (range, device limits); empty
  // when they can.
  virtual std::string check_parameters(const KernelParameters&) const {
    return "kernel parameters apply to the OpenCL backend only";
  }
  // Fills what PlanInfo says of the backend: backend, device, device_bytes,
  // parameters, parameters_source.
  virtual void describe(PlanInfo& info) const = 0;
  // How the backend eliminates the plan's tridiagonal lines without
  // pivoting, for their growth (planner/elimination_growth.hpp); none where
  // that is not modelled (the OpenCL backend's global CR stages).
  virtual std::optional<planner::LineElimination> line_elimination() const { return std::nullopt; }
};

}  // namespace pscr
