// The growth of the unpivoted eliminations that solve a plan's tridiagonal
// lines (internal; docs/accuracy.md §9). Every line of the last dimension is
// (A_D + σ M_D) y = g with σ = c plus one eigenvalue of each leading
// dimension's groups. A backend eliminates it without pivoting, whole
// (Thomas' algorithm), or cut into chunks each eliminated from its own first
// row (kernels/line_solve.cl: chunk t's pivots eliminate its rows and the
// spike on the row before it, the chunks' last rows forming a reduced
// system), possibly after one step of cyclic reduction (halved lines). An
// elimination's backward error is about ε |L||U| instead of ε |T|: where a
// chunk's leading block is nearly singular at σ, its multipliers grow though
// the line itself is well conditioned (61 × 63 at c = −424.44 lost 2.8e-9 by
// chunks of 16 rows with 4.3e-13 predicted). The growth is that ratio, row
// by row, the largest over every line the plan solves; it depends on the
// shifts and the chunks only, not on the right-hand sides, so the plan
// measures it once.
#pragma once
#include <algorithm>
#include <complex>
#include <cstddef>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "plan_data.hpp"
#include "pscr/scalar.hpp"

namespace pscr::planner {

// How a backend eliminates the lines: chunks of chunk_rows rows (0: one
// chunk, the whole line), after one step of cyclic reduction (halved: the
// odd rows, the even ones eliminated, and the chunks cut from those).
struct LineElimination {
  std::size_t chunk_rows = 0;
  bool halved = false;
};

namespace growth_detail {

template <class C> double mag(const C& x) { return std::abs(x); }

// Row i of a line's system: the couplings to the rows before and after
// (zero at the ends) and the diagonal.
template <class C> struct Row {
  C lower{}, diag{}, upper{};
  double size() const { return mag(lower) + mag(diag) + mag(upper); }
};

// The system (A + σ M) of a line, or its halved system (the odd rows with
// the even ones eliminated), row by row; growth() is that of the halving
// step, the largest over the rows asked for.
template <class T, class C> class LineRows {
 public:
  LineRows(const Factor<T>& f, C sigma, bool halved) : f_(f), sigma_(sigma), halved_(halved) {}
  std::size_t size() const { return halved_ ? f_.size() / 2 : f_.size(); }
  Row<C> row(std::size_t i) {
    if (!halved_) return full(i);
    // odd row r = 2i + 1 with the even rows r − 1 and r + 1 eliminated
    const std::size_t n = f_.size(), r = 2 * i + 1;
    const Row<C> mid = full(r), before = full(r - 1);
    Row<C> h;
    h.diag = mid.diag - mid.lower * before.upper / before.diag;
    double lu = mag(mid.diag) + mag(mid.lower) / mag(before.diag) * before.size();
    if (i > 0) h.lower = -mid.lower * before.lower / before.diag;
    if (r + 1 < n) {
      const Row<C> after = full(r + 1);
      h.diag -= mid.upper * after.lower / after.diag;
      lu += mag(mid.upper) / mag(after.diag) * after.size();
      if (r + 2 < n) h.upper = -mid.upper * after.upper / after.diag;
    }
    growth_ = std::max(growth_, lu / mid.size());
    return h;
  }
  double growth() const { return growth_; }

 private:
  Row<C> full(std::size_t i) const {
    const std::size_t n = f_.size();
    Row<C> r;
    r.diag = C(f_.A.diag[i]) + sigma_ * C(f_.M.diag[i]);
    if (i > 0) r.lower = C(f_.A.off[i - 1]) + sigma_ * C(f_.M.off[i - 1]);
    if (i + 1 < n) r.upper = C(f_.A.off[i]) + sigma_ * C(f_.M.off[i]);
    return r;
  }
  const Factor<T>& f_;
  C sigma_;
  bool halved_;
  double growth_ = 1;
};

// The growth of chunk [a, e) of a system: its rows a … e − 2 are pivots,
// each leaving a spike on row a − 1's unknown; row e − 1 is reduced. The
// chunk also eliminates its unknowns from row a − 1 (the previous chunk's
// last row). Infinite where a pivot is zero.
template <class Rows> double chunk_growth(Rows& rows, std::size_t a, std::size_t e) {
  using C = decltype(rows.row(0).diag);
  const double inf = std::numeric_limits<double>::infinity();
  double worst = 1;
  C d{}, u{}, s{};  // the previous pivot row: its diagonal, coupling to the next row, spike
  // row a − 1 as the chunk's eliminations change it: its coupling to the
  // next unknown of the chunk, and the |L||U| it gathers
  C v{};
  double before = 0, gathered = 0;
  if (a > 0) {
    const auto r = rows.row(a - 1);
    v = r.upper;
    before = r.size();
    gathered = before;
  }
  for (std::size_t i = a; i < e; ++i) {
    const auto r = rows.row(i);
    C di = r.diag, si = i == a ? r.lower : C{};
    double lu = r.size();
    if (i > a) {
      const C l = r.lower / d;
      di -= l * u;
      si = -l * s;
      lu = mag(l) * (mag(d) + mag(u) + mag(s)) + mag(di) + mag(r.upper) + mag(si);
    }
    if (r.size() > 0) worst = std::max(worst, lu / r.size());
    if (i + 1 < e) {
      if (mag(di) == 0) return inf;
      if (a > 0) {  // x_i leaves row a − 1
        const C w = v / di;
        gathered += mag(w) * (mag(si) + mag(di) + mag(r.upper));
        v = -w * r.upper;
      }
    }
    d = di;
    u = r.upper;
    s = si;
  }
  if (before > 0) worst = std::max(worst, gathered / before);
  return worst;
}

// Whether rows 1 … n − 2 of f are alike but for row 1's coupling to row 0
// (a uniform mesh): chunks 3 … before the last then eliminate as chunk 3.
template <class T> bool uniform_interior(const Factor<T>& f) {
  const std::size_t n = f.size();
  for (std::size_t i = 2; i + 1 < n; ++i)
    if (f.A.diag[i] != f.A.diag[1] || f.M.diag[i] != f.M.diag[1] || f.A.off[i] != f.A.off[1] ||
        f.M.off[i] != f.M.off[1])
      return false;
  return true;
}

// The growth of one line's elimination at shift σ.
template <class T, class C>
double line_growth(const Factor<T>& f, const C& sigma, const LineElimination& how, bool uniform) {
  LineRows<T, C> rows(f, sigma, how.halved);
  const std::size_t m = rows.size(), k = how.chunk_rows == 0 ? m : std::min(how.chunk_rows, m);
  if (m == 0 || k == 0) return 1;
  const std::size_t chunks = (m + k - 1) / k;
  double worst = 1;
  for (std::size_t t = 0; t < chunks; ++t) {
    // a uniform factor's chunks 3 … chunks − 2 are chunk 3's
    if (uniform && t > 3 && t + 1 < chunks) continue;
    worst = std::max(worst, chunk_growth(rows, t * k, std::min(m, t * k + k)));
  }
  return std::max(worst, rows.growth());
}

template <class C> bool less(const C& a, const C& b) {
  if constexpr (is_complex_v<C>) return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
  else return a < b;
}

}  // namespace growth_detail

// The largest growth of the unpivoted eliminations of pd's lines over every
// shift they are solved at (1: nothing grows; diagonally dominant lines and
// lines solved in their eigenbasis are not measured, and are 1). Not weighed
// by each line's condition: that (ε times the growth times the line's
// condition, against the largest condition that the estimate holds already)
// fell short of a measured error (61 × 63 at c = −424.44, radix 2, chunks of
// 16: 2.4e-8 against 1.9e-8), the largest growth alone held everywhere.
template <class T> double elimination_growth(const PlanData<T>& pd, const LineElimination& how) {
  using C = std::conditional_t<is_complex_v<T>, std::complex<double>, double>;
  using namespace growth_detail;
  if (pd.dominant || pd.periodic_lines()) return 1;
  const Factor<T>& f = pd.problem.factor(pd.problem.dims() - 1);
  // each leading dimension's distinct eigenvalues
  std::vector<std::vector<C>> values;
  std::size_t sums = 1;
  for (const auto& dp : pd.dims) {
    std::vector<C> v;
    for (const auto& ge : dp.eigen)
      for (const auto& l : ge.lambda) v.push_back(C(l));
    std::sort(v.begin(), v.end(), less<C>);
    v.erase(std::unique(v.begin(), v.end()), v.end());
    sums *= std::max<std::size_t>(v.size(), 1);
    values.push_back(std::move(v));
  }
  const bool uniform = !how.halved && uniform_interior(f);
  const C c = C(pd.problem.c());
  double worst = 1;
#pragma omp parallel for reduction(max : worst) schedule(dynamic, 64)
  for (long s = 0; s < long(sums); ++s) {
    // sum s: one value of each dimension, the last dimension's fastest
    C sigma = c;
    std::size_t rest = std::size_t(s);
    for (std::size_t d = values.size(); d-- > 0;) {
      if (values[d].empty()) continue;
      sigma += values[d][rest % values[d].size()];
      rest /= values[d].size();
    }
    worst = std::max(worst, line_growth(f, sigma, how, uniform));
  }
  return worst;
}

// Measures the growth of pd's lines as a backend eliminates them (`how`;
// none: not modelled, growth 1) and sets it with the estimate that follows
// (set_elimination_growth).
template <class T> void measure_elimination_growth(PlanData<T>& pd, const std::optional<LineElimination>& how) {
  set_elimination_growth(pd, how ? elimination_growth(pd, *how) : 1.0);
}

}  // namespace pscr::planner
