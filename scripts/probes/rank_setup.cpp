// Probe (not part of the library): what an MPI rank's OpenCL start costs when
// several processes start at once (pscr-solve-mpi's set-up grew from 0.26 s
// on one rank to 0.87 s on four, one H200 each). Every rank, after a barrier,
// times the platform query (the driver's start), its device's context and
// queue, and a first 256 MB buffer written once; prints each rank's times.
// Build and run:
//   mpicxx -O2 -std=c++17 scripts/probes/rank_setup.cpp -lOpenCL -o build/rank_setup
//   mpirun -np P build/rank_setup
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <vector>

using clk = std::chrono::steady_clock;
static double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  double t[4] = {0, 0, 0, 0};
  auto s = clk::now();
  cl_platform_id plat[4];
  cl_uint np = 0;
  clGetPlatformIDs(4, plat, &np);
  cl_device_id devs[16];
  cl_uint nd = 0;
  if (np > 0) clGetDeviceIDs(plat[0], CL_DEVICE_TYPE_ALL, 16, devs, &nd);
  t[0] = since(s);
  int status = 0;
  if (nd == 0) {
    std::printf("rank %d: no device\n", rank);
    status = 1;
  } else {
    cl_device_id dev = devs[cl_uint(rank) % nd];
    s = clk::now();
    cl_int e = 0;
    cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &e);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    t[1] = since(s);
    s = clk::now();
    const std::size_t bytes = std::size_t(256) << 20;
    std::vector<char> host(bytes, 1);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &e);
    clEnqueueWriteBuffer(q, b, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr);
    t[2] = since(s);
    s = clk::now();
    clReleaseMemObject(b);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    t[3] = since(s);
  }
  std::vector<double> all(std::size_t(4 * size));
  MPI_Gather(t, 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      std::printf("rank %d of %d: platform and devices %.3f s, context and queue %.3f s, first 256 MB buffer %.3f s, "
                  "release %.3f s\n", r, size, all[4 * r], all[4 * r + 1], all[4 * r + 2], all[4 * r + 3]);
  MPI_Finalize();
  return status;
}
