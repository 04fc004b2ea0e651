#include "null_space_projection.hpp"

#include <algorithm>
#include <complex>

#include "../neumann_weights.hpp"

namespace pscr::ocl {

namespace {
constexpr std::size_t kFan = 64;  // entries a work-item adds per stage
constexpr std::size_t kFirstStage = 65536;  // work-items (pairs) of the first stage
}  // namespace

template <class T> NullSpaceProjection<T>::NullSpaceProjection(Runtime& rt, const Problem<T>& problem)
    : rt_(&rt), n_(problem.unknowns()) {
  const int D = problem.dims();
  n2_ = D > 1 ? problem.size(1) : 1;
  n3_ = D > 2 ? problem.size(2) : 1;
  for (int d = 0; d < 3; ++d) {
    std::vector<real_t<T>> w{1};
    if (d < D) {
      const std::vector<double> row = mass_row_sums(problem.factor(d));
      w.assign(row.begin(), row.end());
    }
    weights_[d] = rt.upload(w, "null-space weights");
  }
  weight_sum_ = mass_weight_sum(problem);
  scratch_[0] = rt.alloc(2 * kFirstStage * sizeof(T), "null-space sums");
  scratch_[1] = rt.alloc(2 * (kFirstStage / kFan) * sizeof(T), "null-space sums");
}

template <class T> cl_mem NullSpaceProjection<T>::sums(cl_mem x, bool weighted) const {
  std::size_t m = std::min(kFirstStage, (n_ + kFan - 1) / kFan);
  rt_->count(2.0 * double(n_), double(n_));
  rt_->run("null_space_partials", 256, {m}, x, cl_ulong(n_), weights_[0].get(), weights_[1].get(), weights_[2].get(),
           n2_, n3_, weighted ? 1 : 0, cl_ulong(m), scratch_[0].get());
  int cur = 0;
  while (m > 1) {
    const std::size_t next = (m + kFan - 1) / kFan;
    rt_->run("pair_sums", 256, {next}, scratch_[cur].get(), cl_ulong(m), cl_ulong(next), scratch_[1 - cur].get());
    m = next;
    cur = 1 - cur;
  }
  return scratch_[cur].get();
}

template <class T> void NullSpaceProjection<T>::subtract(cl_mem x, cl_mem totals, double scale) const {
  rt_->run("subtract_mean", 256, {std::min(n_, kFirstStage)}, x, cl_ulong(n_), totals, real_t<T>(scale));
}

template <class T> cl_mem NullSpaceProjection<T>::project_rhs(cl_mem x) const {
  const cl_mem totals = sums(x, false);
  subtract(x, totals, 1.0 / double(n_));
  return totals;
}

template <class T> void NullSpaceProjection<T>::remove_weighted_mean(cl_mem x) const {
  subtract(x, sums(x, true), 1.0 / weight_sum_);
}

template class NullSpaceProjection<float>;
template class NullSpaceProjection<double>;
template class NullSpaceProjection<std::complex<float>>;
template class NullSpaceProjection<std::complex<double>>;

}  // namespace pscr::ocl
