// Occupancy probe (not part of the library): how many work-groups of a given
// size and local memory a device runs at once. Every work-group of a launch
// of many waits for a fixed time, so the launch takes about (groups /
// resident groups) waits; resident groups = groups · wait / launch time. On
// NVIDIA the wait sleeps (PTX nanosleep on the global timer), taking no issue
// slots: a loop of multiply-adds instead saturates the schedulers at 16 warps
// per multiprocessor and measures that, not residency. Elsewhere it is such
// a loop. Local memory is taken as a kernel argument (as the line solvers
// take it) or as a static array (the dense products). Build and run:
//   g++ -O2 -std=c++17 scripts/probes/local_occupancy.cpp -lOpenCL -o build/local_occupancy
//   build/local_occupancy [work-items per group ...]
#include "probe_device.hpp"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

static const char* kSource = R"(
// The wait: `steps` microseconds asleep (NVIDIA), else `steps` · 100
// dependent multiply-adds; the local memory is touched so that the compiler
// keeps it.
inline float wait(float x, int steps) {
#ifdef SLEEP
  ulong t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("nanosleep.u32 500;");
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < (ulong)steps * 1000);
#else
  for (int s = 0; s < steps * 100; ++s) x = x * 0.999999f + 1e-7f;
#endif
  return x;
}
__kernel void spin_dynamic(__global float* out, int steps, __local float* buf, int words) {
  const int t = get_local_id(0), G = get_local_size(0);
  for (int i = t; i < words; i += G) buf[i] = (float)i;
  barrier(CLK_LOCAL_MEM_FENCE);
  const float x = wait(buf[t % words], steps);
  if (x == 12345.0f) out[get_global_id(0)] = x;
}
#ifdef STATIC_WORDS
__kernel void spin_static(__global float* out, int steps) {
  __local float buf[STATIC_WORDS];
  const int t = get_local_id(0), G = get_local_size(0);
  for (int i = t; i < STATIC_WORDS; i += G) buf[i] = (float)i;
  barrier(CLK_LOCAL_MEM_FENCE);
  const float x = wait(buf[t % STATIC_WORDS], steps);
  if (x == 12345.0f) out[get_global_id(0)] = x;
}
#endif
)";

int main(int argc, char** argv) {
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(size_t(std::stoul(argv[i])));
  if (sizes.empty()) sizes = {64, 128, 256};
  cl_device_id dev = probe_device();
  if (!dev) {
    std::printf("no OpenCL device\n");
    return 1;
  }
  char name[256];
  cl_uint units = 0;
  cl_ulong local = 0;
  CK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr));
  CK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr));
  CK(clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, nullptr));
  char vendor[256];
  CK(clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof vendor, vendor, nullptr));
  const bool nvidia = std::string(vendor).find("NVIDIA") != std::string::npos;
  std::printf("%s: %u compute units, %llu bytes of local memory per work-group; waits %s\n", name, units,
              (unsigned long long)local, nvidia ? "asleep" : "by multiply-adds");
  cl_int st;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &st);
  CK(st);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &st);
  CK(st);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1 << 26, nullptr, &st);
  CK(st);
  const int steps = 200;  // microseconds asleep (NVIDIA), or 20000 multiply-adds
  auto launch = [&](cl_kernel k, size_t group, size_t groups) -> double {
    const size_t global = group * groups;
    std::vector<double> ts;
    for (int r = 0; r < 5; ++r) {
      clFinish(q);
      const auto t0 = std::chrono::steady_clock::now();
      if (clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &group, 0, nullptr, nullptr) != CL_SUCCESS) return -1;
      clFinish(q);
      ts.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ts.begin(), ts.end());
    return ts[2];
  };
  for (const char* kind : {"dynamic", "static"})
    for (size_t group : sizes)
      for (size_t kb : {1, 4, 8, 12, 16, 24, 32, 40, 48}) {
        const size_t bytes = std::min<size_t>(kb * 1024, size_t(local)), words = bytes / 4;
        std::string opts = "-cl-std=CL1.2 -DSTATIC_WORDS=" + std::to_string(words) + (nvidia ? " -DSLEEP" : "");
        cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &st);
        CK(st);
        if (clBuildProgram(prog, 1, &dev, opts.c_str(), nullptr, nullptr) != CL_SUCCESS) {
          std::printf("%s %zu B: build failed\n", kind, bytes);
          continue;
        }
        const bool dyn = std::string(kind) == "dynamic";
        cl_kernel k = clCreateKernel(prog, dyn ? "spin_dynamic" : "spin_static", &st);
        CK(st);
        clSetKernelArg(k, 0, sizeof out, &out);
        clSetKernelArg(k, 1, sizeof steps, &steps);
        if (dyn) {
          const int w = int(words);
          clSetKernelArg(k, 2, bytes, nullptr);
          clSetKernelArg(k, 3, sizeof w, &w);
        }
        const double one = launch(k, group, 1);  // one group: the spin's time
        const size_t groups = size_t(units) * 64;
        const double many = launch(k, group, groups);
        if (one <= 0 || many <= 0)
          std::printf("%-7s group %4zu, %6zu B: launch failed\n", kind, group, bytes);
        else
          std::printf("%-7s group %4zu, %6zu B local: %5.1f groups at once per compute unit (spin %.3f ms, %zu groups %.3f ms)\n",
                      kind, group, bytes, double(groups) * one / many / units, one * 1e3, groups, many * 1e3);
        clReleaseKernel(k);
        clReleaseProgram(prog);
      }
  return 0;
}
