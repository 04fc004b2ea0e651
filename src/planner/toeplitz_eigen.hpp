// Closed-form eigenpairs of tridiagonal Toeplitz pencils (internal).
//
// A = αI + βL and M = γI + δL with L = tridiag(−1, 2, −1) whose end rows are
// Dirichlet (diagonal 2) or Neumann (diagonal 1) share the eigenvectors of L:
// sines or cosines of multiples of π/(m+1), π/m or π/(2m+1). This is the
// pencil of every group of a uniform mesh (finite differences, or mass-lumped
// / consistent linear elements), Dirichlet groups inside, Neumann where a
// group ends at a Neumann boundary. The pencil must be exactly of this form
// (entries equal to the last bit): then each eigenvalue
//   λ_k = (α + β μ_k) / (γ + δ μ_k),  μ_k = 4 sin²(θ_k / 2),
// and each kept eigenvector entry costs one sine of an argument reduced to
// [0, π/2] in integers, so both have high relative accuracy, and the plan
// costs O(m · rows kept) instead of O(m²).
#pragma once
#include <complex>
#include <optional>
#include <vector>

#include "pencil_eigen.hpp"

namespace pscr::planner {

// Empty when (A, M) is not such a pencil, m < 3, or M is not positive definite.
// Eigenvalues ascending; rows as in PencilEigen; method "toeplitz".
std::optional<PencilEigen<double>> eigen_toeplitz(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                                  const std::vector<int>& keep, bool vectors = true);

// Circulant pencils (a periodic dimension of a uniform mesh): A = αI + βL and
// M = γI + δL with L the cyclic tridiag(−1, 2, −1), every diagonal and
// off-diagonal entry (the corner included) equal. Eigenvalues
// (α + β μ_k) / (γ + δ μ_k) with μ_k = 4 sin²(π k / m), each but k = 0 and
// k = m/2 twice; the real eigenvectors cos(2π j k / m) and sin(2π j k / m),
// M-normalised, all in closed form. Ascending; method "toeplitz". Empty when
// the pencil is not of this form, m < 3 or M is not positive definite.
std::optional<PencilEigen<double>> eigen_circulant(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                                   const std::vector<int>& keep, bool vectors = true);

// The same pencil with Dirichlet ends, in the order of its sines: W[j, k] =
// scale[k−1] · sin(π j k / (m + 1)) (j, k = 1..m) with Wᵀ M W = I and
// eigenvalue lambda[k−1], both in closed form (a dimension taken by fast sine
// transforms). Empty unless (A, M) is such a pencil with m >= 3.
// fourier: a circulant pencil's real Fourier basis in its natural order
// (fourier_basis), else the sines.
struct SineBasis {
  std::vector<double> lambda, scale;
  bool fourier = false;
};
std::optional<SineBasis> sine_basis(const Tridiagonal<double>& A, const Tridiagonal<double>& M);

// A circulant pencil (eigen_circulant) of even size m >= 4 in the order of
// the real Fourier basis: column 0 the constant, 2k − 1 and 2k the cosine
// and the sine of frequency k (1 <= k < m/2), m − 1 the alternating vector;
// W[j, l] = scale[l] · that vector's entry j, Wᵀ M W = I, eigenvalue
// lambda[l] (a dimension taken by fast Fourier transforms). Empty unless
// (A, M) is such a pencil.
std::optional<SineBasis> fourier_basis(const Tridiagonal<double>& A, const Tridiagonal<double>& M);

// Complex symmetric Toeplitz pencils whose two end diagonal entries may
// differ from the interior (absorbing boundary terms: helmholtz_factor on a
// uniform mesh, and its groups), in O(m · rows kept): eigenvalues as the roots
// of the closed-form characteristic function, vectors and their M-norms in
// closed form. Empty when the pencil is not of this form or the roots do not
// pass the checks (m distinct, sum tr(M⁻¹A)).
std::optional<PencilEigen<std::complex<double>>> eigen_toeplitz_ends(
    const Tridiagonal<std::complex<double>>& A, const Tridiagonal<std::complex<double>>& M,
    const std::vector<int>& keep, bool vectors = true);

}  // namespace pscr::planner
