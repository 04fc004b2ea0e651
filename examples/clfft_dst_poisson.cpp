#include "clfft_dst_poisson.hpp"

#include <cmath>
#include <vector>

namespace {

const char* kSource = R"CL(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// Line l of axis `inner` (stride of the axis): base = outer*n*inner + rest.
inline size_t line_base(size_t l, int n, size_t inner) { return (l / inner) * n * inner + l % inner; }
// ext[l][k], k < 2N (N = n+1): the odd extension 0, x_1..x_n, 0, -x_n..-x_1.
__kernel void extend(__global const double* x, __global double* ext, int n, ulong inner, ulong lines) {
  const size_t l = get_global_id(1);
  const int k = get_global_id(0), N = n + 1;
  if (l >= lines || k >= 2 * N) return;
  const size_t b = line_base(l, n, inner);
  double v = 0;
  if (k >= 1 && k <= n) v = x[b + (size_t)(k - 1) * inner];
  else if (k > N) v = -x[b + (size_t)(2 * N - k - 1) * inner];
  ext[l * 2 * N + k] = v;
}
// x_k = Σ_j x_j sin(π j k / N) = −Im(F_k)/2.
__kernel void extract(__global const double2* spec, __global double* x, int n, ulong inner, ulong lines) {
  const size_t l = get_global_id(1);
  const int k = get_global_id(0);
  if (l >= lines || k >= n) return;
  x[line_base(l, n, inner) + (size_t)k * inner] = -0.5 * spec[l * (n + 2) + k + 1].y;
}
// Division by the eigenvalues of the operator, with the (2/N)^dim of two transforms.
__kernel void scale(__global double* x, __global const double* eig, int n, int dim, double s) {
  const size_t i = get_global_id(0), total = dim == 2 ? (size_t)n * n : (size_t)n * n * n;
  if (i >= total) return;
  double e = eig[i % n] + eig[(i / n) % n];
  if (dim == 3) e += eig[i / ((size_t)n * n)];
  x[i] *= s / e;
}
)CL";

void check(cl_int st, const char* what) {
  if (st != CL_SUCCESS) throw std::runtime_error(std::string(what) + " failed with status " + std::to_string(st));
}
void checkfft(clfftStatus st, const char* what) {
  if (st != CLFFT_SUCCESS) throw std::runtime_error(std::string(what) + " failed with clFFT status " + std::to_string(int(st)));
}
std::size_t up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }

}  // namespace

ClfftDstPoisson::ClfftDstPoisson(cl_context ctx, cl_command_queue queue, int dim, int n)
    : ctx_(ctx), queue_(queue), dim_(dim), n_(n) {
  lines_ = dim == 2 ? std::size_t(n) : std::size_t(n) * n;
  const std::size_t L = 2 * std::size_t(n + 1), H = std::size_t(n + 2);  // real length, complex outputs
  cl_int st;
  prog_ = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &st);
  check(st, "clCreateProgramWithSource (DST anchor)");
  cl_device_id dev;
  check(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr), "clGetCommandQueueInfo");
  check(clBuildProgram(prog_, 1, &dev, "", nullptr, nullptr), "clBuildProgram (DST anchor)");
  extend_ = clCreateKernel(prog_, "extend", &st);
  check(st, "clCreateKernel(extend)");
  extract_ = clCreateKernel(prog_, "extract", &st);
  check(st, "clCreateKernel(extract)");
  scale_ = clCreateKernel(prog_, "scale", &st);
  check(st, "clCreateKernel(scale)");
  ext_ = clCreateBuffer(ctx, CL_MEM_READ_WRITE, lines_ * L * sizeof(double), nullptr, &st);
  check(st, "clCreateBuffer (odd extensions)");
  spec_ = clCreateBuffer(ctx, CL_MEM_READ_WRITE, lines_ * H * 2 * sizeof(double), nullptr, &st);
  check(st, "clCreateBuffer (spectra)");
  std::vector<double> eig(n);
  for (int k = 0; k < n; ++k) eig[k] = 2 - 2 * std::cos(M_PI * (k + 1) / (n + 1));
  eig_ = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(double), eig.data(), &st);
  check(st, "clCreateBuffer (eigenvalues)");

  clfftSetupData setup;
  checkfft(clfftInitSetupData(&setup), "clfftInitSetupData");
  checkfft(clfftSetup(&setup), "clfftSetup");
  setup_ = true;
  std::size_t len = L, one = 1;
  checkfft(clfftCreateDefaultPlan(&plan_, ctx, CLFFT_1D, &len), "clfftCreateDefaultPlan");
  checkfft(clfftSetPlanPrecision(plan_, CLFFT_DOUBLE), "clfftSetPlanPrecision");
  checkfft(clfftSetLayout(plan_, CLFFT_REAL, CLFFT_HERMITIAN_INTERLEAVED), "clfftSetLayout");
  checkfft(clfftSetResultLocation(plan_, CLFFT_OUTOFPLACE), "clfftSetResultLocation");
  checkfft(clfftSetPlanBatchSize(plan_, lines_), "clfftSetPlanBatchSize");
  checkfft(clfftSetPlanInStride(plan_, CLFFT_1D, &one), "clfftSetPlanInStride");
  checkfft(clfftSetPlanOutStride(plan_, CLFFT_1D, &one), "clfftSetPlanOutStride");
  checkfft(clfftSetPlanDistance(plan_, L, H), "clfftSetPlanDistance");
  checkfft(clfftBakePlan(plan_, 1, &queue_, nullptr, nullptr), "clfftBakePlan");
  std::size_t tmp = 0;
  checkfft(clfftGetTmpBufSize(plan_, &tmp), "clfftGetTmpBufSize");
  if (tmp > 0) {
    tmp_ = clCreateBuffer(ctx, CL_MEM_READ_WRITE, tmp, nullptr, &st);
    check(st, "clCreateBuffer (clFFT scratch)");
  }
}

