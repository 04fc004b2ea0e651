// Eigenpairs to high relative accuracy for diagonally dominant pencils
// (internal; see docs/accuracy.md). For A with non-negative row excess and M
// diagonal positive, the small eigenvalues of (A, M) are determined to high
// relative accuracy by the off-diagonals and the excess of A, but a standard
// symmetric eigensolver (dstemr on D^-1/2 A D^-1/2) gets them only to
// ε‖A‖ absolutely: λ_min of a Laplacian of size n to about n²ε relatively,
// and the PSCR solution inherits that loss. Here:
//   1. the excess e_i = A_ii − |A_i,i−1| − |A_i,i+1| in long double (a
//      negative one within the rounding of the data is kept as it is);
//   2. A = L D Lᵀ with positive additions only (pivot p_i = ê_i + |o_i|,
//      pivot excess ê_i = e_i + |o_{i−1}| ê_{i−1}/p_{i−1});
//   3. B = M^-1/2 A M^-1/2 = L̃ D̃ L̃ᵀ = G Gᵀ with G bidiagonal, whose
//      singular values dqds (LAPACK dbdsqr without vectors) computes to high
//      relative accuracy: λ = σ²;
//   4. eigenvectors from twisted factorisations of L̃ D̃ L̃ᵀ − λ I (O(m)
//      each, only the kept rows stored) where the relative gap of λ is
//      large; where it is small (the top of a Laplacian's spectrum) from
//      dstemr, whose absolute accuracy suffices there.
#pragma once
#include <optional>
#include <vector>

#include "pencil_eigen.hpp"

namespace pscr::planner {

// Empty when the pencil is not of this kind (M not diagonal positive, A not
// diagonally dominant beyond rounding of its data).
std::optional<PencilEigen<double>> eigen_relative(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                                  const std::vector<int>& keep);

// dstemr on D^-1/2 A D^-1/2 for eigenpairs il..iu (0-based, inclusive), kept rows only.
void eigen_mrrr_range(const Tridiagonal<double>& A, const Tridiagonal<double>& M, const std::vector<int>& keep,
                      int il, int iu, PencilEigen<double>& out);

}  // namespace pscr::planner
