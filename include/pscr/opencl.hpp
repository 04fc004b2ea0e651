/// @file
/// Device-resident solves with the OpenCL backend: the data stays on the
/// device between solves. Include this header only where OpenCL is wanted;
/// pscr/pscr.hpp does not pull OpenCL in.
#pragma once
#include "pscr/export.hpp"
/// OpenCL 1.2 API unless the includer chose another (CL_TARGET_OPENCL_VERSION).
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "pscr/plan.hpp"

namespace pscr::opencl {

/// Options for a plan on the caller's in-order queue (and so its context and
/// device), like clFFT's plans: o with the OpenCL backend and that queue.
inline Options on_queue(cl_command_queue queue, Options o = {}) {
  o.backend = Backend::opencl;
  o.opencl_queue = static_cast<void*>(queue);
  return o;
}

/// Starts the OpenCL driver and creates the context that plans on `device`
/// (a selector as Options::device; "" = $PSCR_DEVICE, else the first GPU)
/// share in this process, so that this start-up (a fraction of a second on a
/// GPU) can overlap other work, e.g. reading the input in another thread.
/// Plans made later find the context ready. Errors as for a plan's device
/// selection (InvalidArgument, BackendError).
PSCR_API void prepare_device(const std::string& device = "");

/// Host memory page-locked for the devices' copies (as cudaMallocHost gives):
/// right-hand sides and solutions that lie in it go between the host and the
/// devices directly, without the staging's host-side copy, which bounds host
/// solves (about 34 GB/s on a two-H200 host, against 52–55 GB/s each way
/// per device from page-locked memory; docs/host-arrays.md). Plan::solve and
/// solve_batch take that path when f and u both lie in such buffers, on
/// every device of a plan split by batches. Move-only; the memory is
/// released when the buffer is destroyed, which must be after the solves
/// that use it have returned.
class PSCR_API PinnedBuffer {
 public:
  struct Impl;
  /// An empty buffer (data() null, bytes() 0).
  PinnedBuffer() noexcept;
  /// The library's own (pinned_buffer makes them).
  explicit PinnedBuffer(std::unique_ptr<Impl> impl) noexcept;
  /// Moves the memory; the source is left empty.
  PinnedBuffer(PinnedBuffer&&) noexcept;
  /// Releases this buffer's memory and takes the other's; the other is left empty.
  PinnedBuffer& operator=(PinnedBuffer&&) noexcept;
  ~PinnedBuffer();
  /// The first byte (null when empty).
  void* data() const noexcept;
  /// Its size in bytes.
  std::size_t bytes() const noexcept;

