// pscr/opencl.hpp: device-resident solves of a Plan (the façade's OpenCL
// API: it holds the plan's lock and reaches its executor, so it lives beside
// plan.cpp, above the backend).
#include <chrono>
#include <complex>
#include <shared_mutex>
#include <string>

#include "plan_impl.hpp"
#include "size_product.hpp"
#include "opencl/cl_check.hpp"
#include "opencl/device.hpp"
#include "opencl/opencl_executor.hpp"
#include "opencl/pinned_buffer.hpp"
#include "opencl/runtime.hpp"
#include "pscr/opencl.hpp"

namespace pscr::opencl {
namespace {

// Each call below holds the plan's lock shared while it uses the executor,
// as host solves do: set_parameters replaces it.
template <class T> std::shared_lock<PlanLock> hold_shared(const Plan<T>& plan) {
  return std::shared_lock<PlanLock>(plan.impl().lock);
}

template <class T> const Executor<T>& opencl_executor(const Plan<T>& plan) {
  const Executor<T>& e = *plan.impl().exec;
  if (!e.opencl_context() && e.device_count() > 1)
    throw InvalidArgument("plan is split over " + std::to_string(e.device_count()) +
                          " devices by rows (Options::device_split): device buffers need a plan on one device");
  if (!e.opencl_context()) throw InvalidArgument("plan uses the " + plan.info().backend + " backend, not OpenCL");
  return e;
}

// Device `device` of the plan: its own executor (several devices, batches split).
template <class T> const Executor<T>& device_executor(const Plan<T>& plan, std::size_t device) {
  const Executor<T>& e = opencl_executor(plan);
  const Executor<T>* part = e.device_part(device);
  if (!part)
    throw InvalidArgument("device " + std::to_string(device) + " of a plan on " + std::to_string(e.device_count()) +
                          (e.device_count() == 1 ? " device" : " devices"));
  return *part;
}

}  // namespace

void prepare_device(const std::string& device) { ocl::shared_context(ocl::select_device(device)); }

template <class T> cl_context context(const Plan<T>& plan) {
  const auto shared = hold_shared(plan);
  return static_cast<cl_context>(opencl_executor(plan).opencl_context());
}
template <class T> cl_command_queue queue(const Plan<T>& plan) {
  const auto shared = hold_shared(plan);
  return static_cast<cl_command_queue>(opencl_executor(plan).opencl_queue());
}
template <class T> std::size_t device_count(const Plan<T>& plan) {
  const auto shared = hold_shared(plan);
  return opencl_executor(plan).device_count();
}
template <class T> PinnedBuffer pinned_buffer(const Plan<T>& plan, std::size_t count) {
  const auto shared = hold_shared(plan);
  const Executor<T>& e = opencl_executor(plan);
  if (count == 0) throw InvalidArgument("pinned_buffer: count is 0");
  return ocl::make_pinned_buffer(static_cast<cl_context>(e.opencl_context()),
                                 static_cast<cl_command_queue>(e.opencl_queue()),
                                 size_product({count, sizeof(T)}, "pinned_buffer"));
}
template <class T> cl_context context(const Plan<T>& plan, std::size_t device) {
  const auto shared = hold_shared(plan);
  return static_cast<cl_context>(device_executor(plan, device).opencl_context());
}
template <class T> cl_command_queue queue(const Plan<T>& plan, std::size_t device) {
  const auto shared = hold_shared(plan);
  return static_cast<cl_command_queue>(device_executor(plan, device).opencl_queue());
}

namespace {

// (An empty batch is not checked: it solves nothing, and x may be null.)
// `what`: the caller's name, and what a right-hand side is to it.
template <class T>
void check_buffer(const Executor<T>& e, const Plan<T>& plan, cl_mem x, std::size_t count,
                  const std::string& what = "opencl::solve", const char* rhs = "right-hand sides") {
  if (!x) throw InvalidArgument(what + ": null buffer");
  cl_context ctx = nullptr;
  ocl::check(clGetMemObjectInfo(x, CL_MEM_CONTEXT, sizeof ctx, &ctx, nullptr), "clGetMemObjectInfo(CL_MEM_CONTEXT)");
  if (ctx != e.opencl_context()) throw InvalidArgument(what + ": the buffer belongs to another OpenCL context");
  // the kernels write the solutions where the right-hand sides were
  cl_mem_flags flags = 0;
  ocl::check(clGetMemObjectInfo(x, CL_MEM_FLAGS, sizeof flags, &flags, nullptr), "clGetMemObjectInfo(CL_MEM_FLAGS)");
  if (flags & CL_MEM_READ_ONLY)
    throw InvalidArgument(what + ": the buffer is CL_MEM_READ_ONLY, and the solutions are written into it");
  std::size_t bytes = 0;
  ocl::check(clGetMemObjectInfo(x, CL_MEM_SIZE, sizeof bytes, &bytes, nullptr), "clGetMemObjectInfo(CL_MEM_SIZE)");
  const std::string product = what + ": " + rhs + " × unknowns × bytes per scalar";
  const std::size_t need = size_product({count, plan.problem().unknowns(), sizeof(T)}, product.c_str());
  if (bytes < need)
    throw SizeMismatch(what + ": buffer has " + std::to_string(bytes) + " bytes, " + std::to_string(count) + " " +
                       rhs + " need " + std::to_string(need));
}

}  // namespace

namespace {

template <class T> SolveStats solve_on(const Executor<T>& e, const Plan<T>& plan, cl_mem x, std::size_t count, bool check) {
  if (count == 0) return {};
  const auto t0 = std::chrono::steady_clock::now();
  check_buffer(e, plan, x, count);
  SolveStats st;
  st.incompatible_part = e.solve_device(x, count, check, nullptr);
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  st.warning = plan.info().warning;  // as host solves carry it (docs/guide/errors.md)
  return st;
}

template <class T> cl_event solve_async_on(const Executor<T>& e, const Plan<T>& plan, cl_mem x, std::size_t count) {
  if (count > 0) check_buffer(e, plan, x, count);  // an empty batch: a marker on the plan's queue
  void* ev = nullptr;
  e.solve_device(x, count, false, &ev);
  return static_cast<cl_event>(ev);
}

}  // namespace

template <class T> SolveStats solve(const Plan<T>& plan, cl_mem x, std::size_t count, bool check) {
  const auto shared = hold_shared(plan);
  return solve_on(opencl_executor(plan), plan, x, count, check);
}
template <class T> SolveStats solve(const Plan<T>& plan, std::size_t device, cl_mem x, std::size_t count, bool check) {
  const auto shared = hold_shared(plan);
  return solve_on(device_executor(plan, device), plan, x, count, check);
}
template <class T> cl_event solve_async(const Plan<T>& plan, cl_mem x, std::size_t count) {
  const auto shared = hold_shared(plan);
  return solve_async_on(opencl_executor(plan), plan, x, count);
}
template <class T> cl_event solve_async(const Plan<T>& plan, std::size_t device, cl_mem x, std::size_t count) {
  const auto shared = hold_shared(plan);
  return solve_async_on(device_executor(plan, device), plan, x, count);
}

template <class T> cl_event solve_shifts_async(const Plan<T>& plan, cl_mem x, const std::vector<T>& shifts) {
  const auto shared = hold_shared(plan);
  const Executor<T>& e = opencl_executor(plan);
  e.check_shifts(shifts);
  check_buffer(e, plan, x, shifts.size(), "opencl::solve_shifts_async", "shifted problems");
  return static_cast<cl_event>(e.solve_shifts_device(x, shifts));
}

template <class T> std::size_t device_bytes(const Problem<T>& problem, const Options& options) {
  if (options.backend != Backend::opencl) throw InvalidArgument("opencl::device_bytes: Options::backend is not opencl");
  check_options(options);
  const planner::PlanData<T> data = plan_data(problem, options, plan_choice(problem, options));
  Options first = options;
  if (!options.opencl_queue) first.device = opencl_devices(options)[0];
  return count_device_bytes(data, first);
}

template <class T> std::vector<double> time_solves(const Plan<T>& plan, const T* f, int reps) {
  if (!f) throw InvalidArgument("time_solves: null right-hand side");
  if (reps < 1) throw InvalidArgument("time_solves: reps = " + std::to_string(reps) + " (needs >= 1)");
  cl_context ctx = context(plan);
  cl_command_queue q = queue(plan);
  const std::size_t bytes = plan.problem().unknowns() * sizeof(T);
  cl_int st;
  ocl::Mem rhs(clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &st));
  ocl::check(st, "clCreateBuffer (time_solves)");
  ocl::Mem work(clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &st));
  ocl::check(st, "clCreateBuffer (time_solves)");
  ocl::check(clEnqueueWriteBuffer(q, rhs.get(), CL_TRUE, 0, bytes, f, 0, nullptr, nullptr), "clEnqueueWriteBuffer");
  // repeated solves must not feed solutions back in as right-hand sides
  auto fresh = [&] {
    ocl::check(clEnqueueCopyBuffer(q, rhs.get(), work.get(), 0, 0, bytes, 0, nullptr, nullptr), "clEnqueueCopyBuffer");
    ocl::check(clFinish(q), "clFinish");
  };
  fresh();
  solve(plan, work.get());
  std::vector<double> ts;
  for (int r = 0; r < reps; ++r) {
    fresh();
    ts.push_back(solve(plan, work.get()).seconds);
  }
  return ts;
}

