// What a device solve reports of itself, on the device: int [0] a non-finite
// value found by the scan of a solution (find_nonfinite, kernels/level.cl),
// int [1] line + 1 of a near-singular elimination recorded by the
// tridiagonal kernels, and kFlagsShiftOffset bytes on, as a scalar, that
// line's shift (kernels/tridiagonal.cl: near_singular), which the report
// names. Cleared without waiting (the in-order queue puts the write before
// the solve's kernels; a blocking write cost every solve a round trip to the
// device before its first launch), read once the solve is done. A read of
// zeros with no launch since leaves nothing to clear: the write is skipped
// (on the H100 each small transfer costs a solve 5 to 10 µs, a third of a
// 63³ solve's time beyond its kernels).
#pragma once
#include <array>
#include <cstddef>
#include <string>

#include "runtime.hpp"

namespace pscr::ocl {

// Where the kernels leave a near-singular line's shift (-DFLAGS_SHIFT_INTS):
// 16 bytes on, aligned for every scalar.
inline constexpr std::size_t kFlagsShiftOffset = 4 * sizeof(int);

template <class T> class SolveFlags {
 public:
  SolveFlags() = default;
  // dims: the problem's, for the messages (the last factor's pencil).
  SolveFlags(Runtime& rt, int dims);
  cl_mem buffer() const { return flags_.get(); }
  // Both flags to 0, in queue order (nothing to enqueue when they were read
  // as 0 and no kernel was launched on the runtime since).
  void clear() const;
  // Sets flag 0 when x[begin, end) holds a NaN or an infinity: about four
  // values per work-item, at most 2^20 work-items.
  void scan(cl_mem x, std::size_t begin, std::size_t end) const;
  // Waits for the queue (the read is in its order).
  std::array<int, 2> read() const;
  // Whether x[begin, end) holds a non-finite value: flag 0 cleared, scanned
  // and read (waits).
  bool nonfinite(cl_mem x, std::size_t begin, std::size_t end) const;
  // NumericalBreakdown for flag 0 (when the solution was scanned),
  // NearSingularElimination (with near_singular's text) for flag 1.
  void raise(const std::array<int, 2>& flags, bool scanned) const;
  // What the tridiagonal kernels recorded of a near-singular elimination,
  // with the shift of its line; empty: none.
  std::string near_singular() const;

 private:
  const Runtime* rt_ = nullptr;
  int dims_ = 0;
  Mem flags_;
  static constexpr std::size_t kUnknown = ~std::size_t(0);
  mutable std::size_t zero_at_ = kUnknown;  // Runtime::launches() when both were read as 0
};

}  // namespace pscr::ocl
