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
// Here: the construction (the ranks agree, planning, this rank's set-up);
// the solves are in distributed_solve.cpp.
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "../neumann_weights.hpp"
#include "../stopwatch.hpp"
#include "../opencl/opencl_executor.hpp"
#include "../opencl/transform_slab.hpp"
#include "../plan_choice.hpp"
#include "../plan_description.hpp"
#include "pscr/distributed.hpp"
#include "pscr/errors.hpp"
#include "pscr/scalar.hpp"
#include "agreement.hpp"
#include "distributed_impl.hpp"
#include "local_communicator.hpp"
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
// sine_limit: the longest transform every rank's device takes (0 where the
// kernel parameters turn transforms off, or on the reference backend).
template <class T>
Options rank_options(Communicator& comm, const Problem<T>& problem, const Options& options, double& waited,
                     int& sine_limit) {
  check_enumerations(options);
  check_threads(options.threads);
  Options ranked = options;
  if (options.backend == Backend::opencl) {
    const std::vector<std::string> devices = opencl_devices(options);
    ranked.device = devices[std::size_t(comm.rank()) % devices.size()];
    ranked.devices.clear();
  }
  sine_limit = 0;
  distributed::on_every_rank(
      comm, "planning (its OpenCL device)", false,
      [&] {
        ranked.radix = plan_radix(problem, ranked);
        if (ranked.backend != Backend::opencl) return;
        const KernelParameters p = opencl_parameters(problem, ranked).parameters;
        if (p.transforms == 1) sine_limit = opencl_sine_limit<T>(ranked, p);
      },
      waited);
  double least = -double(sine_limit);  // the smallest over the ranks
  comm.max(&least, 1);
  sine_limit = int(-least);
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

// What each group of each level does and sends, the device that runs this
// rank's shares (OpenCL ranks; a device that cannot be had fails on its
// rank alone, so the ranks agree first), the pure-Neumann weights.
template <class T> void set_up(distributed::SlabExecutor<T>& ex, const Options& ranked, double& waited) {
  if (ex.transform_data) {
    // a transformed split: per solve, ranks of one process have their 2
    // rows per part read by every other rank's device; other ranks send a
    // row to the previous rank and their parts' summed rows to every other
    const std::size_t n1 = ex.data.problem.size(0);
    std::vector<RowRange> slabs;
    for (int r = 0; r < ex.info.ranks; ++r) slabs.push_back(slab_rows(n1, ex.info.ranks, r));
    const int parts = distributed::transform_split_parts(n1, ex.R, ex.info.ranks);
    const std::size_t others = std::size_t(ex.info.ranks - 1), before = ex.me() > 0 ? 1 : 0;
    const bool in_place = shares_address_space(*ex.comm);
    ex.info.messages_per_solve = others + (in_place ? 0 : before);
    ex.info.bytes_per_solve =
        (in_place ? others * 2 * std::size_t(parts) : others * std::size_t(parts) + before) * ex.R * sizeof(T);
    distributed::on_every_rank(
        *ex.comm, "the OpenCL device", true,
        [&] { ex.transform = make_transform_slab(*ex.transform_data, ranked, slabs, parts, ex.me()); }, waited);
    return;
  }
  ex.derive_work();
  ex.count_traffic();
  if (ranked.backend == Backend::opencl) {
    ex.derive_level_shares();
    distributed::on_every_rank(
        *ex.comm, "the OpenCL device", true,
        [&] { ex.device = make_slab_device(ex.data, ranked, ex.level_shares); }, waited);
  }
  if (ex.data.pure_neumann) {
    ex.neumann_weights = slab_mass_weights(ex.data.problem, ex.info.rows);
    ex.neumann_weight_sum = mass_weight_sum(ex.data.problem);
  }
}

// What PlanInfo says of this rank's plan.
template <class T> void describe(distributed::SlabExecutor<T>& ex, int radix) {
  PlanInfo& pi = ex.info.plan;
  if (ex.transform) {
    // its plan has dimension 1 last: the methods in the problem's order
    describe_plan_data(*ex.transform_data, radix, pi);
    pi.dimension_methods.pop_back();
    pi.dimension_methods.insert(pi.dimension_methods.begin(), "tridiagonal (partitioned over ranks)");
    ex.transform->describe(pi);
    pi.backend += " (distributed over " + std::to_string(ex.info.ranks) + " ranks)";
    return;
  }
  // the growth of the lines' eliminations, as the serial plan measures it
  // (the device's chunks, or Thomas on the reference backend)
  planner::measure_elimination_growth(
      ex.data, ex.device ? ex.device->line_elimination() : std::optional<planner::LineElimination>(std::in_place));
  describe_plan_data(ex.data, radix, pi);
  if (ex.device) {
    ex.device->describe(pi);
    pi.backend += " (distributed over " + std::to_string(ex.info.ranks) + " ranks)";
  } else {
    pi.backend = "reference (distributed over " + std::to_string(ex.info.ranks) + " ranks)";
    pi.line_solver = line_solver_name(ex.data, "thomas");
  }
}

}  // namespace

template <class T>
DistributedPlan<T>::DistributedPlan(std::shared_ptr<Communicator> comm, const Problem<T>& problem,
                                    const Options& options) {
  if (!comm) throw InvalidArgument("DistributedPlan: null communicator");
  const auto t0 = clock_type::now();
  double waited = 0;  // in the collective checks
  // 1. The ranks agree on the problem and options (collective).
  int sine_limit = 0;
  Options ranked = rank_options(*comm, problem, options, waited, sine_limit);
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
  // the automatic radix may have moved (planner::make_plan_data); a dense
  // dimension's one level (n + 1) is none
  ranked.radix = m.data.reduction_radix(ranked.radix);
  m.transform_data = distributed::transform_split_data(problem, info.ranks, ranked.radix,
                                                       options.elimination == Elimination::automatic, sine_limit);
  // 3. This rank's set-up.
  set_up(m, ranked, waited);
  describe(m, ranked.radix);
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
template <class T> std::vector<KernelTime> DistributedPlan<T>::kernel_times() const {
  if (impl_->transform) return impl_->transform->kernel_times();
  if (impl_->device) return impl_->device->kernel_times();
  return {};
}
template <class T> void DistributedPlan<T>::set_profiling(bool on) {
  if (impl_->transform) impl_->transform->set_profiling(on);
  if (impl_->device) impl_->device->set_profiling(on);
}

template class DistributedPlan<float>;
template class DistributedPlan<double>;
template class DistributedPlan<std::complex<float>>;
template class DistributedPlan<std::complex<double>>;

}  // namespace pscr
