// sin(π p / q) and cos(π p / q) of integer arguments (internal): the closed
// forms of Toeplitz eigenpairs (planner) and the sine transforms' tables
// (OpenCL), each argument reduced to [0, π/2] exactly in integers.
#pragma once
#include <cmath>
#include <cstdint>

namespace pscr {

template <class F> constexpr F kPi = F(3.14159265358979323846264338327950288L);

// F: the type the sine is evaluated in (double, or long double for tables
// rounded to double afterwards). q > 0.
template <class F> F sin_pi(std::int64_t p, std::int64_t q) {
  std::int64_t r = p % (2 * q);
  if (r < 0) r += 2 * q;
  F sign = 1;
  if (r >= q) {
    r -= q;
    sign = -1;
  }
  if (2 * r > q) r = q - r;
  return sign * std::sin(kPi<F> * static_cast<F>(r) / static_cast<F>(q));
}

// cos(π p / q) = sin(π (q − 2p) / (2q)).
template <class F> F cos_pi(std::int64_t p, std::int64_t q) { return sin_pi<F>(q - 2 * p, 2 * q); }

}  // namespace pscr
