#include "pinned_buffer.hpp"

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>

#include "runtime.hpp"

namespace pscr {

namespace {
// The live buffers' ranges: first byte -> length.
std::mutex registry_mutex;
std::map<std::uintptr_t, std::size_t>& registry() {
  static std::map<std::uintptr_t, std::size_t> r;
  return r;
}
}  // namespace

struct opencl::PinnedBuffer::Impl {
  ocl::PinnedHost host;
  Impl(cl_context ctx, cl_command_queue queue, std::size_t bytes) : host(ctx, queue, bytes, "pinned buffer") {
    std::memset(host.data(), 0, bytes);
    const std::lock_guard<std::mutex> lock(registry_mutex);
    registry()[reinterpret_cast<std::uintptr_t>(host.data())] = bytes;
  }
  ~Impl() {
    const std::lock_guard<std::mutex> lock(registry_mutex);
    registry().erase(reinterpret_cast<std::uintptr_t>(host.data()));
  }
};

namespace opencl {
PinnedBuffer::PinnedBuffer() noexcept = default;
PinnedBuffer::PinnedBuffer(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
PinnedBuffer::PinnedBuffer(PinnedBuffer&&) noexcept = default;
PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&&) noexcept = default;
PinnedBuffer::~PinnedBuffer() = default;
void* PinnedBuffer::data() const noexcept { return impl_ ? impl_->host.data() : nullptr; }
std::size_t PinnedBuffer::bytes() const noexcept { return impl_ ? impl_->host.size() : 0; }
}  // namespace opencl

namespace ocl {

opencl::PinnedBuffer make_pinned_buffer(cl_context ctx, cl_command_queue queue, std::size_t bytes) {
  return opencl::PinnedBuffer(std::make_unique<opencl::PinnedBuffer::Impl>(ctx, queue, bytes));
}

bool caller_pinned(const void* p, std::size_t bytes) {
  if (!p || bytes == 0) return false;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::lock_guard<std::mutex> lock(registry_mutex);
  const auto& r = registry();
  auto it = r.upper_bound(at);
  if (it == r.begin()) return false;
  --it;
  return at - it->first <= it->second && bytes <= it->second - (at - it->first);
}

}  // namespace ocl
}  // namespace pscr
