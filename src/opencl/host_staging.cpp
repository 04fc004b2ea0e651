#include "host_staging.hpp"

#include <sys/mman.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
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
int max_copy_threads() { return std::min(16, omp_get_max_threads()); }
int copy_threads(std::size_t pieces, int threads) {
  return int(std::min<std::size_t>(std::size_t(threads > 0 ? threads : max_copy_threads()), pieces));
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
void touch_pages(char* p, std::size_t bytes, int threads) {
  constexpr std::size_t kPageBytes = 4096;
  constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(p) / kPageBytes * kPageBytes;
  const std::size_t span = reinterpret_cast<std::uintptr_t>(p) + bytes - first;
  const long pieces = long((span + kPiece - 1) / kPiece);
  const int team = copy_threads(std::size_t(pieces), threads);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
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

void parallel_copy(void* dst, const void* src, std::size_t bytes, int threads) {
  const long pieces = long((bytes + kPiece - 1) / kPiece);
  const int team = copy_threads(std::size_t(pieces), threads);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (long k = 0; k < pieces; ++k) {
    const std::size_t at = std::size_t(k) * kPiece;
    std::memcpy(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at, std::min(kPiece, bytes - at));
  }
}

std::size_t parallel_copy_scan(void* dst, const void* src, std::size_t bytes, std::size_t scalar_bytes,
                               FiniteScan scan, int threads) {
  const long pieces = long((bytes + kPiece - 1) / kPiece);
  const int team = copy_threads(std::size_t(pieces), threads);
  std::size_t first = npos;
#pragma omp parallel for num_threads(team) schedule(static) reduction(min : first) if (team > 1)
  for (long k = 0; k < pieces; ++k) {
    const std::size_t at = std::size_t(k) * kPiece, len = std::min(kPiece, bytes - at);
    char* d = static_cast<char*>(dst) + at;
    std::memcpy(d, static_cast<const char*>(src) + at, len);
    const std::size_t i = scan(d, len);
    if (i != npos) first = std::min(first, at / scalar_bytes + i);
  }
  return first;
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

int batch_buffers_from_env() {
  const char* env = std::getenv("PSCR_HOST_BATCH_BUFFERS");
  if (!env || !*env) return kMaxBatchBuffers;
  if ((env[0] == '1' || env[0] == '2' || env[0] == '3') && env[1] == '\0') return env[0] - '0';
  throw InvalidArgument(std::string("PSCR_HOST_BATCH_BUFFERS='") + env + "' (needs 1, 2 or 3)");
}

HostStaging::HostStaging(std::size_t bound, StagingMode mode, int max_buffers)
    : mode_(mode),
      chunk_(std::max(kAlign, bound / kStagingSlots / kAlign * kAlign)),
      max_buffers_(std::max(1, std::min(max_buffers, kMaxBatchBuffers))) {
  if (mode == StagingMode::pageable) why_pageable_ = "PSCR_HOST_STAGING=pageable";
}

cl_command_queue HostStaging::copy_queue(const Runtime& rt, int direction) {
  Queue& queue = copy_queues_[direction];
  if (!queue) {
    cl_int st;
    Queue q(clCreateCommandQueue(rt.context(), rt.device().device, 0, &st));
    if (st != CL_SUCCESS) return rt.queue();  // copies in the plan's queue: no overlap, still correct
    queue = std::move(q);
  }
  return queue.get();
}

std::size_t HostStaging::chunk_for(std::size_t bytes) const {
  return std::min(chunk_, std::max(kAlign, (bytes + kAlign - 1) / kAlign * kAlign));
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
    for (auto& s : slots_) s = PinnedHost(rt.context(), copy_queue(rt, 0), need, "host staging");
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

namespace {

// A second handle to the same event (its own reference).
Event share(const Event& e) {
  if (e) check(clRetainEvent(e.get()), "clRetainEvent");
  return Event(e.get());
}

// Thrown in one driver of a batch when the other has failed: that one's
// error is the one reported.
struct Stopped {};

// What the two drivers of a batch hand each other, under one mutex. The
// copy-in driver hands over each right-hand side's solve as it enqueues it:
// the copy-out driver waits for it, then copies that solution out. The
// copy-out driver hands over the copy out of each chunk as it enqueues it:
// the copy in of the next right-hand side into the same device buffer waits
// for it (on the device, through its event) before it overwrites that chunk.
class Handoff {
 public:
  Handoff(std::size_t buffers, std::size_t pieces) : pieces_(pieces), copies_out_(buffers * pieces) {}

  // Copy-in driver: the solve of the next right-hand side, enqueued.
  void solve_enqueued(Event solved) {
    {
      const std::lock_guard<std::mutex> lock(m_);
      solves_.push_back(std::move(solved));
    }
    cv_.notify_all();
  }
  // Copy-in driver: no more solves (all enqueued, or a non-finite value).
  void solves_end() {
    {
      const std::lock_guard<std::mutex> lock(m_);
      solves_ended_ = true;
    }
    cv_.notify_all();
  }
  // Copy-out driver: the solve of right-hand side c once enqueued; a null
  // event where the solves ended before c.
  Event solve(std::size_t c) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return aborted_ || solves_ended_ || c < solves_.size(); });
    if (aborted_) throw Stopped();
    return c < solves_.size() ? std::move(solves_[c]) : Event();
  }

  // Copy-out driver: chunk k of the solution in `buffer` is on its way out
  // (chunks in order, right-hand side after right-hand side).
  void copy_out_enqueued(std::size_t buffer, std::size_t k, const Event& e) {
    {
      const std::lock_guard<std::mutex> lock(m_);
      copies_out_[buffer * pieces_ + k] = share(e);
      ++copies_out_enqueued_;
    }
    cv_.notify_all();
  }
  // Copy-in driver: the copy out of chunk k of the n-th right-hand side
  // copied out (n = its index: the same buffer's previous occupant), once
  // enqueued. Right-hand side n's entry is overwritten only by the next
  // occupant's copy out, which follows this caller's copy in and solve.
  Event copy_out(std::size_t n, std::size_t buffer, std::size_t k) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return aborted_ || copies_out_enqueued_ > n * pieces_ + k; });
    if (aborted_) throw Stopped();
    return std::move(copies_out_[buffer * pieces_ + k]);
  }

  // Either driver, failing: the other stops at its next wait here.
  void abort() {
    {
      const std::lock_guard<std::mutex> lock(m_);
      aborted_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  const std::size_t pieces_;
  std::vector<Event> solves_;      // [c]: moved out by the copy-out driver
  std::vector<Event> copies_out_;  // [buffer][chunk]: the latest copy out of each
  std::size_t copies_out_enqueued_ = 0;
  bool solves_ended_ = false, aborted_ = false;
};

// The chunks of one direction: n page-locked slots, or none (pageable: the
// device copies from and to the caller's memory).
struct Ring {
  PinnedHost* slots = nullptr;
  std::size_t n = 0;
};

// One host solve of `count` right-hand sides (HostStaging::solve). Two
// drivers: copies_in() on the caller's thread (each right-hand side into its
// buffer, then its solve on the plan's queue) and copies_out() on a thread
// of the batch's own (each solution, once solved, into u), so that neither
// direction's host copies wait for the other's. A single right-hand side
// has nothing to overlap: both run in turn on the caller's thread.
class Batch {
 public:
  struct Queues {
    cl_command_queue solve, in, out;
  };
  struct Layout {  // how right-hand sides are cut and where their chunks go
    std::size_t bytes, chunk, pieces, buffers;
    Ring in, out;
    int threads;  // host copy threads per direction
  };

  Batch(Queues q, const Layout& l, const cl_mem* buffers, const char* f, char* u, std::size_t count,
        std::size_t scalar_bytes, FiniteScan scan, const std::function<void(cl_mem)>& solve)
      : q_(q), l_(l), buffers_(buffers), f_(f), u_(u), count_(count), scalar_bytes_(scalar_bytes), scan_(scan),
        solve_(solve), handoff_(l.buffers, l.pieces), started_(count), arrived_(count), solved_(count) {}

  // Runs both drivers to the end; an error of either is rethrown once both
  // have stopped (their queues may still hold commands: the caller finishes them).
  void run() {
    if (count_ == 1) {
      copies_in();
      copies_out();
      return;
    }
    std::exception_ptr out_error, in_error;
    std::thread out;
    try {
      out = std::thread([&] { guarded(out_error, [&] { copies_out(); }); });
    } catch (const std::system_error& e) {
      throw BackendError(std::string("could not start the copy-out thread of a host batch: ") + e.what());
    }
    guarded(in_error, [&] { copies_in(); });
    out.join();
    if (in_error) std::rethrow_exception(in_error);
    if (out_error) std::rethrow_exception(out_error);
  }

  // The report's figures, once run() has returned.
  void report(HostSolveReport& r, clk::time_point began) const {
    r.bad_input = bad_input_;
    r.copy_out_seconds = copy_out_seconds_;
    clk::time_point solves_free = began;  // the plan's queue has no earlier solve left
    for (std::size_t c = 0; c < copied_out_; ++c) {
      r.copy_in_seconds += seconds(started_[c], arrived_[c]);
      r.solve_seconds += seconds(std::max(arrived_[c], solves_free), solved_[c]);
      solves_free = std::max(solves_free, solved_[c]);
    }
  }

 private:
  static double seconds(clk::time_point a, clk::time_point b) {
    return std::max(0.0, std::chrono::duration<double>(b - a).count());
  }
  void guarded(std::exception_ptr& error, const std::function<void()>& driver) {
    try {
      driver();
    } catch (const Stopped&) {  // the other driver failed first
    } catch (...) {
      error = std::current_exception();
      handoff_.abort();
    }
  }
  std::size_t len(std::size_t k) const { return std::min(l_.chunk, l_.bytes - k * l_.chunk); }

  // --- the copy-in driver (the caller's thread) ---------------------------

  void copies_in() {
    for (std::size_t c = 0; c < count_ && copy_in(c); ++c) enqueue_solve(c);
    note_arrival(true);
    handoff_.solves_end();
  }

  // Right-hand side c into its buffer on the copy-in queue, chunk by chunk;
  // false at a non-finite value (bad_input_), its chunks before it copied
  // in but not solved.
  bool copy_in(std::size_t c) {
    started_[c] = clk::now();
    const char* src = f_ + c * l_.bytes;
    if (!l_.in.n) {  // pageable: one piece, scanned where it lies
      const std::size_t bad = scan_(src, l_.bytes);
      if (bad != npos) return stop_at(c, 0, bad);
    }
    for (std::size_t k = 0; k < l_.pieces; ++k) {
      note_arrival(false);
      const void* from = src + k * l_.chunk;
      Event* slot_done = nullptr;
      if (l_.in.n) {
        const std::size_t s = next_in_slot_++ % l_.in.n;
        slot_done = &in_slot_done_[s];
        wait(*slot_done, "clWaitForEvents (host staging)");  // the slot's previous copy has left it
        void* slot = l_.in.slots[s].data();
        const std::size_t bad = parallel_copy_scan(slot, from, len(k), scalar_bytes_, scan_, l_.threads);
        if (bad != npos) return stop_at(c, k, bad);
        from = slot;
      }
      Event written = write_chunk(c, k, from);
      if (slot_done) *slot_done = share(written);
      if (k + 1 == l_.pieces) {
        note_arrival(true);  // the one before, if still unseen (it is ahead in the in-order queue)
        uploading_ = std::move(written);
        uploading_c_ = c;
      }
    }
    return true;
  }
  bool stop_at(std::size_t c, std::size_t k, std::size_t bad) {
    bad_input_ = (c * l_.bytes + k * l_.chunk) / scalar_bytes_ + bad;
    return false;
  }

  // Chunk k of right-hand side c from host memory `from` into c's buffer,
  // once the same chunk of the buffer's previous right-hand side has left it.
  Event write_chunk(std::size_t c, std::size_t k, const void* from) {
    const std::size_t b = c % l_.buffers;
    const Event vacated = c >= l_.buffers ? handoff_.copy_out(c - l_.buffers, b, k) : Event();
    note_arrival(false);
    const cl_event after = vacated.get();
    cl_event ev = nullptr;
    check(clEnqueueWriteBuffer(q_.in, buffers_[b], CL_FALSE, k * l_.chunk, len(k), from, after ? 1 : 0,
                               after ? &after : nullptr, &ev),
          "clEnqueueWriteBuffer (right-hand side)");
    Event written(ev);
    check(clFlush(q_.in), "clFlush (copy-in queue)");
    return written;
  }

  // The solve of c on the plan's queue, after its copy in; handed over to
  // the copy-out driver.
  void enqueue_solve(std::size_t c) {
    const cl_event up = uploading_.get();
    if (q_.in != q_.solve)
      check(clEnqueueBarrierWithWaitList(q_.solve, 1, &up, nullptr), "clEnqueueBarrierWithWaitList");
    solve_(buffers_[c % l_.buffers]);
    cl_event ev = nullptr;
    check(clEnqueueMarkerWithWaitList(q_.solve, 0, nullptr, &ev), "clEnqueueMarkerWithWaitList");
    Event solved(ev);
    check(clFlush(q_.solve), "clFlush");
    handoff_.solve_enqueued(std::move(solved));
    note_arrival(count_ == c + 1);  // the last one: nothing to copy meanwhile
  }

  // The arrival on the device of the right-hand side last copied in: seen
  // between the next one's chunks without waiting, or waited for (`wait_now`,
  // or when the next one is all copied in and it has still not arrived).
  void note_arrival(bool wait_now) {
    if (!uploading_) return;
    if (!wait_now && !complete(uploading_)) return;
    wait(uploading_, "clWaitForEvents (right-hand side)");
    arrived_[uploading_c_] = clk::now();
  }

  // --- the copy-out driver (a thread of its own in a batch) ---------------

  void copies_out() {
    for (std::size_t c = 0;; ++c) {
      Event solved = handoff_.solve(c);
      if (!solved) return;
      copy_out(c, solved);
      copied_out_ = c + 1;
    }
  }

  // The solution of c from its buffer into u, once solved, chunk by chunk
  // through the copy-out ring (free: the solution before is all in u).
  void copy_out(std::size_t c, Event& solved) {
    char* dst = u_ + c * l_.bytes;
    // The first chunks are queued behind the solve (they start when it ends,
    // not when this thread wakes), as many as the ring holds
    const std::size_t ahead = l_.out.n ? std::min(l_.out.n, l_.pieces) : l_.pieces;
    std::vector<Event> read(ahead);  // [k % ahead]
    for (std::size_t k = 0; k < ahead; ++k) read[k] = read_chunk(c, k, dst, solved.get());
    // Idle until the solve ends: u's pages mapped meanwhile (when u == f,
    // f[c] has been read from them; pageable copies out write u themselves)
    if (l_.out.n && !complete(solved)) touch_pages(dst, l_.bytes, l_.threads);
    wait(solved, "clWaitForEvents (solve)");
    solved_[c] = clk::now();
    for (std::size_t k = 0; k < l_.pieces; ++k) {
      wait(read[k % ahead], "clWaitForEvents (solution)");
      if (l_.out.n) parallel_copy(dst + k * l_.chunk, l_.out.slots[k % l_.out.n].data(), len(k), l_.threads);
      if (k + ahead < l_.pieces) read[k % ahead] = read_chunk(c, k + ahead, dst);
    }
    copy_out_seconds_ += since(solved_[c]);
  }

  // Chunk k of c's solution into its slot (or straight into u, pageable),
  // after `solved` where given; handed over to the copy-in driver.
  Event read_chunk(std::size_t c, std::size_t k, char* dst, cl_event solved = nullptr) {
    const std::size_t b = c % l_.buffers;
    void* to = l_.out.n ? l_.out.slots[k % l_.out.n].data() : dst + k * l_.chunk;
    cl_event ev = nullptr;
    check(clEnqueueReadBuffer(q_.out, buffers_[b], CL_FALSE, k * l_.chunk, len(k), to, solved ? 1 : 0,
                              solved ? &solved : nullptr, &ev),
          "clEnqueueReadBuffer (solution)");
    Event e(ev);
    handoff_.copy_out_enqueued(b, k, e);
    check(clFlush(q_.out), "clFlush (copy-out queue)");
    return e;
  }

  const Queues q_;
  const Layout l_;
  const cl_mem* buffers_;
  const char* f_;
  char* u_;
  const std::size_t count_, scalar_bytes_;
  const FiniteScan scan_;
  const std::function<void(cl_mem)>& solve_;
  Handoff handoff_;
  // the copy-in driver's
  Event in_slot_done_[kStagingSlots];  // the last copy from each slot of its ring
  std::size_t next_in_slot_ = 0;
  Event uploading_;  // the last write of the right-hand side last copied in, until seen done
  std::size_t uploading_c_ = 0;
  std::vector<clk::time_point> started_, arrived_;
  std::size_t bad_input_ = npos;
  // the copy-out driver's
  std::vector<clk::time_point> solved_;
  std::size_t copied_out_ = 0;
  double copy_out_seconds_ = 0;
};

}  // namespace

