#include "transformed_solve.hpp"

#include <algorithm>
#include <complex>

#include "transpose.hpp"

namespace pscr::ocl {

template <class T> std::size_t TransformedSolve<T>::line_count(const planner::PlanData<T>& pd) {
  std::size_t lines = 1;
  for (const auto& dp : pd.dims) lines *= std::size_t(dp.layout.n);
  return lines;
}

template <class T>
SineShape TransformedSolve<T>::shape(const Device& dev, const KernelParameters& p, const planner::PlanData<T>& pd) {
  const std::size_t group = std::min(std::size_t(p.sine_group), dev.max_work_group);
  std::size_t longest = 0;
  for (std::size_t d = 0; d < pd.dims.size(); ++d) {  // the leading dimensions
    const bool fourier = pd.dims[d].method == planner::DimensionMethod::fourier_transform;
    longest = std::max(longest, group_length(std::size_t(SineTransform::fft_length(pd.dims[d].layout.n, fourier)),
                                             fourier, group, p.sine_split != 0, sizeof(real_t<T>)));
  }
  return sine_shape(dev, group, p.sine_halves != 0, p.sine_split != 0, longest, sizeof(real_t<T>));
}

template <class T>
std::vector<T> TransformedSolve<T>::line_shift_values(const planner::PlanData<T>& pd,
                                                      const std::vector<std::unique_ptr<SineTransform>>& transforms) {
  const std::size_t count = line_count(pd);
  std::vector<T> sigma(count, pd.problem.c());
  std::size_t block = count;  // lines per mode of dimension d
  for (std::size_t d = 0; d < pd.dims.size(); ++d) {
    const auto& lambda = pd.dims[d].eigen[0].lambda;
    const auto modes = transforms.at(d)->modes();
    block /= lambda.size();
    for (std::size_t l = 0; l < count; ++l) sigma[l] += lambda[modes[l / block % lambda.size()]];
  }
  return sigma;
}

template <class T>
TransformedSolve<T>::TransformedSolve(Runtime& rt, const planner::PlanData<T>& pd, const TridiagonalSolver& lines,
                                      SineShape shape)
    : rt_(rt), lines_(lines), n_last_(pd.problem.size(pd.problem.dims() - 1)) {
  const int D = pd.problem.dims();
  const std::size_t count = line_count(pd);
  std::size_t before = 1;
  for (int d = 0; d + 1 < D; ++d) {
    const auto& dp = pd.dims[std::size_t(d)];
    transforms_.push_back(std::make_unique<SineTransform>(rt, dp.layout.n, dp.transform_scale, shape,
                                                          sizeof(real_t<T>), is_complex_v<T>,
                                                          dp.method == planner::DimensionMethod::fourier_transform));
    before *= std::size_t(dp.layout.n);
    n_.push_back(std::size_t(dp.layout.n));
    R_.push_back(pd.problem.unknowns() / before);
  }
  line_sigma_ = rt.upload(line_shift_values(pd, transforms_), "shift buffer");
  // pure Neumann (periodic leading dimensions): the line of every leading
  // dimension's constant mode, σ = 0, is the singular one, pinned
  std::vector<int> pinned(count, 0);
  if (pd.pure_neumann) {
    std::size_t line = 0;
    for (std::size_t d = 0; d < pd.dims.size(); ++d) {
      const auto modes = transforms_[d]->modes();
      const std::size_t zero = std::size_t(std::max(pd.dims[d].zero_mode, 0));
      line = line * modes.size() + std::size_t(std::find(modes.begin(), modes.end(), zero) - modes.begin());
    }
    pinned[line] = 1;
  }
  line_pinned_ = rt.upload(pinned, "flag buffer");
  if (!lines_.whole_lines()) row_lines_ = rt.alloc(pd.problem.unknowns() * sizeof(T), "line buffer");
}

// Each leading dimension to its modes in place (dimension 1 first:
// X[l1][j2][j3], then X[l1][l2][j3]), the lines, and back.
template <class T> void TransformedSolve<T>::solve(cl_mem X, cl_mem nonfinite) const {
  std::size_t before = 1;  // the blocks dimension d is transformed in
  for (std::size_t d = 0; d < transforms_.size(); ++d) {
    transforms_[d]->apply(X, R_[d], R_[d], before, n_[d] * R_[d], true);
    before *= n_[d];
  }
  const int lines = int(before);
  if (lines_.whole_lines()) {
    lines_.solve(X, lines, line_sigma_.get(), line_pinned_.get());
  } else {
    transpose(rt_, X, row_lines_.get(), before, n_last_);
    lines_.solve(row_lines_.get(), lines, line_sigma_.get(), line_pinned_.get());
    transpose(rt_, row_lines_.get(), X, n_last_, before);
  }
  for (std::size_t d = transforms_.size(); d-- > 0;) {
    before /= n_[d];
    // the last transform writes the solution: it flags non-finite values
    transforms_[d]->apply(X, R_[d], R_[d], before, n_[d] * R_[d], false, d == 0 ? nonfinite : nullptr);
  }
}

template class TransformedSolve<float>;
template class TransformedSolve<double>;
template class TransformedSolve<std::complex<float>>;
template class TransformedSolve<std::complex<double>>;

}  // namespace pscr::ocl
