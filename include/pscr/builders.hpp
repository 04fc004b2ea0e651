/// @file
/// Ready-made factor pencils from mesh coordinates (the test problems of the PSCR article).
#pragma once
#include "pscr/export.hpp"
#include <complex>
#include <vector>

#include "pscr/problem.hpp"

namespace pscr {

/// Poisson, Dirichlet, mass-lumped linear elements. `x` holds the mesh points
/// including both boundary points: x[0] < x[1] < ... < x[n+1] gives n unknowns.
/// A = tridiag{-1/h_l, 1/h_l + 1/h_{l+1}, -1/h_{l+1}}, M = diag{(h_l + h_{l+1})/2}.
PSCR_API Factor<double> poisson_factor(const std::vector<double>& x);

/// Poisson with Neumann boundaries, mass-lumped linear elements on all n mesh
/// points of `x` (boundary points are unknowns): A 1 = 0, M diagonal.
PSCR_API Factor<double> poisson_neumann_factor(const std::vector<double>& x);

/// Helmholtz with the second-order absorbing boundary condition, bilinear
/// (trilinear) elements, article (3.16)-(3.18). `x` holds all n mesh points,
/// boundary points included (they are unknowns). Use c = -omega^2.
PSCR_API Factor<std::complex<double>> helmholtz_factor(const std::vector<double>& x, double omega);

/// Poisson on a periodic mesh, mass-lumped linear elements: `x` holds the
/// n + 1 points x[0] < ... < x[n] of one period, x[n] the image of x[0]
/// (n >= 3 unknowns, at x[0] ... x[n-1]); any spacing, uniform or graded.
/// A cyclic: A_ii = 1/h_{i-1} + 1/h_i, A_{i,i+1} = -1/h_i with h_i = x[i+1] − x[i]
/// and the corner A_{n-1,0} = -1/h_{n-1}; M = diag{(h_{i-1} + h_i)/2}. A 1 = 0.
PSCR_API Factor<double> poisson_periodic_factor(const std::vector<double>& x);

/// Finite-difference Laplacian -d²/dx² on n uniform pixels of width h (what
/// image clients use): A = tridiag{-1, 2, -1}/h², with the end diagonal entry 1/h²
/// on a Neumann side (zero-flux ghost) and 2/h² on a Dirichlet side; M = I.
/// Periodic (both sides, n >= 3): A cyclic, its corner entries -1/h².
enum class Boundary { Dirichlet, Neumann, Periodic };
/// The pixel-grid Laplacian factor described above, n pixels of width h, the given end conditions.
PSCR_API Factor<double> laplacian_factor(int n, double h, Boundary left, Boundary right);

/// Uniform and graded meshes for tests and drivers: n+2 points on [0, L] whose
/// steps grow geometrically by `ratio` (ratio = 1 gives a uniform mesh).
PSCR_API std::vector<double> graded_mesh(int points, double length, double ratio);

/// Whole problems.
PSCR_API Problem<double> poisson2d(const std::vector<double>& x1, const std::vector<double>& x2);
/// -Δu = f on the tensor mesh x1 × x2 × x3, Dirichlet (poisson_factor in each dimension, c = 0).
PSCR_API Problem<double> poisson3d(const std::vector<double>& x1, const std::vector<double>& x2,
                          const std::vector<double>& x3);
/// -Δu - ω²u = f on x1 × x2 with absorbing boundaries (helmholtz_factor, c = -ω²).
PSCR_API Problem<std::complex<double>> helmholtz2d(const std::vector<double>& x1, const std::vector<double>& x2,
                                          double omega);
/// -Δu - ω²u = f on x1 × x2 × x3 with absorbing boundaries (c = -ω²).
PSCR_API Problem<std::complex<double>> helmholtz3d(const std::vector<double>& x1, const std::vector<double>& x2,
                                          const std::vector<double>& x3, double omega);

}  // namespace pscr
