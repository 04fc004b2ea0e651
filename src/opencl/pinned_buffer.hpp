// Page-locked host memory handed to callers (pscr::opencl::PinnedBuffer;
// internal): which host ranges lie in such buffers, so that host solves copy
// them to and from the devices directly (host_staging.cpp).
#pragma once
#include <cstddef>

#include "pscr/opencl.hpp"

namespace pscr::ocl {

// A buffer of `bytes` page-locked in ctx (mapped on queue), zeroed and
// registered until it is destroyed.
opencl::PinnedBuffer make_pinned_buffer(cl_context ctx, cl_command_queue queue, std::size_t bytes);

// Whether [p, p + bytes) lies within one live PinnedBuffer (bytes > 0).
bool caller_pinned(const void* p, std::size_t bytes);

}  // namespace pscr::ocl
