// Products of sizes (unknowns per dimension, right-hand sides, bytes per
// scalar) checked for overflow (internal): a wrapped product would size a
// copy, a scan or a buffer check too small, and the solve would run past the
// caller's arrays.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <string>

#include "pscr/errors.hpp"

namespace pscr {

// The product of `factors`, or AllocationTooLarge naming them after `what`
// ("solve: 737869762948382066 × 25 × 8 overflows size_t ...").
inline std::size_t size_product(std::initializer_list<std::size_t> factors, const char* what) {
  std::size_t product = 1;
  bool overflow = false;
  for (std::size_t f : factors) {
    if (f == 0) return 0;
    overflow = overflow || product > std::numeric_limits<std::size_t>::max() / f;
    product *= f;
  }
  if (overflow) {
    std::string sizes;
    for (std::size_t f : factors) sizes += (sizes.empty() ? "" : " × ") + std::to_string(f);
    throw AllocationTooLarge(std::string(what) + ": " + sizes + " overflows size_t (more than the address space)");
  }
  return product;
}

}  // namespace pscr
