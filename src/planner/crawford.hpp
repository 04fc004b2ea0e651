// Crawford-style reduction of a tridiagonal pencil (A, M) to a standard
// tridiagonal T = Xᵀ A X with Xᵀ M X = I, X never formed (internal).
#pragma once
#include "pscr/tridiagonal.hpp"

namespace pscr::planner {

// Throws SingularPencil if M has no LLᵀ factorization (or, for real pencils,
// is not positive definite); NumericalBreakdown on an isotropic rotation.
template <class C> Tridiagonal<C> crawford_reduce(const Tridiagonal<C>& A, const Tridiagonal<C>& M);

// Eigenvalues of a symmetric (complex symmetric) tridiagonal matrix by implicit
// QL with Wilkinson shifts; LAPACK dsterf for real matrices.
template <class C> std::vector<C> tridiagonal_eigenvalues(Tridiagonal<C> T);

}  // namespace pscr::planner
