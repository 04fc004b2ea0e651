// Weights of the M-weighted mean that fixes the constant of a pure-Neumann
// solution (internal): (M1 1)⊗(M2 1)[⊗(M3 1)].
#pragma once
#include <cmath>
#include <complex>
#include <cstddef>
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
    if (f.periodic() && (i == 0 || i + 1 == n)) s += std::real(f.M.off[n - 1]);  // the corner
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

// x −= (s[0] + i s[1]) / divisor (s[0] / divisor for real T); returns that constant.
template <class T> T subtract_constant(T* x, std::size_t N, const double* s, double divisor) {
  wide_t<T> sum;
  if constexpr (is_complex_v<T>) sum = wide_t<T>(s[0], s[1]);
  else sum = s[0];
  const T mean = T(sum / divisor);
  for (std::size_t i = 0; i < N; ++i) x[i] -= mean;
  return mean;
}

// Removes from x[0, N) its component along the constants, the null space of
// a pure-Neumann operator: x −= mean, the mean over `total` unknowns (sums in
// double: a float running sum of N terms would be off by about N·ε).
// reduce(s, n) adds n partial sums over the parts of a distributed vector
// (nothing to do in one process). Returns the removed part relative to |x|.
template <class T, class Reduce> double remove_mean(T* x, std::size_t N, double total, Reduce&& reduce) {
  double s[3] = {0, 0, 0};  // Σ re, Σ im, Σ |x|²
  for (std::size_t i = 0; i < N; ++i) {
    const wide_t<T> v(x[i]);
    s[0] += std::real(v);
    s[1] += std::imag(v);
    s[2] += std::norm(v);
  }
  reduce(s, 3);
  const T mean = subtract_constant(x, N, s, total);
  return s[2] > 0 ? std::abs(mean) * std::sqrt(total) / std::sqrt(s[2]) : 0.0;
}

// x −= Σ w_i x_i / wsum: the solution of zero weighted mean (w: mass_weights
// of x's entries, wsum: mass_weight_sum); reduce as for remove_mean.
template <class T, class Reduce>
void remove_weighted_mean(T* x, const double* w, std::size_t N, double wsum, Reduce&& reduce) {
  double s[2] = {0, 0};
  for (std::size_t i = 0; i < N; ++i) {
    const wide_t<T> v = w[i] * wide_t<T>(x[i]);
    s[0] += std::real(v);
    s[1] += std::imag(v);
  }
  reduce(s, 2);
  subtract_constant(x, N, s, wsum);
}

}  // namespace pscr
