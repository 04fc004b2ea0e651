// Weights of the M-weighted mean that fixes the constant of a pure-Neumann
// solution (internal): (M1 1)⊗(M2 1)[⊗(M3 1)].
#pragma once
#include <complex>
#include <vector>

#include "pscr/problem.hpp"

namespace pscr {

// M_d 1 for one factor.
template <class T> std::vector<double> mass_row_sums(const Factor<T>& f) {
  const std::size_t n = f.size();
  std::vector<double> row(n);
  for (std::size_t i = 0; i < n; ++i) {
    double s = std::real(f.M.diag[i]);
    if (i > 0) s += std::real(f.M.off[i - 1]);
    if (i + 1 < n) s += std::real(f.M.off[i]);
    row[i] = s;
  }
  return row;
}

// The Kronecker product of the row sums over all dimensions.
template <class T> std::vector<double> mass_weights(const Problem<T>& p) {
  std::vector<double> w{1.0};
  for (auto& f : p.factors()) {
    const std::vector<double> row = mass_row_sums(f);
    std::vector<double> next;
    next.reserve(w.size() * row.size());
    for (double a : w)
      for (double b : row) next.push_back(a * b);
    w.swap(next);
  }
  return w;
}

// Σ_i of the Kronecker product: the product of the row-sum totals.
template <class T> double mass_weight_sum(const Problem<T>& p) {
  double total = 1;
  for (auto& f : p.factors()) {
    double s = 0;
    for (double v : mass_row_sums(f)) s += v;
    total *= s;
  }
  return total;
}

}  // namespace pscr
