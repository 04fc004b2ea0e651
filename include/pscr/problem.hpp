/// @file
/// A separable problem: A = A1⊗M2 + M1⊗A2 + c·M1⊗M2 (2D) or its 3D form.
#pragma once
#include "pscr/export.hpp"
#include <cstddef>
#include <vector>

#include "pscr/scalar.hpp"
#include "pscr/tridiagonal.hpp"

namespace pscr {

/// One factor pencil (A_d, M_d) of the separable operator.
template <class T> struct Factor {
  Tridiagonal<T> A;  ///< the stiffness-like matrix A_d
  Tridiagonal<T> M;  ///< the mass-like matrix M_d
  std::size_t size() const { return A.size(); }  ///< n_d, the rows of the factor
  /// A periodic dimension: A (and M, whose corner may be 0) cyclic.
  bool periodic() const { return A.periodic(); }
  /// The same pencil with entries converted to U.
  template <class U> Factor<U> cast() const { return {A.template cast<U>(), M.template cast<U>()}; }
};

/// Index 1 slowest: u[(i1*n2 + i2)*n3 + i3]. Constructors validate sizes and
/// finiteness and throw SizeMismatch / InvalidArgument / NonFiniteInput, and
/// AllocationTooLarge when the bytes of one right-hand side overflow size_t.
template <class T> class PSCR_API Problem {
 public:
  /// The operator of 2 or 3 factor pencils (dimension 1 first) and the constant c.
  Problem(std::vector<Factor<T>> factors, T c);
  /// A1⊗M2 + M1⊗A2 + c·M1⊗M2.
  static Problem make2d(Factor<T> f1, Factor<T> f2, T c) { return Problem({std::move(f1), std::move(f2)}, c); }
  /// A1⊗M2⊗M3 + M1⊗A2⊗M3 + M1⊗M2⊗A3 + c·M1⊗M2⊗M3.
  static Problem make3d(Factor<T> f1, Factor<T> f2, Factor<T> f3, T c) {
    return Problem({std::move(f1), std::move(f2), std::move(f3)}, c);
  }

  int dims() const { return static_cast<int>(factors_.size()); }  ///< 2 or 3
  std::size_t size(int d) const { return factors_[d].size(); }  ///< n of dimension d (0-based)
  std::size_t unknowns() const;  ///< n1 · n2 (· n3): the length of one right-hand side
  const Factor<T>& factor(int d) const { return factors_[d]; }  ///< the pencil of dimension d (0-based)
  const std::vector<Factor<T>>& factors() const { return factors_; }  ///< all pencils, dimension 1 first
  T c() const { return c_; }  ///< the constant c

  /// y = A x (no aliasing). Used for residuals and manufactured right-hand sides.
  void apply(const T* x, T* y) const;
  /// ‖f − A u‖∞ / (‖A‖∞ ‖u‖∞ + ‖f‖∞): the normwise backward error of u.
  double backward_error(const T* f, const T* u) const;
  /// ‖f − A u‖₂ / ‖f‖₂.
  double relative_residual(const T* f, const T* u) const;
  /// ‖A‖∞ of the assembled operator, computed from the factors.
  double norm_inf() const;

  /// The same problem with entries converted to U (e.g. a double builder's problem in float).
  template <class U> Problem<U> cast() const {
    std::vector<Factor<U>> f;
    for (auto& x : factors_) f.push_back(x.template cast<U>());
    return Problem<U>(std::move(f), static_cast<U>(c_));
  }

 private:
  std::vector<Factor<T>> factors_;
  T c_;
};

}  // namespace pscr
