// Probe (not part of the library): the host's cost of a launch. A kernel of
// 15 arguments (as the sine transforms take) that does nothing is enqueued
// 100 times: with all its arguments set before each launch, with none set
// (set once), and with every launch flushed. Prints the host's time per
// launch (enqueue alone) and per launch with the device's wait. Build and run:
//   g++ -O2 -std=c++17 scripts/probes/launch_costs.cpp -lOpenCL -o build/launch_costs
//   build/launch_costs
#include "probe_device.hpp"
#include <algorithm>
#include <chrono>
#include <vector>

static const char* kSource = R"(
__kernel void idle(__global float* x, int a, int b, int c, int d, ulong e, ulong f, __global const float* g,
                   __global const float* h, int i, __local float* l, __global int* m, int n, int o, int p) {
  if (a < 0 && get_global_id(0) == 0) x[0] = g[0] + h[0] + l[0] + (float)(b + c + d + e + f + i + n + o + p) + m[0];
}
__kernel void idle_static(__global float* x, int a) {
  __local float l[1024];
  l[get_local_id(0)] = (float)a;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (a < 0 && get_global_id(0) == 0) x[0] = l[3];
}
)";

using clk = std::chrono::steady_clock;

int main() {
  cl_device_id dev = probe_device();
  if (!dev) return 1;
  char ext[8192] = {0}, ver[256] = {0};
  clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, nullptr);
  clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof ver - 1, ver, nullptr);
  std::printf("driver %s; extensions: %s\n", ver, ext);
  cl_int st;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &st);
  CK(st);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &st);
  CK(st);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &st);
  CK(st);
  CK(clBuildProgram(prog, 1, &dev, "", nullptr, nullptr));
  cl_kernel k = clCreateKernel(prog, "idle", &st);
  CK(st);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1 << 20, nullptr, &st);
  CK(st);
  const int one = 1;
  const cl_ulong u = 7;
  auto set_args = [&] {
    int i = 0;
    clSetKernelArg(k, i++, sizeof buf, &buf);
    for (int a = 0; a < 4; ++a) clSetKernelArg(k, i++, sizeof one, &one);
    clSetKernelArg(k, i++, sizeof u, &u);
    clSetKernelArg(k, i++, sizeof u, &u);
    clSetKernelArg(k, i++, sizeof buf, &buf);
    clSetKernelArg(k, i++, sizeof buf, &buf);
    clSetKernelArg(k, i++, sizeof one, &one);
    clSetKernelArg(k, i++, 4096, nullptr);
    clSetKernelArg(k, i++, sizeof buf, &buf);
    for (int a = 0; a < 3; ++a) clSetKernelArg(k, i++, sizeof one, &one);
  };
  set_args();
  const std::size_t global = 256 * 132, local = 256;
  const int launches = 100;
  for (int variant = 0; variant < 3; ++variant) {
    std::vector<double> host, total;
    for (int rep = 0; rep < 21; ++rep) {
      clFinish(q);
      const auto t0 = clk::now();
      for (int l = 0; l < launches; ++l) {
        if (variant != 1) set_args();
        clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
        if (variant == 2) clFlush(q);
      }
      const auto t1 = clk::now();
      clFinish(q);
      const auto t2 = clk::now();
      host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
      total.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count() / launches);
    }
    std::sort(host.begin(), host.end());
    std::sort(total.begin(), total.end());
    static const char* names[] = {"15 arguments set each launch", "arguments set once", "set each launch, flushed"};
    std::printf("%-30s host %6.2f us per launch, with the device %6.2f us\n", names[variant], host[10], total[10]);
  }
  // a kernel of two arguments and static local memory, one launch or 132 groups
  cl_kernel ks = clCreateKernel(prog, "idle_static", &st);
  CK(st);
  clSetKernelArg(ks, 0, sizeof buf, &buf);
  clSetKernelArg(ks, 1, sizeof one, &one);
  for (std::size_t g : {std::size_t(256), global}) {
    std::vector<double> host;
    for (int rep = 0; rep < 21; ++rep) {
      clFinish(q);
      const auto t0 = clk::now();
      for (int l = 0; l < launches; ++l) clEnqueueNDRangeKernel(q, ks, 1, nullptr, &g, &local, 0, nullptr, nullptr);
      host.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count() / launches);
    }
    clFinish(q);
    std::sort(host.begin(), host.end());
    std::printf("2 arguments, static local, %zu groups: host %6.2f us per launch\n", g / local, host[10]);
  }
  // the arguments alone
  std::vector<double> args;
  for (int rep = 0; rep < 21; ++rep) {
    const auto t0 = clk::now();
    for (int l = 0; l < launches; ++l) set_args();
    args.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count() / launches);
  }
  std::sort(args.begin(), args.end());
  std::printf("15 clSetKernelArg alone          %6.2f us\n", args[10]);
  return 0;
}
