// Anchor: FFTW DST-I solver for the uniform-mesh Dirichlet Poisson problem
// (T⊗I + I⊗T) u = f, T = tridiag{-1, 2, -1}: what a user would otherwise pick.
#pragma once
#include <fftw3.h>

#include <vector>

class FftwDstPoisson2D {
 public:
  FftwDstPoisson2D(int n, int threads);
  ~FftwDstPoisson2D();
  void solve(const double* f, double* u);

 private:
  int n_;
  std::vector<double> eig_;
  double* buf_;
  fftw_plan plan_;
};
