// What a DistributedPlan holds (internal): a rank's slab executor, shared by
// its construction (distributed_plan.cpp) and its solves (distributed_solve.cpp).
#pragma once
#include "pscr/distributed.hpp"
#include "slab_executor.hpp"

namespace pscr {

template <class T> struct DistributedPlan<T>::Impl : distributed::SlabExecutor<T> {
  using distributed::SlabExecutor<T>::SlabExecutor;
};

}  // namespace pscr
