// An OpenCL context, queue and built program for one plan, with checked
// allocation and kernel launches (internal; exported for the in-tree clients,
// which run their own kernels on a plan's queue through it). Kernels are created once, when
// the program is built, and looked up by name.
#pragma once
#include <algorithm>
#include <array>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "device.hpp"
#include "handles.hpp"
#include "pscr/plan.hpp"

namespace pscr::ocl {

// Host memory that the device copies to and from at the full bus speed: an
// ALLOC_HOST_PTR buffer, mapped once for its whole life. This is how OpenCL
// drivers hand out page-locked memory (NVIDIA's copies from it run about 6x
// faster than from pageable memory); elsewhere it is ordinary host memory.
class PSCR_API PinnedHost {
 public:
  PinnedHost() = default;
  PinnedHost(cl_context ctx, cl_command_queue queue, std::size_t bytes, const char* what);
  PinnedHost(const PinnedHost&) = delete;
  PinnedHost& operator=(const PinnedHost&) = delete;
  PinnedHost(PinnedHost&& o) noexcept { swap(o); }
  PinnedHost& operator=(PinnedHost&& o) noexcept {
    swap(o);
    return *this;
  }
  ~PinnedHost();  // unmaps, then the handles release the buffer and the queue

  void* data() const { return ptr_; }
  std::size_t size() const { return bytes_; }

 private:
  void swap(PinnedHost& o) noexcept {
    std::swap(queue_, o.queue_);
    std::swap(buf_, o.buf_);
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
  }
  Queue queue_;
  Mem buf_;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Smallest power of two >= want, but at most cap (1 when cap < 2).
inline std::size_t pow2_fit(std::size_t want, std::size_t cap) {
  std::size_t w = 1;
  while (w < want && w * 2 <= cap) w *= 2;
  return w;
}
inline std::size_t round_up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }

// Estimated work of launches: floating-point operations and device-memory
// traffic in bytes.
struct Cost {
  double flops = 0, bytes = 0;
};

// A __local kernel argument of this many bytes.
struct LocalBytes {
  std::size_t bytes;
};

// The context that plans and clients on `dev` share in this process,
// created on first use (the driver's start-up: a fraction of a second on a
// GPU) and kept for the life of the process.
PSCR_API cl_context shared_context(const Device& dev);

class PSCR_API Runtime {
 public:
  // profile: collect per-kernel device times from profiling events
  // (kernel_times()); the queue always allows it, so it can be turned on later.
  // program_cache: where compiled programs are kept (program_cache.hpp;
  // "" = the environment's or default directory, "off" = none).
  Runtime(const Device& dev, const char* source, const std::string& build_options, bool profile,
          const std::string& program_cache = "");
  // Shares an existing in-order queue and its context (both retained), so that
  // the program's buffers and launches order with other work on that queue
  // (clients that feed a plan's solves). Profiling needs a queue created with
  // CL_QUEUE_PROFILING_ENABLE.
  Runtime(cl_command_queue queue, const char* source, const std::string& build_options, bool profile,
          const std::string& program_cache = "");
  ~Runtime();  // waits for the queue; the handles release everything
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const Device& device() const { return dev_; }
  cl_context context() const { return ctx_.get(); }
  // How the program was obtained ("hit", "miss", "off", see CachedBuild) and how long it took.
  const std::string& program_cache() const { return cache_outcome_; }
  double build_seconds() const { return build_seconds_; }
  cl_command_queue queue() const { return queue_.get(); }

  // Device buffer; AllocationTooLarge (with the sizes) before anything is
  // allocated past the device's largest allocation or its global memory.
  Mem alloc(std::size_t bytes, const char* what);
  template <class V> Mem upload(const std::vector<V>& v, const char* what) {
    Mem m = alloc(v.size() * sizeof(V), what);
    if (m.get() && !v.empty()) write(m.get(), v.data(), v.size() * sizeof(V));
    return m;
  }
  // Runs f with allocations only counted: alloc() checks each size against
  // the largest allocation, records (what, bytes) and returns a null buffer;
  // upload() writes nothing. Returns the records: what a plan needs, known
  // before anything is allocated.
  template <class F> std::vector<std::pair<std::string, std::size_t>> count_allocations(F&& f) {
    counted_.clear();
    counting_ = true;
    try {
      f();
    } catch (...) {
      counting_ = false;
      throw;
    }
    counting_ = false;
    return std::move(counted_);
  }
  void write(cl_mem m, const void* src, std::size_t bytes) const;
  void read(cl_mem m, void* dst, std::size_t bytes) const;
  void read_at(cl_mem m, std::size_t offset, void* dst, std::size_t bytes) const;
  std::size_t bytes() const { return bytes_; }

