// What a device solve reports of itself, in two ints on the device: [0] a
// non-finite value found by the scan of a solution (find_nonfinite,
// kernels/level.cl), [1] line + 1 of a near-singular elimination recorded by
// the tridiagonal kernels. Cleared without waiting (the in-order queue puts
// the write before the solve's kernels; a blocking write cost every solve a
// round trip to the device before its first launch), read once the solve is
// done.
#pragma once
#include <array>
#include <cstddef>
#include <string>

#include "runtime.hpp"

namespace pscr::ocl {

template <class T> class SolveFlags {
 public:
  SolveFlags() = default;
  // dims: the problem's, for the messages (the last factor's pencil).
  SolveFlags(Runtime& rt, int dims);
  cl_mem buffer() const { return flags_.get(); }
  // Both flags to 0, in queue order.
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
  // line_shifts: the shifts of the last dimension's lines (flag 1 names one).
  void raise(const std::array<int, 2>& flags, bool scanned, cl_mem line_shifts) const;
  // What the tridiagonal kernels recorded of a near-singular elimination,
  // with the shift of its line; empty: none.
  std::string near_singular(cl_mem line_shifts) const;

 private:
  const Runtime* rt_ = nullptr;
  int dims_ = 0;
  Mem flags_;
};

}  // namespace pscr::ocl
