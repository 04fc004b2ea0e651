// The excess representation of the tridiagonal systems (A + σM) y = g of the
// last dimension (internal; see docs/accuracy.md).
//
// Row i of T = A + σM has diagonal d_i and off-diagonals o_{i-1}, o_i. Its
// excess (diagonal dominance) is e_i = d_i − |o_{i−1}| − |o_i|. For small σ
// the diagonal holds σ only in its last bits, so e is never formed as that
// difference: with the signed row sums ra_i = A_ii + A_i,i−1 + A_i,i+1 and
// rm_i (the same of M), computed in double from the factor data,
//     e_i = ra_i + σ rm_i − 2 max(o_{i−1}, 0) − 2 max(o_i, 0)
// (algebraically equal for any signs; for the Laplacians of the builders
// ra is exactly zero inside the domain, so σ keeps its relative precision).
// Elimination (Thomas, CR, PCR) then runs on (o, e) with additions of
// non-negative numbers; that needs e ≥ 0 and d > 0 for every shift the
// method meets, which the planner checks (see excess_form_applies) up to
// the rounding of the data: a row whose entries were rounded (a graded mesh
// in float) may fall short of zero excess by a few ulps of its diagonal, and
// that deficit enters its row's excess as it is, once.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "pscr/problem.hpp"

namespace pscr::planner {

template <class T> struct ExcessRows {
  std::vector<T> ra, rm;        // signed row sums of A and M (rounded from double)
  T ra_cut = T(0), rm_cut = T(0);  // row n−2 without its right neighbour (pure-Neumann pinned systems)
};

// Row sums in double. Complex T: a factor with real data (the planner takes
// the excess form for those only), whose rows sum as the real ones; the
// kernels then carry every excess and pivot as a complex number with a zero
// imaginary part, on which their element-wise fabs, fmax and products are
// the complex ones.
// A deficit within the rounding of the data (excess_form_applies) is kept:
// it is the data's own. Lifted to zero excess, it changed A by up to 8 ε·A_ii
// in every such row, and where the smallest shift adds less than that to a
// row (σ_min·M_ii below ε·A_ii: the small cells of a graded mesh in float)
// the solution moved by 1e-5 … 3e-4 against the 1e-7 of the data as given
// (test_precision/float_graded_lines_keep_their_digits).
// pure_neumann: A's row sums are taken as exactly zero (the planner found
// them zero to working precision, planner/precision.hpp), as are those of
// the factor the eigenpairs were computed for; its diagonal is then
// -(o_{i-1} + o_i), also in the cut row.
template <class T> ExcessRows<T> excess_rows(const Factor<T>& f, bool pure_neumann = false) {
  ExcessRows<T> x;
  const std::size_t n = f.size();
  auto re = [](T v) { return double(std::real(v)); };
  auto sum = [&](const Tridiagonal<T>& t, std::size_t i, bool right) {
    if (pure_neumann && &t == &f.A) return right || i + 1 == n ? 0.0 : -re(t.off[i]);
    double s = re(t.diag[i]);
    if (i > 0) s += re(t.off[i - 1]);
    if (right && i + 1 < n) s += re(t.off[i]);
    return s;
  };
  for (std::size_t i = 0; i < n; ++i) {
    x.ra.push_back(T(sum(f.A, i, true)));
    x.rm.push_back(T(sum(f.M, i, true)));
  }
  if (n >= 2) {
    x.ra_cut = T(sum(f.A, n - 2, false));
    x.rm_cut = T(sum(f.M, n - 2, false));
  }
  return x;
}

// Whether every system (A + σM) with σ ≥ sigma_min is diagonally dominant
// with a positive diagonal: real, A and M diagonally dominant by rows with
// positive diagonals (up to the rounding of their entries), and sigma_min ≥ 0
// (then e(σ) ≥ excess(A) + σ excess(M) ≥ 0 by the triangle inequality).
// data_eps: the precision the data was rounded to, where f holds it wider
// (a complex64 factor's real parts as doubles); 0: T's.
template <class T> bool excess_form_applies(const Factor<T>& f, double sigma_min, double data_eps = 0) {
  if constexpr (is_complex_v<T>) {
    return false;
  } else {
    if (!(sigma_min >= 0)) return false;
    const std::size_t n = f.size();
    for (const Tridiagonal<T>* t : {&f.A, &f.M})
      for (std::size_t i = 0; i < n; ++i) {
        double off = 0;
        if (i > 0) off += std::abs(double(t->off[i - 1]));
        if (i + 1 < n) off += std::abs(double(t->off[i]));
        // a deficit within the rounding of the data (graded meshes) is the data's own
        const double slack =
            8 * (data_eps > 0 ? data_eps : double(std::numeric_limits<T>::epsilon())) * double(t->diag[i]);
        if (!(double(t->diag[i]) >= off - slack) || !(double(t->diag[i]) >= 0)) return false;
      }
    // a zero diagonal of A + σM (σ = 0 and A_ii = 0) would leave no pivot
    for (std::size_t i = 0; i < n; ++i)
      if (!(double(f.A.diag[i]) > 0) && !(double(f.M.diag[i]) > 0)) return false;
    return true;
  }
}

}  // namespace pscr::planner
