// Copies between host arrays and device buffers through page-locked memory
// (internal). Copies from pageable memory ran at about 7 GB/s on the
// two-H200 host; from page-locked memory the device copies at the bus's
// speed, and the host fills the page-locked memory with several threads.
//
// Host solves (HostStaging::solve): a ring of page-locked chunks, a copy
// queue of their own beside the plan's queue, and two device buffers, so
// that the copies in and out (one after the other on the copy queue) overlap
// the solves of the neighbouring right-hand sides on the plan's queue. On
// NVIDIA's OpenCL a copy overlaps a kernel only when its host memory is
// page-locked (CL_MEM_ALLOC_HOST_PTR, mapped) and it runs on another in-order
// queue than the kernel; both queues are flushed after each enqueue, and
// they order with each other through events only. docs/host-arrays.md.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include "../finite_scan.hpp"
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

// The first non-finite scalar of bytes/scalar_bytes scalars at data; npos
// (std::size_t(-1)) when all are finite.
using FiniteScan = std::size_t (*)(const void* data, std::size_t bytes);

// The FiniteScan of scalars of type T.
template <class T> std::size_t first_nonfinite_bytes(const void* data, std::size_t bytes) {
  const std::size_t n = bytes / sizeof(T), i = first_nonfinite(static_cast<const T*>(data), n);
  return i < n ? i : std::size_t(-1);
}

// parallel_copy that also scans what it copied (each piece while it is in
// the cache): the index of the first non-finite scalar, or npos. Pieces of
// 512 KiB on up to 16 threads. dst null: the scan alone.
PSCR_API std::size_t parallel_copy_scan(void* dst, const void* src, std::size_t bytes, std::size_t scalar_bytes,
                                        FiniteScan scan);

// The first non-finite scalar of f[0, bytes) by the copy threads, or npos.
std::size_t parallel_scan(const void* f, std::size_t bytes, std::size_t scalar_bytes, FiniteScan scan);

// How host copies are staged: $PSCR_HOST_STAGING unset or "auto" (page-locked
// chunks on GPUs; on other devices, whose memory is the host's, the driver
// copies from the caller's memory), "pinned" (page-locked chunks on every
// device), "pageable" (never pinned) or "fail" (pinning is tried and refused,
// as by a driver out of page-locked memory: the fallback's test).
// InvalidArgument for another value.
enum class StagingMode { automatic, pinned, pageable, fail };
PSCR_API StagingMode staging_mode_from_env();
// The page-locked bytes of one plan's staging: $PSCR_HOST_STAGING_BYTES, else
// kDefaultStagingBytes; at least kStagingSlots · 16 (InvalidArgument below,
// or for a value that is not a number). Each chunk is a quarter of it,
// rounded down to 16 bytes.
constexpr std::size_t kDefaultStagingBytes = std::size_t(32) << 20;
constexpr int kStagingSlots = 4;
PSCR_API std::size_t staging_bytes_from_env();

// What one host solve did, for SolveStats.
struct HostSolveReport {
  static constexpr std::size_t npos = std::size_t(-1);
  std::size_t bad_input = npos;  // first non-finite scalar of f (nothing after its right-hand side solved)
  bool nonfinite_output = false;  // the device's scan of the solutions saw a NaN or an infinity
  // Host wall time, summed over the right-hand sides: from the start of each
  // one's copy in to its arrival on the device; from the end of its solve to
  // its arrival in u; and its solve (from its arrival or the end of the
  // solve before, whichever is later). In a batch they overlap.
  double copy_in_seconds = 0, copy_out_seconds = 0, solve_seconds = 0;
  std::size_t staging_bytes = 0;  // page-locked memory the copies went through (0: pageable)
  // f went from the caller's page-locked buffers unscanned (u != f): every
  // right-hand side was solved, and a non-finite value of f shows as one in
  // the solutions (IEEE arithmetic carries it); the caller scans f then
  // (parallel_scan) to name it
  bool input_unscanned = false;
  std::string staging;            // how, in words
};

