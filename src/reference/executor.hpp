// Backend interface and the reference C++ executor (the correctness oracle).
#pragma once
#include <cstddef>
#include <memory>
#include <string>

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
  virtual std::string name() const = 0;
};

// Multithreaded over independent tridiagonal systems (OpenMP); 3D by the
// nested method, whose inner 2D PSCR shares its eigenpairs across shifts.
template <class T>
std::unique_ptr<Executor<T>> make_reference_executor(const planner::PlanData<T>& plan, int threads);

}  // namespace pscr
