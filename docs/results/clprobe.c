// The OpenCL start-up alone, for docs/results/h100-first-solution.txt: a bare
// program timing clGetPlatformIDs, the first GPU, its context and a queue.
// Build: gcc -O2 clprobe.c -o clprobe -lOpenCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(void) {
  double t0 = now();
  cl_platform_id p[8]; cl_uint np = 0;
  clGetPlatformIDs(8, p, &np);
  double t1 = now();
  cl_device_id d = 0; cl_uint nd = 0; char name[256] = "";
  for (cl_uint i = 0; i < np && !d; ++i)
    if (clGetDeviceIDs(p[i], CL_DEVICE_TYPE_GPU, 1, &d, &nd) != CL_SUCCESS) d = 0;
  if (d) clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, NULL);
  double t2 = now();
  cl_int err; cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
  double t3 = now();
  cl_command_queue q = clCreateCommandQueue(c, d, 0, &err);
  double t4 = now();
  printf("platforms %u: clGetPlatformIDs %.3f s, devices (%s) %.3f s, context %.3f s, queue %.3f s, total %.3f s\n", np,
         t1 - t0, name, t2 - t1, t3 - t2, t4 - t3, t4 - t0);
  return 0;
}
