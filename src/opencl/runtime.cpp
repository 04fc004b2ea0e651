#include "runtime.hpp"

#include <map>
#include <mutex>
#include <sstream>

#include "program_cache.hpp"

namespace pscr::ocl {
namespace {

// Plans that make their own context share one per device: creating an OpenCL
// context costs tens to hundreds of milliseconds on some drivers, more than
// the rest of a plan's set-up. Each plan keeps its own queue (but see
// plan_queue), program (from the program cache) and kernels (clSetKernelArg
// is not thread-safe).
// Held for the life of the process and never released: at exit the driver
// may be torn down before static destructors run. Contexts and queues of the
// caller (Options::opencl_queue) are never held here.
struct Shared {
  std::mutex mutex;
  std::map<cl_device_id, cl_context> contexts;
  std::map<cl_device_id, cl_command_queue> queues;  // PoCL's CPU devices only: see plan_queue
};
Shared& shared() {
  static Shared* s = new Shared;
  return *s;
}

}  // namespace

cl_context shared_context(const Device& dev) {
  std::lock_guard<std::mutex> lock(shared().mutex);
  cl_context& c = shared().contexts[dev.device];
  if (!c) {
    cl_int st;
    Context made(clCreateContext(nullptr, 1, &dev.device, nullptr, nullptr, &st));
    check(st, "clCreateContext");
    c = made.release();
  }
  return c;
}

namespace {
// PoCL's CPU drivers (3.1, Debian 12) keep one table of loaded kernel
// functions per process, keyed by program, kernel, work-group size and grid
// width, but release an entry by program, kernel and work-group size alone.
// Queues that run the same kernel at once with different grid widths (ranks
// of one split, plans on threads) then release each other's entries, and
// PoCL aborts (common.c: `found->ref_count > 0`). One in-order queue per
// device runs one kernel at a time, and its work-groups already fill every
// core, so plans of one process share it there.
bool pocl_cpu(const Device& dev) {
  return !dev.gpu && platform_text(dev.platform, CL_PLATFORM_NAME).find("Portable Computing Language") !=
                         std::string::npos;
}

Queue plan_queue(cl_context ctx, const Device& dev) {
  cl_int st;
  if (!pocl_cpu(dev)) {
    Queue made(clCreateCommandQueue(ctx, dev.device, CL_QUEUE_PROFILING_ENABLE, &st));
    check(st, "clCreateCommandQueue");
    return made;
  }
  std::lock_guard<std::mutex> lock(shared().mutex);
  cl_command_queue& q = shared().queues[dev.device];
  if (!q) {
    Queue made(clCreateCommandQueue(ctx, dev.device, CL_QUEUE_PROFILING_ENABLE, &st));
    check(st, "clCreateCommandQueue");
    q = made.release();
  }
  return retain(q);
}
}  // namespace

Runtime::Runtime(const Device& dev, const char* source, const std::string& build_options, bool profile,
                 const std::string& program_cache)
    : dev_(dev), profile_(profile) {
  ctx_ = retain(shared_context(dev_));
  queue_ = plan_queue(ctx_.get(), dev_);
  build(source, build_options, program_cache);
}

Runtime::Runtime(cl_command_queue queue, const char* source, const std::string& build_options, bool profile,
                 const std::string& program_cache)
    : profile_(profile) {
  if (!queue) throw InvalidArgument("null OpenCL command queue");
  cl_device_id id = nullptr;
  cl_context ctx = nullptr;
  check(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof id, &id, nullptr), "clGetCommandQueueInfo(CL_QUEUE_DEVICE)");
  check(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr),
        "clGetCommandQueueInfo(CL_QUEUE_CONTEXT)");
  cl_command_queue_properties props = 0;
  check(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr),
        "clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)");
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    throw InvalidArgument("the OpenCL command queue is out of order; the solver needs an in-order queue");
  dev_ = describe_device(id);
  ctx_ = retain(ctx);
  queue_ = retain(queue);
  queue_profiling_ = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
  set_profiling(profile);
  build(source, build_options, program_cache);
}

void Runtime::set_profiling(bool on) {
  if (on && !queue_profiling_)
    throw InvalidArgument("kernel profiling needs a command queue created with CL_QUEUE_PROFILING_ENABLE");
  profile_ = on;
}

void Runtime::build(const char* source, const std::string& build_options, const std::string& program_cache) {
  CachedBuild b = build_cached(ctx_.get(), dev_, source, build_options, program_cache);
  prog_ = std::move(b.program);
  cache_outcome_ = b.outcome;
  build_seconds_ = b.seconds;
  cl_uint n = 0;
  check(clCreateKernelsInProgram(prog_.get(), 0, nullptr, &n), "clCreateKernelsInProgram");
  std::vector<cl_kernel> raw(n, nullptr);
  check(clCreateKernelsInProgram(prog_.get(), n, raw.data(), nullptr), "clCreateKernelsInProgram");
  std::vector<Kernel> ks;
  for (cl_kernel k : raw) ks.emplace_back(k);  // owned before anything below can throw
  for (Kernel& k : ks) {
    std::size_t len = 0;
    check(clGetKernelInfo(k.get(), CL_KERNEL_FUNCTION_NAME, 0, nullptr, &len), "clGetKernelInfo(CL_KERNEL_FUNCTION_NAME)");
    std::string name(len, '\0');
    check(clGetKernelInfo(k.get(), CL_KERNEL_FUNCTION_NAME, len, name.data(), nullptr),
          "clGetKernelInfo(CL_KERNEL_FUNCTION_NAME)");
    while (!name.empty() && name.back() == '\0') name.pop_back();
    std::size_t wg = 0;
    check(clGetKernelWorkGroupInfo(k.get(), dev_.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr),
          "clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)");
    kernels_[name] = KernelEntry{std::move(k), std::min(wg, dev_.max_work_group)};
  }
}

