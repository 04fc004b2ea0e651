// A leading dimension taken by fast sine transforms on the device (internal;
// kernels/sine_transform.cl): the DST-I tables of one length and the scales of
// the dimension's basis, and the launches that apply it to the columns of an
// array in place.
#pragma once
#include <cstddef>
#include <vector>

#include "runtime.hpp"

namespace pscr::ocl {

// Work-items of a sine-transform work-group (-DSINE_GROUP).
constexpr std::size_t kSineGroup = 256;

// The longest transform (N = n + 1, a power of two) whose column fits the
// local memory of one work-group of `dev` in reals of `real_bytes`; 0 below 4.
std::size_t max_sine_length(const Device& dev, std::size_t real_bytes);

class SineTransform {
 public:
  // n: the dimension's size (n + 1 a power of two, at most max_sine_length);
  // scale: its basis' scales (planner::DimensionPlan::transform_scale).
  SineTransform(Runtime& rt, int n, const std::vector<double>& scale, std::size_t real_bytes, bool complex);
  // In place on x: `columns` columns (scalars of the plan's type, contiguous),
  // entry j of a column `stride_j` scalars after entry j − 1, and `batches`
  // such blocks `stride_b` scalars apart. to_modes: g = Wᵀx, else x = W g.
  void apply(cl_mem x, std::size_t columns, std::size_t stride_j, std::size_t batches, std::size_t stride_b,
             bool to_modes) const;

 private:
  Runtime& rt_;
  int n_;
  std::size_t real_bytes_;
  int parts_;  // reals per scalar: 2 for complex types
  Mem table_, scale_;
};

}  // namespace pscr::ocl
