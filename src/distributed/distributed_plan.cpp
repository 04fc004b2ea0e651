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
#include "../plan_choice.hpp"
#include "../plan_description.hpp"
#include "../size_product.hpp"
#include "pscr/distributed.hpp"
#include "pscr/errors.hpp"
#include "pscr/scalar.hpp"
#include "agreement.hpp"
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

using distributed::any;

// The options of this rank: those every rank can check alone, then its
// device (rank r on device r mod the devices listed) and the radix, which
// the automatic choice asks of that device: a failure there (a missing
// device) must not leave the other ranks waiting.
template <class T>
Options rank_options(Communicator& comm, const Problem<T>& problem, const Options& options, double& waited) {
  check_threads(options.threads);
  Options ranked = options;
  if (options.backend == Backend::opencl) {
    const std::vector<std::string> devices = opencl_devices(options);
    ranked.device = devices[std::size_t(comm.rank()) % devices.size()];
    ranked.devices.clear();
  }
  distributed::on_every_rank(
      comm, "planning (its OpenCL device)", false, [&] { ranked.radix = plan_radix(problem, ranked); }, waited);
  if (options.refine != 0) throw InvalidArgument("DistributedPlan: iterative refinement (Options::refine) is not supported");
  return ranked;
}

// InvalidArgument on every rank unless all pass the same problem and options.
template <class T>
void check_same_problem(Communicator& comm, const Problem<T>& problem, const Options& ranked, double& waited) {
  distributed::Hash h;
  for (auto& f : problem.factors())
    for (auto* t : {&f.A, &f.M}) {
      const std::size_t n = t->size();
      h.add(&n, sizeof n);
      h.add(t->diag);
      h.add(t->off);
    }
  const T c = problem.c();
  h.add(&c, sizeof c);
  const int opts[] = {ranked.radix, int(ranked.elimination), int(ranked.backend)};
  h.add(opts, sizeof opts);
  if (!distributed::same_everywhere(comm, h.h, waited))
    throw InvalidArgument("DistributedPlan: the problem or the options (radix, elimination, backend) differ between ranks");
}

// This slab's rows of mass_weights(problem), multiplied in the same order.
template <class T> std::vector<double> slab_mass_weights(const Problem<T>& problem, RowRange rows) {
  std::vector<std::vector<double>> row_sums;
  for (int d = 0; d < problem.dims(); ++d) row_sums.push_back(mass_row_sums(problem.factor(d)));
  std::vector<double> weights;
  for (std::size_t j = rows.begin; j < rows.end; ++j) {
    std::vector<double> w{1.0 * row_sums[0][j]};
    for (int d = 1; d < problem.dims(); ++d) {
      std::vector<double> next;
      for (double a : w)
        for (double b : row_sums[d]) next.push_back(a * b);
      w.swap(next);
    }
    weights.insert(weights.end(), w.begin(), w.end());
  }
  return weights;
}

}  // namespace