// The page-locked memory of one plan's host copies (kStagingSlots chunks,
// at most `bound` bytes in all, fewer for small copies), allocated when
// first needed. Where the driver
// cannot pin it, the staging turns itself off for good and the copies go
// directly from the caller's memory (available() false, why_pageable()).
class PSCR_API HostStaging {
 public:
  // Below this a single right-hand side of a slab is not worth chunking.
  static constexpr std::size_t kChunkedBytes = std::size_t(8) << 20;

  HostStaging() : HostStaging(staging_bytes_from_env(), staging_mode_from_env()) {}
  HostStaging(std::size_t bound, StagingMode mode);

  // The most page-locked memory it holds (kStagingSlots chunks), and what it
  // holds for copies of `bytes` at a time: chunks no larger than they need.
  std::size_t bound() const { return chunk_ * kStagingSlots; }
  std::size_t chunk_for(std::size_t bytes) const;
  std::size_t bound_for(std::size_t bytes) const { return chunk_for(bytes) * kStagingSlots; }
  // What copies of `bytes` at a time will hold on rt's device (0: pageable).
  std::size_t planned_bytes(const Runtime& rt, std::size_t bytes) const {
    return available() && (mode_ != StagingMode::automatic || rt.device().gpu) ? bound_for(bytes) : 0;
  }
  bool available() const { return why_pageable_.empty(); }
  const std::string& why_pageable() const { return why_pageable_; }

  // buf[offset, offset + bytes) to or from `host` through the page-locked
  // chunks on rt's queue, the host's copy of one overlapping the device's of
  // another; returns when every copy is done (error or not). False, copying
  // nothing, when the chunks cannot be had.
  bool chunked_copy(const Runtime& rt, cl_mem buf, std::size_t offset, std::size_t bytes, void* host, bool to_device);

  // `count` right-hand sides of `bytes` each from f to u (u == f, or
  // disjoint): right-hand side c is copied into buffers[c % 2] (of nbuffers),
  // solved there by solve(buffer) (which enqueues on rt's queue without
  // waiting) and copied out. With two buffers the copies of c + 1 in and
  // c − 1 out run while c is solved. With three buffers, f and u (u != f)
  // in the caller's page-locked buffers (opencl::PinnedBuffer) and a batch,
  // every copy and solve is enqueued at once (pipeline): the copies in and
  // out on queues of their own, both directions of the bus at once, beside
  // the solves. f is scanned for non-finite values as
  // it is copied (scalar_bytes, scan); at the first, the solves stop and
  // bad_input names it. Returns when every copy and solve is done (error or not).
  // Whether solve runs `count` right-hand sides of `bytes` from f into u as
  // the pipeline (given three buffers): u != f, both in the caller's
  // page-locked buffers, three or more of them.
  static bool pipelines(const void* f, const void* u, std::size_t bytes, std::size_t count);
  HostSolveReport solve(const Runtime& rt, const cl_mem* buffers, int nbuffers, const void* f, void* u,
                        std::size_t bytes, std::size_t count, std::size_t scalar_bytes, FiniteScan scan,
                        const std::function<void(cl_mem)>& solve);

 private:
  // Page-locked chunks of at least `need` bytes (more where earlier copies
  // needed more); false where they cannot be had.
  bool ensure_slots(const Runtime& rt, std::size_t need);
  cl_command_queue copy_queue(const Runtime& rt);
  cl_command_queue copy_out_queue(const Runtime& rt);  // the pipeline's copies out
  // The caller's page-locked f and u: right-hand side c is copied in on the
  // copy queue (after c − 3's copy out of the same buffer), solved, and
  // copied out on the copy-out queue, events ordering the three queues;
  // f unscanned (input_unscanned).
  HostSolveReport pipeline(const Runtime& rt, const cl_mem* buffers, const void* f, void* u, std::size_t bytes,
                           std::size_t count, const std::function<void(cl_mem)>& solve);

  StagingMode mode_;
  std::size_t chunk_;           // the largest chunk (the bound's share)
  std::size_t slot_bytes_ = 0;  // the chunks' size as allocated
  std::string why_pageable_;
  Queue copy_queue_, copy_out_queue_;  // before the slots: they unmap on the first
  PinnedHost slots_[kStagingSlots];
};

}  // namespace pscr::ocl