#define PSCR_INSTANTIATE(T)                                    \
  template cl_context context(const Plan<T>&);                 \
  template PinnedBuffer pinned_buffer(const Plan<T>&, std::size_t); \
  template cl_command_queue queue(const Plan<T>&);             \
  template std::size_t device_count(const Plan<T>&);           \
  template cl_context context(const Plan<T>&, std::size_t);    \
  template cl_command_queue queue(const Plan<T>&, std::size_t); \
  template SolveStats solve(const Plan<T>&, std::size_t, cl_mem, std::size_t, bool); \
  template cl_event solve_async(const Plan<T>&, std::size_t, cl_mem, std::size_t); \
  template SolveStats solve(const Plan<T>&, cl_mem, std::size_t, bool); \
  template cl_event solve_async(const Plan<T>&, cl_mem, std::size_t); \
  template cl_event solve_shifts_async(const Plan<T>&, cl_mem, const std::vector<T>&); \
  template std::size_t device_bytes(const Problem<T>&, const Options&); \
  template std::vector<double> time_solves(const Plan<T>&, const T*, int);
PSCR_INSTANTIATE(float)
PSCR_INSTANTIATE(double)
PSCR_INSTANTIATE(std::complex<float>)
PSCR_INSTANTIATE(std::complex<double>)

}  // namespace pscr::opencl
