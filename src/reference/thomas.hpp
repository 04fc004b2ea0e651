// Thomas solves of (A + σM) y = g, coefficients generated from the factor
// pencil and σ, never stored per system (internal). Two eliminations:
// ordinary (any system the plan admits) and, where the plan found every
// system diagonally dominant, the excess form (planner/excess.hpp): the
// pivot is p_i = ê_i + |o_i| with the pivot excess
// ê_i = e_i + |o_{i−1}|·ê_{i−1}/p_{i−1}, sums of non-negative numbers only.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "../planner/excess.hpp"
#include "pscr/problem.hpp"

namespace pscr::reference {

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
  T lower(std::size_t i, T s) const { return i > 0 ? Ao[i - 1] + s * Mo[i - 1] : T(0); }
  T upper(std::size_t i, T s) const { return i + 1 < n ? Ao[i] + s * Mo[i] : T(0); }
  // The diagonal (ordinary) or the excess of row i.
  T diagonal(std::size_t i, T s, T lo, T up) const {
    if constexpr (!is_complex_v<T>) {
      if (excess) {
        const bool cut = i + 1 == n && n < f.size();
        const T ra = cut ? excess->ra_cut : excess->ra[i], rm = cut ? excess->rm_cut : excess->rm[i];
        return ra + s * rm - 2 * std::max(lo, T(0)) - 2 * std::max(up, T(0));
      }
    }
    (void)lo;
    (void)up;
    return Ad[i] + s * Md[i];
  }
  // 1/pivot of row i given the eliminated previous row: its c' = o/p (cq,
  // ordinary) or its excess ratio r = ê/p (excess form), updated to row i's.
  T pivot_reciprocal(T lo, T up, T diag, T cq, T& r) const {
    if constexpr (!is_complex_v<T>) {
      if (excess) {
        const T e_hat = diag + std::abs(lo) * r;
        const T inv = T(1) / (e_hat + std::abs(up));
        r = e_hat * inv;
        return inv;
      }
    }
    (void)r;
    return T(1) / (diag - lo * cq);
  }
};

// B systems at once, interleaved: y[i*B + b] is entry i of system b with shift
// sigma[b]. Interleaving hides the division latency of the recurrence.
template <int B, class T> void thomas_batch(const LineSystem<T>& sys, const T* sigma, T* y, T* cp) {
  const std::size_t n = sys.n;
  T s[B], r[B];
  for (int b = 0; b < B; ++b) {
    s[b] = sigma[b];
    r[b] = T(0);
  }
  for (std::size_t i = 0; i < n; ++i) {
    T* yi = y + i * B;
    T* ci = cp + i * B;
    for (int b = 0; b < B; ++b) {
      const T lo = sys.lower(i, s[b]), up = sys.upper(i, s[b]);
      const T cq = i > 0 ? ci[b - B] : T(0), yp = i > 0 ? yi[b - B] : T(0);
      const T inv = sys.pivot_reciprocal(lo, up, sys.diagonal(i, s[b], lo, up), cq, r[b]);
      ci[b] = up * inv;
      yi[b] = (yi[b] - lo * yp) * inv;
    }
  }
  for (std::size_t i = n - 1; i-- > 0;) {
    T* yi = y + i * B;
    const T* yn = yi + B;
    const T* ci = cp + i * B;
    for (int b = 0; b < B; ++b) yi[b] -= ci[b] * yn[b];
  }
}

// One system; `pinned` solves the singular pure-Neumann system A y = g
// (σ = 0, constant null space) in the least-squares sense: g loses its mean,
// then y[n-1] = 0 and the leading (n-1) system is solved.
template <class T>
void thomas_single(const Factor<T>& f, const planner::ExcessRows<T>* excess, T sigma, bool pinned, T* y, T* cp) {
  const std::size_t n = f.size();
  if (!pinned) {
    thomas_batch<1>(LineSystem<T>(f, excess), &sigma, y, cp);
    return;
  }
  T mean = 0;
  for (std::size_t i = 0; i < n; ++i) mean += y[i];
  mean /= T(static_cast<real_t<T>>(n));
  for (std::size_t i = 0; i < n; ++i) y[i] -= mean;
  y[n - 1] = 0;
  if (n == 1) return;
  thomas_batch<1>(LineSystem<T>(f, excess, true), &sigma, y, cp);
}

}  // namespace pscr::reference
