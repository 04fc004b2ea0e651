// The cyclic lines of a periodic last dimension on the host (internal).
#pragma once
#include <cstddef>

#include "../planner/plan_data.hpp"
#include "thomas.hpp"

namespace pscr::reference {

// A periodic last dimension's line (A + σ M) y = g, cyclic, solved in its
// pencil's eigenbasis: y = W (Λ + σ)⁻¹ Wᵀ g (W = ge.coeff, every row kept,
// Wᵀ M W = I), sums in the sweep's precision. `pinned`: the pure-Neumann
// null line, whose zero mode (zero_mode) is left out: its solution has zero
// M-weighted mean, as the plan's answer does.
template <class T>
void eigenbasis_line(const planner::GroupEigen<T>& ge, int zero_mode, T sigma, bool pinned, T* y, sweep_t<T>* work) {
  using S = sweep_t<T>;
  const std::size_t n = std::size_t(ge.m);
  for (std::size_t k = 0; k < n; ++k) {
    S a = 0;
    for (std::size_t j = 0; j < n; ++j) a += S(ge.coeff[j * n + k]) * S(y[j]);
    work[k] = pinned && int(k) == zero_mode ? S(0) : a / (S(ge.lambda[k]) + S(sigma));
  }
  for (std::size_t j = 0; j < n; ++j) {
    S v = 0;
    for (std::size_t k = 0; k < n; ++k) v += S(ge.coeff[j * n + k]) * work[k];
    y[j] = T(v);
  }
}

}  // namespace pscr::reference
