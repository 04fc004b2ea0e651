// The bus's speed between the host and a plan's device, as the host-array
// solves meet it: copies from and to page-locked host memory (an
// ALLOC_HOST_PTR buffer, mapped), on their own queue, medians of reps.
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

#include "pscr/opencl.hpp"

namespace pscr::bench {

struct PinnedBandwidth {
  double to_device = 0, to_host = 0;  // bytes per second (0: not measured)
};

template <class T> PinnedBandwidth pinned_bandwidth(const pscr::Plan<T>& plan, std::size_t bytes, int reps) {
  PinnedBandwidth bw;
  cl_context ctx = pscr::opencl::context(plan);
  cl_device_id dev = nullptr;
  if (clGetCommandQueueInfo(pscr::opencl::queue(plan), CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr) != CL_SUCCESS)
    return bw;
  cl_int st = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &st);
  if (st != CL_SUCCESS) return bw;
  cl_mem host = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &st);
  cl_mem dbuf = st == CL_SUCCESS ? clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &st) : nullptr;
  void* p = st == CL_SUCCESS ? clEnqueueMapBuffer(q, host, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr,
                                                  nullptr, &st)
                             : nullptr;
  if (st == CL_SUCCESS && p) {
    std::fill_n(static_cast<char*>(p), bytes, char(1));
    auto median_rate = [&](bool to_device) {
      std::vector<double> ts;
      for (int r = 0; r < std::max(reps, 3) + 1; ++r) {  // the first is a warm-up
        const auto t0 = std::chrono::steady_clock::now();
        const cl_int s = to_device ? clEnqueueWriteBuffer(q, dbuf, CL_TRUE, 0, bytes, p, 0, nullptr, nullptr)
                                   : clEnqueueReadBuffer(q, dbuf, CL_TRUE, 0, bytes, p, 0, nullptr, nullptr);
        if (s != CL_SUCCESS) return 0.0;
        if (r > 0) ts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(ts.begin(), ts.end());
      const double m = ts.size() % 2 ? ts[ts.size() / 2] : 0.5 * (ts[ts.size() / 2 - 1] + ts[ts.size() / 2]);
      return m > 0 ? double(bytes) / m : 0.0;
    };
    bw.to_device = median_rate(true);
    bw.to_host = median_rate(false);
    clEnqueueUnmapMemObject(q, host, p, 0, nullptr, nullptr);
  }
  clFinish(q);
  if (dbuf) clReleaseMemObject(dbuf);
  if (host) clReleaseMemObject(host);
  clReleaseCommandQueue(q);
  return bw;
}

}  // namespace pscr::bench
