// Host cost of a launch, for docs/denoise.md and docs/method.md: a kernel of
// 12 arguments (8 buffers, 4 scalars) on 256 work-items, timed on the host
// per call: setting its arguments and enqueuing, enqueuing alone, setting
// the arguments alone; then T = 1, 2, 4 host threads, each enqueuing on a
// queue of its own (one context): does the driver enqueue in parallel?
// Build: gcc -O2 clprobe-enqueue.c -o clprobe-enqueue -lOpenCL -lpthread
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static const char* src =
    "__kernel void k(__global float* a, __global float* b, __global float* c, __global float* d,"
    " __global float* e, __global float* f, __global float* g, __global float* h, int n, int m, float s, float t)"
    " { int i = get_global_id(0); if (i < n) a[i] = b[i] + s * c[i] + t * (float)m; }";
struct worker {
  cl_command_queue q;
  cl_kernel k;
  int launches;
};
static void* enqueue_all(void* arg) {
  struct worker* w = arg;
  size_t g = 256, l = 256;
  for (int r = 0; r < w->launches; ++r) clEnqueueNDRangeKernel(w->q, w->k, 1, NULL, &g, &l, 0, NULL, NULL);
  clFinish(w->q);
  return NULL;
}
int main(void) {
  cl_platform_id p[8]; cl_uint np = 0;
  clGetPlatformIDs(8, p, &np);
  cl_device_id dev = 0; cl_uint nd = 0; char name[256] = "";
  for (cl_uint i = 0; i < np && !dev; ++i)
    if (clGetDeviceIDs(p[i], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS) dev = 0;
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  cl_int err;
  cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(c, dev, 0, &err);
  cl_program prog = clCreateProgramWithSource(c, 1, &src, NULL, &err);
  clBuildProgram(prog, 1, &dev, "", NULL, NULL);
  cl_kernel k = clCreateKernel(prog, "k", &err);
  cl_mem m[8];
  for (int i = 0; i < 8; ++i) m[i] = clCreateBuffer(c, CL_MEM_READ_WRITE, 4096, NULL, &err);
  int n = 256, mm = 3; float s = 1, t = 2;
  size_t g = 256, l = 256;
  const int R = 2000;
  for (int round = 0; round < 3; ++round) {
    double t0 = now();
    for (int r = 0; r < R; ++r) {
      for (int i = 0; i < 8; ++i) clSetKernelArg(k, i, sizeof(cl_mem), &m[(i + r) % 8]);
      clSetKernelArg(k, 8, sizeof n, &n); clSetKernelArg(k, 9, sizeof mm, &mm);
      clSetKernelArg(k, 10, sizeof s, &s); clSetKernelArg(k, 11, sizeof t, &t);
      clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
    }
    double t1 = now();
    clFinish(q);
    double t2 = now();
    for (int r = 0; r < R; ++r) clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL);
    double t3 = now();
    clFinish(q);
    double t4 = now();
    for (int r = 0; r < R; ++r) {
      for (int i = 0; i < 8; ++i) clSetKernelArg(k, i, sizeof(cl_mem), &m[(i + r) % 8]);
      clSetKernelArg(k, 8, sizeof n, &n); clSetKernelArg(k, 9, sizeof mm, &mm);
      clSetKernelArg(k, 10, sizeof s, &s); clSetKernelArg(k, 11, sizeof t, &t);
    }
    double t5 = now();
    printf("%s: per launch, 12 arguments set and enqueued %.2f us (device done %.2f us later per launch); "
           "enqueued alone %.2f us (device %.2f us per launch); 12 arguments alone %.2f us\n",
           name, 1e6 * (t1 - t0) / R, 1e6 * (t2 - t1) / R, 1e6 * (t3 - t2) / R, 1e6 * (t4 - t2) / R,
           1e6 * (t5 - t4) / R);
  }
  // threads: each its own queue and kernel object (arguments are per kernel object)
  for (int T = 1; T <= 4; T *= 2) {
    struct worker w[4];
    pthread_t th[4];
    for (int i = 0; i < T; ++i) {
      w[i].q = clCreateCommandQueue(c, dev, 0, &err);
      w[i].k = clCreateKernel(prog, "k", &err);
      for (int a = 0; a < 8; ++a) clSetKernelArg(w[i].k, a, sizeof(cl_mem), &m[a]);
      clSetKernelArg(w[i].k, 8, sizeof n, &n); clSetKernelArg(w[i].k, 9, sizeof mm, &mm);
      clSetKernelArg(w[i].k, 10, sizeof s, &s); clSetKernelArg(w[i].k, 11, sizeof t, &t);
      w[i].launches = R;
      enqueue_all(&w[i]);  // warm-up
    }
    double t0 = now();
    for (int i = 0; i < T; ++i) pthread_create(&th[i], NULL, enqueue_all, &w[i]);
    for (int i = 0; i < T; ++i) pthread_join(th[i], NULL);
    double t1 = now();
    printf("%d threads, %d launches each on its own queue: %.2f us per launch overall (%.2f us per launch per thread)\n",
           T, R, 1e6 * (t1 - t0) / (T * R), 1e6 * (t1 - t0) / R);
  }
  return 0;
}