 private:
  std::unique_ptr<Impl> impl_;
};

/// `count` scalars of T (zeroed) in a PinnedBuffer of the plan's (first)
/// device's context. InvalidArgument for a plan that is not on OpenCL or is
/// split by rows (its slabs are copied apart), or count = 0; BackendError
/// where the driver cannot page-lock that much.
template <class T> PSCR_API PinnedBuffer pinned_buffer(const Plan<T>& plan, std::size_t count);

/// @{
/// The context and in-order queue of an OpenCL plan (InvalidArgument for other
/// backends). Create buffers in this context; enqueue work on this queue (or
/// synchronise with it) to order it with the solves. On PoCL's CPU devices the
/// plans of a process share one queue (docs/guide/threads.md).
template <class T> PSCR_API cl_context context(const Plan<T>& plan);
template <class T> PSCR_API cl_command_queue queue(const Plan<T>& plan);
/// @}

/// Solves A u = f in place: `x` holds `count` right-hand sides of
/// problem.unknowns() entries each, one after another, and receives the
/// solutions. Any N works: a right-hand side whose offset is not a multiple
/// of the device's base-address alignment is solved through a device copy. Returns when the solve has finished. The solutions are checked
/// on the device; a non-finite value throws NumericalBreakdown.
/// Pure Neumann (see Plan::solve): the projection and the zero weighted mean
/// are done on the device too, and SolveStats::incompatible_part is reported.
/// Errors: InvalidArgument (not an OpenCL plan, buffer of another context),
/// SizeMismatch (buffer smaller than count right-hand sides). count = 0 solves
/// nothing (x may then be null; solve_async returns an event all the same).
/// check = false skips the pass over the solutions that looks for non-finite
/// values (none where the last kernels flag them as they write them: sine
/// transforms, a dense top dimension) and the report of near-singular
/// eliminations, and with them the read-back of the solve's flags, the one
/// cost of a check that every solve pays (8-12 µs on an H100 through NVIDIA's
/// OpenCL, a sixth of a 63³ solve): the caller takes responsibility for the data.
template <class T> PSCR_API SolveStats solve(const Plan<T>& plan, cl_mem x, std::size_t count = 1, bool check = true);

/// The same solve enqueued without waiting: returns an event that completes
/// with the solve (the caller releases it with clReleaseEvent). Nothing is
/// checked (as check = false) and, for pure Neumann, incompatible_part is not
/// reported. Later work on the plan's queue is ordered after the solve;
/// `x` must stay valid until the event completes.
template <class T> PSCR_API cl_event solve_async(const Plan<T>& plan, cl_mem x, std::size_t count = 1);

/// Several shifted problems in one solve: problem b is the plan's with c
/// replaced by shifts[b] (A + (shifts[b] − c) M1⊗M2[⊗M3]), its right-hand side
/// interleaved with the others' in `x`: unknown i of problem b at
/// x[i * shifts.size() + b]. They share the plan's eigenpairs and every launch
/// (a solve's launches, not one per problem). Enqueued as solve_async (an
/// event, nothing checked). Needs Options::shifts >= 2 and >= shifts.size()
/// at planning (the default 1 plans no shifted solves); every shift real and >= the plan's c, and a plan whose
/// tridiagonal systems are eliminated in the excess form (they stay
/// diagonally dominant for every larger shift; PlanInfo::elimination), not
/// pure Neumann. Errors: InvalidArgument naming the shift or the reason,
/// SizeMismatch for a small buffer.
template <class T> PSCR_API cl_event solve_shifts_async(const Plan<T>& plan, cl_mem x, const std::vector<T>& shifts);

/// @{
/// A batch that already lives on several devices. A plan made with several
/// Options::devices (device_split batches) holds the whole plan on each;
/// device i (0 … device_count − 1, in the order of Options::devices) has its
/// own context and in-order queue, and solves the buffers of its context side
/// by side with the others: create each device's share of the right-hand
/// sides in context(plan, i), enqueue solve_async(plan, i, x_i, count_i) for
/// every i, then wait for the events. The calls without a device use device
/// 0. device_count is 1 for a plan on one device. Errors as above, and
/// InvalidArgument for a device index past the plan's devices or a plan split
/// by rows.
template <class T> PSCR_API std::size_t device_count(const Plan<T>& plan);
template <class T> PSCR_API cl_context context(const Plan<T>& plan, std::size_t device);
template <class T> PSCR_API cl_command_queue queue(const Plan<T>& plan, std::size_t device);
template <class T>
PSCR_API SolveStats solve(const Plan<T>& plan, std::size_t device, cl_mem x, std::size_t count = 1, bool check = true);
template <class T> PSCR_API cl_event solve_async(const Plan<T>& plan, std::size_t device, cl_mem x, std::size_t count = 1);
/// @}

/// The device memory in bytes that a plan of `problem` with `options` (backend
/// opencl) would allocate on its (first) device, before any of it is
/// allocated: the planner runs and the program is built, and the plan's
/// allocations are summed by the pass that checks them against the device
/// (PlanInfo::device_bytes of the plan, once made). With several devices:
/// each of a batch split holds this much; each of a rows split (the whole
/// array, its share of the tables) at most this. Errors as the plan's
/// constructor, AllocationTooLarge (with the largest buffers) included.
template <class T> PSCR_API std::size_t device_bytes(const Problem<T>& problem, const Options& options);

/// Times `reps` device-resident solves of the right-hand side f (host array of
/// problem.unknowns() entries): f is uploaded once, each solve works on a fresh
/// device copy made outside the timed region, after one untimed warm-up solve.
/// Returns the wall time of each solve in seconds. Errors as for solve().
template <class T> PSCR_API std::vector<double> time_solves(const Plan<T>& plan, const T* f, int reps);

}  // namespace pscr::opencl
