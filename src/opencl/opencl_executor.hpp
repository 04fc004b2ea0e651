// OpenCL backend: executes a plan with the kernels of kernels/pscr.cl.
#pragma once
#include <memory>
#include <string>

#include "../reference/executor.hpp"

namespace pscr {

template <class T>
std::unique_ptr<Executor<T>> make_opencl_executor(const planner::PlanData<T>& plan, const std::string& device);

}  // namespace pscr
