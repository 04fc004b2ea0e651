// DST-I Poisson solver in float, double or long double (FFTW's fftwf, fftw,
// fftwl) for the uniform-mesh Dirichlet problem (T⊗I + I⊗T) u = f in 2D (and
// the 3D form), T = tridiag{-1, 2, -1}: the FFT solver a user would write,
// the accuracy anchor of each precision, and (long double) the exact answer.
#pragma once
#include <fftw3.h>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace anchor {

template <class R> struct Fftw;
template <> struct Fftw<float> {
  using plan = fftwf_plan;
  static plan make(int rank, const int* n, float* b) {
    const fftw_r2r_kind k[3] = {FFTW_RODFT00, FFTW_RODFT00, FFTW_RODFT00};
    return fftwf_plan_r2r(rank, n, b, b, k, FFTW_ESTIMATE);
  }
  static void run(plan p) { fftwf_execute(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};
template <> struct Fftw<double> {
  using plan = fftw_plan;
  static plan make(int rank, const int* n, double* b) {
    const fftw_r2r_kind k[3] = {FFTW_RODFT00, FFTW_RODFT00, FFTW_RODFT00};
    return fftw_plan_r2r(rank, n, b, b, k, FFTW_ESTIMATE);
  }
  static void run(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};
template <> struct Fftw<long double> {
  using plan = fftwl_plan;
  static plan make(int rank, const int* n, long double* b) {
    const fftw_r2r_kind k[3] = {FFTW_RODFT00, FFTW_RODFT00, FFTW_RODFT00};
    return fftwl_plan_r2r(rank, n, b, b, k, FFTW_ESTIMATE);
  }
  static void run(plan p) { fftwl_execute(p); }
  static void destroy(plan p) { fftwl_destroy_plan(p); }
};

template <class R> class DstPoisson {
 public:
  // n: the interior size of each dimension (2 or 3 of them).
  explicit DstPoisson(std::vector<int> n) : n_(std::move(n)) {
    if (n_.size() < 2 || n_.size() > 3) throw std::invalid_argument("DstPoisson: 2 or 3 dimensions");
    std::size_t N = 1;
    for (int m : n_) N *= std::size_t(m);
    buf_.resize(N);
    plan_ = Fftw<R>::make(int(n_.size()), n_.data(), buf_.data());
    for (int m : n_) {
      // 4 sin²(πk/(2(m+1))) in long double, rounded once: no cancellation.
      std::vector<R> e(m);
      for (int k = 0; k < m; ++k) {
        const long double s = std::sin(3.14159265358979323846264338327950288L * (k + 1) / (2.0L * (m + 1)));
        e[k] = R(4 * s * s);
      }
      eig_.push_back(std::move(e));
      scale_ /= R(2 * (m + 1));
    }
  }
  ~DstPoisson() { Fftw<R>::destroy(plan_); }
  DstPoisson(const DstPoisson&) = delete;
  DstPoisson& operator=(const DstPoisson&) = delete;

  void solve(const R* f, R* u) {
    std::copy(f, f + buf_.size(), buf_.begin());
    Fftw<R>::run(plan_);
    const std::size_t n1 = n_[0], n2 = n_[1], n3 = n_.size() > 2 ? n_[2] : 1;
    for (std::size_t i = 0; i < n1; ++i)
      for (std::size_t j = 0; j < n2; ++j)
        for (std::size_t k = 0; k < n3; ++k) {
          const R lam = eig_[0][i] + eig_[1][j] + (n_.size() > 2 ? eig_[2][k] : R(0));
          buf_[(i * n2 + j) * n3 + k] *= scale_ / lam;
        }
    Fftw<R>::run(plan_);
    std::copy(buf_.begin(), buf_.end(), u);
  }

 private:
  std::vector<int> n_;
  std::vector<std::vector<R>> eig_;
  std::vector<R> buf_;
  R scale_ = 1;
  typename Fftw<R>::plan plan_;
};

}  // namespace anchor
