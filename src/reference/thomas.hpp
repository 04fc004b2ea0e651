// Thomas solves of (A + σM) y = g, coefficients generated from the factor
// pencil and σ, never stored per system (internal). Two eliminations:
// ordinary (any system the plan admits) and, where the plan found every
// system diagonally dominant, the excess form (planner/excess.hpp): the
// pivot is p_i = ê_i + |o_i| with the pivot excess
// ê_i = e_i + |o_{i−1}|·ê_{i−1}/p_{i−1}, sums of non-negative numbers only.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "../complex_arith.hpp"
#include "../planner/excess.hpp"
#include "pscr/problem.hpp"

namespace pscr::reference {

// The Thomas recurrences of float systems run in double: a sweep is a chain
// of n dependent pivots, and in float that chain alone would cost about n·ε.
template <class T> using sweep_t = std::conditional_t<std::is_same_v<T, float>, double,
                                   std::conditional_t<std::is_same_v<T, std::complex<float>>, std::complex<double>, T>>;

// The systems of one factor: rows 0..n−1 of A + σM, or (pinned) rows
// 0..n−2, the pure-Neumann null mode with its last unknown fixed at zero.
template <class T> struct LineSystem {
  const Factor<T>& f;
  const planner::ExcessRows<T>* excess = nullptr;  // null: ordinary formulas
  std::size_t n = f.size();
  const T* Ad = f.A.diag.data();
  const T* Md = f.M.diag.data();
  const T* Ao = f.A.off.data();
  const T* Mo = f.M.off.data();

  LineSystem(const Factor<T>& fac, const planner::ExcessRows<T>* ex, bool pinned = false)
      : f(fac), excess(ex), n(pinned ? fac.size() - 1 : fac.size()) {}
  using S = sweep_t<T>;
  S lower(std::size_t i, S s) const { return i > 0 ? S(Ao[i - 1]) + s * S(Mo[i - 1]) : S(0); }
  S upper(std::size_t i, S s) const { return i + 1 < n ? S(Ao[i]) + s * S(Mo[i]) : S(0); }
  // The excess form in real arithmetic: a complex plan takes it for real
  // data only (planner/excess.hpp), whose coefficients and shifts are real.
  using R = real_t<S>;
  // The diagonal (ordinary) or the excess of row i.
  S diagonal(std::size_t i, S s, S lo, S up) const {
    if (excess) {
      const bool cut = i + 1 == n && n < f.size();
      const R ra = R(std::real(cut ? excess->ra_cut : excess->ra[i]));
      const R rm = R(std::real(cut ? excess->rm_cut : excess->rm[i]));
      return S(ra + std::real(s) * rm - 2 * std::max(R(std::real(lo)), R(0)) - 2 * std::max(R(std::real(up)), R(0)));
    }
    (void)lo;
    (void)up;
    return S(Ad[i]) + s * S(Md[i]);
  }
  // Ordinary eliminations: the smallest |pivot| relative to the size of the
  // terms it was formed from (cancellation), over the sweeps of this object.
  // The excess form needs no watch: its pivots are sums of non-negative terms.
  mutable double smallest_pivot = 1;
  // 1/pivot of row i given the eliminated previous row: its c' = o/p (cq,
  // ordinary) or its excess ratio r = ê/p (excess form), updated to row i's.
  S pivot_reciprocal(S lo, S up, S diag, S cq, S& r) const {
    if (excess) {
      const R e_hat = R(std::real(diag)) + std::abs(R(std::real(lo))) * R(std::real(r));
      const R inv = R(1) / (e_hat + std::abs(R(std::real(up))));
      r = S(e_hat * inv);
      return S(inv);
    }
    const S t = lo * cq, piv = diag - t;
    // sizes as |re| + |im| (within √2 of the modulus, without hypot)
    const double size = double(abs1(piv)), terms = double(abs1(diag) + abs1(t));
    if (size < smallest_pivot * terms) smallest_pivot = size / terms;  // divides only at a new minimum
    return reciprocal(piv);
  }
};

// One system in place: y (n entries) with shift sigma; `work` holds 2n
// entries of sweep_t<T>. `pinned` solves the singular pure-Neumann system
// A y = g (σ = 0, constant null space) in the least-squares sense: g loses
// its mean, then y[n-1] = 0 and the leading (n-1) system is solved.
// Returns the smallest relative pivot of an ordinary elimination (1 for the
// excess form).
template <class T>
double thomas_single(const Factor<T>& f, const planner::ExcessRows<T>* excess, T sigma, bool pinned, T* y,
                     sweep_t<T>* work) {
  using S = sweep_t<T>;
  const std::size_t n = f.size();
  if (pinned) {
    S sum = 0;  // in the sweep's precision, as the sums of the partial solutions
    for (std::size_t i = 0; i < n; ++i) sum += S(y[i]);
    const T mean = T(sum / S(static_cast<real_t<S>>(n)));
    for (std::size_t i = 0; i < n; ++i) y[i] -= mean;
    y[n - 1] = 0;
    if (n == 1) return 1;
  }
  const LineSystem<T> sys(f, excess, pinned);
  S* w = work;
  S* cp = work + n;
  S r = 0;
  const S s = sigma;
  for (std::size_t i = 0; i < sys.n; ++i) {
    const S lo = sys.lower(i, s), up = sys.upper(i, s);
    const S inv = sys.pivot_reciprocal(lo, up, sys.diagonal(i, s, lo, up), i > 0 ? cp[i - 1] : S(0), r);
    cp[i] = up * inv;
    w[i] = (S(y[i]) - lo * (i > 0 ? w[i - 1] : S(0))) * inv;
  }
  for (std::size_t i = sys.n - 1; i-- > 0;) w[i] -= cp[i] * w[i + 1];
  for (std::size_t i = 0; i < sys.n; ++i) y[i] = T(w[i]);
  return sys.smallest_pivot;
}

}  // namespace pscr::reference
