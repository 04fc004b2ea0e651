// Kernel resource probe (not part of the library): builds the library's
// kernels (read from kernels/ of the source tree, in the order the library
// joins them) with the given build options and, on NVIDIA, -cl-nv-verbose,
// and prints per kernel the compiler's register and spill report, the
// private and local memory it takes and its largest work-group. Used to
// see what bounds a kernel's occupancy. Build and run:
//   g++ -O2 -std=c++17 scripts/probes/kernel_registers.cpp -lOpenCL -o build/kernel_registers
//   build/kernel_registers KERNELS_DIR "OPTIONS" [kernel ...]
// OPTIONS are the library's build options (src/opencl/program_options.cpp:
// -DKEPT=…, -DLINE_ROWS=…, -DLINE_CHECKPOINT=…, …), which the kernels need.
#include "probe_device.hpp"
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
int main(int argc, char** argv) {
  if (argc < 3) { std::printf("usage: %s KERNELS_DIR OPTIONS [kernel ...]\n", argv[0]); return 2; }
  std::string src;
  for (const char* f : {"common", "level", "tridiagonal", "line_solve", "partitioned_lines", "null_space", "dense",
                        "sine_transform"}) {
    std::ifstream in(std::string(argv[1]) + "/" + f + ".cl");
    std::stringstream ss;
    ss << in.rdbuf();
    src += ss.str() + "\n";
  }
  cl_device_id dev = probe_device();
  if (!dev) {
    std::printf("no OpenCL device\n");
    return 1;
  }
  char name[256];
  CK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr));
  cl_int err = 0;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
  CK(err);
  const char* s = src.c_str();
  cl_program prog = clCreateProgramWithSource(ctx, 1, &s, nullptr, &err);
  CK(err);
  std::string opts = argv[2];
  if (std::string(name).find("NVIDIA") != std::string::npos || std::string(name).find("H100") != std::string::npos)
    opts += " -cl-nv-verbose";
  const cl_int built = clBuildProgram(prog, 1, &dev, opts.c_str(), nullptr, nullptr);
  size_t n = 0;
  clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  std::printf("%s\noptions: %s\n", name, opts.c_str());
  // the compiler's report, only for the kernels asked for (or all)
  std::istringstream lines(log);
  std::string line, current;
  bool want = argc == 3;
  while (std::getline(lines, line)) {
    const auto fn = line.find("Function properties for ");
    const auto co = line.find("Compiling entry function '");
    if (co != std::string::npos) {
      current = line.substr(co + 26);
      current = current.substr(0, current.find('\''));
      want = argc == 3;
      for (int a = 3; a < argc; ++a) want = want || current == argv[a];
    }
    if (fn != std::string::npos) continue;
    if (want && (line.find("registers") != std::string::npos || line.find("spill") != std::string::npos ||
                 co != std::string::npos))
      std::printf("  %s\n", line.c_str());
  }
  if (built != CL_SUCCESS) { std::printf("build failed (%d)\n%s\n", built, log.c_str()); return 1; }
  for (int a = 3; a < argc; ++a) {
    cl_kernel k = clCreateKernel(prog, argv[a], &err);
    if (err) { std::printf("%s: no such kernel (%d)\n", argv[a], err); continue; }
    size_t wg = 0;
    cl_ulong priv = 0, loc = 0;
    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr);
    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv, nullptr);
    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof loc, &loc, nullptr);
    std::printf("%-28s max work-group %4zu  private %6llu B  static local %6llu B\n", argv[a], wg,
                (unsigned long long)priv, (unsigned long long)loc);
    clReleaseKernel(k);
  }
  return 0;
}
