// Copies between host arrays and one device buffer through page-locked
// memory (internal). Copies from pageable memory ran at about 7 GB/s on the
// two-H200 host; from page-locked memory the device copies at the bus's
// speed, and the host fills the page-locked memory with several threads.
#pragma once
#include <cstddef>

#include "runtime.hpp"

namespace pscr::ocl {

// Waits for the queue when it goes out of scope (unless the queue is null):
// host memory that pending copies read or write outlives them on every path.
struct FinishOnExit {
  cl_command_queue queue;
  ~FinishOnExit() {
    if (queue) clFinish(queue);
  }
};

// A copy of many megabytes by several host threads: one thread's memcpy
// moves a few GB/s, less than a device's link.
PSCR_API void parallel_copy(void* dst, const void* src, std::size_t bytes);

// The page-locked memory of one plan's host copies, allocated when first
// needed. Where the driver cannot pin that much, the staging turns itself off
// for good and the callers copy directly (available() false).
class PSCR_API HostStaging {
 public:
  // Below this a single right-hand side is not worth chunking.
  static constexpr std::size_t kChunkedBytes = std::size_t(8) << 20;

  explicit HostStaging(std::size_t chunk_bytes = std::size_t(32) << 20) : chunk_bytes_(chunk_bytes) {}

  bool available() const { return !unavailable_; }

  // Two page-locked copies of a whole right-hand side of `bytes` (allocated by
  // the first call); null when they cannot be had.
  void* whole(int slot, const Runtime& rt, std::size_t bytes);

  // buf[offset, offset + bytes) to or from `host` through two page-locked
  // chunks, the host's copy of one overlapping the device's of the other;
  // returns when every copy is done (error or not). False, copying nothing,
  // when the chunks cannot be had.
  bool chunked_copy(const Runtime& rt, cl_mem buf, std::size_t offset, std::size_t bytes, void* host, bool to_device);

 private:
  std::size_t chunk_bytes_;
  PinnedHost whole_[2], chunks_[2];
  bool unavailable_ = false;
};

}  // namespace pscr::ocl
