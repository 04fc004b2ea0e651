// LAPACKE with std::complex as its complex types (internal).
#pragma once
#include <complex>
#ifndef lapack_complex_float
#define lapack_complex_float std::complex<float>
#endif
#ifndef lapack_complex_double
#define lapack_complex_double std::complex<double>
#endif
#include <lapacke.h>

namespace pscr {
// One tridiagonal system, LU with partial pivoting (?gttrf) and its solve (?gttrs), for both scalar types
// (the _work entry points: the callers' data are finite, LAPACKE's NaN scans would cost a pass each).
inline int gttrf(int n, double* dl, double* d, double* du, double* du2, lapack_int* ipiv) {
  return LAPACKE_dgttrf_work(n, dl, d, du, du2, ipiv);
}
inline int gttrf(int n, std::complex<double>* dl, std::complex<double>* d, std::complex<double>* du,
                 std::complex<double>* du2, lapack_int* ipiv) {
  return LAPACKE_zgttrf_work(n, dl, d, du, du2, ipiv);
}
inline int gttrs(int n, const double* dl, const double* d, const double* du, const double* du2,
                 const lapack_int* ipiv, double* b) {
  return LAPACKE_dgttrs_work(LAPACK_COL_MAJOR, 'N', n, 1, dl, d, du, du2, ipiv, b, n);
}
inline int gttrs(int n, const std::complex<double>* dl, const std::complex<double>* d,
                 const std::complex<double>* du, const std::complex<double>* du2, const lapack_int* ipiv,
                 std::complex<double>* b) {
  return LAPACKE_zgttrs_work(LAPACK_COL_MAJOR, 'N', n, 1, dl, d, du, du2, ipiv, b, n);
}
}  // namespace pscr
