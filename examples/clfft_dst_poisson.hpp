// Anchor: an FFT-based DST-I solver for the same uniform-mesh Dirichlet
// Poisson problem as FftwDstPoisson, on an OpenCL device through clFFT. Each
// DST-I of length n is a real FFT of the odd extension (length 2(n+1)):
// per dimension, one kernel writes the extensions of all lines, one batched
// clFFT transform runs, one kernel takes −Im/2 back into place; then the
// spectrum is divided by the eigenvalues and the same transforms run again.
#pragma once
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <clFFT.h>

#include <stdexcept>
#include <string>

class ClfftDstPoisson {
 public:
  // Runs on the device of `queue`; throws std::runtime_error naming the call
  // that failed (clFFT cannot plan lengths 2(n+1) with prime factors > 13).
  ClfftDstPoisson(cl_context ctx, cl_command_queue queue, int dim, int n);
  ~ClfftDstPoisson();
  ClfftDstPoisson(const ClfftDstPoisson&) = delete;
  ClfftDstPoisson& operator=(const ClfftDstPoisson&) = delete;
  // Solves in place on x (n^dim doubles in this context); returns when done.
  void solve(cl_mem x);

 private:
  void dst(cl_mem x);
  cl_context ctx_;
  cl_command_queue queue_;
  int dim_, n_;
  std::size_t lines_ = 0;
  cl_program prog_ = nullptr;
  cl_kernel extend_ = nullptr, extract_ = nullptr, scale_ = nullptr;
  cl_mem ext_ = nullptr, spec_ = nullptr, eig_ = nullptr, tmp_ = nullptr;
  clfftPlanHandle plan_ = 0;
  bool setup_ = false;
};