template <class T> struct DistributedPlan<T>::Impl : distributed::SlabExecutor<T> {
  using distributed::SlabExecutor<T>::SlabExecutor;

  // What each group of each level does and sends, the device that runs this
  // rank's shares (OpenCL ranks; a device that cannot be had fails on its
  // rank alone, so the ranks agree first), the pure-Neumann weights.
  void set_up(const Options& ranked, double& waited) {
    this->derive_work();
    this->count_traffic();
    if (ranked.backend == Backend::opencl) {
      this->derive_level_shares();
      distributed::on_every_rank(
          *this->comm, "the OpenCL device", true,
          [&] { this->device = make_slab_device(this->data, ranked, this->level_shares); }, waited);
    }
    if (this->data.pure_neumann) {
      this->neumann_weights = slab_mass_weights(this->data.problem, this->info.rows);
      this->neumann_weight_sum = mass_weight_sum(this->data.problem);
    }
  }

  // What PlanInfo says of this rank's plan.
  void describe(int radix) {
    PlanInfo& pi = this->info.plan;
    describe_plan_data(this->data, radix, pi);
    if (this->device) {
      this->device->describe(pi);
      pi.backend += " (distributed over " + std::to_string(this->info.ranks) + " ranks)";
    } else {
      pi.backend = "reference (distributed over " + std::to_string(this->info.ranks) + " ranks)";
      pi.line_solver = "thomas";
    }
  }

  // A device scans its slab itself, after the upload (a host pass over the
  // arrays costs more than the device's solve), except in pure Neumann
  // problems, whose projection passes over them on the host anyway.
  bool device_scans() const { return this->device && !this->data.pure_neumann; }
  // A sum over all ranks, for the pure-Neumann means.
  auto over_ranks() const {
    return [c = this->comm.get()](double* s, int n) { c->sum(s, n); };
  }

  // What every rank agrees on before any message of the solve: the size of
  // the whole batch (the same on every rank, so each refuses alone), null
  // arrays, non-finite values (where the host scans).
  void check_right_hand_sides(const T* f, const T* u, std::size_t count) const {
    const std::size_t N = this->info.local_unknowns;
    size_product({this->data.problem.unknowns(), count, sizeof(T)},
                 "solve: unknowns × right-hand sides × bytes per scalar");
    std::ostringstream bad;
    if ((!f || !u) && N * count > 0) bad << "solve: null array on rank " << this->me();
    else if (const std::size_t i = device_scans() ? N * count : first_nonfinite(f, N * count); i < N * count)
      bad << "right-hand side: non-finite value on rank " << this->me() << " at local index " << i;
    if (any(*this->comm, !bad.str().empty()))
      throw NonFiniteInput(bad.str().empty() ? "right-hand side: a non-finite value or a null array on another rank"
                                             : bad.str());
  }

  // One right-hand side X (this rank's rows; f_c: as given, at offset
  // `first` of the batch) on the device: the upload, the device's scan, the
  // levels, the download. True when the solution holds a non-finite value.
  bool solve_on_device(const T* f_c, std::size_t first, T* X, SolveStats& st) const {
    distributed::SlabDevice<T>& dev = *this->device;
    const std::size_t rows = this->info.rows.size(), N = this->info.local_unknowns;
    auto t = clock_type::now();
    if (rows > 0) dev.write_rows(this->row_begin(), rows, X);
    st.transfer_seconds += seconds_since(t);
    t = clock_type::now();
    if (device_scans() && any(*this->comm, rows > 0 && dev.nonfinite_rows(this->row_begin(), rows))) {
      // where: the host looks on the rank that has it
      const std::size_t i = first_nonfinite(f_c, N);
      throw NonFiniteInput(i < N ? "right-hand side: non-finite value on rank " + std::to_string(this->me()) +
                                       " at local index " + std::to_string(first + i)
                                 : std::string("right-hand side: a non-finite value on another rank"));
    }
    const int k = this->dim().layout.k;
    for (int i = 1; i < k; ++i) this->phase_device(i, false);
    for (int i = k; i >= 1; --i) this->phase_device(i, true);
    const bool nonfinite = device_scans() && rows > 0 && dev.nonfinite_rows(this->row_begin(), rows);
    dev.finish();  // the copy's time without the solve's
    st.device_seconds += seconds_since(t);
    t = clock_type::now();
    if (rows > 0) dev.read_rows(this->row_begin(), rows, X);
    st.transfer_seconds += seconds_since(t);
    return nonfinite;
  }

  // One right-hand side X on the host: the reduction, then the back substitution.
  void solve_on_host(T* X, reference::PivotWatch& watch) const {
    const int k = this->dim().layout.k;
    for (int i = 1; i < k; ++i) this->phase(i, false, X, watch);
    for (int i = k; i >= 1; --i) this->phase(i, true, X, watch);
  }

  // Near-singular eliminations and non-finite solutions, agreed on by all
  // ranks after the batch: each rank throws the same class, the rank that
  // found it with the details.
  void agree_on_breakdowns(const reference::PivotWatch& watch, const T* u, std::size_t count,
                           bool device_nonfinite) const {
    Communicator& comm = *this->comm;
    const std::size_t N = this->info.local_unknowns;
    const std::string device_breakdown = this->device ? this->device->breakdown() : "";
    if (any(comm, !device_breakdown.empty()))
      throw NumericalBreakdown(device_breakdown.empty() ? "near-singular tridiagonal system on another rank's device"
                                                        : device_breakdown);
    double smallest = -watch.smallest;
    comm.max(&smallest, 1);
    smallest = -smallest;
    if (smallest < reference::kPivotLimit<T>) {
      if (watch.smallest == smallest) this->solver.check_pivots(watch.smallest, watch.system);
      this->solver.check_pivots(smallest, "a shift on another rank");
    }
    std::ostringstream nonfinite;
    if (const std::size_t i = !device_scans() || device_nonfinite ? first_nonfinite(u, N * count) : N * count;
        i < N * count)
      nonfinite << "solve produced a non-finite value on rank " << this->me() << " at local index " << i
                << " (zero pivot in a tridiagonal solve or overflow)";
    if (any(comm, !nonfinite.str().empty()))
      throw NumericalBreakdown(nonfinite.str().empty() ? "solve produced a non-finite value on another rank"
                                                       : nonfinite.str());
  }
};

