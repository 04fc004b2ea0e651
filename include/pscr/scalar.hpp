/// @file
/// Scalar type traits for the four supported fields.
#pragma once
#include <cmath>
#include <complex>
#include <type_traits>

namespace pscr {

/// Whether T is std::complex<float> or std::complex<double>.
template <class T> struct is_complex : std::false_type {};
template <class R> struct is_complex<std::complex<R>> : std::true_type {};
/// is_complex<T>::value.
/// @{
template <class T> inline constexpr bool is_complex_v = is_complex<T>::value;
/// @}

/// The real type under T: T itself for real T, R for std::complex<R>.
template <class T> struct real_of { using type = T; /**< T */ };
/// The real type under std::complex<R>: R.
template <class R> struct real_of<std::complex<R>> { using type = R; /**< R */ };
/// real_of<T>::type.
template <class T> using real_t = typename real_of<T>::type;

/// The type the host planner computes in: double precision of the same field.
template <class T>
using wide_t = std::conditional_t<is_complex_v<T>, std::complex<double>, double>;

/// Neither NaN nor infinite (for complex x: neither part).
template <class T> inline bool is_finite(const T& x) {
  if constexpr (is_complex_v<T>) return std::isfinite(x.real()) && std::isfinite(x.imag());
  else return std::isfinite(x);
}

/// The NumPy name of T: "float32", "float64", "complex64" or "complex128".
template <class T> const char* scalar_name() {
  if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, std::complex<float>>) return "complex64";
  else return "complex128";
}

}  // namespace pscr