  // Launch with explicit global and local sizes (dims = 1..3).
  template <class... A>
  void launch(const char* name, int dims, std::array<std::size_t, 3> global, std::array<std::size_t, 3> local,
              const A&... args) const {
    launch_at(name, dims, {0, 0, 0}, global, local, args...);
  }
  // The same from a global offset (get_global_id counts from it): a range of
  // a table's entries without another table.
  template <class... A>
  void launch_at(const char* name, int dims, std::array<std::size_t, 3> offset, std::array<std::size_t, 3> global,
                 std::array<std::size_t, 3> local, const A&... args) const {
    if (dry_) return;
    cl_kernel k = entry(name).kernel.get();
    cl_uint idx = 0;
    (set_arg(k, idx++, args), ...);
    enqueue(name, k, dims, offset, global, local);
  }
  // Launch with a power-of-two work-group shape of at most `budget` items,
  // filled from the first dimension; globals are rounded up to it (kernels
  // check their bounds). Few distinct shapes keep per-shape compilers (PoCL)
  // from building many variants.
  template <class... A>
  void run(const char* name, std::size_t budget, std::initializer_list<std::size_t> global, const A&... args) const {
    run_at(name, budget, {0, 0, 0}, global, args...);
  }
  template <class... A>
  void run_at(const char* name, std::size_t budget, std::array<std::size_t, 3> offset,
              std::initializer_list<std::size_t> global, const A&... args) const {
    std::array<std::size_t, 3> g{1, 1, 1}, l{1, 1, 1};
    int dim = 0;
    budget = std::min(budget, entry(name).max_group);
    for (auto v : global) {
      const std::size_t want = std::max<std::size_t>(v, 1);
      const std::size_t w = pow2_fit(want, std::min(budget, dev_.max_items[dim]));
      budget /= w;
      l[dim] = w;
      g[dim] = round_up(want, w);
      ++dim;
    }
    launch_at(name, dim, offset, g, l, args...);
  }
  // The largest work-group this kernel can run on the device
  // (CL_KERNEL_WORK_GROUP_SIZE: register use can make it smaller than the
  // device's limit).
  std::size_t max_group(const char* name) const { return entry(name).max_group; }
  void finish() const;  // waits, then books profiling events
  // Kernels enqueued on this runtime's queue so far: state read back from the
  // device (SolveFlags) stays known until the next launch.
  std::size_t launches() const { return launches_; }

  // Cost model: launch sites report their estimated work with count(ops,
  // scalars): arithmetic operations on scalars (a complex one counts as
  // flops_per_op real ones) and scalars moved to or from device memory. A dry
  // run skips every launch and sums what is reported, so the estimate follows
  // the exact launch sequence of a solve without running it.
  void set_cost_units(std::size_t scalar_bytes, double flops_per_op) {
    scalar_bytes_ = double(scalar_bytes);
    flops_per_op_ = flops_per_op;
  }
  void count(double ops, double scalars) const {
    if (dry_) {
      cost_.flops += ops * flops_per_op_;
      cost_.bytes += scalars * scalar_bytes_;
    }
  }
  bool dry() const { return dry_; }  // inside dry_run: launches are counted, not made
  template <class F> Cost dry_run(F&& solve) const {
    cost_ = {};
    dry_ = true;
    try {
      solve();
    } catch (...) {
      dry_ = false;
      throw;
    }
    dry_ = false;
    return cost_;
  }
  // InvalidArgument when turned on for a caller's queue made without
  // CL_QUEUE_PROFILING_ENABLE.
  void set_profiling(bool on);
  // Waits for the queue, so that the launches enqueued so far are counted
  // (their events are read at a finish).
  std::vector<KernelTime> kernel_times() const;

 private:
  struct KernelEntry {
    Kernel kernel;
    std::size_t max_group = 1;
  };
  const KernelEntry& entry(const char* name) const;  // BackendError when the program lacks it
  template <class A> static void set_arg(cl_kernel k, cl_uint idx, const A& a) {
    check(clSetKernelArg(k, idx, sizeof(A), &a), "clSetKernelArg");
  }
  static void set_arg(cl_kernel k, cl_uint idx, const LocalBytes& a) {
    check(clSetKernelArg(k, idx, a.bytes, nullptr), "clSetKernelArg (local memory)");
  }
  void build(const char* source, const std::string& build_options, const std::string& program_cache);
  void enqueue(const char* name, cl_kernel k, int dims, const std::array<std::size_t, 3>& offset,
               const std::array<std::size_t, 3>& global, const std::array<std::size_t, 3>& local) const;

  Device dev_;
  Context ctx_;
  Queue queue_;
  Program prog_;
  std::map<std::string, KernelEntry> kernels_;
  std::size_t bytes_ = 0;
  bool profile_ = false;
  bool queue_profiling_ = true;  // the queue has CL_QUEUE_PROFILING_ENABLE
  std::string cache_outcome_;
  double build_seconds_ = 0;
  mutable bool dry_ = false;
  bool counting_ = false;  // count_allocations
  std::vector<std::pair<std::string, std::size_t>> counted_;
  mutable Cost cost_;
  double scalar_bytes_ = 8, flops_per_op_ = 1;
  mutable std::size_t launches_ = 0;
  mutable bool waited_ = true;  // nothing of ours in flight (after finish() or a blocking transfer)
  mutable std::vector<std::pair<const char*, Event>> pending_;
  mutable std::map<std::string, KernelTime> times_;
};

}  // namespace pscr::ocl
