// Trigonometric-transform Poisson solvers in float, double or long double
// (FFTW's fftwf, fftw, fftwl) for the uniform-mesh problem (T⊗I + I⊗T) u = f in
// 2D (and the 3D form), the FFT solvers a user would write, the accuracy
// anchors of each precision and (long double) the exact answers:
//  * Dirichlet ends, T = tridiag{-1, 2, -1}: DST-I both ways;
//  * Neumann ends (T's first and last diagonal entries 1, the cell-centred
//    Neumann Laplacian): DCT-II forward and DCT-III back; the compatible part
//    of f is solved and the solution has zero mean.
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
  static plan make(int rank, const int* n, float* b, const fftw_r2r_kind* k) {
    return fftwf_plan_r2r(rank, n, b, b, k, FFTW_ESTIMATE);
  }
  static void run(plan p) { fftwf_execute(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};
template <> struct Fftw<double> {
  using plan = fftw_plan;
  static plan make(int rank, const int* n, double* b, const fftw_r2r_kind* k) {
    return fftw_plan_r2r(rank, n, b, b, k, FFTW_ESTIMATE);
  }
  static void run(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};
template <> struct Fftw<long double> {
  using plan = fftwl_plan;
  static plan make(int rank, const int* n, long double* b, const fftw_r2r_kind* k) {
    return fftwl_plan_r2r(rank, n, b, b, k, FFTW_ESTIMATE);
  }
  static void run(plan p) { fftwl_execute(p); }
  static void destroy(plan p) { fftwl_destroy_plan(p); }
};

// The solver of both kinds: forward transform, division by the eigenvalues
// 4 sin²(θ_k/2) (computed in long double and rounded once: no cancellation),
// inverse transform.
template <class R> class TrigPoisson {
 public:
  // n: the size of each dimension (2 or 3 of them); neumann: the end kind.
  TrigPoisson(std::vector<int> n, bool neumann) : n_(std::move(n)) {
    if (n_.size() < 2 || n_.size() > 3) throw std::invalid_argument("TrigPoisson: 2 or 3 dimensions");
    std::size_t N = 1;
    for (int m : n_) N *= std::size_t(m);
    buf_.resize(N);
    const fftw_r2r_kind dst[3] = {FFTW_RODFT00, FFTW_RODFT00, FFTW_RODFT00};
    const fftw_r2r_kind dct2[3] = {FFTW_REDFT10, FFTW_REDFT10, FFTW_REDFT10};
    const fftw_r2r_kind dct3[3] = {FFTW_REDFT01, FFTW_REDFT01, FFTW_REDFT01};
    forward_ = Fftw<R>::make(int(n_.size()), n_.data(), buf_.data(), neumann ? dct2 : dst);
    inverse_ = neumann ? Fftw<R>::make(int(n_.size()), n_.data(), buf_.data(), dct3) : forward_;
    for (int m : n_) {
      // θ_k = π(k+1)/(m+1) (Dirichlet) or πk/m (Neumann)
      std::vector<R> e(m);
      for (int k = 0; k < m; ++k) {
        const long double pi = 3.14159265358979323846264338327950288L;
        const long double s = neumann ? std::sin(pi * k / (2.0L * m)) : std::sin(pi * (k + 1) / (2.0L * (m + 1)));
        e[k] = R(4 * s * s);
      }
      eig_.push_back(std::move(e));
      scale_ /= R(neumann ? 2 * m : 2 * (m + 1));
    }
  }
  ~TrigPoisson() {
    if (inverse_ != forward_) Fftw<R>::destroy(inverse_);
    Fftw<R>::destroy(forward_);
  }
  TrigPoisson(const TrigPoisson&) = delete;
  TrigPoisson& operator=(const TrigPoisson&) = delete;

  void solve(const R* f, R* u) {
    std::copy(f, f + buf_.size(), buf_.begin());
    Fftw<R>::run(forward_);
    const std::size_t n1 = n_[0], n2 = n_[1], n3 = n_.size() > 2 ? n_[2] : 1;
    for (std::size_t i = 0; i < n1; ++i)
      for (std::size_t j = 0; j < n2; ++j)
        for (std::size_t k = 0; k < n3; ++k) {
          const R lam = eig_[0][i] + eig_[1][j] + (n_.size() > 2 ? eig_[2][k] : R(0));
          R& b = buf_[(i * n2 + j) * n3 + k];
          b = lam == R(0) ? R(0) : b * (scale_ / lam);  // the constant mode (Neumann): zero mean
        }
    Fftw<R>::run(inverse_);
    std::copy(buf_.begin(), buf_.end(), u);
  }

 private:
  std::vector<int> n_;
  std::vector<std::vector<R>> eig_;
  std::vector<R> buf_;
  R scale_ = 1;
  typename Fftw<R>::plan forward_, inverse_;
};

}  // namespace anchor
