#include "host_staging.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "cl_check.hpp"
#include "pscr/errors.hpp"

namespace pscr::ocl {

void parallel_copy(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t kPiece = std::size_t(4) << 20;
  const long pieces = long((bytes + kPiece - 1) / kPiece);
  const int threads = int(std::min<long>(std::min(8, omp_get_max_threads()), pieces));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (long k = 0; k < pieces; ++k) {
    const std::size_t at = std::size_t(k) * kPiece;
    std::memcpy(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at, std::min(kPiece, bytes - at));
  }
}

void* HostStaging::whole(int slot, const Runtime& rt, std::size_t bytes) {
  if (unavailable_) return nullptr;
  if (!whole_[0].data() || whole_[0].size() < bytes) {
    try {
      for (auto& w : whole_) w = PinnedHost(rt.context(), rt.queue(), bytes, "host staging");
    } catch (const Error&) {  // no page-locked memory this large
      for (auto& w : whole_) w = PinnedHost();
      unavailable_ = true;
      return nullptr;
    }
  }
  return whole_[slot].data();
}

bool HostStaging::chunked_copy(const Runtime& rt, cl_mem buf, std::size_t offset, std::size_t bytes, void* host,
                               bool to_device) {
  if (unavailable_) return false;
  if (!chunks_[0].data()) {
    try {
      for (auto& c : chunks_) c = PinnedHost(rt.context(), rt.queue(), chunk_bytes_, "slab staging");
    } catch (const Error&) {
      for (auto& c : chunks_) c = PinnedHost();
      unavailable_ = true;
      return false;
    }
  }
  cl_command_queue q = rt.queue();
  char* h = static_cast<char*>(host);
  const std::size_t pieces = (bytes + chunk_bytes_ - 1) / chunk_bytes_;
  auto len = [&](std::size_t k) { return std::min(chunk_bytes_, bytes - k * chunk_bytes_); };
  Event done[2];
  auto wait = [&](std::size_t slot) {
    if (!done[slot].get()) return;
    cl_event ev = done[slot].get();
    check(clWaitForEvents(1, &ev), "clWaitForEvents (slab staging)");
    done[slot].reset(nullptr);
  };
  auto enqueue = [&](std::size_t k) {
    cl_event ev = nullptr;
    void* slot = chunks_[k % 2].data();
    const std::size_t at = offset + k * chunk_bytes_;
    if (to_device)
      check(clEnqueueWriteBuffer(q, buf, CL_FALSE, at, len(k), slot, 0, nullptr, &ev),
            "clEnqueueWriteBuffer (slab staging)");
    else
      check(clEnqueueReadBuffer(q, buf, CL_FALSE, at, len(k), slot, 0, nullptr, &ev),
            "clEnqueueReadBuffer (slab staging)");
    done[k % 2].reset(ev);
    check(clFlush(q), "clFlush");
  };
  const FinishOnExit finish_on_exit{q};  // no copy outlives this call, error or not
  if (to_device) {
    for (std::size_t k = 0; k < pieces; ++k) {
      wait(k % 2);  // the chunk's previous copy has left it
      parallel_copy(chunks_[k % 2].data(), h + k * chunk_bytes_, len(k));
      enqueue(k);
    }
  } else {
    for (std::size_t k = 0; k < std::min<std::size_t>(2, pieces); ++k) enqueue(k);
    for (std::size_t k = 0; k < pieces; ++k) {
      wait(k % 2);
      parallel_copy(h + k * chunk_bytes_, chunks_[k % 2].data(), len(k));
      if (k + 2 < pieces) enqueue(k + 2);
    }
  }
  wait(0);
  wait(1);
  return true;
}

}  // namespace pscr::ocl
