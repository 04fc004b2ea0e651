// Eigenpairs of a symmetric tridiagonal pencil (A, M) with M tridiagonal, as
// the roots of p(λ) = det(A − λ M), in O(m) memory and O(m²) work spread
// over the host threads (internal; docs/eigen.md).
//
// One pass of the factorisation T = A − s M = L D Lᵀ gives, in O(m) with one
// division per row, the Sturm count of s (negative pivots: the number of
// eigenvalues below s when the pencil is real and M positive definite) and
// p'/p (s) = Σ_i D'_i / D_i, the derivative of log det T through the pivots.
//   real pencils, M positive definite ("newton"): every eigenvalue is
//     isolated by Sturm counts (bisection, the intervals of a round spread
//     over the threads) and refined by Newton steps s − p/p', safeguarded by
//     its interval;
//   complex symmetric pencils ("aberth"): all eigenvalues at once by the
//     Aberth–Ehrlich iteration, started from the eigenvalues of the real part;
//     the repulsion term keeps the approximations apart, and the result is
//     accepted only when all m have converged to distinct values.
// The vector of each eigenvalue is the solution of one twisted factorisation
// (T z = γ_r e_r at the row r of smallest |γ_r|), M-orthogonalised against its
// neighbours in the spectrum as on the Crawford path; only the kept rows are
// stored.
#pragma once
#include <complex>
#include <optional>
#include <vector>

#include "pencil_eigen.hpp"

namespace pscr::planner {

// Both are empty when the method does not apply (M not positive definite for
// a real pencil, a cluster of equal eigenvalues) or the iteration does not
// converge to m distinct eigenvalues; the caller then takes the Crawford
// path. With `vectors` false, only `lambda` is filled.
std::optional<PencilEigen<double>> eigen_newton(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                                const std::vector<int>& keep, bool vectors = true);

// `seeds`: the m eigenvalues of the real part (Re A, Re M), the starting values.
std::optional<PencilEigen<std::complex<double>>> eigen_aberth(const Tridiagonal<std::complex<double>>& A,
                                                              const Tridiagonal<std::complex<double>>& M,
                                                              const std::vector<int>& keep,
                                                              const std::vector<double>& seeds, bool vectors = true);

// tr(M⁻¹A), the sum of the pencil's eigenvalues, in O(m) (M tridiagonal and
// nonsingular).
std::complex<double> trace_minv_a(const Tridiagonal<std::complex<double>>& A,
                                  const Tridiagonal<std::complex<double>>& M);

// Whether the m values sum to tr(M⁻¹A) within the rounding of both sums
// (4 m ε Σ|λ|): a root found twice in place of a missed one changes the sum
// by their difference.
bool sum_matches_trace(const std::vector<std::complex<double>>& lambda, const Tridiagonal<std::complex<double>>& A,
                       const Tridiagonal<std::complex<double>>& M);

}  // namespace pscr::planner
