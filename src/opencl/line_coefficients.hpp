// The last factor packed per row for the tridiagonal kernels (internal): the
// layout of coef_t in kernels/tridiagonal.cl, four scalars per row.
#pragma once
#include <vector>

#include "../planner/excess.hpp"
#include "pscr/problem.hpp"

namespace pscr::ocl {

// Scalars per packed row (coef_t): the kernels are built with
// -DCOEF_SCALARS=this and refuse to compile if their struct differs.
constexpr int kCoefScalars = 4;

// Entry i (i < n): the couplings A_{i,i+1} and M_{i,i+1} (zero for the last
// row), then A_ii and M_ii, or with the excess form the signed row sums ra_i
// and rm_i. Entry n: row n − 2 without its right neighbour (pinned systems).
template <class T>
std::vector<T> packed_rows(const Factor<T>& f, bool excess_form, const planner::ExcessRows<T>& ex) {
  const std::size_t n = f.size();
  std::vector<T> c;
  c.reserve(kCoefScalars * (n + 1));
  for (std::size_t i = 0; i < n; ++i) {
    const bool inner = i + 1 < n;
    c.insert(c.end(), {inner ? f.A.off[i] : T(0), inner ? f.M.off[i] : T(0), excess_form ? ex.ra[i] : f.A.diag[i],
                       excess_form ? ex.rm[i] : f.M.diag[i]});
  }
  const std::size_t cut = n >= 2 ? n - 2 : 0;
  c.insert(c.end(), {T(0), T(0), excess_form ? ex.ra_cut : f.A.diag[cut], excess_form ? ex.rm_cut : f.M.diag[cut]});
  return c;
}

}  // namespace pscr::ocl
