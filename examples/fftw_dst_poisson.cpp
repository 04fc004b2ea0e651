#include "fftw_dst_poisson.hpp"

#include <fftw3.h>

#include <cmath>
#include <cstring>

FftwDstPoisson::FftwDstPoisson(int dim, int n, int threads) : dim_(dim), n_(n), eig_(n) {
  fftw_init_threads();
  fftw_plan_with_nthreads(threads);
  fftw_set_timelimit(20.0);  // FFTW_MEASURE planning of the largest sizes stays bounded
  std::size_t N = 1;
  for (int d = 0; d < dim; ++d) N *= std::size_t(n);
  buf_ = fftw_alloc_real(N);
  plan_ = dim == 2 ? fftw_plan_r2r_2d(n, n, buf_, buf_, FFTW_RODFT00, FFTW_RODFT00, FFTW_MEASURE)
                   : fftw_plan_r2r_3d(n, n, n, buf_, buf_, FFTW_RODFT00, FFTW_RODFT00, FFTW_RODFT00, FFTW_MEASURE);
  for (int k = 0; k < n; ++k) eig_[k] = 2 - 2 * std::cos(M_PI * (k + 1) / (n + 1));
}

FftwDstPoisson::~FftwDstPoisson() {
  fftw_destroy_plan(plan_);
  fftw_free(buf_);
}

void FftwDstPoisson::solve(const double* f, double* u) {
  const std::size_t n = std::size_t(n_), N = dim_ == 2 ? n * n : n * n * n;
  std::memcpy(buf_, f, N * sizeof(double));
  fftw_execute(plan_);
  // The unnormalised DST-I applied twice scales by 2(n+1) per dimension.
  const double s = 1.0 / std::pow(2.0 * (n_ + 1), dim_);
  if (dim_ == 2) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) buf_[i * n + j] *= s / (eig_[i] + eig_[j]);
  } else {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t k = 0; k < n; ++k) buf_[(i * n + j) * n + k] *= s / (eig_[i] + eig_[j] + eig_[k]);
  }
  fftw_execute(plan_);
  std::memcpy(u, buf_, N * sizeof(double));
}
