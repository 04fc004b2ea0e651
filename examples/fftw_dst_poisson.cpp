#include "fftw_dst_poisson.hpp"

#include <fftw3.h>

#include <cmath>
#include <cstring>

FftwDstPoisson2D::FftwDstPoisson2D(int n, int threads) : n_(n), eig_(n) {
  fftw_init_threads();
  fftw_plan_with_nthreads(threads);
  buf_ = fftw_alloc_real(std::size_t(n) * n);
  plan_ = fftw_plan_r2r_2d(n, n, buf_, buf_, FFTW_RODFT00, FFTW_RODFT00, FFTW_MEASURE);
  for (int k = 0; k < n; ++k) eig_[k] = 2 - 2 * std::cos(M_PI * (k + 1) / (n + 1));
}

FftwDstPoisson2D::~FftwDstPoisson2D() {
  fftw_destroy_plan(plan_);
  fftw_free(buf_);
}

void FftwDstPoisson2D::solve(const double* f, double* u) {
  const std::size_t N = std::size_t(n_) * n_;
  std::memcpy(buf_, f, N * sizeof(double));
  fftw_execute(plan_);
  // Unnormalised DST-I twice in 2D scales by (2(n+1))².
  const double scale = 1.0 / (4.0 * (n_ + 1) * (n_ + 1));
  for (int i = 0; i < n_; ++i)
    for (int j = 0; j < n_; ++j) buf_[std::size_t(i) * n_ + j] *= scale / (eig_[i] + eig_[j]);
  fftw_execute(plan_);
  std::memcpy(u, buf_, N * sizeof(double));
}
