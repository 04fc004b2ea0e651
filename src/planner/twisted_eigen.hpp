// Eigenpairs of a real symmetric tridiagonal pencil (A, M) with M diagonal
// positive, in O(m) memory and O(m²) work spread over the host threads
// (internal; docs/eigen.md explains the method and docs/accuracy.md why the
// small eigenvalues must be accurate relative to their size).
//
// With T = M^-1/2 A M^-1/2, two definite representations L D Lᵀ are formed
// by additions of non-negative numbers only:
//   bottom: T − σ_lo I. Where A is diagonally dominant, σ_lo = 0 and the
//           factorisation comes from A's row excess e_i = A_ii − |A_i,i−1| −
//           |A_i,i+1| (computed in long double), so that the small eigenvalues
//           are determined to high relative accuracy; otherwise σ_lo is just
//           below the lowest Gershgorin bound of T;
//   top:    σ_hi I − T, σ_hi just above the highest Gershgorin bound.
// Every eigenvalue is isolated by Sturm counts on the bottom representation
// (bisection, several shifts per vectorised sweep, the intervals of a round
// spread over the threads), then refined by Rayleigh quotient iteration on
// the twisted factorisations of the representation where it is small
// relative to its gap (Dhillon and Parlett's twisted factorisations, as in
// MRRR), whose last vector is the eigenvector: only the kept rows and the norm
// are stored. An eigenvalue whose relative gap is small in both
// representations (a cluster) gets its vector from LAPACK dstemr over that
// index range.
#pragma once
#include <optional>
#include <vector>

#include "pencil_eigen.hpp"

namespace pscr::planner {

// Empty when M is not diagonal positive or a representation cannot be formed
// (a split pencil with a singular block); the caller falls back to dstemr.
std::optional<PencilEigen<double>> eigen_twisted(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                                 const std::vector<int>& keep);

// dstemr on M^-1/2 A M^-1/2 for eigenpairs il..iu (0-based, inclusive), kept
// rows only, in blocks of at most 2^26 vector entries.
void eigen_mrrr_range(const Tridiagonal<double>& A, const Tridiagonal<double>& M, const std::vector<int>& keep,
                      int il, int iu, PencilEigen<double>& out);

}  // namespace pscr::planner