HostSolveReport HostStaging::solve(const Runtime& rt, const cl_mem* buffers, int nbuffers, const void* f, void* u,
                                   std::size_t bytes, std::size_t count, std::size_t scalar_bytes, FiniteScan scan,
                                   const std::function<void(cl_mem)>& solve) {
  HostSolveReport r;
  if (count == 0) return r;
  const clk::time_point began = clk::now();
  const bool pinned = ensure_slots(rt, chunk_for(bytes));
  const Batch::Queues q{rt.queue(), copy_queue(rt, 0), copy_queue(rt, 1)};
  Batch::Layout l;
  l.bytes = bytes;
  l.chunk = pinned ? slot_bytes_ : bytes;
  l.pieces = (bytes + l.chunk - 1) / l.chunk;
  l.buffers = std::size_t(std::max(1, std::min(nbuffers, kMaxBatchBuffers)));
  // A batch gives each direction half the chunks and half the host's copy
  // threads (both directions copy at once); one right-hand side, copied in
  // and out in turn, gives each direction all of them.
  const bool duplex = count > 1;
  const std::size_t per_direction = duplex ? kStagingSlots / 2 : kStagingSlots;
  if (pinned) {
    l.in = Ring{slots_, per_direction};
    l.out = Ring{slots_ + (duplex ? kStagingSlots / 2 : 0), per_direction};
  }
  l.threads = duplex ? std::max(1, max_copy_threads() / 2) : max_copy_threads();
  // Called from a parallel region that may not nest another, the caller's
  // copies run on one thread: so do the copy-out thread's, which is outside
  // it and could start a team of its own beside the caller's.
  if (omp_get_active_level() >= omp_get_max_active_levels()) l.threads = 1;

  r.staging_bytes = pinned ? slot_bytes_ * kStagingSlots : 0;
  r.staging = pinned ? "page-locked, " + std::to_string(kStagingSlots) + " chunks of " + size_name(slot_bytes_)
                     : "pageable (" + why_pageable_ + ")";
  if (duplex) {
    if (q.in == q.solve || q.out == q.solve || q.in == q.out)
      r.staging += "; copies and solves in turn (no copy queues)";
    else if (l.buffers == 1)
      r.staging += "; copies in and out overlap each other, the solves in turn (one device buffer)";
    else
      r.staging += "; copies in and out overlap each other and the neighbouring solves (" +
                   std::to_string(l.buffers) + " device buffers)";
  }
  // host memory of pending copies (the caller's, the slots) outlives them on every path
  const FinishOnExit finish_solves{q.solve}, finish_in{q.in}, finish_out{q.out};
  Batch batch(q, l, buffers, static_cast<const char*>(f), static_cast<char*>(u), count, scalar_bytes, scan, solve);
  batch.run();
  batch.report(r, began);
  return r;
}

}  // namespace pscr::ocl
