/// @file
/// Minimal NumPy .npy reader/writer (format versions 1.0-3.0, little-endian,
/// C order) for float32/float64/complex64/complex128 arrays.
#pragma once
#include "pscr/export.hpp"
#include <complex>
#include <cstddef>
#include <string>
#include <vector>

namespace pscr::npy {

/// The element types a .npy file may hold here.
enum class DType { float32, float64, complex64, complex128 };

/// A loaded .npy array: its type, shape and raw bytes.
struct PSCR_API Array {
  DType dtype = DType::float64;  ///< element type
  std::vector<std::size_t> shape;  ///< dimensions, C order
  std::vector<unsigned char> bytes;  ///< raw data, C order
  std::size_t size() const;          ///< number of elements
  /// Converts to T; real -> complex is allowed, complex -> real is not.
  template <class T> std::vector<T> as() const;
};

/// The NumPy name of t ("float64", ...).
PSCR_API const char* dtype_name(DType t);
/// Bytes per element of t.
PSCR_API std::size_t dtype_size(DType t);

/// Throws FileFormatError naming the file and the problem.
PSCR_API Array load(const std::string& path);
/// Writes `data` (the product of `shape` elements of T, C order) as a version 1.0 .npy file; FileFormatError when it cannot be written.
template <class T> PSCR_API void save(const std::string& path, const std::vector<std::size_t>& shape, const T* data);

}  // namespace pscr::npy
