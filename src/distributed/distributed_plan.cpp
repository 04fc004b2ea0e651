// The distributed backend: radix-q PSCR over the first dimension with its
// rows split into slabs, one per rank (docs/distributed.md).
//
// Each level of the reduction and of the back substitution is one phase:
//   1. inputs: the rows a group's partial solutions read (its sources, and in
//      the back substitution the final rows u_{s−1}, u_{e+1} around it) go
//      from the ranks holding them to the ranks computing the group;
//   2. every rank computes its share of the modes of its groups
//      (reference::LevelSolver, from row pointers and a mode range);
//   3. outputs: each share's partial sums over its modes (the first and last
//      rows for the survivors' update, or the sources' solution rows) go to
//      the ranks holding the rows they update, which add the shares in rank
//      order. With one rank this is the reference backend, bit for bit.
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <exception>
#include <sstream>

#include "../finite_scan.hpp"
#include "../neumann_weights.hpp"
#include "../stopwatch.hpp"
#include "../opencl/opencl_executor.hpp"
#include "../plan_impl.hpp"
#include "../size_product.hpp"
#include "pscr/distributed.hpp"
#include "pscr/errors.hpp"
#include "pscr/scalar.hpp"
#include "slab_executor.hpp"
#include "slabs.hpp"

namespace pscr {

Communicator::~Communicator() = default;

RowRange slab_rows(std::size_t n1, int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    throw InvalidArgument("slab_rows: rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " ranks");
  const std::size_t base = n1 / std::size_t(ranks), extra = n1 % std::size_t(ranks), p = std::size_t(rank);
  RowRange r;
  r.begin = p * base + std::min(p, extra);
  r.end = r.begin + base + (p < extra ? 1 : 0);
  return r;
}

namespace {

// FNV-1a over bytes: the problem and options every rank must share.
struct Hash {
  std::uint64_t h = 1469598103934665603ull;
  void add(const void* p, std::size_t n) {
    auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  template <class V> void add(const std::vector<V>& v) { add(v.data(), v.size() * sizeof(V)); }
};

// True on every rank when `flag` is set on some rank.
bool any(Communicator& c, bool flag) {
  double v = flag ? 1 : 0;
  c.max(&v, 1);
  return v > 0;
}

}  // namespace

template <class T> struct DistributedPlan<T>::Impl : distributed::SlabExecutor<T> {
  using distributed::SlabExecutor<T>::SlabExecutor;
};

template <class T>
DistributedPlan<T>::DistributedPlan(std::shared_ptr<Communicator> comm, const Problem<T>& problem,
                                    const Options& options) {
  if (!comm) throw InvalidArgument("DistributedPlan: null communicator");
  // Options every rank can check alone first (the same on every rank by contract).
  check_threads(options.threads);
  Options ranked = options;
  if (options.backend == Backend::opencl) {
    // rank r runs on device r mod (the number of devices listed)
    const std::vector<std::string> devices = opencl_devices(options);
    ranked.device = devices[std::size_t(comm->rank()) % devices.size()];
    ranked.devices.clear();
  }
  {
    // the automatic radix asks the rank's device: a failure there (a missing
    // device) must not leave the other ranks waiting
    std::exception_ptr failed;
    try {
      ranked.radix = plan_radix(problem, ranked);
    } catch (const Error&) {
      failed = std::current_exception();
    }
    if (any(*comm, failed != nullptr)) {
      if (failed) std::rethrow_exception(failed);
      throw BackendError("DistributedPlan: planning failed on another rank (its OpenCL device)");
    }
  }
  if (options.refine != 0) throw InvalidArgument("DistributedPlan: iterative refinement (Options::refine) is not supported");
  // The same problem and options on every rank.
  Hash h;
  for (auto& f : problem.factors())
    for (auto* t : {&f.A, &f.M}) {
      const std::size_t n = t->size();
      h.add(&n, sizeof n);
      h.add(t->diag);
      h.add(t->off);
    }
  const T c = problem.c();
  h.add(&c, sizeof c);
  const int opts[] = {ranked.radix, int(options.elimination), int(options.backend)};
  h.add(opts, sizeof opts);
  double parts[8];
  for (int p = 0; p < 4; ++p) {
    parts[p] = double((h.h >> (16 * p)) & 0xffff);
    parts[4 + p] = -parts[p];
  }
  comm->max(parts, 8);
  for (int p = 0; p < 4; ++p)
    if (parts[p] != -parts[4 + p])
      throw InvalidArgument("DistributedPlan: the problem or the options (radix, elimination, backend) differ between ranks");

  const auto t0 = clock_type::now();
  // planning is deterministic: a bad problem throws the same error on every rank
  impl_ = std::make_unique<Impl>(std::move(comm), problem, ranked, radix_free(options));
  Impl& m = *impl_;
  ranked.radix = m.dim().layout.radix;  // the automatic radix may have moved (planner::make_plan_data)
  DistributedInfo& info = m.info;
  info.plan.eigen_seconds = seconds_since(t0);
  info.ranks = m.comm->size();
  info.rank = m.comm->rank();
  info.rows = slab_rows(problem.size(0), info.ranks, info.rank);
  info.local_unknowns = info.rows.size() * m.R;
  m.derive_work();
  m.count_traffic();
  if (options.backend == Backend::opencl) {
    // a device that cannot be had fails on its rank alone: agree first
    m.derive_level_shares();
    std::string failed;
    try {
      m.device = make_slab_device(m.data, ranked, m.level_shares);
    } catch (const Error& e) {
      failed = e.what();
    }
    if (any(*m.comm, !failed.empty()))
      throw BackendError(failed.empty() ? "DistributedPlan: the OpenCL device of another rank failed"
                                        : "DistributedPlan: rank " + std::to_string(info.rank) + ": " + failed);
  }
  if (m.data.pure_neumann) {
    // this slab's rows of mass_weights(problem), multiplied in the same order
    std::vector<std::vector<double>> row_sums;
    for (int d = 0; d < problem.dims(); ++d) row_sums.push_back(mass_row_sums(problem.factor(d)));
    for (std::size_t j = info.rows.begin; j < info.rows.end; ++j) {
      std::vector<double> w{1.0 * row_sums[0][j]};
      for (int d = 1; d < problem.dims(); ++d) {
        std::vector<double> next;
        for (double a : w)
          for (double b : row_sums[d]) next.push_back(a * b);
        w.swap(next);
      }
      m.neumann_weights.insert(m.neumann_weights.end(), w.begin(), w.end());
    }
    m.neumann_weight_sum = mass_weight_sum(problem);
  }
  PlanInfo& pi = info.plan;
  pi.init_seconds = seconds_since(t0);
  pi.eigen_problems = m.data.eigen_problems;
  pi.host_bytes = m.data.bytes();
  pi.pure_neumann = m.data.pure_neumann;
  pi.elimination = m.data.excess_form ? "excess" : "ordinary";
  for (auto& dp : m.data.dims) pi.eigen_methods.push_back(dp.eigen_method);
  pi.radix = ranked.radix;
  pi.shift_amplification = m.data.shift_amplification;
  pi.predicted_error = m.data.predicted_error;
  pi.warning = m.data.warning;
  if (m.device) {
    m.device->describe(pi);
    pi.backend += " (distributed over " + std::to_string(info.ranks) + " ranks)";
  } else {
    pi.backend = "reference (distributed over " + std::to_string(info.ranks) + " ranks)";
    pi.line_solver = "thomas";
  }
}

template <class T> DistributedPlan<T>::~DistributedPlan() = default;
template <class T> DistributedPlan<T>::DistributedPlan(DistributedPlan&&) noexcept = default;
template <class T> DistributedPlan<T>& DistributedPlan<T>::operator=(DistributedPlan&&) noexcept = default;

template <class T> const DistributedInfo& DistributedPlan<T>::info() const { return impl_->info; }
template <class T> const Problem<T>& DistributedPlan<T>::problem() const { return impl_->data.problem; }
template <class T> RowRange DistributedPlan<T>::rows() const { return impl_->info.rows; }
template <class T> std::size_t DistributedPlan<T>::local_unknowns() const { return impl_->info.local_unknowns; }
template <class T> SolveStats DistributedPlan<T>::solve(const T* f, T* u) const { return solve_batch(f, u, 1); }

template <class T> SolveStats DistributedPlan<T>::solve_batch(const T* f, T* u, std::size_t count) const {
  const Impl& m = *impl_;
  Communicator& comm = *m.comm;
  const auto t0 = clock_type::now();
  const std::size_t N = m.info.local_unknowns;
  // of the whole problem, the same on every rank: each refuses before any message
  size_product({m.data.problem.unknowns(), count, sizeof(T)}, "solve: unknowns × right-hand sides × bytes per scalar");
  // Checks every rank agrees on before any message of the solve. A device
  // scans its slab itself, after the upload (a host pass over the arrays
  // costs more than the device's solve), except in pure Neumann problems,
  // whose projection passes over them on the host anyway.
  const bool device_scans = m.device && !m.data.pure_neumann;
  std::ostringstream bad;
  if ((!f || !u) && N * count > 0) bad << "solve: null array on rank " << m.me();
  else if (const std::size_t i = device_scans ? N * count : first_nonfinite(f, N * count); i < N * count)
    bad << "right-hand side: non-finite value on rank " << m.me() << " at local index " << i;
  if (any(comm, !bad.str().empty()))
    throw NonFiniteInput(bad.str().empty() ? "right-hand side: a non-finite value or a null array on another rank"
                                           : bad.str());
  if (u != f && N * count > 0) std::memmove(u, f, N * count * sizeof(T));
  SolveStats st;
  const double total_unknowns = double(m.data.problem.unknowns());
  if (m.device) m.device->clear_breakdown();
  const int k = m.dim().layout.k;
  reference::PivotWatch watch;
  bool device_nonfinite = false;  // in a solution, found by the device
  for (std::size_t c = 0; c < count; ++c) {
    T* X = u + c * N;
    const auto over_ranks = [&](double* s, int n) { comm.sum(s, n); };
    if (m.data.pure_neumann)  // the compatible part: f minus its mean over all ranks' rows
      st.incompatible_part = std::max(st.incompatible_part, remove_mean(X, N, total_unknowns, over_ranks));
    if (m.device) {
      const std::size_t rows = m.info.rows.size();
      auto t = clock_type::now();
      if (rows > 0) m.device->write_rows(m.row_begin(), rows, X);
      st.transfer_seconds += seconds_since(t);
      t = clock_type::now();
      if (device_scans && any(comm, rows > 0 && m.device->nonfinite_rows(m.row_begin(), rows))) {
        // where: the host looks on the rank that has it
        const std::size_t i = first_nonfinite(f + c * N, N);
        throw NonFiniteInput(i < N ? "right-hand side: non-finite value on rank " + std::to_string(m.me()) +
                                         " at local index " + std::to_string(c * N + i)
                                   : std::string("right-hand side: a non-finite value on another rank"));
      }
      for (int i = 1; i < k; ++i) m.phase_device(i, false);
      for (int i = k; i >= 1; --i) m.phase_device(i, true);
      if (device_scans && rows > 0) device_nonfinite = m.device->nonfinite_rows(m.row_begin(), rows) || device_nonfinite;
      m.device->finish();  // the copy's time without the solve's
      st.device_seconds += seconds_since(t);
      t = clock_type::now();
      if (rows > 0) m.device->read_rows(m.row_begin(), rows, X);
      st.transfer_seconds += seconds_since(t);
    } else {
      for (int i = 1; i < k; ++i) m.phase(i, false, X, watch);
      for (int i = k; i >= 1; --i) m.phase(i, true, X, watch);
    }
    if (m.data.pure_neumann) remove_weighted_mean(X, m.neumann_weights.data(), N, m.neumann_weight_sum, over_ranks);
  }
  // Near-singular eliminations and non-finite results, agreed on by all ranks.
  const std::string device_breakdown = m.device ? m.device->breakdown() : "";
  if (any(comm, !device_breakdown.empty()))
    throw NumericalBreakdown(device_breakdown.empty() ? "near-singular tridiagonal system on another rank's device"
                                                      : device_breakdown);
  double smallest = -watch.smallest;
  comm.max(&smallest, 1);
  smallest = -smallest;
  if (smallest < reference::kPivotLimit<T>) {
    if (watch.smallest == smallest) m.solver.check_pivots(watch.smallest, watch.system);
    m.solver.check_pivots(smallest, "a shift on another rank");
  }
  std::ostringstream nonfinite;
  if (const std::size_t i = !device_scans || device_nonfinite ? first_nonfinite(u, N * count) : N * count;
      i < N * count)
    nonfinite << "solve produced a non-finite value on rank " << m.me() << " at local index " << i
              << " (zero pivot in a tridiagonal solve or overflow)";
  if (any(comm, !nonfinite.str().empty()))
    throw NumericalBreakdown(nonfinite.str().empty() ? "solve produced a non-finite value on another rank"
                                                     : nonfinite.str());
  st.seconds = seconds_since(t0);
  return st;
}

template class DistributedPlan<float>;
template class DistributedPlan<double>;
template class DistributedPlan<std::complex<float>>;
template class DistributedPlan<std::complex<double>>;

}  // namespace pscr
