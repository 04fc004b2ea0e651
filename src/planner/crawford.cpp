#include "crawford.hpp"

#include <cmath>
#include <complex>
#include <limits>

#include "../lapack.hpp"
#include "pscr/errors.hpp"
#include "pscr/scalar.hpp"

namespace pscr::planner {
namespace {

template <class C> C csqrt(C x) {
  if constexpr (is_complex_v<C>) return std::sqrt(x);
  else {
    if (!(x > 0)) throw SingularPencil("mass matrix is not positive definite (a real pencil needs M > 0)");
    return std::sqrt(x);
  }
}

// Rotation (c, s), c² + s² = 1, that maps (x, b) to (r, 0). Complex rotations are
// complex orthogonal; they break down when x² + b² = 0 with b ≠ 0.
template <class C> bool rotation(C x, C b, C& c, C& s, C& r) {
  r = std::sqrt(x * x + b * b);
  if (std::abs(r) <= 1e3 * std::numeric_limits<double>::epsilon() * (std::abs(x) + std::abs(b))) return false;
  c = x / r;
  s = -b / r;
  return true;
}

}  // namespace

template <class C> Tridiagonal<C> crawford_reduce(const Tridiagonal<C>& A, const Tridiagonal<C>& M) {
  const int m = static_cast<int>(A.size());
  std::vector<C> d = A.diag, e = A.off;
  // M = L Lᵀ, L lower bidiagonal: diagonal l, subdiagonal k.
  std::vector<C> l(m), k(m > 0 ? m - 1 : 0);
  double mscale = 0;
  for (auto& v : M.diag) mscale = std::max(mscale, std::abs(v));
  for (int i = 0; i < m; ++i) {
    C piv = M.diag[i] - (i > 0 ? k[i - 1] * k[i - 1] : C(0));
    if (std::abs(piv) <= 1e-14 * mscale) throw SingularPencil("mass matrix M has a zero pivot: the pencil is singular");
    l[i] = csqrt(piv);
    if (i + 1 < m) k[i] = M.off[i] / l[i];
  }
  // Apply G_i^-1 (the elementary factor of L^-1 acting on rows i, i+1) and chase
  // the bulge it creates at (i+1, i-1) to the top with rotations.
  for (int i = 0; i < m; ++i) {
    const C alpha = C(1) / l[i];
    const C beta = i + 1 < m ? -k[i] / l[i] : C(0);
    C bulge = 0;
    if (i + 1 < m) {
      d[i + 1] = d[i + 1] + C(2) * beta * e[i] + beta * beta * d[i];
      e[i] = alpha * (e[i] + beta * d[i]);
      if (i >= 1) bulge = beta * e[i - 1];
    }
    if (i >= 1) e[i - 1] = alpha * e[i - 1];
    d[i] = alpha * alpha * d[i];
    for (int p = i - 1; p >= 0 && bulge != C(0); --p) {
      // bulge sits at (p+2, p); rotate in plane (p, p+1).
      C c, s, r;
      if (!rotation(e[p + 1], bulge, c, s, r))
        throw NumericalBreakdown("Crawford reduction: isotropic rotation (x² + b² = 0)");
      e[p + 1] = r;
      const C a = d[p], bb = e[p], dd = d[p + 1];
      d[p] = c * c * a + C(2) * c * s * bb + s * s * dd;
      d[p + 1] = s * s * a - C(2) * c * s * bb + c * c * dd;
      e[p] = -c * s * a + (c * c - s * s) * bb + c * s * dd;
      if (p >= 1) {
        bulge = -s * e[p - 1];
        e[p - 1] = c * e[p - 1];
      } else {
        bulge = 0;
      }
    }
  }
  return Tridiagonal<C>(std::move(d), std::move(e));
}

template <class C> std::vector<C> tridiagonal_eigenvalues(Tridiagonal<C> T) {
  const int n = static_cast<int>(T.size());
  std::vector<C> d = std::move(T.diag);
  if constexpr (!is_complex_v<C>) {
    std::vector<double> e(T.off);
    e.resize(std::max(n, 1));
    const int info = LAPACKE_dsterf(n, d.data(), e.data());
    if (info != 0) throw NumericalBreakdown("dsterf failed to converge (info " + std::to_string(info) + ")");
    return d;
  } else {
    // Implicit QL with Wilkinson shift and complex orthogonal rotations.
    std::vector<C> e(T.off);
    e.resize(n, C(0));
    const double eps = std::numeric_limits<double>::epsilon();
    for (int l = 0; l < n; ++l) {
      int iter = 0;
      for (;;) {
        int mm = l;
        for (; mm < n - 1; ++mm) {
          const double dd = std::abs(d[mm]) + std::abs(d[mm + 1]);
          if (std::abs(e[mm]) <= eps * dd) break;
        }
        if (mm == l) break;
        if (++iter > 90) throw NumericalBreakdown("complex symmetric QL did not converge");
        C g = (d[l + 1] - d[l]) / (C(2) * e[l]);
        C r = std::sqrt(g * g + C(1));
        const C den = std::abs(g + r) >= std::abs(g - r) ? g + r : g - r;
        g = d[mm] - d[l] + e[l] / den;
        if (iter % 30 == 0) g *= C(1.0 + 1e-3 * iter);  // exceptional shift
        C s = 1, c = 1, p = 0;
        bool deflated = false;
        for (int i = mm - 1; i >= l; --i) {
          const C f = s * e[i], b = c * e[i];
          r = std::sqrt(f * f + g * g);
          e[i + 1] = r;
          if (std::abs(r) <= eps * (std::abs(f) + std::abs(g))) {
            if (std::abs(f) + std::abs(g) == 0) {  // true underflow: deflate here
              d[i + 1] -= p;
              e[mm] = 0;
              deflated = true;
              break;
            }
            throw NumericalBreakdown("complex symmetric QL: isotropic rotation");
          }
          s = f / r;
          c = g / r;
          g = d[i + 1] - p;
          r = (d[i] - g) * s + C(2) * c * b;
          p = s * r;
          d[i + 1] = g + p;
          g = c * r - b;
        }
        if (deflated) continue;
        d[l] -= p;
        e[l] = g;
        e[mm] = 0;
      }
    }
    for (auto& v : d)
      if (!is_finite(v)) throw NumericalBreakdown("complex symmetric QL produced a non-finite eigenvalue");
    return d;
  }
}

template Tridiagonal<double> crawford_reduce(const Tridiagonal<double>&, const Tridiagonal<double>&);
template Tridiagonal<std::complex<double>> crawford_reduce(const Tridiagonal<std::complex<double>>&,
                                                           const Tridiagonal<std::complex<double>>&);
template std::vector<double> tridiagonal_eigenvalues(Tridiagonal<double>);
template std::vector<std::complex<double>> tridiagonal_eigenvalues(Tridiagonal<std::complex<double>>);

}  // namespace pscr::planner
