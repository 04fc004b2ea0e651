#include "sine_transform.hpp"

#include <cmath>
#include <stdexcept>

namespace pscr::ocl {

namespace {

// Columns per work-group: as many as fill 128 bytes of a row (a full line of
// every access) and fit local memory with the scan's scratch.
std::size_t group_columns(const Device& dev, std::size_t N, std::size_t real_bytes, std::size_t columns) {
  std::size_t C = 1;
  while (2 * C * real_bytes <= 128 && C < columns && (2 * C * N + kSineGroup) * real_bytes <= dev.local_mem) C *= 2;
  return C;
}

// sin(π p / q) with the argument reduced to [0, π/2] exactly (as the planner's
// closed forms), in long double.
long double sin_pi(long long p, long long q) {
  long long r = p % (2 * q);
  long double sign = 1;
  if (r >= q) {
    r -= q;
    sign = -1;
  }
  if (2 * r > q) r = q - r;
  return sign * std::sin(3.14159265358979323846264338327950288L * static_cast<long double>(r) / q);
}

template <class R> std::vector<R> table_of(int N) {
  // (cos πj/N, sin πj/N), j < N; cos πj/N = sin(π(N − 2j) / 2N)
  std::vector<R> t(2 * std::size_t(N));
  for (int j = 0; j < N; ++j) {
    t[2 * std::size_t(j)] = R(sin_pi(N - 2LL * j, 2LL * N));
    t[2 * std::size_t(j) + 1] = R(sin_pi(j, N));
  }
  return t;
}

}  // namespace

std::size_t max_sine_length(const Device& dev, std::size_t real_bytes) {
  std::size_t N = 0;
  for (std::size_t m = 4; (m + kSineGroup) * real_bytes <= dev.local_mem && m <= (std::size_t(1) << 20); m *= 2) N = m;
  return N;
}

SineTransform::SineTransform(Runtime& rt, int n, const std::vector<double>& scale, std::size_t real_bytes,
                             bool complex)
    : rt_(rt), n_(n), real_bytes_(real_bytes), parts_(complex ? 2 : 1) {
  const int N = n + 1;
  if (N < 4 || (N & (N - 1)) != 0 || scale.size() != std::size_t(n))
    throw std::logic_error("sine transform: n + 1 is not a power of two >= 4, or the scales do not match n");
  if (real_bytes == sizeof(double)) {
    table_ = rt.upload(table_of<double>(N), "sine-transform table");
    scale_ = rt.upload(scale, "sine-transform scales");
  } else {
    table_ = rt.upload(table_of<float>(N), "sine-transform table");
    scale_ = rt.upload(std::vector<float>(scale.begin(), scale.end()), "sine-transform scales");
  }
}

void SineTransform::apply(cl_mem x, std::size_t columns, std::size_t stride_j, std::size_t batches,
                          std::size_t stride_b, bool to_modes) const {
  const std::size_t N = std::size_t(n_) + 1, cols = columns * parts_;
  const std::size_t C = group_columns(rt_.device(), N, real_bytes_, cols);
  int log2_half = 0;
  while ((std::size_t(2) << log2_half) < N) ++log2_half;
  // each real column: a complex FFT of N/2 points (5 flops per point and
  // stage) and about 12 flops per entry folding and unfolding it; read and
  // written once
  const double per_column = 2.5 * double(N) * log2_half + 12.0 * double(N);
  rt_.count(per_column * double(cols * batches) / (parts_ == 2 ? 4.0 : 1.0), 2.0 * double(n_) * columns * batches);
  rt_.launch("sine_transform", 2, {(cols + C - 1) / C * kSineGroup, batches, 1}, {kSineGroup, 1, 1}, x, int(N),
             log2_half, int(cols), int(C), int(stride_j * parts_), cl_ulong(stride_b * parts_), table_.get(),
             scale_.get(), to_modes ? 0 : 1, LocalBytes{N * C * real_bytes_}, LocalBytes{kSineGroup * real_bytes_});
}

}  // namespace pscr::ocl
