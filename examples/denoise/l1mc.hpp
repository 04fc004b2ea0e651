// L1-mean-curvature image denoising (docs/denoise.md): the augmented
// Lagrangian method of Myllykoski, Glowinski, Kärkkäinen and Rossi (the
// dissertation's articles [PIV], [PV]) on a uniform triangulation of the
// pixel grid, its scalar linear subproblem solved by libpscr.
//
//   min_u  ε ∫ |∇·(∇u / √(1 + |∇u|²))| + ½ ∫ |f − u|²
//
// Unknowns: u on the vertices (one per pixel, piecewise linear); p1, p2, p3
// and the multipliers λ1, λ2 constant on the triangles (two per grid cell);
// ψ and λ3 on the vertices. One iteration (ALG-2) solves four subproblems:
//   1. (p1, p2), p2 = p1/√(1+|p1|²): a non-convex minimisation in R² per
//      triangle, reduced exactly to one dimension along its stationarity
//      direction and minimised globally;
//   2. p3: (r2 I + r3 div_hᵀ div_h) p3 = …, by the Woodbury formula one
//      separable solve (libpscr) where the articles use conjugate gradients;
//   3. ψ: shrinkage, point by point;
//   4. u: (r1 K + M) u = M f + Gᵀ M_Q (r1 p1 − λ1), K and M separable:
//      one libpscr solve;
// then updates the multipliers.
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "pscr/pscr.hpp"

namespace pscr::denoise {

// The articles' coupling: ε = r0 h, r1 = 10 r0 h, r2 = 5 r0, r3 = 5 r0 h²,
// h = 0.005 (image values in [0, 1]). ε, r1, r2, r3 of exactly 0 (the
// default) take their coupled value; any other value replaces it and must be
// finite and > 0.
struct Parameters {
  double r0 = 0.005;
  double h = 0.005;
  double epsilon = 0, r1 = 0, r2 = 0, r3 = 0;  // 0: coupled to r0 and h
  int max_iterations = 1000;
  double tol = 1e-4;            // stop when |L_n − L_{n+1}| / |L_n| < tol (the articles' criterion)
  // Fills the coupled values. InvalidArgument naming the value for anything
  // else ≤ 0 or non-finite (−1 and NaN are errors, not "default"), for a
  // coupled value that underflows to 0, for max_iterations < 1, and for the
  // solves' shifts h²/r1 and r2 h²/r3 out of range. L1mc and DeviceL1mc call it.
  void resolve();
};

// Seconds per iteration, as the articles' tables: the four subproblems and
// the rest (multipliers, objective and Lagrangian).
struct StageTimes {
  std::array<double, 4> sub{};
  double misc = 0;
  // The device solves subproblems 2 and 4 as one shifted pair: sub[1] holds
  // both (their right-hand sides, the solve, p3's update is in sub[2]) and
  // sub[3] is zero.
  bool joint_solves = false;
  double whole() const { return sub[0] + sub[1] + sub[2] + sub[3] + misc; }
};

struct Result {
  int iterations = 0;
  bool converged = false;
  std::vector<double> objective;   // J(u_n) per iteration
  std::vector<double> lagrangian;  // L_h per iteration (the stopping criterion's)
  StageTimes mean;                 // per iteration, averaged
  double enqueue = 0;              // device runs: host seconds per iteration spent enqueuing its work
};

// Books one iteration's augmented Lagrangian and objective in r and applies
// the articles' stopping criterion |L_prev − L| < tol |L_prev| (L_prev: the
// previous iteration's, or `start` before the first); true when it holds.
// NumericalBreakdown for a non-finite L.
bool record_iteration(Result& r, double lagrangian, double objective, double start, double tol);

// The state of the method on one image: ψ, u and λ3 per vertex, the others
// per triangle (2 components each, triangle t at [2t], [2t + 1]).
struct State {
  std::vector<double> u, psi, lambda3;
  std::vector<double> p1, p2, p3, lambda1, lambda2;
};

// The discrete operators of the triangulation: width × height vertices at
// spacing h, each cell split along its rising diagonal into a lower
// triangle (x, y), (x+1, y), (x+1, y+1) and an upper one (x, y), (x, y+1),
// (x+1, y+1); vertex (x, y) at y·width + x, cell (x, y)'s triangles at
// 2 (y (width − 1) + x) + {0, 1}.
struct Grid {
  int width = 0, height = 0;
  double h = 1;
  Grid(int w, int hgt, double step);
  std::size_t vertices() const { return std::size_t(width) * height; }
  std::size_t triangles() const { return 2 * std::size_t(width - 1) * (height - 1); }
  double mass(int x, int y) const;            // M: lumped, separable (trapezoidal rule per cell)
  double triangle_area() const { return h * h / 2; }
  void gradient(const double* u, double* q) const;       // G: vertices → triangles
  void gradient_adjoint(const double* q, double* v) const;  // Gᵀ (plain transpose)
  void divergence(const double* q, double* v) const;     // div_h = −M⁻¹ Gᵀ M_Q (discrete Green's formula)
};

class L1mc {
 public:
  // Plans the subproblem-4 solve for this image size (reference backend
  // unless `options` says otherwise).
  L1mc(int width, int height, Parameters parameters, const Options& options = {});
  const Parameters& parameters() const { return par_; }
  const Grid& grid() const { return grid_; }

  // Denoises f (width × height values, row-major) into u.
  Result denoise(const std::vector<double>& f, std::vector<double>& u);

  // SizeMismatch for an image of another size, NonFiniteInput for NaN or ±inf.
  void check_image(const std::vector<double>& f) const;

  // The pieces of one iteration, for tests and the benchmark.
  State start(const std::vector<double>& f) const;  // the articles' initialisation: everything 0
  void subproblem1(State& s) const;
  void subproblem2(State& s);
  void subproblem2_rhs(const State& s, std::vector<double>& b) const;  // r2 p2 + λ2 − G (r3 ψ − λ3)
  void subproblem3(State& s) const;
  void subproblem4(State& s, const std::vector<double>& f);
  void update_multipliers(State& s) const;
  double objective(const std::vector<double>& u, const std::vector<double>& f) const;
  double lagrangian(const State& s, const std::vector<double>& f) const;
  // L of the initial state (everything 0): ½ Σ M f², without building the state.
  double start_lagrangian(const std::vector<double>& f) const;

  // Subproblem 1 at one triangle: the global minimiser y of
  //   |y|²/2 (r1 + r2/(1 + |y|²)) − (b1 + b2/√(1 + |y|²))·y.
  std::array<double, 2> minimise_pointwise(const std::array<double, 2>& b1, const std::array<double, 2>& b2) const;
  // The operator of subproblem 2, (r2 I + r3 (h²/2) G M⁻¹ Gᵀ) q.
  void apply_subproblem2(const double* q, double* out) const;
  const Problem<double>& subproblem4_problem() const { return problem_; }
  const Problem<double>& subproblem2_problem() const { return problem2_; }

 private:
  Parameters par_;
  Grid grid_;
  Problem<double> problem_;   // subproblem 4: K + (h²/r1) L⊗L (times r1: r1 K + M)
  Problem<double> problem2_;  // subproblem 2: S = K + (r2 h²/r3) L⊗L
  std::unique_ptr<Plan<double>> plan_, plan2_;
};

}  // namespace pscr::denoise
