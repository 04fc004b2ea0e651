#include "sine_transform.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "../sin_pi.hpp"

namespace pscr::ocl {

namespace {

// (cos πj/N, sin πj/N), j < 2N, in long double rounded once to R; with
// quarter, then (cos πj/(4N), sin πj/(4N)), j < 2N (sine_odd_modes, whose
// FFT of length N serves a cosine transform of 2N).
template <class R> std::vector<R> table_of(int N, bool quarter = false) {
  std::vector<R> t;
  t.reserve(2 * std::size_t(quarter ? 4 * N : 2 * N));
  for (int j = 0; j < 2 * N; ++j) {
    t.push_back(R(cos_pi<long double>(j, N)));
    t.push_back(R(sin_pi<long double>(j, N)));
  }
  for (int j = 0; quarter && j < 2 * N; ++j) {
    t.push_back(R(cos_pi<long double>(j, 4 * N)));
    t.push_back(R(sin_pi<long double>(j, 4 * N)));
  }
  return t;
}

}  // namespace

std::size_t group_length(std::size_t N, bool fourier, std::size_t group, bool split_all, std::size_t real_bytes) {
  const bool split = !fourier && (N > group * sine_elements(real_bytes, true) || (split_all && N >= kSplitFrom));
  // split: the odd half's FFT of N / 4, and the even half's transform of N / 2,
  // itself split where it is still too long
  return split ? std::max(N / 4, group_length(N / 2, false, group, false, real_bytes)) : N;
}

SineShape sine_shape(const Device& dev, std::size_t sine_group, bool sine_halves, bool split_all, std::size_t reach,
                     std::size_t real_bytes) {
  const std::size_t group = std::min(sine_group, dev.max_work_group);
  return {group, sine_halves || reach > group * sine_elements(real_bytes, false), split_all};
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

std::string sine_group_shortfall(Runtime& rt, std::size_t group) {
  for (const char* k : {"sine_transform", "fourier_transform", "sine_odd_modes"})
    if (rt.max_group(k) < group)
      return "sine_group = " + std::to_string(group) + " work-items, and " + rt.device().name + " allows " +
             std::to_string(rt.max_group(k)) + " for " + k;
  return {};
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
  const int longest = int(group_length(std::size_t(N), fourier, group, shape.split_all, real_bytes));
  const bool split = longest < N;  // the longest FFT a work-group takes at any step
  if (std::size_t(longest) > group * E)
    throw std::logic_error("sine transform: longer than four times a work-group holds");
  // this launch's FFT: N, or the odd half's N / 4 where split
  const int L = split ? N / 4 : N;
  group_columns_ = std::min(group, group * E / std::size_t(L));
  // each real column: a complex FFT of L points (5 flops per point and
  // stage) and about 12 flops per entry unfolding it (split: the odd
  // half's, 2L entries; the even half counts its own)
  int log2_n = 0;
  while ((1 << log2_n) < L) ++log2_n;
  column_flops_ = 5.0 * L * log2_n + 12.0 * (split ? 2 * L : L);
  std::vector<double> half_scale = scale;
  if (split) {
    // the even modes 2k (scale index 2k − 1) to a transform of half the
    // length; the odd ones 2k + 1 (index 2k) to sine_odd_modes
    std::vector<double> even;
    half_scale.clear();
    for (int i = 0; i < n; ++i) (i % 2 ? even : half_scale).push_back(scale[std::size_t(i)]);
    // split_all asks one step; a half still too long splits again
    SineShape half_shape = shape;
    half_shape.split_all = false;
    even_ = std::make_unique<SineTransform>(rt, N / 2 - 1, even, half_shape, real_bytes, complex, false);
  }
  if (real_bytes == sizeof(double)) {
    table_ = rt.upload(table_of<double>(L, split), "sine-transform table");
    scale_ = rt.upload(half_scale, "sine-transform scales");
  } else {
    table_ = rt.upload(table_of<float>(L, split), "sine-transform table");
    scale_ = rt.upload(std::vector<float>(half_scale.begin(), half_scale.end()), "sine-transform scales");
  }
}

std::vector<std::size_t> SineTransform::modes() const {
  std::vector<std::size_t> m(static_cast<std::size_t>(n_));
  const std::size_t M = std::size_t(N_) / 2;
  if (!even_) {
    for (std::size_t p = 0; p < m.size(); ++p) m[p] = p;
    return m;
  }
  // position p < M − 1 holds the even half's mode at p, k' (0-based), i.e. mode 2(k' + 1)
  const auto half = even_->modes();
  for (std::size_t p = 0; p < m.size(); ++p) m[p] = p + 1 < M ? 2 * half[p] + 1 : 2 * (p + 1 - M);
  return m;
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

void SineTransform::launch_butterfly(cl_mem x, std::size_t cols, std::size_t stride_j, std::size_t stride_c,
                                     std::size_t batches, std::size_t stride_b, bool to_modes,
                                     cl_mem nonfinite) const {
  const std::size_t M = std::size_t(N_) / 2, group = 64;
  const bool j_first = stride_c != 1;  // contiguous lines: neighbours along j
  const std::size_t along = j_first ? M : cols, across = j_first ? cols : M;
  rt_.count(2.0 * double(M) * double(cols * batches) / (parts_ == 2 ? 4.0 : 1.0),
            2.0 * double(n_) * double(cols / parts_) * double(batches));
  rt_.launch("sine_butterfly", 3, {(along + group - 1) / group * group, across, batches}, {group, 1, 1}, x, int(M),
             int(cols), int(stride_j), cl_ulong(stride_c), cl_ulong(stride_b), j_first ? 1 : 0, to_modes ? 0 : 1,
             nonfinite ? nonfinite : table_.get(), nonfinite ? 1 : 0);
}

void SineTransform::launch(cl_mem x, std::size_t cols, std::size_t stride_j, std::size_t stride_c,
                           std::size_t batches, std::size_t stride_b, bool to_modes, cl_mem nonfinite) const {
  if (even_) {
    // the butterfly, the even and the odd modes' halves; from modes the reverse
    const std::size_t M = std::size_t(N_) / 2, C = group_columns_;
    if (to_modes) launch_butterfly(x, cols, stride_j, stride_c, batches, stride_b, true, nullptr);
    even_->launch(x, cols, stride_j, stride_c, batches, stride_b, to_modes, nullptr);
    rt_.count(column_flops_ * double(cols * batches) / (parts_ == 2 ? 4.0 : 1.0),
              2.0 * double(M) * double(cols / parts_) * double(batches));
    rt_.launch("sine_odd_modes", 2, {(cols + C - 1) / C * group_, batches, 1}, {group_, 1, 1}, x,
               cl_ulong((M - 1) * stride_j), int(M / 2), int(cols), int(C), int(stride_j), cl_ulong(stride_c),
               cl_ulong(stride_b), table_.get(), scale_.get(), to_modes ? 0 : 1,
               LocalBytes{(halves_ ? 1 : 2) * (M / 2) * C * real_bytes_});
    if (!to_modes) launch_butterfly(x, cols, stride_j, stride_c, batches, stride_b, false, nonfinite);
    return;
  }
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
