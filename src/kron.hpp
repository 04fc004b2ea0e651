// Kronecker-structured products with tridiagonal factors (internal).
#pragma once
#include <cstddef>
#include <vector>

#include "pscr/tridiagonal.hpp"

namespace pscr::detail {

// Tridiagonal with coefficients alpha·M + beta·A formed on the fly.
template <class T> struct Combined {
  const Tridiagonal<T>* A;
  const Tridiagonal<T>* M;
  T alpha;  // weight of M
  T beta;   // weight of A
  T d(std::size_t i) const { return alpha * M->diag[i] + beta * A->diag[i]; }
  T o(std::size_t i) const { return alpha * M->off[i] + beta * A->off[i]; }
  bool cyclic() const { return A->periodic(); }
};

// y[o,i,r] (+)= sum_j t[i,j] x[o,j,r] for a tensor of shape (outer, n, inner).
template <class Tri, class T>
void apply_axis(const Tri& t, const T* x, T* y, std::size_t outer, std::size_t n, std::size_t inner,
                bool accumulate) {
  for (std::size_t o = 0; o < outer; ++o) {
    const T* xo = x + o * n * inner;
    T* yo = y + o * n * inner;
    for (std::size_t i = 0; i < n; ++i) {
      const T di = t.d(i);
      const T lo = i > 0 ? t.o(i - 1) : T(0);
      const T up = i + 1 < n ? t.o(i) : T(0);
      const T* xc = xo + i * inner;
      T* yc = yo + i * inner;
      for (std::size_t r = 0; r < inner; ++r) {
        T s = di * xc[r];
        if (i > 0) s += lo * xc[r - inner];
        if (i + 1 < n) s += up * xc[r + inner];
        yc[r] = accumulate ? yc[r] + s : s;
      }
    }
    if (t.cyclic() && n > 2) {
      // the corner entries of a periodic dimension: rows 0 and n-1 coupled
      const T corner = t.o(n - 1);
      T* first = yo;
      T* last = yo + (n - 1) * inner;
      const T* xfirst = xo;
      const T* xlast = xo + (n - 1) * inner;
      for (std::size_t r = 0; r < inner; ++r) {
        first[r] += corner * xlast[r];
        last[r] += corner * xfirst[r];
      }
    }
  }
}

// Plain tridiagonal as a Combined-like view.
template <class T> struct Plain {
  const Tridiagonal<T>* t;
  T scale;
  T d(std::size_t i) const { return scale * t->diag[i]; }
  T o(std::size_t i) const { return scale * t->off[i]; }
  bool cyclic() const { return t->periodic(); }
};

// y (+)= (alpha·M_r + beta·A_r) x over the factor list f[0..count-1] (the
// "rest" dimensions), where M_r = ⊗ M and A_r = sum over t of the products with
// A in position t. `tmp` must hold as many entries as x. count is 1 or 2.
template <class T, class FactorT>
void apply_rest(const FactorT* f, int count, T alpha, T beta, const T* x, T* y, T* tmp, bool accumulate) {
  if (count == 1) {
    Combined<T> op{&f[0].A, &f[0].M, alpha, beta};
    apply_axis(op, x, y, 1, f[0].size(), 1, accumulate);
    return;
  }
  // (alpha M2 + beta A2)⊗M3 + M2⊗(beta A3): each term is an axis product pair.
  const std::size_t n2 = f[0].size(), n3 = f[1].size();
  apply_axis(Plain<T>{&f[1].M, T(1)}, x, tmp, n2, n3, 1, false);
  apply_axis(Combined<T>{&f[0].A, &f[0].M, alpha, beta}, tmp, y, 1, n2, n3, accumulate);
  apply_axis(Plain<T>{&f[1].A, beta}, x, tmp, n2, n3, 1, false);
  apply_axis(Plain<T>{&f[0].M, T(1)}, tmp, y, 1, n2, n3, true);
}

}  // namespace pscr::detail
