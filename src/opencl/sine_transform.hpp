// A leading dimension taken by fast sine transforms on the device (internal;
// kernels/sine_transform.cl): the DST-I tables of one length and the scales of
// the dimension's basis, and the launches that apply it to the columns of an
// array in place.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "runtime.hpp"

namespace pscr::ocl {

// The complex entries each work-item of a sine-transform work-group
// (KernelParameters::sine_group work-items, -DSINE_GROUP) holds in registers
// (-DSINE_ELEMENTS): a work-group transforms sine_group · sine_elements
// entries, all of one column or of several: 8 (double) or 16 (float) with
// the passes exchanging complex entries (8 KiB of local memory per 64
// work-items), twice as many exchanging them in halves (the same memory).
constexpr std::size_t sine_elements(std::size_t real_bytes, bool halves) {
  return (real_bytes == sizeof(double) ? 8 : 16) * (halves ? 2 : 1);
}

// How a plan's transforms run on a device: the work-items of a work-group
// and whether their passes exchange entries in halves (real parts, then
// imaginary parts: KernelParameters::sine_halves).
// split_all: every sine transform of kSplitFrom or more in two halves
// (KernelParameters::sine_split), not only those past a work-group.
struct SineShape {
  std::size_t group;
  bool halves;
  bool split_all = false;
};
inline constexpr std::size_t kSplitFrom = 64;
// The longest FFT a work-group of `group` work-items takes for a transform
// of FFT length N: N, or where a sine transform splits (longer than halves
// reach, or split_all and N >= kSplitFrom) the longer of the odd half's N / 4
// and what the even half (N / 2, split again while too long) takes.
std::size_t group_length(std::size_t N, bool fourier, std::size_t group, bool split_all, std::size_t real_bytes);
// For transforms whose work-groups take at most `reach` complex entries
// (group_length), sine_group work-items (at most the device's): halves where
// the parameters ask for them or a column needs the longer reach.
SineShape sine_shape(const Device& dev, std::size_t sine_group, bool sine_halves, bool split_all, std::size_t reach,
                     std::size_t real_bytes);
// The longest transform (N = n + 1, a power of two) whose column fits one
// work-group of sine_group work-items on `dev` in reals of `real_bytes`
// (in halves where complex entries would not reach), 0 where none fits.
// Sine transforms (not Fourier ones) run up to four times as long, split
// (planner::sine_reach).
std::size_t max_sine_length(const Device& dev, std::size_t sine_group, std::size_t real_bytes);

// Why the transform kernels of rt's program cannot run work-groups of
// `group` work-items on its device (empty where they can).
std::string sine_group_shortfall(Runtime& rt, std::size_t group);

class SineTransform {
 public:
  // n: the dimension's size (n + 1 a power of two, at most four times
  // max_sine_length: longer than one work-group holds, split into a butterfly,
  // the even modes' transform of half the length (split again while too
  // long) and the odd modes' cosine transform, kernels/sine_transform.cl);
  // scale: its basis' scales (planner::DimensionPlan::transform_scale).
  // fourier: a periodic dimension's real Fourier basis instead (kernel
  // fourier_transform: n / 2 a power of two, at most max_sine_length).
  SineTransform(Runtime& rt, int n, const std::vector<double>& scale, SineShape shape, std::size_t real_bytes,
                bool complex, bool fourier = false);
  // The packed FFT's length of a dimension of n entries.
  static int fft_length(int n, bool fourier) { return fourier ? n / 2 : n + 1; }
  // In place on x: `columns` columns (scalars of the plan's type, contiguous),
  // entry j of a column `stride_j` scalars after entry j − 1, and `batches`
  // such blocks `stride_b` scalars apart. to_modes: g = Wᵀx, else x = W g.
  // nonfinite: an int set to 1 where an output is not finite (or null).
  void apply(cl_mem x, std::size_t columns, std::size_t stride_j, std::size_t batches, std::size_t stride_b,
             bool to_modes, cl_mem nonfinite = nullptr) const;
  // The same on `lines` contiguous lines of n entries, `line_stride` reals
  // apart (real types only): a trailing dimension of a row-major array.
  void apply_lines(cl_mem x, std::size_t lines, std::size_t line_stride, bool to_modes,
                   cl_mem nonfinite = nullptr) const;
  // The mode (0-based: k − 1 of sin(π j k / N)) that position p of a
  // transformed column holds: p itself, or where the transform is split the
  // even modes first, then the odd ones (sine_odd_modes).
  std::vector<std::size_t> modes() const;
  bool split() const { return bool(even_); }

 private:
  Runtime& rt_;
  int n_;
  int N_;  // the packed complex FFT's length: n + 1 (sines), n / 2 (Fourier)
  bool fourier_;
  std::size_t group_, real_bytes_;
  bool halves_;
  int parts_;  // reals per scalar: 2 for complex types
  std::size_t group_columns_;  // columns per work-group: group · sine_elements / (this launch's FFT length), at most group
  double column_flops_;        // of one real column's transform (cost model)
  void launch(cl_mem x, std::size_t columns, std::size_t stride_j, std::size_t stride_c, std::size_t batches,
              std::size_t stride_b, bool to_modes, cl_mem nonfinite) const;
  void launch_butterfly(cl_mem x, std::size_t columns, std::size_t stride_j, std::size_t stride_c,
                        std::size_t batches, std::size_t stride_b, bool to_modes, cl_mem nonfinite) const;
  // split: the even modes' transform (n = N / 2 − 1); table_ and scale_ then
  // serve the odd modes' half (sine_odd_modes, a cosine transform of N / 2
  // by an FFT of length N / 4)
  std::unique_ptr<SineTransform> even_;
  Mem table_, scale_;
};

}  // namespace pscr::ocl
