// Owning OpenCL handles (internal): every object the library creates is held
// by one of these from the call that creates it, so error paths release it.
#pragma once
#include <utility>

#include "cl_check.hpp"

namespace pscr::ocl {

template <class H, cl_int(CL_API_CALL* Release)(H)> class Handle {
 public:
  Handle() = default;
  explicit Handle(H h) : h_(h) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  ~Handle() { reset(); }

  H get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }
  void reset(H h = nullptr) {
    if (h_) Release(h_);
    h_ = h;
  }
  // Gives up ownership (the reference is kept elsewhere, e.g. for the process).
  H release() { return std::exchange(h_, nullptr); }

 private:
  H h_ = nullptr;
};

using Mem = Handle<cl_mem, clReleaseMemObject>;
using Context = Handle<cl_context, clReleaseContext>;
using Queue = Handle<cl_command_queue, clReleaseCommandQueue>;
using Program = Handle<cl_program, clReleaseProgram>;
using Kernel = Handle<cl_kernel, clReleaseKernel>;
using Event = Handle<cl_event, clReleaseEvent>;

// Takes a reference of its own to a handle the caller keeps (a queue or
// context passed in by the user).
inline Queue retain(cl_command_queue q) {
  check(clRetainCommandQueue(q), "clRetainCommandQueue");
  return Queue(q);
}
inline Context retain(cl_context c) {
  check(clRetainContext(c), "clRetainContext");
  return Context(c);
}

}  // namespace pscr::ocl
