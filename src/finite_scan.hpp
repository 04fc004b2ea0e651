// The first non-finite value of an array, over the host's threads (internal):
// every host solve scans its right-hand sides and solutions, and one thread
// takes about 0.1 s for 8191² doubles, several times a device's solve.
#pragma once
#include <algorithm>
#include <cstddef>

#include "pscr/scalar.hpp"

namespace pscr {

// Its index, or n when all n values are finite.
template <class T> std::size_t first_nonfinite(const T* x, std::size_t n) {
  constexpr std::size_t kBlock = std::size_t(1) << 16;
  const long blocks = long((n + kBlock - 1) / kBlock);
  std::size_t first = n;
#pragma omp parallel for schedule(static) reduction(min : first) if (blocks > 8)
  for (long b = 0; b < blocks; ++b) {
    const std::size_t end = std::min(n, std::size_t(b + 1) * kBlock);
    for (std::size_t i = std::size_t(b) * kBlock; i < end; ++i)
      if (!is_finite(x[i])) {
        first = std::min(first, i);
        break;
      }
  }
  return first;
}

}  // namespace pscr