Runtime::~Runtime() {
  // Kernels may still be running on buffers the owner releases next.
  if (queue_) clFinish(queue_.get());
}

Mem Runtime::alloc(std::size_t bytes, const char* what) {
  bytes = std::max<std::size_t>(bytes, 16);
  if (bytes > dev_.max_alloc) {
    std::ostringstream os;
    os << what << " needs " << bytes << " bytes but the largest allocation on " << dev_.name << " is "
       << dev_.max_alloc << " bytes";
    throw AllocationTooLarge(os.str());
  }
  if (counting_) {
    counted_.emplace_back(what, bytes);
    return Mem();
  }
  if (bytes_ + bytes > dev_.global_mem) {
    std::ostringstream os;
    os << "plan needs more than " << bytes_ + bytes << " bytes of device memory (" << what << ": " << bytes
       << "); " << dev_.name << " has " << dev_.global_mem;
    throw AllocationTooLarge(os.str());
  }
  cl_int st;
  Mem m(clCreateBuffer(ctx_.get(), CL_MEM_READ_WRITE, bytes, nullptr, &st));
  check(st, "clCreateBuffer");
  bytes_ += bytes;
  return m;
}

PinnedHost::PinnedHost(cl_context ctx, cl_command_queue queue, std::size_t bytes, const char* what)
    : bytes_(bytes) {
  cl_int st;
  const std::size_t size = std::max<std::size_t>(bytes, 16);
  buf_.reset(clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, nullptr, &st));
  check(st, (std::string("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR) for ") + what).c_str());
  queue_ = retain(queue);
  ptr_ = clEnqueueMapBuffer(queue, buf_.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, nullptr, nullptr, &st);
  check(st, (std::string("clEnqueueMapBuffer for ") + what).c_str());
}

PinnedHost::~PinnedHost() {
  if (!ptr_) return;
  // copies that read or write the memory are on this queue: wait for them before unmapping
  clEnqueueUnmapMemObject(queue_.get(), buf_.get(), ptr_, 0, nullptr, nullptr);
  clFinish(queue_.get());
}

void Runtime::write(cl_mem m, const void* src, std::size_t bytes) const {
  check(clEnqueueWriteBuffer(queue_.get(), m, CL_TRUE, 0, bytes, src, 0, nullptr, nullptr), "clEnqueueWriteBuffer");
  waited_ = true;
}
void Runtime::read(cl_mem m, void* dst, std::size_t bytes) const { read_at(m, 0, dst, bytes); }

void Runtime::read_at(cl_mem m, std::size_t offset, void* dst, std::size_t bytes) const {
  check(clEnqueueReadBuffer(queue_.get(), m, CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr), "clEnqueueReadBuffer");
  waited_ = true;
}

const Runtime::KernelEntry& Runtime::entry(const char* name) const {
  auto it = kernels_.find(name);
  if (it == kernels_.end()) throw BackendError(std::string("kernel '") + name + "' is missing from the program");
  return it->second;
}

void Runtime::enqueue(const char* name, cl_kernel k, int dims, const std::array<std::size_t, 3>& offset,
                      const std::array<std::size_t, 3>& global, const std::array<std::size_t, 3>& local) const {
  cl_event ev = nullptr;
  const bool offset_zero = offset[0] == 0 && offset[1] == 0 && offset[2] == 0;
  const cl_int st = clEnqueueNDRangeKernel(queue_.get(), k, cl_uint(dims), offset_zero ? nullptr : offset.data(),
                                           global.data(), local.data(), 0, nullptr, profile_ ? &ev : nullptr);
  if (st != CL_SUCCESS) {
    std::ostringstream os;
    os << "clEnqueueNDRangeKernel(" << name << ", global";
    for (int d = 0; d < dims; ++d) os << (d ? "x" : " ") << global[d];
    os << ", local";
    for (int d = 0; d < dims; ++d) os << (d ? "x" : " ") << local[d];
    cl_uint nargs = 0;
    clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr);
    os << ", " << nargs << " arguments)";
    check(st, os.str().c_str());
  }
  if (ev) pending_.emplace_back(name, Event(ev));
  ++launches_;
  // The first launch after a wait goes to the device at once, so that it runs
  // while the host enqueues the rest (NVIDIA's driver holds commands until a
  // flush: a 63³ solve of five launches took 4 to 13 µs less; flushing every
  // launch did no better).
  if (waited_) check(clFlush(queue_.get()), "clFlush");
  waited_ = false;
}

void Runtime::finish() const {
  check(clFinish(queue_.get()), "clFinish");
  waited_ = true;
  std::vector<std::pair<const char*, Event>> done;
  done.swap(pending_);
  for (auto& [name, ev] : done) {
    cl_ulong t0 = 0, t1 = 0;
    check(clGetEventProfilingInfo(ev.get(), CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr),
          "clGetEventProfilingInfo (is the queue created with CL_QUEUE_PROFILING_ENABLE?)");
    check(clGetEventProfilingInfo(ev.get(), CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr),
          "clGetEventProfilingInfo");
    KernelTime& kt = times_[name];
    kt.kernel = name;
    kt.seconds += 1e-9 * double(t1 - t0);
    ++kt.launches;
  }
}

std::vector<KernelTime> Runtime::kernel_times() const {
  finish();
  std::vector<KernelTime> out;
  for (auto& kv : times_) out.push_back(kv.second);
  return out;
}

}  // namespace pscr::ocl
