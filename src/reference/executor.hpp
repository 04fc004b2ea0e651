// The reference C++ executor (the correctness oracle).
#pragma once
#include <cstddef>
#include <memory>

#include "../executor.hpp"
#include "../planner/plan_data.hpp"

namespace pscr {

// Multithreaded over independent tridiagonal systems (OpenMP); 3D by the
// nested method, whose inner 2D PSCR shares its eigenpairs across shifts.
template <class T>
std::unique_ptr<Executor<T>> make_reference_executor(const planner::PlanData<T>& plan, int threads);

}  // namespace pscr