template <class T>
DistributedPlan<T>::DistributedPlan(std::shared_ptr<Communicator> comm, const Problem<T>& problem,
                                    const Options& options) {
  if (!comm) throw InvalidArgument("DistributedPlan: null communicator");
  const auto t0 = clock_type::now();
  double waited = 0;  // in the collective checks
  // 1. The ranks agree on the problem and options (collective).
  Options ranked = rank_options(*comm, problem, options, waited);
  check_same_problem(*comm, problem, ranked, waited);
  // 2. Planning: deterministic, so a bad problem throws the same error on every rank.
  const auto t1 = clock_type::now();
  impl_ = std::make_unique<Impl>(std::move(comm), problem, ranked, radix_free(options));
  Impl& m = *impl_;
  DistributedInfo& info = m.info;
  info.plan.eigen_seconds = seconds_since(t1);
  info.ranks = m.comm->size();
  info.rank = m.comm->rank();
  info.rows = slab_rows(problem.size(0), info.ranks, info.rank);
  info.local_unknowns = info.rows.size() * m.R;
  ranked.radix = m.dim().layout.radix;  // the automatic radix may have moved (planner::make_plan_data)
  // 3. This rank's set-up.
  m.set_up(ranked, waited);
  m.describe(ranked.radix);
  info.plan.init_seconds = seconds_since(t0);
  info.agreement_seconds = waited;
  info.setup_seconds = info.plan.init_seconds - info.plan.eigen_seconds - waited;
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
  const auto t0 = clock_type::now();
  const std::size_t N = m.info.local_unknowns;
  m.check_right_hand_sides(f, u, count);
  if (u != f && N * count > 0) std::memmove(u, f, N * count * sizeof(T));
  SolveStats st;
  if (m.device) m.device->clear_breakdown();
  reference::PivotWatch watch;
  bool device_nonfinite = false;  // in a solution, found by the device
  for (std::size_t c = 0; c < count; ++c) {
    T* X = u + c * N;
    if (m.data.pure_neumann)  // the compatible part: f minus its mean over all ranks' rows
      st.incompatible_part = std::max(st.incompatible_part, remove_mean(X, N, double(m.data.problem.unknowns()),
                                                                        m.over_ranks()));
    if (m.device) device_nonfinite = m.solve_on_device(f + c * N, c * N, X, st) || device_nonfinite;
    else m.solve_on_host(X, watch);
    if (m.data.pure_neumann)
      remove_weighted_mean(X, m.neumann_weights.data(), N, m.neumann_weight_sum, m.over_ranks());
  }
  m.agree_on_breakdowns(watch, u, count, device_nonfinite);
  st.seconds = seconds_since(t0);
  return st;
}

template class DistributedPlan<float>;
template class DistributedPlan<double>;
template class DistributedPlan<std::complex<float>>;
template class DistributedPlan<std::complex<double>>;

}  // namespace pscr
