#include "pscr/plan.hpp"

#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <shared_mutex>
#include <sstream>

#include "neumann_weights.hpp"
#include "finite_scan.hpp"
#include "plan_description.hpp"
#include "plan_impl.hpp"
#include "pscr/errors.hpp"
#include "size_product.hpp"
#include "stopwatch.hpp"
#include "opencl/opencl_executor.hpp"
#include "reference/executor.hpp"

namespace pscr {
namespace {

// A non-finite value at index i of a batch of `count` right-hand sides of n
// unknowns: the index into the caller's array, and in a batch the right-hand
// side it lies in (as a plan split over devices names it: device_split.cpp).
NonFiniteInput nonfinite_rhs(std::size_t i, std::size_t n, std::size_t count) {
  const std::string which = count > 1 ? "right-hand side " + std::to_string(i / n) + " of the batch" : "right-hand side";
  return NonFiniteInput(which + ": non-finite value at index " + std::to_string(i));
}

// A solution's non-finite value, named (after a solve, or after refinement).
template <class T> void check_solution(const T* u, std::size_t n) {
  if (const std::size_t i = first_nonfinite(u, n); i < n)
    throw NumericalBreakdown("solve produced a non-finite value at index " + std::to_string(i) +
                             " (zero pivot in a tridiagonal solve or overflow)");
}

}  // namespace

namespace {

// What PlanInfo says of the plan's data and executor (once made, and after
// set_parameters replaces them); radix: the plan's choice (plan_choice).
template <class T> void describe_plan(typename Plan<T>::Impl& m, int radix) {
  planner::measure_elimination_growth(m.data, m.exec->line_elimination());
  describe_plan_data(m.data, radix, m.info);
  m.exec->describe(m.info);
}

}  // namespace

template <class T> Plan<T>::Plan(const Problem<T>& problem, const Options& options) {
  check_options(options);
  const auto t0 = clock_type::now();
  const PlanChoice choice = plan_choice(problem, options);
  const auto t1 = clock_type::now();
  impl_ = std::make_unique<Impl>(problem, options, choice);
  impl_->info.eigen_seconds = seconds_since(t1);
  switch (options.backend) {
    case Backend::reference: impl_->exec = make_reference_executor(impl_->data, options.threads); break;
    case Backend::opencl: impl_->exec = make_opencl_executor(impl_->data, options); break;
  }
  if (options.refine > 0) impl_->wide = std::make_unique<Problem<wide_t<T>>>(problem.template cast<wide_t<T>>());
  if (impl_->data.pure_neumann) {
    impl_->neumann_weights = mass_weights(impl_->data.problem);
    impl_->neumann_weight_sum = mass_weight_sum(impl_->data.problem);
  }
  describe_plan<T>(*impl_, choice.radix);  // (the lines' growth measured: part of the plan's time)
  impl_->info.init_seconds = seconds_since(t0);
}

template <class T> Plan<T>::~Plan() = default;
template <class T> Plan<T>::Plan(Plan&&) noexcept = default;
template <class T> Plan<T>& Plan<T>::operator=(Plan&&) noexcept = default;

template <class T> const PlanInfo& Plan<T>::info() const { return impl_->info; }
template <class T> std::vector<KernelTime> Plan<T>::kernel_times() const {
  std::shared_lock<PlanLock> shared(impl_->lock);
  return impl_->exec->kernel_times();
}
template <class T> void Plan<T>::set_profiling(bool on) {
  std::shared_lock<PlanLock> shared(impl_->lock);  // the executor orders it with its solves
  impl_->exec->set_profiling(on);
}
template <class T> std::string Plan<T>::check_parameters(const KernelParameters& p) const {
  std::shared_lock<PlanLock> shared(impl_->lock);
  return impl_->exec->check_parameters(p);
}
template <class T> void Plan<T>::set_parameters(const KernelParameters& p) {
  Impl& m = *impl_;
  // waits for the solves in progress; later ones wait for the new executor
  std::lock_guard<PlanLock> exclusive(m.lock);
  const std::string why = m.exec->check_parameters(p);
  if (!why.empty()) throw InvalidArgument("set_parameters: " + why);
  Options o = m.options;
  o.parameters = p;
  // Same queue, so the same context: the caller's buffers stay valid (a
  // plan on several devices is rebuilt on the same devices instead).
  if (!o.opencl_queue && m.exec->device_count() == 1) o.opencl_queue = m.exec->opencl_queue();
  const auto t0 = clock_type::now();
  // Another radix, dimension 1 in one level or transforms on or off is
  // another layout and eigen data: made beside the plan's and swapped in, so
  // that the new executor refers to the plan's own; the old data (previous)
  // outlives the old executor.
  const PlanChoice choice = plan_choice(m.data.problem, o);
  std::optional<planner::PlanData<T>> previous;
  double eigen_seconds = 0;
  if (!(choice == m.choice)) {
    previous.emplace(plan_data(m.data.problem, o, choice));
    eigen_seconds = seconds_since(t0);
    std::swap(m.data, *previous);
  }
  std::unique_ptr<Executor<T>> exec;
  try {
    exec = make_opencl_executor(m.data, o);
  } catch (...) {
    if (previous) std::swap(m.data, *previous);  // the plan unchanged
    throw;
  }
  m.exec = std::move(exec);  // the old executor goes before the data it ran on (previous)
  m.options.parameters = p;
  m.choice = choice;
  if (previous) {  // as a new plan's
    m.info.eigen_seconds = eigen_seconds;
    m.info.init_seconds = seconds_since(t0);
  }
  describe_plan<T>(m, choice.radix);
}
template <class T> const Problem<T>& Plan<T>::problem() const { return impl_->data.problem; }

template <class T> SolveStats Plan<T>::solve(const T* f, T* u) const { return solve_batch(f, u, 1); }

template <class T> SolveStats Plan<T>::solve_batch(const T* f, T* u, std::size_t count) const {
  if (count == 0) return {};  // an empty batch solves nothing; f and u may then be null
  if (!f || !u) throw InvalidArgument("solve: null array");
  // set_parameters waits for this solve, and this solve for it
  std::shared_lock<PlanLock> shared(impl_->lock);
  using W = wide_t<T>;
  const std::size_t N = impl_->data.problem.unknowns();
  const int steps = impl_->options.refine;
  // the batch's entries, and the bytes of the widest copy made of them, fit size_t
  size_product({N, count, steps > 0 ? sizeof(W) : sizeof(T)}, "solve: unknowns × right-hand sides × bytes per scalar");
  // in place, or apart: a partial overlap would read right-hand sides that
  // earlier solutions have overwritten (compared as addresses, std::less)
  if (u != f && std::less<const T*>()(f, u + N * count) && std::less<const T*>()(u, f + N * count))
    throw InvalidArgument("solve: u overlaps f without being f (in place is u == f)");
  if (steps == 0) return solve_once(f, u, count);
  const auto t0 = clock_type::now();
  std::vector<W> fw(f, f + N * count);  // before u (which may alias f) is overwritten
  // A near-singular elimination (a pivot below sqrt(eps)) loses more than
  // half the digits of one solve; refinement may still recover them, so its
  // report is held until the last correction says whether it did. The
  // backends throw it after writing their solution. (Pure Neumann problems
  // keep the report: their projections follow the solve.)
  std::string held;
  auto solve = [&](const T* in, T* out) {
    try {
      return solve_once(in, out, count);
    } catch (const NearSingularElimination& e) {
      // nothing to refine from a non-finite solution
      if (impl_->data.pure_neumann || first_nonfinite(out, N * count) < N * count) throw;
      if (held.empty()) held = e.what();
      return SolveStats{};
    }
  };
  SolveStats st = solve(f, u);
  std::vector<W> uw(u, u + N * count), aw(N);
  std::vector<T> r(N * count), d(N * count);
  double last_correction = 0;  // ‖d‖ / ‖u‖ of the last step
  for (int s = 0; s < steps; ++s) {
    for (std::size_t c = 0; c < count; ++c) {
      impl_->wide->apply(uw.data() + c * N, aw.data());
      for (std::size_t i = 0; i < N; ++i) r[c * N + i] = T(fw[c * N + i] - aw[i]);
    }
    // the projection and the zero weighted mean apply to the correction too
    const SolveStats sd = solve(r.data(), d.data());
    st.transfer_seconds += sd.transfer_seconds;
    double dn = 0, un = 0;
    for (std::size_t i = 0; i < N * count; ++i) {
      uw[i] += W(d[i]);
      dn += std::norm(W(d[i]));
      un += std::norm(uw[i]);
    }
    last_correction = un > 0 ? std::sqrt(dn / un) : 0;
  }
  for (std::size_t i = 0; i < N * count; ++i) u[i] = T(uw[i]);
  const double limit = std::sqrt(double(std::numeric_limits<real_t<T>>::epsilon()));
  if (!held.empty()) {
    if (!(last_correction <= limit)) {
      std::ostringstream os;
      os << held << "; iterative refinement (" << steps << " steps) did not recover them: its last correction was "
         << last_correction << " of the solution (needs <= sqrt(eps) = " << limit << ")";
      throw NumericalBreakdown(os.str());
    }
  }
  check_solution(u, N * count);
  st.seconds = seconds_since(t0);
  // the plan's warning holds unless the corrections show the digits recovered
  st.warning.clear();
  if (!impl_->info.warning.empty() && !(last_correction <= limit)) {
    std::ostringstream os;
    os << impl_->info.warning << " (after " << steps << " refinement steps the last correction was "
       << last_correction << " of the solution)";
    st.warning = os.str();
  }
  return st;
}

template <class T> SolveStats Plan<T>::solve_once(const T* f, T* u, std::size_t count) const {
  const auto t0 = clock_type::now();
  const std::size_t N = impl_->data.problem.unknowns();
  // A backend that reads f itself (OpenCL: through page-locked staging,
  // checking it on the way) needs no copy of it here; pure-Neumann problems
  // project f on the host first.
  if (!impl_->data.pure_neumann) {
    HostSolveResult r;
    if (impl_->exec->solve_host(f, u, count, r)) {
      if (r.bad_input != std::size_t(-1))
        throw nonfinite_rhs(r.bad_input, N, count);
      if (r.nonfinite_output) {
        check_solution(u, N * count);  // names the index
        throw NumericalBreakdown("solve produced a non-finite value (zero pivot in a tridiagonal solve or overflow)");
      }
      SolveStats st = r.stats;
      st.seconds = seconds_since(t0);
      st.warning = impl_->info.warning;
      return st;
    }
  }
  if (const std::size_t i = first_nonfinite(f, N * count); i < N * count) throw nonfinite_rhs(i, N, count);
  if (u != f) std::memmove(u, f, N * count * sizeof(T));
  SolveStats st;
  const auto in_one_process = [](double*, int) {};
  if (impl_->data.pure_neumann)  // solve the compatible part
    for (std::size_t c = 0; c < count; ++c)
      st.incompatible_part = std::max(st.incompatible_part, remove_mean(u + c * N, N, double(N), in_one_process));
  HostSolveResult r;  // u is finite: no bad input; its solutions are checked below
  if (impl_->exec->solve_host(u, u, count, r)) {
    const double incompatible = st.incompatible_part;
    st = r.stats;
    st.incompatible_part = incompatible;
  } else {
    st.transfer_seconds = impl_->exec->solve_in_place(u, count);
  }
  if (impl_->data.pure_neumann)
    for (std::size_t c = 0; c < count; ++c)
      remove_weighted_mean(u + c * N, impl_->neumann_weights.data(), N, impl_->neumann_weight_sum, in_one_process);
  check_solution(u, N * count);
  st.seconds = seconds_since(t0);
  st.warning = impl_->info.warning;
  return st;
}

template class Plan<float>;
template class Plan<double>;
template class Plan<std::complex<float>>;
template class Plan<std::complex<double>>;

}  // namespace pscr
