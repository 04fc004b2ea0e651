// Complex arithmetic for inner loops (internal): std::complex division and
// std::abs guard every call against overflow (a libcall to __divdc3, and
// hypot), which costs more than the rest of an elimination step.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <type_traits>

namespace pscr {

// 1/z; the plain formula where |z|² cannot overflow or underflow, else the
// guarded library division.
template <class R> inline std::complex<R> reciprocal(std::complex<R> z) {
  constexpr R lo = std::is_same_v<R, float> ? R(1e-18) : R(1e-150), hi = 1 / lo;
  const R big = std::max(std::abs(z.real()), std::abs(z.imag()));
  if (big > lo && big < hi) {
    const R r = 1 / (z.real() * z.real() + z.imag() * z.imag());
    return {z.real() * r, -z.imag() * r};
  }
  return R(1) / z;
}
template <class R> inline R reciprocal(R x) { return 1 / x; }

// |re| + |im|: between |z| and √2·|z|; for sizes that are compared, not reported exactly.
template <class R> inline R abs1(std::complex<R> z) { return std::abs(z.real()) + std::abs(z.imag()); }
template <class R> inline R abs1(R x) { return std::abs(x); }

}  // namespace pscr
