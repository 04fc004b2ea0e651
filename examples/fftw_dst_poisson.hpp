// Anchor: FFTW DST-I solver for the uniform-mesh Dirichlet Poisson problem
// (T⊗I + I⊗T) u = f in 2D, (T⊗I⊗I + I⊗T⊗I + I⊗I⊗T) u = f in 3D, with
// T = tridiag{-1, 2, -1} of size n: what a user would otherwise pick on a CPU.
#pragma once
#include <fftw3.h>

#include <vector>

class FftwDstPoisson {
 public:
  FftwDstPoisson(int dim, int n, int threads);
  ~FftwDstPoisson();
  FftwDstPoisson(const FftwDstPoisson&) = delete;
  FftwDstPoisson& operator=(const FftwDstPoisson&) = delete;
  void solve(const double* f, double* u);

 private:
  int dim_, n_;
  std::vector<double> eig_;
  double* buf_;
  fftw_plan plan_;
};
