// What the planner produces and every backend executes: the group layout and
// the shared eigenpairs of each PSCR dimension (no OpenCL here).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "excess.hpp"
#include "layout.hpp"
#include "pscr/problem.hpp"

namespace pscr::planner {

// Eigenpairs of one distinct group sub-pencil, shared by identical groups.
template <class T> struct GroupEigen {
  int m = 0;
  std::vector<T> lambda;  // m eigenvalues
  std::vector<int> rows;  // kept rows (relative to the group start), sorted
  std::vector<T> coeff;   // rows.size() × m: coeff[t*m + l] = W[rows[t], l]
};

// A group of the layout with the positions of its rows within the kept rows.
struct GroupRef {
  int eigen = -1;               // index into DimensionPlan::eigen
  std::vector<int> source_pos;  // kept-row position of each source row
  int start_pos = 0;            // kept-row position of s
  int end_pos = 0;              // kept-row position of e
};

// How a leading dimension is taken (PlanInfo::dimension_methods): PSCR
// levels of the radix, one level whose whole basis is applied by dense
// products (PlanData::dense_top), or one level whose basis is a scaled sine
// transform (PlanData::transformed).
enum class DimensionMethod { reduction, dense, sine_transform, fourier_transform };
inline const char* method_name(DimensionMethod m) {
  switch (m) {
    case DimensionMethod::dense: return "dense products";
    case DimensionMethod::sine_transform: return "sine transform";
    case DimensionMethod::fourier_transform: return "Fourier transform";
    default: return "reduction";
  }
}

template <class T> struct DimensionPlan {
  DimensionMethod method = DimensionMethod::reduction;
  // sine_transform: W[j, k] = transform_scale[k−1] · sin(π j k / (n + 1)),
  // eigen[0].lambda in the order k = 1..n and no kept rows (the backend
  // applies W by a fast transform, O(n log n) per line instead of n²);
  // fourier_transform (a periodic uniform dimension): the real Fourier basis
  // of planner::fourier_basis, W[j, l] = transform_scale[l] · its entry j
  std::vector<double> transform_scale;
  Layout layout;
  std::vector<std::vector<GroupRef>> groups;  // groups[i-1][g] parallel to layout.levels[i-1].groups[g]
  std::vector<GroupEigen<T>> eigen;
  int zero_mode = -1;  // pure Neumann: the top-level mode whose eigenvalue is exactly 0
  std::string eigen_method;  // that of the largest group sub-pencil
  double eigen_condition = 1;  // the largest PencilEigen::condition of its pencils
};

template <class T> struct PlanData {
  explicit PlanData(const Problem<T>& p) : problem(p) {}
  Problem<T> problem;
  // One per PSCR dimension d = 0..D-2; the last dimension is the tridiagonal solve.
  std::vector<DimensionPlan<T>> dims;
  bool pure_neumann = false;
  // A periodic last dimension, or lines that are not diagonally dominant
  // below dense dimensions only (make_plan_data): the last pencil's whole
  // eigenbasis (every row kept), in which the lines are solved, y = W (Λ +
  // σ)⁻¹ Wᵀ g, no pivots; the pure-Neumann null mode is the one whose
  // eigenvalue is exactly 0. Empty (m = 0) otherwise: the lines are
  // tridiagonal eliminations.
  GroupEigen<T> line_eigen;
  int line_zero_mode = -1;
  bool periodic_lines() const { return line_eigen.m > 0; }
  // The radix of the dimensions taken in levels (the last such), or
  // `fallback` where every leading dimension is dense or transformed.
  int reduction_radix(int fallback) const {
    for (auto it = dims.rbegin(); it != dims.rend(); ++it)
      if (it->method == DimensionMethod::reduction) return it->layout.radix;
    return fallback;
  }
  // The leading dimensions taken by dense products.
  int dense_count() const {
    int k = 0;
    for (auto& d : dims) k += d.method == DimensionMethod::dense ? 1 : 0;
    return k;
  }
  // every leading dimension is a sine transform (make_plan_data's
  // sine_limit): the transforms and one tridiagonal system per line of the
  // last dimension, no reduction (Fourier analysis with the lines solved)
  bool transformed = false;
  std::size_t eigen_problems = 0;
  // The largest eigenvalue condition of any pencil the plan diagonalises
  // (PencilEigen::condition: 1 unless a complex pencil is far from normal).
  double eigen_condition = 1;
  // Some pencil's eigenvalues (a leading dimension's whole pencil, the last
  // one's, a periodic one's eigenbasis) come from a method that gets them to
  // about ε_double of its spectrum's largest only (relative_eigenvalues):
  // the operator's smallest eigenvalues then lose up to ε_double times its
  // condition, which predict_error adds.
  bool absolute_eigenvalues = false;
  // The tridiagonal systems of the last dimension: eliminated in the excess
  // representation (excess_form: every shift keeps them diagonally dominant)
  // or by the ordinary formulas (indefinite or complex systems).
  bool excess_form = false;
  // Every shift keeps them diagonally dominant (the excess form applies,
  // whether or not it is taken): unpivoted elimination is stable.
  bool dominant = false;
  // The operator's eigenvalues σ + ν are all of one sign (ShiftReport::
  // definite): a solve in the eigenbasis forms none by cancellation, whose
  // rounding in the working precision the division would amplify.
  bool definite = true;
  ExcessRows<T> excess;
  // How much nearer to singular the shifted systems of the partial solutions
  // come than the operator (PlanInfo::shift_amplification): 1 for definite problems.
  double shift_amplification = 1;
  // The operator's eigenvalue ratio (ShiftReport::condition).
  double condition = 1;
  // The largest growth of the backend's unpivoted line eliminations over the
  // plan's shifts (elimination_growth.hpp; PlanInfo::elimination_growth):
  // 1 until the backend's is measured (set_elimination_growth).
  double elimination_growth = 1;
  // Estimated relative forward error (PlanInfo::predicted_error) and, when
  // it leaves fewer than half the digits of T, the warning that says so.
  double predicted_error = 0;
  std::string warning;
  std::size_t bytes() const;
};

// Builds the layout and eigenpairs. Throws SingularPencil for a singular
// operator other than the pure-Neumann case, InvalidArgument for a bad radix,
// NumericalBreakdown when the shifted systems of the partial solutions come
// 1/sqrt(eps) times nearer to singular than the operator (or are singular).
// allow_excess = false: the ordinary eliminations even where the excess form
// applies. radix_free (the automatic radix): when the shifted systems of
// `radix` come more than eps^(-1/4) times nearer, the plan of the candidate
// radix (kRadixCandidates) whose systems stay farthest, if that at least
// halves it (docs/accuracy.md). dense_top = k: the first k leading
// dimensions take one level each, a group of all their rows whose whole
// eigenvector basis the backend applies by dense products
// (KernelParameters::dense_top); the radix lays out the others. Periodic dimensions, and every leading
// dimension before one, take one level as well (dense_dimensions). sine_limit >= 4: when every leading dimension's
// pencil is Toeplitz with Dirichlet ends (sine_basis, length n + 1) or
// circulant (fourier_basis, periodic, length n / 2: a real FFT of n points
// packed in n / 2 complex ones) and that length is a power of
// two no larger than sine_limit (sine_reach(sine_limit) for sines), they are
// all taken by sine transforms
// (PlanData::transformed; the radix and dense_top then lay out nothing).
template <class T>
PlanData<T> make_plan_data(const Problem<T>& problem, int radix, bool allow_excess = true, bool radix_free = false,
                           int dense_top = 0, int sine_limit = 0);

// The longest sine transform (n + 1) a backend whose work-group holds
// `sine_limit` complex entries takes: four times that, by steps of
// decimation in frequency, each into the even modes' transform of half the
// length and the odd modes' cosine transform by an FFT of a quarter
// (ocl::SineTransform), as long as that quarter fits a work-group.
// Fourier transforms reach sine_limit.
constexpr int sine_reach(int sine_limit) { return sine_limit > 0 ? 4 * sine_limit : 0; }

// make_plan_data's transformed plan alone: every leading dimension taken by
// sine or Fourier transforms of length at most sine_limit, the last a
// non-periodic tridiagonal one; empty where that plan does not apply (no
// eigenpairs computed then). A transformed split over ranks plans the
// problem with dimension 1 moved last (distributed/transform_split.hpp).
template <class T>
std::optional<PlanData<T>> make_transformed_plan_data(const Problem<T>& problem, int radix, bool allow_excess,
                                                      int sine_limit);

inline constexpr int kRadixCandidates[] = {2, 3, 4, 5, 6, 7, 8, 16};

// The longest last dimension whose lines below dense dimensions may be
// solved in its eigenbasis (PlanData::line_eigen) when they are not
// diagonally dominant: n² scalars of basis, 2n² flops per line.
inline constexpr std::size_t kEigenbasisLines = 1024;

// Plans of at least this many unknowns whose shifted systems are diagonally
// dominant take the smallest radix with as many levels as the given one
// (fewest_sources_radix, make_plan_data); smaller plans keep it.
inline constexpr std::size_t kFewestSourcesUnknowns = 1000000;  // 1023^2 and 127^3 take it

// Sets pd.elimination_growth, and the estimate and warning that follow from
// it (PlanData::predicted_error, warning).
template <class T> void set_elimination_growth(PlanData<T>& pd, double growth);

// Pure Neumann: c = 0, real entries, every A_d has zero row sums (constants
// are the null space) and every M_d is positive on the diagonal.
template <class T> bool is_pure_neumann(const Problem<T>& problem);

}  // namespace pscr::planner
