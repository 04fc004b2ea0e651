// OpenCL backend: executes a plan with the kernels of kernels/*.cl.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../distributed/slab_device.hpp"
#include "../executor.hpp"
#include "../planner/plan_data.hpp"
#include "pscr/options.hpp"
#include "../tuning/database.hpp"

namespace pscr {

// The plan on the devices of `options` (opencl_devices(options)): one device
// (opencl_executor.cpp), or several sharing the batches (multi_device.cpp).
template <class T>
std::unique_ptr<Executor<T>> make_opencl_executor(const planner::PlanData<T>& plan, const Options& options);

// One solve split over `devices` by rows of dimension 1
// (Options::device_split = rows; distributed/device_split.cpp).
template <class T>
std::unique_ptr<Executor<T>> make_device_split_executor(const planner::PlanData<T>& plan, const Options& options,
                                                        const std::vector<std::string>& devices);

// The plan on the one device options.device (or options.opencl_queue's).
template <class T>
std::unique_ptr<Executor<T>> make_device_executor(const planner::PlanData<T>& plan, const Options& options);

// A rank's device of a distributed plan: the plan on the one device
// options.device, computing the rank's shares of dimension 1 (`shares`, one
// per level, kept by the caller for the device's life).
template <class T>
std::unique_ptr<distributed::SlabDevice<T>> make_slab_device(const planner::PlanData<T>& plan, const Options& options,
                                                             const std::vector<distributed::LevelShare>& shares);

// The device memory the plan on the one device options.device (or
// options.opencl_queue's) would allocate: the program is built and the
// allocations are summed by the pass that checks them, none is made.
// AllocationTooLarge as the plan's constructor.
template <class T> std::size_t count_device_bytes(const planner::PlanData<T>& plan, const Options& options);

// The kernel parameters (with their source, for PlanInfo) that a plan of
// `problem` gets on the first device of `options`, known before any planning:
// Options::radix = 0 takes its radix from them.
template <class T> tuning::Resolved opencl_parameters(const Problem<T>& problem, const Options& options);

// The longest sine transform (n + 1) a plan of T with `options` and kernel
// parameters p may take on every one of its devices (a column in one
// work-group of p.sine_group work-items: max_sine_length).
template <class T> int opencl_sine_limit(const Options& options, const KernelParameters& p);

// The device selectors of a plan: Options::devices, else $PSCR_DEVICES
// (comma-separated), else the one Options::device. With opencl_queue set, that
// queue's device only. InvalidArgument for an empty selector in a list.
std::vector<std::string> opencl_devices(const Options& options);

}  // namespace pscr
