// Backend interface and the reference C++ executor (the correctness oracle).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "pscr/plan.hpp"

#include "../planner/plan_data.hpp"

namespace pscr {

// A backend executes a plan: solves in place on host arrays.
template <class T> class Executor {
 public:
  virtual ~Executor() = default;
  // x holds `count` right-hand sides (already projected for pure Neumann);
  // on return the solutions. Returns the seconds spent on host-device copies.
  virtual double solve_in_place(T* x, std::size_t count) const = 0;
  virtual std::size_t device_bytes() const { return 0; }
  // Per-kernel device times (profiling backends only).
  virtual std::vector<KernelTime> kernel_times() const { return {}; }
  // OpenCL backend: its context and queue (cl_context, cl_command_queue) and
  // in-place solves on a buffer (cl_mem) of that context; null elsewhere.
  virtual void* opencl_context() const { return nullptr; }
  virtual void* opencl_queue() const { return nullptr; }
  virtual void solve_device(void* /*buffer*/, std::size_t /*count*/) const {}
  virtual void set_profiling(bool /*on*/) {}
  // The kernel parameters in use and where they came from (OpenCL backend).
  virtual KernelParameters parameters() const { return {}; }
  virtual std::string parameters_source() const { return ""; }
  virtual std::string device_name() const { return ""; }
  virtual std::string name() const = 0;
};

// Multithreaded over independent tridiagonal systems (OpenMP); 3D by the
// nested method, whose inner 2D PSCR shares its eigenpairs across shifts.
template <class T>
std::unique_ptr<Executor<T>> make_reference_executor(const planner::PlanData<T>& plan, int threads);

}  // namespace pscr
