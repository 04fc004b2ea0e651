// OpenCL backend: executes a plan with the kernels of kernels/*.cl.
#pragma once
#include <memory>
#include <string>

#include "../executor.hpp"
#include "../planner/plan_data.hpp"
#include "pscr/options.hpp"

namespace pscr {

template <class T>
std::unique_ptr<Executor<T>> make_opencl_executor(const planner::PlanData<T>& plan, const Options& options);

}  // namespace pscr
