#include "solve_flags.hpp"

#include <algorithm>
#include <complex>
#include <sstream>

#include "../executor.hpp"
#include "cl_check.hpp"

namespace pscr::ocl {

template <class T> SolveFlags<T>::SolveFlags(Runtime& rt, int dims) : rt_(&rt), dims_(dims) {
  flags_ = rt.alloc(kFlagsShiftOffset + sizeof(T), "flags");
}

template <class T> void SolveFlags<T>::clear() const {
  if (zero_at_ == rt_->launches()) return;
  static const int zero[2] = {0, 0};
  check(clEnqueueWriteBuffer(rt_->queue(), flags_.get(), CL_FALSE, 0, sizeof zero, zero, 0, nullptr, nullptr),
        "clEnqueueWriteBuffer (flags)");
  zero_at_ = rt_->launches();
}

template <class T> void SolveFlags<T>::scan(cl_mem x, std::size_t begin, std::size_t end) const {
  const std::size_t items = std::clamp<std::size_t>(round_up((end - begin + 3) / 4, 256), 256, std::size_t(1) << 20);
  rt_->run("find_nonfinite", 256, {items}, x, cl_ulong(begin), cl_ulong(end), flags_.get());
}

template <class T> std::array<int, 2> SolveFlags<T>::read() const {
  std::array<int, 2> flags{0, 0};
  rt_->read(flags_.get(), flags.data(), sizeof flags);
  zero_at_ = flags[0] == 0 && flags[1] == 0 ? rt_->launches() : kUnknown;
  return flags;
}

template <class T> bool SolveFlags<T>::nonfinite(cl_mem x, std::size_t begin, std::size_t end) const {
  const int zero = 0;
  rt_->write(flags_.get(), &zero, sizeof zero);
  zero_at_ = kUnknown;  // flag 1 is not read here
  scan(x, begin, end);
  int bad = 0;
  rt_->read(flags_.get(), &bad, sizeof bad);
  return bad != 0;
}

template <class T> void SolveFlags<T>::raise(const std::array<int, 2>& flags, bool scanned) const {
  if (scanned && flags[0])
    throw NumericalBreakdown("device solve produced a non-finite value (non-finite right-hand side, zero pivot or overflow)");
  if (flags[1] > 0) throw NearSingularElimination(near_singular());
}

template <class T> std::string SolveFlags<T>::near_singular() const {
  const std::array<int, 2> flags = read();
  if (flags[1] <= 0) return "";
  T sigma{};
  rt_->read_at(flags_.get(), kFlagsShiftOffset, &sigma, sizeof sigma);
  std::ostringstream os;
  os << "near-singular tridiagonal system (A" << dims_ << " + sigma M" << dims_ << ") with shift sigma = " << sigma
     << ": a pivot below sqrt(eps) of the terms it was formed from (the elimination does not pivot), so more "
        "than half the digits are lost; c is close to a sum of eigenvalues of the factor pencils (the operator "
        "is nearly singular), or the system is indefinite";
  return os.str();
}

template class SolveFlags<float>;
template class SolveFlags<double>;
template class SolveFlags<std::complex<float>>;
template class SolveFlags<std::complex<double>>;

}  // namespace pscr::ocl
