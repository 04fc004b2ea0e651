/// @file
/// Symmetric tridiagonal matrix (complex symmetric for complex T: no conjugation),
/// or a cyclic one: with n off-diagonal entries, off[n-1] couples row n-1 with
/// row 0 (the corner entries of a periodic dimension).
#pragma once
#include <cstddef>
#include <vector>

namespace pscr {

/// A symmetric (complex symmetric) tridiagonal matrix of n rows: its diagonal and off-diagonal.
template <class T> struct Tridiagonal {
  std::vector<T> diag;  ///< n entries
  std::vector<T> off;   ///< n-1 entries: off[i] couples rows i and i+1; n entries: cyclic

  Tridiagonal() = default;
  /// From the diagonal (n entries) and the off-diagonal (n - 1 entries); sizes are checked by Problem.
  Tridiagonal(std::vector<T> d, std::vector<T> o) : diag(std::move(d)), off(std::move(o)) {}
  /// n, the number of rows.
  std::size_t size() const { return diag.size(); }
  /// Cyclic (periodic): off[n-1] joins the last row to the first.
  bool periodic() const { return !diag.empty() && off.size() == diag.size(); }

  /// y = this * x (length n); no aliasing of x and y.
  void multiply(const T* x, T* y) const {
    const std::size_t n = diag.size();
    for (std::size_t i = 0; i < n; ++i) {
      T s = diag[i] * x[i];
      if (i > 0) s += off[i - 1] * x[i - 1];
      if (i + 1 < n) s += off[i] * x[i + 1];
      y[i] = s;
    }
    if (periodic() && n > 1) {
      y[0] += off[n - 1] * x[n - 1];
      y[n - 1] += off[n - 1] * x[0];
    }
  }
  /// The same matrix with entries converted to U.
  template <class U> Tridiagonal<U> cast() const {
    return Tridiagonal<U>(std::vector<U>(diag.begin(), diag.end()),
                          std::vector<U>(off.begin(), off.end()));
  }
};

}  // namespace pscr