ClfftDstPoisson::~ClfftDstPoisson() {
  if (plan_) clfftDestroyPlan(&plan_);
  if (setup_) clfftTeardown();
  for (cl_mem m : {ext_, spec_, eig_, tmp_})
    if (m) clReleaseMemObject(m);
  for (cl_kernel k : {extend_, extract_, scale_})
    if (k) clReleaseKernel(k);
  if (prog_) clReleaseProgram(prog_);
}

// DST-I along every axis of x, in place.
void ClfftDstPoisson::dst(cl_mem x) {
  const int n = n_;
  const cl_ulong lines = lines_;
  const std::size_t L = 2 * std::size_t(n + 1);
  for (int a = 0; a < dim_; ++a) {
    cl_ulong inner = 1;
    for (int b = a + 1; b < dim_; ++b) inner *= cl_ulong(n);
    check(clSetKernelArg(extend_, 0, sizeof(cl_mem), &x), "clSetKernelArg");
    check(clSetKernelArg(extend_, 1, sizeof(cl_mem), &ext_), "clSetKernelArg");
    check(clSetKernelArg(extend_, 2, sizeof(int), &n), "clSetKernelArg");
    check(clSetKernelArg(extend_, 3, sizeof inner, &inner), "clSetKernelArg");
    check(clSetKernelArg(extend_, 4, sizeof lines, &lines), "clSetKernelArg");
    const std::size_t g1[2] = {up(L, 64), lines_}, l1[2] = {64, 1};
    check(clEnqueueNDRangeKernel(queue_, extend_, 2, nullptr, g1, l1, 0, nullptr, nullptr), "extend");
    checkfft(clfftEnqueueTransform(plan_, CLFFT_FORWARD, 1, &queue_, 0, nullptr, nullptr, &ext_, &spec_, tmp_),
             "clfftEnqueueTransform");
    check(clSetKernelArg(extract_, 0, sizeof(cl_mem), &spec_), "clSetKernelArg");
    check(clSetKernelArg(extract_, 1, sizeof(cl_mem), &x), "clSetKernelArg");
    check(clSetKernelArg(extract_, 2, sizeof(int), &n), "clSetKernelArg");
    check(clSetKernelArg(extract_, 3, sizeof inner, &inner), "clSetKernelArg");
    check(clSetKernelArg(extract_, 4, sizeof lines, &lines), "clSetKernelArg");
    const std::size_t g2[2] = {up(std::size_t(n), 64), lines_};
    check(clEnqueueNDRangeKernel(queue_, extract_, 2, nullptr, g2, l1, 0, nullptr, nullptr), "extract");
  }
}

void ClfftDstPoisson::solve(cl_mem x) {
  dst(x);
  const double N = n_ + 1, s = std::pow(2.0 / N, dim_);
  std::size_t total = std::size_t(n_) * n_ * (dim_ == 3 ? std::size_t(n_) : 1);
  check(clSetKernelArg(scale_, 0, sizeof(cl_mem), &x), "clSetKernelArg");
  check(clSetKernelArg(scale_, 1, sizeof(cl_mem), &eig_), "clSetKernelArg");
  check(clSetKernelArg(scale_, 2, sizeof(int), &n_), "clSetKernelArg");
  check(clSetKernelArg(scale_, 3, sizeof(int), &dim_), "clSetKernelArg");
  check(clSetKernelArg(scale_, 4, sizeof(double), &s), "clSetKernelArg");
  const std::size_t g[1] = {up(total, 256)}, l[1] = {256};
  check(clEnqueueNDRangeKernel(queue_, scale_, 1, nullptr, g, l, 0, nullptr, nullptr), "scale");
  dst(x);
  check(clFinish(queue_), "clFinish");
}
