#include "sine_transform.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "../sin_pi.hpp"

namespace pscr::ocl {

namespace {

// (cos πj/N, sin πj/N), j < 2N, in long double rounded once to R.
template <class R> std::vector<R> table_of(int N) {
  std::vector<R> t(4 * std::size_t(N));
  for (int j = 0; j < 2 * N; ++j) {
    t[2 * std::size_t(j)] = R(cos_pi<long double>(j, N));
    t[2 * std::size_t(j) + 1] = R(sin_pi<long double>(j, N));
  }
  return t;
}

}  // namespace

SineShape sine_shape(const Device& dev, std::size_t sine_group, bool sine_halves, std::size_t longest,
                     std::size_t real_bytes) {
  const std::size_t group = std::min(sine_group, dev.max_work_group);
  return {group, sine_halves || longest > group * sine_elements(real_bytes, false)};
}

std::size_t max_sine_length(const Device& dev, std::size_t sine_group, std::size_t real_bytes) {
  if (sine_group > dev.max_work_group) return 0;
  // a work-group's entries: 2 reals each as complex entries, 1 in halves
  for (const bool halves : {true, false}) {
    const std::size_t N = sine_group * sine_elements(real_bytes, halves);
    if (N * (halves ? 1 : 2) * real_bytes <= dev.local_mem) return N;
  }
  return 0;
}

SineTransform::SineTransform(Runtime& rt, int n, const std::vector<double>& scale, SineShape shape,
                             std::size_t real_bytes, bool complex, bool fourier)
    : rt_(rt), n_(n), N_(fft_length(n, fourier)), fourier_(fourier), group_(shape.group), real_bytes_(real_bytes),
      halves_(shape.halves), parts_(complex ? 2 : 1) {
  const std::size_t group = group_;
  const int N = N_;
  if (N < 4 || (N & (N - 1)) != 0 || scale.size() != std::size_t(n) || (fourier && n % 2 != 0))
    throw std::logic_error("sine transform: its length (n + 1, or n / 2 for Fourier) is not a power of two >= 4, "
                           "or the scales do not match n");
  const std::size_t E = sine_elements(real_bytes, halves_);
  if (std::size_t(N) > group * E) throw std::logic_error("sine transform: longer than a work-group holds");
  group_columns_ = std::min(group, group * E / std::size_t(N));
  // each real column: a complex FFT of N points (5 flops per point and
  // stage) and about 12 flops per entry unfolding it
  int log2_n = 0;
  while ((1 << log2_n) < N) ++log2_n;
  column_flops_ = 5.0 * N * log2_n + 12.0 * N;
  if (real_bytes == sizeof(double)) {
    table_ = rt.upload(table_of<double>(N), "sine-transform table");
    scale_ = rt.upload(scale, "sine-transform scales");
  } else {
    table_ = rt.upload(table_of<float>(N), "sine-transform table");
    scale_ = rt.upload(std::vector<float>(scale.begin(), scale.end()), "sine-transform scales");
  }
}

void SineTransform::apply(cl_mem x, std::size_t columns, std::size_t stride_j, std::size_t batches,
                          std::size_t stride_b, bool to_modes, cl_mem nonfinite) const {
  // a complex array's columns are its real and imaginary parts, side by side
  launch(x, columns * parts_, stride_j * parts_, 1, batches, stride_b * parts_, to_modes, nonfinite);
}

void SineTransform::apply_lines(cl_mem x, std::size_t lines, std::size_t line_stride, bool to_modes,
                                cl_mem nonfinite) const {
  if (parts_ != 1) throw std::logic_error("sine transform: contiguous lines of a complex array");
  launch(x, lines, 1, line_stride, 1, 0, to_modes, nonfinite);
}

void SineTransform::launch(cl_mem x, std::size_t cols, std::size_t stride_j, std::size_t stride_c,
                           std::size_t batches, std::size_t stride_b, bool to_modes, cl_mem nonfinite) const {
  const std::size_t N = std::size_t(N_), C = group_columns_;
  // every entry read and written once
  rt_.count(column_flops_ * double(cols * batches) / (parts_ == 2 ? 4.0 : 1.0),
            2.0 * double(n_) * double(cols / parts_) * double(batches));
  rt_.launch(fourier_ ? "fourier_transform" : "sine_transform", 2, {(cols + C - 1) / C * group_, batches, 1},
             {group_, 1, 1}, x, int(N), int(cols), int(C), int(stride_j), cl_ulong(stride_c), cl_ulong(stride_b),
             table_.get(), scale_.get(), to_modes ? 0 : 1, LocalBytes{(halves_ ? 1 : 2) * N * C * real_bytes_},
             nonfinite ? nonfinite : table_.get(), nonfinite ? 1 : 0);
}

}  // namespace pscr::ocl
