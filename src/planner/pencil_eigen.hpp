// Generalized eigenpairs of one symmetric tridiagonal pencil (A, M):
// A w = λ M w with Wᵀ M W = I (plain transpose, also for complex symmetric
// pencils). Computed in double precision; C is double or std::complex<double>.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "pscr/scalar.hpp"
#include "pscr/tridiagonal.hpp"

namespace pscr::planner {

enum class EigenMethod {
  automatic,  // toeplitz where it applies, twisted (real, diagonal M), newton (real), aberth (complex);
              // Crawford where they fail
  toeplitz,   // real Toeplitz pencils of a uniform mesh (Dirichlet/Neumann ends): closed form, O(m · rows)
  twisted,    // real, diagonal positive M: bisection and RQI on twisted factorisations, O(m) memory
  newton,     // real, M positive definite: Sturm bisection and Newton on det(A − λM), O(m) memory
  aberth,     // complex symmetric: Aberth iteration on det(A − λM) from the real part's eigenvalues
  mrrr,       // real, diagonal positive M: LAPACK dstemr on M^-1/2 A M^-1/2, O(m²) memory
  crawford,   // any: Crawford reduction, implicit QL, inverse iteration on the pencil (O(m²))
  dense,      // any: LAPACK dsygv / zggev (O(m³), small pencils and fallback)
};

template <class C> struct PencilEigen {
  std::vector<C> lambda;  // m eigenvalues
  std::vector<C> rows;    // keep.size() × m, rows[t*m + l] = W[keep[t], l]
  const char* method = "";  // "toeplitz", "relative", "twisted", "mrrr", "newton", "aberth", "crawford" or "dense"
  // max over the eigenvectors w of |w^H M w| / |wᵀ M w|: 1 for real pencils;
  // for a complex symmetric one the condition number of its eigenvalues, and
  // at most the condition of its eigenbasis in the M-norm (far from normal,
  // as graded meshes with a complex diagonal make it, it grows past 1e10)
  double condition = 1;
};

// Eigenpairs keeping only the eigenvector rows listed in `keep` (0-based).
// Throws SingularPencil if M cannot be factored or the pencil is defective.
template <class C>
PencilEigen<C> pencil_eigen(const Tridiagonal<C>& A, const Tridiagonal<C>& M, const std::vector<int>& keep,
                            EigenMethod method = EigenMethod::automatic);

// max_i Σ_j |t_ij| (the ∞-norm, = the 1-norm of a symmetric matrix)
template <class C> double norm1(const Tridiagonal<C>& t) {
  double best = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    double s = std::abs(t.diag[i]);
    if (i > 0) s += std::abs(t.off[i - 1]);
    if (i + 1 < t.size()) s += std::abs(t.off[i]);
    if (t.periodic() && (i == 0 || i + 1 == t.size())) s += std::abs(t.off.back());
    best = std::max(best, s);
  }
  return best;
}

// xᵀy without conjugation (the bilinear form of complex symmetric pencils)
template <class C> C bilinear(const C* x, const C* y, int m) {
  C s = 0;
  for (int i = 0; i < m; ++i) s += x[i] * y[i];
  return s;
}

// |x^H y| / |xᵀ y| (1 for real x, y): an eigenvector's condition, y = M x.
template <class C> double eigenvector_condition(const C* x, const C* y, int m) {
  if constexpr (!is_complex_v<C>) {
    return 1;
  } else {
    C h = 0;
    for (int i = 0; i < m; ++i) h += std::conj(x[i]) * y[i];
    return std::abs(h) / std::abs(bilinear(x, y, m));
  }
}

// Eigenvalues only (O(m²)), used to check that the operator is regular.
// `method` (optional): set to the PencilEigen::method that computed them.
template <class C>
std::vector<C> pencil_eigenvalues(const Tridiagonal<C>& A, const Tridiagonal<C>& M, const char** method = nullptr);

// Whether a PencilEigen::method gives eigenvalues to high relative accuracy
// (closed forms; the twisted method from a diagonally dominant A); the
// others are accurate to about ε_double of the spectrum's largest.
inline bool relative_eigenvalues(const char* method) {
  return std::string(method) == "toeplitz" || std::string(method) == "relative";
}

}  // namespace pscr::planner
