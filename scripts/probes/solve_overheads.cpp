// Probe (not part of the library): what a device-resident solve costs beyond
// its kernels. For uniform 3D Poisson problems it times, median of R, in one
// process: the checked solve (opencl::solve, as pscr-bench), the unchecked one
// (check = false), solve_async with clFinish, and the flag traffic of a
// checked solve alone (an 8-byte non-blocking write, then an 8-byte blocking
// read on the plan's queue). Build and run:
//   g++ -O2 -std=c++17 -Iinclude -Ibuild/include scripts/probes/solve_overheads.cpp -Lbuild/lib -lpscr -lOpenCL \
//       -Wl,-rpath,'$ORIGIN/../lib' -o build/bin/solve_overheads
//   build/bin/solve_overheads [reps]
#include <pscr/pscr.hpp>
#include <pscr/opencl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using clk = std::chrono::steady_clock;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class P, class F> static double median_us(int reps, P&& prepare, F&& f) {
  std::vector<double> ts;
  for (int r = 0; r < reps; ++r) {
    prepare();
    const auto t0 = clk::now();
    f();
    ts.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
  }
  return median(ts);
}

template <class T> static void probe(int n, int reps) {
  const auto x = pscr::graded_mesh(n + 2, 1.0, 1.0);
  const pscr::Problem<T> p = pscr::poisson3d(x, x, x).template cast<T>();
  pscr::Options o;
  o.backend = pscr::Backend::opencl;
  pscr::Plan<T> plan(p, o);
  cl_context ctx = pscr::opencl::context(plan);
  cl_command_queue q = pscr::opencl::queue(plan);
  const std::size_t N = p.unknowns(), bytes = N * sizeof(T);
  std::vector<T> f(N);
  for (std::size_t i = 0; i < N; ++i) f[i] = T(std::sin(0.37 * double(i)) + 0.1);
  cl_int st;
  cl_mem rhs = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &st);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &st);
  cl_mem flag = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 8, nullptr, &st);
  clEnqueueWriteBuffer(q, rhs, CL_TRUE, 0, bytes, f.data(), 0, nullptr, nullptr);
  // every solve from the same right-hand side, copied in untimed (solutions fed back would overflow)
  auto fresh = [&] {
    clEnqueueCopyBuffer(q, rhs, buf, 0, 0, bytes, 0, nullptr, nullptr);
    clFinish(q);
  };
  for (int w = 0; w < 3; ++w) {
    fresh();
    pscr::opencl::solve(plan, buf);
  }
  const double checked = median_us(reps, fresh, [&] { pscr::opencl::solve(plan, buf); });
  const double unchecked = median_us(reps, fresh, [&] { pscr::opencl::solve(plan, buf, 1, false); });
  const double async = median_us(reps, fresh, [&] {
    cl_event e = pscr::opencl::solve_async(plan, buf);
    clFinish(q);
    clReleaseEvent(e);
  });
  // the host's part: enqueueing a solve (the device finishes it untimed)
  std::vector<double> enq;
  for (int r = 0; r < reps; ++r) {
    fresh();
    const auto t0 = clk::now();
    cl_event e = pscr::opencl::solve_async(plan, buf);
    enq.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
    clFinish(q);
    clReleaseEvent(e);
  }
  const double enqueue = median(enq);
  const double flags = median_us(reps, fresh, [&] {
    static const int zero[2] = {0, 0};
    int back[2];
    clEnqueueWriteBuffer(q, flag, CL_FALSE, 0, 8, zero, 0, nullptr, nullptr);
    clEnqueueReadBuffer(q, flag, CL_TRUE, 0, 8, back, 0, nullptr, nullptr);
  });
  const double finish = median_us(reps, fresh, [&] { clFinish(q); });
  std::printf("3D %d^3 %-6s  checked %7.1f us  unchecked %7.1f  async+finish %7.1f  (enqueue alone %5.1f)  "
              "flag write+read %5.1f  empty finish %4.1f\n",
              n, sizeof(T) == 4 ? "float" : "double", checked, unchecked, async, enqueue, flags, finish);
  // the flag's traffic, each way alone and from page-locked memory, after an unchecked solve
  cl_mem pinned = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 8, nullptr, &st);
  int* host = static_cast<int*>(
      clEnqueueMapBuffer(q, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 8, 0, nullptr, nullptr, &st));
  auto solve_then = [&](auto&& after) {
    return median_us(reps, fresh, [&] {
      cl_event e = pscr::opencl::solve_async(plan, buf);
      clReleaseEvent(e);
      after();
    });
  };
  static const int zero[2] = {0, 0};
  int back[2];
  const double read_pageable = solve_then([&] { clEnqueueReadBuffer(q, flag, CL_TRUE, 0, 8, back, 0, nullptr, nullptr); });
  const double read_pinned = solve_then([&] { clEnqueueReadBuffer(q, flag, CL_TRUE, 0, 8, host, 0, nullptr, nullptr); });
  const double write_read = solve_then([&] {
    clEnqueueWriteBuffer(q, flag, CL_FALSE, 0, 8, zero, 0, nullptr, nullptr);
    clEnqueueReadBuffer(q, flag, CL_TRUE, 0, 8, back, 0, nullptr, nullptr);
  });
  const double fill_read = solve_then([&] {
    clEnqueueFillBuffer(q, flag, zero, 4, 0, 8, 0, nullptr, nullptr);
    clEnqueueReadBuffer(q, flag, CL_TRUE, 0, 8, host, 0, nullptr, nullptr);
  });
  const double write_finish = solve_then([&] {
    clEnqueueWriteBuffer(q, flag, CL_FALSE, 0, 8, zero, 0, nullptr, nullptr);
    clFinish(q);
  });
  const double map_unmap = solve_then([&] {
    void* m = clEnqueueMapBuffer(q, flag, CL_TRUE, CL_MAP_READ, 0, 8, 0, nullptr, nullptr, &st);
    clEnqueueUnmapMemObject(q, flag, m, 0, nullptr, nullptr);
    clFinish(q);
  });
  std::printf("   after an unchecked solve: blocking read %5.1f us (into page-locked %5.1f)  write+read %5.1f  "
              "fill+read(page-locked) %5.1f  write+finish %5.1f  map+unmap %5.1f\n",
              read_pageable, read_pinned, write_read, fill_read, write_finish, map_unmap);
  clEnqueueUnmapMemObject(q, pinned, host, 0, nullptr, nullptr);
  clFinish(q);
  clReleaseMemObject(pinned);
  clReleaseMemObject(buf);
  clReleaseMemObject(rhs);
  clReleaseMemObject(flag);
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 50;
  probe<double>(63, reps);
  probe<float>(63, reps);
  probe<double>(127, reps);
  probe<float>(127, reps);
  probe<float>(255, reps);
  return 0;
}
