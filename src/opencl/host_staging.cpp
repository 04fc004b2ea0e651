#include "host_staging.hpp"

#include "pinned_buffer.hpp"

#include <sys/mman.h>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "cl_check.hpp"
#include "pscr/errors.hpp"

namespace pscr::ocl {
namespace {

constexpr std::size_t kAlign = 16;  // chunks hold whole scalars of every type
constexpr std::size_t npos = HostSolveReport::npos;

// Host copies in pieces of 512 KiB (a multiple of every scalar's size that
// stays in a core's cache for the scan), on up to 16 threads: a chunk of
// 8 MiB keeps 16 busy. Copies to and from page-locked memory are bounded by
// the host's memory bandwidth, shared with the device's own copies, and one
// thread moves only a few GB/s.
constexpr std::size_t kPiece = std::size_t(512) << 10;
// Sixteen threads reach the host's bandwidth; plans of several devices copy
// at once, each from a thread of its own with a team of its own, and share
// them. Each team's threads spin a while after every piece of work: four
// devices' teams of sixteen ran their batches 4x slower than one device's
// on a 64-core host (H100 x4), four teams of four as fast as one of sixteen.
constexpr int kCopyThreads = 16;
std::atomic<int> copying{0};  // host solves and chunked copies in progress, all plans
struct Copying {
  Copying() { ++copying; }
  ~Copying() { --copying; }
};
int copy_threads(std::size_t pieces) {
  const int share = std::max(1, std::min(kCopyThreads, omp_get_max_threads()) / std::max(1, copying.load()));
  return int(std::min<std::size_t>(std::size_t(share), pieces));
}

void wait(Event& e, const char* what) {
  if (!e) return;
  cl_event ev = e.get();
  check(clWaitForEvents(1, &ev), what);
  e.reset();
}

std::string size_name(std::size_t bytes) {
  char b[32];
  const double kib = double(bytes) / 1024, mib = kib / 1024;
  if (bytes >= (std::size_t(1) << 20)) std::snprintf(b, sizeof b, bytes % (1 << 20) ? "%.1f MiB" : "%.0f MiB", mib);
  else if (bytes >= 1024) std::snprintf(b, sizeof b, bytes % 1024 ? "%.1f KiB" : "%.0f KiB", kib);
  else std::snprintf(b, sizeof b, "%zu bytes", bytes);
  return b;
}

using clk = std::chrono::steady_clock;
double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }

// Whether the event's command has finished (without waiting).
bool complete(const Event& e) {
  cl_int status = CL_COMPLETE;
  if (e) clGetEventInfo(e.get(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
  return status <= CL_COMPLETE;  // CL_COMPLETE, or an error (the wait reports it)
}

// Maps the pages of memory that is about to be written: a fresh output
// array (NumPy's np.empty_like) takes its page faults here, while the device
// solves, rather than in the copy out. madvise(MADV_POPULATE_WRITE) (Linux
// 5.14) maps a piece writable in one call, contents kept, without the two
// faults per page (the zero page, then its copy) of rewriting a byte, which
// is the fallback where the kernel lacks it.
void touch_pages(char* p, std::size_t bytes) {
  constexpr std::size_t kPageBytes = 4096;
  constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(p) / kPageBytes * kPageBytes;
  const std::size_t span = reinterpret_cast<std::uintptr_t>(p) + bytes - first;
  const long pieces = long((span + kPiece - 1) / kPiece);
  const int threads = copy_threads(std::size_t(pieces));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (long k = 0; k < pieces; ++k) {
    char* at = reinterpret_cast<char*>(first) + std::size_t(k) * kPiece;
    const std::size_t len = std::min(kPiece, span - std::size_t(k) * kPiece);
    if (madvise(at, len, kPopulateWrite) == 0) continue;
    for (std::size_t o = 0; o < len; o += kPageBytes) {
      char* page = at + o;
      if (page < p || page >= p + bytes) page = std::max(p, std::min(page, p + bytes - 1));
      volatile char* c = page;
      *c = *c;
    }
  }
}

}  // namespace

void parallel_copy(void* dst, const void* src, std::size_t bytes) {
  const long pieces = long((bytes + kPiece - 1) / kPiece);
  const int threads = copy_threads(std::size_t(pieces));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (long k = 0; k < pieces; ++k) {
    const std::size_t at = std::size_t(k) * kPiece;
    std::memcpy(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at, std::min(kPiece, bytes - at));
  }
}

std::size_t parallel_copy_scan(void* dst, const void* src, std::size_t bytes, std::size_t scalar_bytes,
                               FiniteScan scan) {
  const long pieces = long((bytes + kPiece - 1) / kPiece);
  const int threads = copy_threads(std::size_t(pieces));
  std::size_t first = npos;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first) if (threads > 1)
  for (long k = 0; k < pieces; ++k) {
    const std::size_t at = std::size_t(k) * kPiece, len = std::min(kPiece, bytes - at);
    const char* piece = static_cast<const char*>(src) + at;
    if (dst) {  // scanned where it was copied, while it is in the cache
      std::memcpy(static_cast<char*>(dst) + at, piece, len);
      piece = static_cast<const char*>(dst) + at;
    }
    const std::size_t i = scan(piece, len);
    if (i != npos) first = std::min(first, at / scalar_bytes + i);
  }
  return first;
}

std::size_t parallel_scan(const void* src, std::size_t bytes, std::size_t scalar_bytes, FiniteScan scan) {
  return parallel_copy_scan(nullptr, src, bytes, scalar_bytes, scan);
}

StagingMode staging_mode_from_env() {
  const char* env = std::getenv("PSCR_HOST_STAGING");
  if (!env || !*env || std::strcmp(env, "auto") == 0) return StagingMode::automatic;
  if (std::strcmp(env, "pinned") == 0) return StagingMode::pinned;
  if (std::strcmp(env, "pageable") == 0) return StagingMode::pageable;
  if (std::strcmp(env, "fail") == 0) return StagingMode::fail;
  throw InvalidArgument(std::string("PSCR_HOST_STAGING='") + env + "' (needs auto, pinned, pageable or fail)");
}

std::size_t staging_bytes_from_env() {
  const char* env = std::getenv("PSCR_HOST_STAGING_BYTES");
  if (!env || !*env) return kDefaultStagingBytes;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(env, &end, 10);
  if (*end != '\0' || v < kStagingSlots * kAlign || env[0] == '-')
    throw InvalidArgument(std::string("PSCR_HOST_STAGING_BYTES='") + env + "' (needs a number of bytes >= " +
                          std::to_string(kStagingSlots * kAlign) + ")");
  return std::size_t(v);
}

HostStaging::HostStaging(std::size_t bound, StagingMode mode)
    : mode_(mode), chunk_(std::max(kAlign, bound / kStagingSlots / kAlign * kAlign)) {
  if (mode == StagingMode::pageable) why_pageable_ = "PSCR_HOST_STAGING=pageable";
}

namespace {
// A queue of the plan's device made into q when first asked for; where the
// driver refuses one, the plan's queue (copies in turn with the solves: no
// overlap, still correct).
cl_command_queue own_queue(Queue& q, const Runtime& rt) {
  if (!q) {
    cl_int st;
    Queue made(clCreateCommandQueue(rt.context(), rt.device().device, 0, &st));
    if (st != CL_SUCCESS) return rt.queue();
    q = std::move(made);
  }
  return q.get();
}
}  // namespace

cl_command_queue HostStaging::copy_queue(const Runtime& rt) { return own_queue(copy_queue_, rt); }
cl_command_queue HostStaging::copy_out_queue(const Runtime& rt) { return own_queue(copy_out_queue_, rt); }

bool HostStaging::pipelines(const void* f, const void* u, std::size_t bytes, std::size_t count) {
  return f != u && count > 2 && caller_pinned(f, count * bytes) && caller_pinned(u, count * bytes);
}

std::size_t HostStaging::chunk_for(std::size_t bytes) const {
  return std::min(chunk_, std::max(kAlign, (bytes + kAlign - 1) / kAlign * kAlign));
}

HostSolveReport HostStaging::pipeline(const Runtime& rt, const cl_mem* buffers, const void* f, void* u,
                                      std::size_t bytes, std::size_t count,
                                      const std::function<void(cl_mem)>& solve) {
  HostSolveReport r;
  cl_command_queue Q = rt.queue(), C = copy_queue(rt), D = copy_out_queue(rt);
  r.input_unscanned = true;
  r.staging = "the caller's page-locked buffers, copied directly; copies in and out and solves at once "
              "(three buffers, two copy queues)";
  const FinishOnExit finish_solves{Q}, finish_in{C}, finish_out{D};
  std::vector<Event> in(count), solved(count), out(count);
  const char* fb = static_cast<const char*>(f);
  char* ub = static_cast<char*>(u);
  const clk::time_point start = clk::now();
  for (std::size_t c = 0; c < count; ++c) {
    cl_mem buf = buffers[c % 3];
    cl_event ev = nullptr, after = c >= 3 ? out[c - 3].get() : nullptr;
    // c's copy in after c − 3's copy out of the same buffer
    check(clEnqueueWriteBuffer(C, buf, CL_FALSE, 0, bytes, fb + c * bytes, after ? 1 : 0, after ? &after : nullptr,
                               &ev),
          "clEnqueueWriteBuffer (right-hand side)");
    in[c].reset(ev);
    check(clFlush(C), "clFlush (copy queue)");
    ev = in[c].get();
    check(clEnqueueBarrierWithWaitList(Q, 1, &ev, nullptr), "clEnqueueBarrierWithWaitList");
    solve(buf);
    check(clEnqueueMarkerWithWaitList(Q, 0, nullptr, &ev), "clEnqueueMarkerWithWaitList");
    solved[c].reset(ev);
    check(clFlush(Q), "clFlush");
    after = solved[c].get();
    check(clEnqueueReadBuffer(D, buf, CL_FALSE, 0, bytes, ub + c * bytes, 1, &after, &ev),
          "clEnqueueReadBuffer (solution)");
    out[c].reset(ev);
    check(clFlush(D), "clFlush (copy queue)");
  }
  // When each copy and solve ended, seen by polling in queue order (every
  // command is enqueued; the host has nothing else to do): the report's
  // phases, each from when it could start.
  std::vector<clk::time_point> in_end(count), solved_end(count), out_end(count);
  std::size_t i = 0, s = 0, o = 0;
  while (o < count) {
    const clk::time_point now = clk::now();
    bool moved = false;
    for (; i < count && complete(in[i]); ++i, moved = true) in_end[i] = now;
    for (; s < i && complete(solved[s]); ++s, moved = true) solved_end[s] = now;
    for (; o < s && complete(out[o]); ++o, moved = true) out_end[o] = now;
    if (!moved) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  auto span = [](clk::time_point from, clk::time_point to) {
    return std::max(0.0, std::chrono::duration<double>(to - from).count());
  };
  for (std::size_t c = 0; c < count; ++c) {
    wait(out[c], "clWaitForEvents (solution)");  // reports a failed copy or solve
    r.copy_in_seconds += span(c >= 3 ? std::max(start, out_end[c - 3]) : start, in_end[c]);
    r.solve_seconds += span(c > 0 ? std::max(in_end[c], solved_end[c - 1]) : in_end[c], solved_end[c]);
    r.copy_out_seconds += span(c > 0 ? std::max(solved_end[c], out_end[c - 1]) : solved_end[c], out_end[c]);
  }
  return r;
}

bool HostStaging::ensure_slots(const Runtime& rt, std::size_t need) {
  if (!available()) return false;
  if (slot_bytes_ >= need) return true;
  if (mode_ == StagingMode::automatic && !rt.device().gpu) {
    why_pageable_ = "not a GPU: its copies cross no bus; PSCR_HOST_STAGING=pinned stages them";
    return false;
  }
  try {
    if (mode_ == StagingMode::fail) throw BackendError("refused (PSCR_HOST_STAGING=fail)");
    for (auto& s : slots_) s = PinnedHost();  // the smaller chunks go first
    slot_bytes_ = 0;
    for (auto& s : slots_) s = PinnedHost(rt.context(), copy_queue(rt), need, "host staging");
    slot_bytes_ = need;
  } catch (const Error& e) {  // the driver's page-locked memory is spent
    for (auto& s : slots_) s = PinnedHost();
    slot_bytes_ = 0;
    why_pageable_ = std::string("page-locked memory could not be had: ") + e.what();
    return false;
  }
  return true;
}

bool HostStaging::chunked_copy(const Runtime& rt, cl_mem buf, std::size_t offset, std::size_t bytes, void* host,
                               bool to_device) {
  const Copying busy;
  if (!ensure_slots(rt, chunk_for(bytes))) return false;
  cl_command_queue q = rt.queue();
  char* h = static_cast<char*>(host);
  const std::size_t chunk = slot_bytes_, pieces = (bytes + chunk - 1) / chunk;
  auto len = [&](std::size_t k) { return std::min(chunk, bytes - k * chunk); };
  Event done[kStagingSlots];
  auto enqueue = [&](std::size_t k) {
    cl_event ev = nullptr;
    void* slot = slots_[k % kStagingSlots].data();
    const std::size_t at = offset + k * chunk;
    if (to_device)
      check(clEnqueueWriteBuffer(q, buf, CL_FALSE, at, len(k), slot, 0, nullptr, &ev),
            "clEnqueueWriteBuffer (slab staging)");
    else
      check(clEnqueueReadBuffer(q, buf, CL_FALSE, at, len(k), slot, 0, nullptr, &ev),
            "clEnqueueReadBuffer (slab staging)");
    done[k % kStagingSlots].reset(ev);
    check(clFlush(q), "clFlush");
  };
  const FinishOnExit finish_on_exit{q};  // no copy outlives this call, error or not
  if (to_device) {
    for (std::size_t k = 0; k < pieces; ++k) {
      wait(done[k % kStagingSlots], "clWaitForEvents (slab staging)");  // the chunk's previous copy has left it
      parallel_copy(slots_[k % kStagingSlots].data(), h + k * chunk, len(k));
      enqueue(k);
    }
  } else {
    for (std::size_t k = 0; k < std::min<std::size_t>(kStagingSlots, pieces); ++k) enqueue(k);
    for (std::size_t k = 0; k < pieces; ++k) {
      wait(done[k % kStagingSlots], "clWaitForEvents (slab staging)");
      parallel_copy(h + k * chunk, slots_[k % kStagingSlots].data(), len(k));
      if (k + kStagingSlots < pieces) enqueue(k + kStagingSlots);
    }
  }
  for (auto& d : done) wait(d, "clWaitForEvents (slab staging)");
  return true;
}

HostSolveReport HostStaging::solve(const Runtime& rt, const cl_mem* buffers, int nbuffers, const void* f, void* u,
                                   std::size_t bytes, std::size_t count, std::size_t scalar_bytes, FiniteScan scan,
                                   const std::function<void(cl_mem)>& solve) {
  HostSolveReport r;
  if (count == 0) return r;
  const Copying busy;
  // f and u in the caller's page-locked buffers (opencl::PinnedBuffer): the
  // devices copy them directly, no staging copy on the host
  const bool direct = caller_pinned(f, count * bytes) && caller_pinned(u, count * bytes);
  if (nbuffers >= 3 && pipelines(f, u, bytes, count)) {
    cl_command_queue C = copy_queue(rt), D = copy_out_queue(rt);
    if (C != rt.queue() && D != rt.queue() && C != D) return pipeline(rt, buffers, f, u, bytes, count, solve);
  }
  const bool pinned = !direct && ensure_slots(rt, chunk_for(bytes));
  const std::size_t chunk = slot_bytes_;
  cl_command_queue Q = rt.queue(), C = copy_queue(rt);
  const int nb = std::max(1, std::min(nbuffers, 2));
  r.staging_bytes = pinned ? chunk * kStagingSlots : 0;
  r.input_unscanned = direct && f != u;
  r.staging = direct   ? "the caller's page-locked buffers, copied directly"
              : pinned ? "page-locked, " + std::to_string(kStagingSlots) + " chunks of " + size_name(chunk)
                       : "pageable (" + why_pageable_ + ")";
  if (count > 1)
    r.staging += nb == 2 && C != Q ? "; copies overlap the neighbouring solves" : "; copies and solves in turn";
  // host memory of pending copies (the caller's, the slots) outlives them on every path
  const FinishOnExit finish_solves{Q}, finish_copies{C};
  const char* fb = static_cast<const char*>(f);
  char* ub = static_cast<char*>(u);
  Event slot_done[kStagingSlots];  // the last copy of each slot
  std::size_t next_slot = 0;       // the ring's next slot
  Event uploaded, solved[2];
  clk::time_point upload_start, solves_free = clk::now();  // the plan's queue has no earlier solve left
  auto len = [&](std::size_t at) { return std::min(chunk, bytes - at); };

  // Right-hand side c into its buffer on the copy queue; false at a non-finite value.
  auto upload = [&](std::size_t c) {
    upload_start = clk::now();
    cl_mem buf = buffers[c % std::size_t(nb)];
    const char* src = fb + c * bytes;
    cl_event ev = nullptr;
    if (direct) {
      // No host scan where u != f: reading f on the host as well as the
      // devices' copies held two devices to 1.3x one (4095² batches, two
      // H200s); a non-finite value of f shows in the solutions instead
      // (input_unscanned). In place it is scanned while the device copies, so
      // that at a non-finite value nothing is solved and f's rest is kept.
      check(clEnqueueWriteBuffer(C, buf, CL_FALSE, 0, bytes, src, 0, nullptr, &ev),
            "clEnqueueWriteBuffer (right-hand side)");
      uploaded.reset(ev);
      check(clFlush(C), "clFlush (copy queue)");
      const std::size_t bad = f == u ? parallel_scan(src, bytes, scalar_bytes, scan) : npos;
      if (bad != npos) {
        r.bad_input = c * (bytes / scalar_bytes) + bad;
        return false;
      }
    } else if (!pinned) {
      const std::size_t bad = scan(src, bytes);
      if (bad != npos) {
        r.bad_input = c * (bytes / scalar_bytes) + bad;
        return false;
      }
      check(clEnqueueWriteBuffer(C, buf, CL_FALSE, 0, bytes, src, 0, nullptr, &ev),
            "clEnqueueWriteBuffer (right-hand side)");
      uploaded.reset(ev);
    } else {
      for (std::size_t at = 0; at < bytes; at += chunk) {
        const std::size_t s = next_slot++ % kStagingSlots;
        wait(slot_done[s], "clWaitForEvents (host staging)");  // the slot's previous copy has left it
        const std::size_t bad = parallel_copy_scan(slots_[s].data(), src + at, len(at), scalar_bytes, scan);
        if (bad != npos) {
          r.bad_input = (c * bytes + at) / scalar_bytes + bad;
          return false;
        }
        check(clEnqueueWriteBuffer(C, buf, CL_FALSE, at, len(at), slots_[s].data(), 0, nullptr, &ev),
              "clEnqueueWriteBuffer (right-hand side)");
        slot_done[s].reset(ev);
        check(clFlush(C), "clFlush (copy queue)");
      }
      check(clRetainEvent(ev), "clRetainEvent");  // the last write: the copy queue is in order
      uploaded.reset(ev);
    }
    check(clFlush(C), "clFlush (copy queue)");
    return true;
  };
  // The solve of c on the plan's queue, after its upload.
  auto enqueue_solve = [&](std::size_t c) {
    cl_event up = uploaded.get();
    if (C != Q) check(clEnqueueBarrierWithWaitList(Q, 1, &up, nullptr), "clEnqueueBarrierWithWaitList");
    solve(buffers[c % std::size_t(nb)]);
    cl_event ev = nullptr;
    check(clEnqueueMarkerWithWaitList(Q, 0, nullptr, &ev), "clEnqueueMarkerWithWaitList");
    solved[c % 2].reset(ev);
    check(clFlush(Q), "clFlush");
    wait(uploaded, "clWaitForEvents (right-hand side)");  // the solve is queued: waiting costs it nothing
    r.copy_in_seconds += since(upload_start);
  };
  // The solution of c from its buffer into u, once solved.
  auto download = [&](std::size_t c) {
    cl_mem buf = buffers[c % std::size_t(nb)];
    char* dst = ub + c * bytes;
    const clk::time_point start = clk::now();
    // Idle until the solve ends: u's pages mapped meanwhile (f has been read
    // from them when u == f; a pageable copy in may still be reading them)
    if (pinned && !complete(solved[c % 2])) touch_pages(dst, bytes);
    wait(solved[c % 2], "clWaitForEvents (solve)");
    const clk::time_point done = clk::now();
    r.solve_seconds += std::chrono::duration<double>(done - std::max(start, solves_free)).count();
    solves_free = done;
    if (!pinned) {
      check(clEnqueueReadBuffer(C, buf, CL_TRUE, 0, bytes, dst, 0, nullptr, nullptr), "clEnqueueReadBuffer (solution)");
    } else {
      const std::size_t pieces = (bytes + chunk - 1) / chunk, first = next_slot;
      auto enqueue_read = [&](std::size_t k) {
        const std::size_t s = (first + k) % kStagingSlots;
        cl_event ev = nullptr;
        check(clEnqueueReadBuffer(C, buf, CL_FALSE, k * chunk, len(k * chunk), slots_[s].data(), 0, nullptr, &ev),
              "clEnqueueReadBuffer (solution)");
        slot_done[s].reset(ev);  // in queue order after the slot's pending write, if any
        check(clFlush(C), "clFlush (copy queue)");
      };
      for (std::size_t k = 0; k < std::min<std::size_t>(kStagingSlots, pieces); ++k) enqueue_read(k);
      for (std::size_t k = 0; k < pieces; ++k) {
        const std::size_t s = (first + k) % kStagingSlots;
        wait(slot_done[s], "clWaitForEvents (solution)");
        parallel_copy(dst + k * chunk, slots_[s].data(), len(k * chunk));
        if (k + kStagingSlots < pieces) enqueue_read(k + kStagingSlots);
      }
      next_slot += pieces;
    }
    r.copy_out_seconds += since(done);
  };

  // One buffer: in, solve, out, in turn. Two: c + 1 goes in while c is
  // solved, then c − 1 comes out (the copy queue runs them one after the
  // other, both beside the solve of c).
  std::size_t c = 0;
  for (; c < count; ++c) {
    if (nb == 1 && c > 0) download(c - 1);
    if (!upload(c)) break;
    enqueue_solve(c);
    if (nb == 2 && c > 0) download(c - 1);
  }
  if (c == count) download(count - 1);
  else if (nb == 2 && c > 0) download(c - 1);  // a bad right-hand side: the solutions before it are written
  return r;
}

}  // namespace pscr::ocl
