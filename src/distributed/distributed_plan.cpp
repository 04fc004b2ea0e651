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
#include <deque>
#include <exception>
#include <map>
#include <sstream>

#include "../finite_scan.hpp"
#include "../neumann_weights.hpp"
#include "../opencl/opencl_executor.hpp"
#include "../plan_impl.hpp"
#include "../reference/level_solver.hpp"
#include "pscr/distributed.hpp"
#include "pscr/errors.hpp"
#include "pscr/scalar.hpp"
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

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

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

namespace distributed {

// What a rank holds and does (internal, not exported: DistributedPlan's Impl derives from it).
template <class T> struct SlabExecutor {
  // o.radix: the plan's q; radix_free: chosen automatically (the planner may take another)
  SlabExecutor(std::shared_ptr<Communicator> c, const Problem<T>& p, const Options& o, bool radix_free)
      : comm(std::move(c)),
        data(planner::make_plan_data(p, o.radix, o.elimination == Elimination::automatic, radix_free)),
        solver(data, o.threads),
        slabs(p.size(0), comm->size()),
        R(p.unknowns() / p.size(0)) {}

  std::shared_ptr<Communicator> comm;
  planner::PlanData<T> data;
  reference::LevelSolver<T> solver;
  distributed::Slabs slabs;
  std::size_t R;  // values per row of the first dimension
  DistributedInfo info;
  // What each group of each level reads and produces, and who computes it,
  // derived from the layout once: [level − 1][group].
  struct GroupWork {
    std::vector<distributed::Share> shares;
    std::vector<int> inputs[2];                      // [back]: see inputs()
    std::vector<std::pair<int, int>> outputs[2];     // [back]: see outputs()
  };
  std::vector<std::vector<GroupWork>> work;
  std::vector<double> neumann_weights;  // pure Neumann: this slab's part of (M1 1)⊗(M2 1)[⊗(M3 1)]
  // OpenCL ranks: what this rank computes of each level, and its device
  std::vector<LevelShare> level_shares;
  std::unique_ptr<SlabDevice<T>> device;
  double neumann_weight_sum = 0;

  int me() const { return info.rank; }
  std::size_t row_begin() const { return info.rows.begin; }
  const planner::DimensionPlan<T>& dim() const { return data.dims[0]; }

  // The rows a group's partial solutions read: its sources, then (back
  // substitution) the final rows before and after it.
  std::vector<int> inputs(const planner::Group& g, bool back) const {
    std::vector<int> rows = g.sources;
    if (back && g.start > 0) rows.push_back(g.start - 1);
    if (back && g.end + 1 < dim().layout.n) rows.push_back(g.end + 1);
    return rows;
  }
  // What a group produces: (kept-row position, destination row). Reduction:
  // its first and last rows' sums, for the survivors before and after it;
  // back substitution: the solution at its sources.
  std::vector<std::pair<int, int>> outputs(const planner::Group& g, const planner::GroupRef& ref, bool back) const {
    std::vector<std::pair<int, int>> out;
    if (back) {
      for (std::size_t p = 0; p < g.sources.size(); ++p) out.push_back({ref.source_pos[p], g.sources[p]});
    } else {
      if (g.start > 0) out.push_back({ref.start_pos, g.start - 1});
      if (g.end + 1 < dim().layout.n) out.push_back({ref.end_pos, g.end + 1});
    }
    return out;
  }

  // Calls input(gi, index, row, from, to) for every row that crosses ranks
  // in phase (level, back), in the order both ends list their messages.
  template <class F> void each_input(int level, bool back, F&& input) const {
    const auto& lv = dim().layout.levels[level - 1];
    for (std::size_t gi = 0; gi < lv.groups.size(); ++gi) {
      const auto& g = lv.groups[gi];
      if (g.sources.empty()) continue;
      const GroupWork& gw = work[level - 1][gi];
      const std::vector<int>& rows = gw.inputs[back];
      for (std::size_t x = 0; x < rows.size(); ++x) {
        const int from = slabs.owner(rows[x]);
        for (const auto& sh : gw.shares)
          if (sh.rank != from) input(gi, x, rows[x], from, sh.rank);
      }
    }
  }
  // Calls output(gi, index, share index, from, to) for every partial sum that crosses ranks.
  template <class F> void each_output(int level, bool back, F&& output) const {
    const auto& lv = dim().layout.levels[level - 1];
    for (std::size_t gi = 0; gi < lv.groups.size(); ++gi) {
      const auto& g = lv.groups[gi];
      if (g.sources.empty()) continue;
      const auto& outs = work[level - 1][gi].outputs[back];
      const auto& sh = work[level - 1][gi].shares;
      for (std::size_t o = 0; o < outs.size(); ++o) {
        const int to = slabs.owner(outs[o].second);
        for (std::size_t s = 0; s < sh.size(); ++s)
          if (sh[s].rank != to) output(gi, o, s, sh[s].rank, to);
      }
    }
  }

  void count_traffic() {
    const int k = dim().layout.k;
    const std::size_t row_bytes = R * sizeof(T);
    auto count = [&](int level, bool back) {
      LevelTraffic t;
      t.level = level;
      t.back_substitution = back;
      each_input(level, back, [&](std::size_t, std::size_t, int, int from, int) {
        if (from == me()) { ++t.messages; t.bytes += row_bytes; }
      });
      each_output(level, back, [&](std::size_t, std::size_t, std::size_t, int from, int) {
        if (from == me()) { ++t.messages; t.bytes += row_bytes; }
      });
      info.messages_per_solve += t.messages;
      info.bytes_per_solve += t.bytes;
      info.levels.push_back(t);
    };
    for (int i = 1; i < k; ++i) count(i, false);
    for (int i = k; i >= 1; --i) count(i, true);
  }

  // One level of the reduction (back = false) or the back substitution on
  // this rank's slab X.
  void phase(int level, bool back, T* X, reference::PivotWatch& watch) const {
    const auto& dp = dim();
    const auto& lv = dp.layout.levels[level - 1];
    const auto& refs = dp.groups[level - 1];
    const int n = dp.layout.n, k = dp.layout.k;
    const T sigma = data.problem.c();
    const std::size_t row_bytes = R * sizeof(T);
    auto local = [&](int row) { return X + (std::size_t(row) - row_begin()) * R; };
    const std::size_t G = lv.groups.size();

    // 1. Inputs.
    std::vector<std::vector<const T*>> in(G);  // per group this rank computes: its input rows
    std::vector<int> my_share(G, -1);
    for (std::size_t gi = 0; gi < G; ++gi) {
      const auto& sh = work[level - 1][gi].shares;
      for (std::size_t s = 0; s < sh.size(); ++s)
        if (sh[s].rank == me()) my_share[gi] = int(s);
      if (my_share[gi] < 0 || lv.groups[gi].sources.empty()) continue;
      const std::vector<int>& rows = work[level - 1][gi].inputs[back];
      in[gi].assign(rows.size(), nullptr);
      for (std::size_t x = 0; x < rows.size(); ++x)
        if (slabs.owner(rows[x]) == me()) in[gi][x] = local(rows[x]);
    }
    std::deque<std::vector<T>> received;
    std::vector<Transfer> sends, receives;
    each_input(level, back, [&](std::size_t gi, std::size_t x, int row, int from, int to) {
      if (from == me()) sends.push_back({to, local(row), row_bytes});
      if (to == me()) {
        received.emplace_back(R);
        in[gi][x] = received.back().data();
        receives.push_back({from, received.back().data(), row_bytes});
      }
    });
    comm->exchange(sends, receives);

    // 2. This rank's shares.
    std::vector<std::size_t> mine;
    for (std::size_t gi = 0; gi < G; ++gi)
      if (my_share[gi] >= 0 && !lv.groups[gi].sources.empty()) mine.push_back(gi);
    std::vector<std::vector<T>> partial(G);
    const int threads = solver.threads();
    auto compute = [&](std::size_t gi, bool parallel) {
      const auto& g = lv.groups[gi];
      const auto& ref = refs[gi];
      const auto& sh = work[level - 1][gi].shares[my_share[gi]];
      const auto& outs = work[level - 1][gi].outputs[back];
      std::vector<int> outpos;
      for (auto& o : outs) outpos.push_back(o.first);
      partial[gi].assign(outs.size() * R, T(0));
      std::vector<T> bl, br, tmp(R);
      std::size_t x = g.sources.size();
      if (back && g.start > 0) {
        bl.resize(R);
        solver.apply_block(0, sigma, g.start, g.start - 1, in[gi][x++], bl.data(), tmp.data(), false);
      }
      if (back && g.end + 1 < n) {
        br.resize(R);
        solver.apply_block(0, sigma, g.end, g.end + 1, in[gi][x++], br.data(), tmp.data(), false);
      }
      solver.partial_solutions(0, sigma, back && data.pure_neumann && level == k, dp.eigen[ref.eigen], ref, g,
                               in[gi].data(), bl.empty() ? nullptr : bl.data(), br.empty() ? nullptr : br.data(),
                               outpos, sh.mode_begin, sh.mode_end, partial[gi].data(), parallel, watch);
    };
    if (threads > 1 && mine.size() >= std::size_t(2 * threads)) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
      for (std::size_t t = 0; t < mine.size(); ++t) compute(mine[t], false);
    } else {
      for (std::size_t gi : mine) compute(gi, threads > 1);
    }

    // 3. Outputs: the shares' partial sums to the ranks holding their rows.
    sends.clear();
    receives.clear();
    std::vector<std::vector<std::vector<const T*>>> parts(G);  // [group][output][share]
    for (std::size_t gi = 0; gi < G; ++gi) {
      const auto& g = lv.groups[gi];
      if (g.sources.empty()) continue;
      const auto& outs = work[level - 1][gi].outputs[back];
      const auto& sh = work[level - 1][gi].shares;
      parts[gi].assign(outs.size(), std::vector<const T*>(sh.size(), nullptr));
      if (my_share[gi] >= 0)
        for (std::size_t o = 0; o < outs.size(); ++o)
          if (slabs.owner(outs[o].second) == me()) parts[gi][o][my_share[gi]] = partial[gi].data() + o * R;
    }
    each_output(level, back, [&](std::size_t gi, std::size_t o, std::size_t s, int from, int to) {
      if (from == me()) sends.push_back({to, partial[gi].data() + o * R, row_bytes});
      if (to == me()) {
        received.emplace_back(R);
        parts[gi][o][s] = received.back().data();
        receives.push_back({from, received.back().data(), row_bytes});
      }
    });
    comm->exchange(sends, receives);

    // The sum of a group's output over its shares, in share order; null if it has none.
    auto total = [&](std::size_t gi, std::size_t o, std::vector<T>& out) {
      const auto& p = parts[gi][o];
      out.assign(p[0], p[0] + R);
      for (std::size_t s = 1; s < p.size(); ++s)
        for (std::size_t r = 0; r < R; ++r) out[r] += p[s][r];
    };
    if (back) {
      for (std::size_t gi = 0; gi < G; ++gi) {
        const auto& g = lv.groups[gi];
        if (g.sources.empty()) continue;
        std::vector<T> u;
        for (std::size_t p = 0; p < g.sources.size(); ++p)
          if (slabs.owner(g.sources[p]) == me()) {
            total(gi, p, u);
            std::copy(u.begin(), u.end(), local(g.sources[p]));
          }
      }
      return;
    }
    // Reduction: F_j −= B(j, j−1) v_{j−1} + B(j, j+1) v_{j+1} for the
    // survivors j of this slab, as the reference executor does it.
    std::vector<const std::vector<T>*> before(n, nullptr), after(n, nullptr);  // v of the groups around j
    std::deque<std::vector<T>> sums;
    for (std::size_t gi = 0; gi < G; ++gi) {
      const auto& g = lv.groups[gi];
      if (g.sources.empty()) continue;
      const auto& outs = work[level - 1][gi].outputs[back];
      for (std::size_t o = 0; o < outs.size(); ++o) {
        const int j = outs[o].second;
        if (slabs.owner(j) != me()) continue;
        sums.emplace_back();
        total(gi, o, sums.back());
        (j < g.start ? after[j] : before[j]) = &sums.back();
      }
    }
    const std::vector<T> zero(R, T(0));
    std::vector<T> w(R), tmp(R);
    for (int j : lv.survivors) {
      if (slabs.owner(j) != me()) continue;
      const std::vector<T>& left = before[j] ? *before[j] : zero;
      solver.apply_block(0, sigma, j, j - 1, left.data(), w.data(), tmp.data(), false);
      if (j + 1 < n) {
        const std::vector<T>& right = after[j] ? *after[j] : zero;
        solver.apply_block(0, sigma, j, j + 1, right.data(), w.data(), tmp.data(), true);
      }
      reference::axpy(R, T(-1), w.data(), local(j));
    }
  }

  // What this rank computes of each level: its shares of the groups' modes,
  // its survivors, and the range of groups whose sums its device forms:
  // those it has a share of and those next to its survivors (a group
  // without a share here, or without sources, gets zero sums, which the
  // received totals then replace where they exist).
  void derive_level_shares() {
    const auto& L = dim().layout;
    level_shares.assign(L.levels.size(), LevelShare{});
    for (std::size_t i = 0; i < L.levels.size(); ++i) {
      const auto& lv = L.levels[i];
      LevelShare& ls = level_shares[i];
      ls.modes.assign(lv.groups.size(), {0, 0});
      int first = int(lv.groups.size()), last = -1;
      auto cover = [&](int gi) {
        first = std::min(first, gi);
        last = std::max(last, gi);
      };
      for (std::size_t gi = 0; gi < lv.groups.size(); ++gi)
        for (const auto& sh : work[i][gi].shares)
          if (sh.rank == me()) {
            ls.modes[gi] = {sh.mode_begin, sh.mode_end};
            cover(int(gi));
          }
      bool any_survivor = false;
      for (std::size_t t = 0; t < lv.survivors.size(); ++t)
        if (slabs.owner(lv.survivors[t]) == me()) {
          if (!any_survivor) ls.survivor_begin = int(t);
          ls.survivor_end = int(t) + 1;
          any_survivor = true;
          cover(int(t));  // survivor t lies between groups t and t + 1
          if (t + 1 < lv.groups.size()) cover(int(t) + 1);
        }
      if (last >= 0) {
        ls.group_begin = first;
        ls.group_end = last + 1;
      }
    }
  }

  // One level on this rank's device, which holds the slab in its copy of
  // the whole array: the same three steps as phase(), rows moving through
  // the host.
  void phase_device(int level, bool back) const {
    const auto& lv = dim().layout.levels[level - 1];
    const std::size_t row_bytes = R * sizeof(T);
    SlabDevice<T>& dev = *device;
    // 1. Inputs, written into the device's copy at their rows.
    std::deque<std::vector<T>> held;
    std::vector<std::pair<int, const T*>> arrived;
    std::vector<Transfer> sends, receives;
    each_input(level, back, [&](std::size_t, std::size_t, int row, int from, int to) {
      if (from == me()) {
        held.emplace_back(R);
        dev.read_rows(std::size_t(row), 1, held.back().data());
        sends.push_back({to, held.back().data(), row_bytes});
      }
      if (to == me()) {
        held.emplace_back(R);
        arrived.push_back({row, held.back().data()});
        receives.push_back({from, held.back().data(), row_bytes});
      }
    });
    comm->exchange(sends, receives);
    for (auto& [row, values] : arrived) dev.write_rows(std::size_t(row), 1, values);

    // 2. This rank's shares.
    dev.compute(level, back);

    // 3. Outputs: a group's output whose shares are not all on the rank
    // holding its row is summed there over the shares, in share order.
    // Where an output is on the device: the reduction's slot 0 (first row)
    // or 1 (last row) of the group's sums, the back substitution's source row.
    auto read_own = [&](std::size_t gi, std::size_t o, T* dst) {
      const auto& g = lv.groups[gi];
      const int row = work[level - 1][gi].outputs[back][o].second;
      if (back) dev.read_rows(std::size_t(row), 1, dst);
      else dev.read_sum(int(gi), row < g.start ? 0 : 1, dst);
    };
    sends.clear();
    receives.clear();
    std::map<std::pair<std::size_t, std::size_t>, std::vector<const T*>> parts;  // (group, output) → per share
    auto slot = [&](std::size_t gi, std::size_t o) -> std::vector<const T*>& {
      auto& p = parts[{gi, o}];
      p.resize(work[level - 1][gi].shares.size(), nullptr);
      return p;
    };
    each_output(level, back, [&](std::size_t gi, std::size_t o, std::size_t s, int from, int to) {
      if (from == me()) {
        held.emplace_back(R);
        read_own(gi, o, held.back().data());
        sends.push_back({to, held.back().data(), row_bytes});
      }
      if (to == me()) {
        held.emplace_back(R);
        slot(gi, o)[s] = held.back().data();
        receives.push_back({from, held.back().data(), row_bytes});
      }
    });
    comm->exchange(sends, receives);
    std::vector<T> total(R);
    for (auto& [key, p] : parts) {
      const auto [gi, o] = key;
      const auto& sh = work[level - 1][gi].shares;
      for (std::size_t s = 0; s < sh.size(); ++s)
        if (sh[s].rank == me()) {  // this rank's own share, still on the device
          held.emplace_back(R);
          read_own(gi, o, held.back().data());
          p[s] = held.back().data();
        }
      std::copy(p[0], p[0] + R, total.begin());
      for (std::size_t s = 1; s < p.size(); ++s)
        for (std::size_t r = 0; r < R; ++r) total[r] += p[s][r];
      const auto& g = lv.groups[gi];
      const int row = work[level - 1][gi].outputs[back][o].second;
      if (back) dev.write_rows(std::size_t(row), 1, total.data());
      else dev.write_sum(int(gi), row < g.start ? 0 : 1, total.data());
    }
    if (!back) dev.update_survivors(level);
  }
};

}  // namespace distributed

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
  const auto& L = m.dim().layout;
  m.work.resize(L.levels.size());
  for (std::size_t i = 0; i < L.levels.size(); ++i)
    for (std::size_t gi = 0; gi < L.levels[i].groups.size(); ++gi) {
      const auto& g = L.levels[i].groups[gi];
      const auto& ref = m.dim().groups[i][gi];
      typename Impl::GroupWork gw;
      gw.shares = distributed::shares(m.slabs, g.start, g.end, m.dim().eigen[ref.eigen].m);
      for (bool back : {false, true}) {
        gw.inputs[back] = m.inputs(g, back);
        gw.outputs[back] = m.outputs(g, ref, back);
      }
      m.work[i].push_back(std::move(gw));
    }
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
    if (m.data.pure_neumann) {
      // the compatible part: f minus its mean (sums in double)
      double s[3] = {0, 0, 0};
      for (std::size_t i = 0; i < N; ++i) {
        const wide_t<T> v(X[i]);
        s[0] += std::real(v);
        s[1] += std::imag(v);
        s[2] += std::norm(v);
      }
      comm.sum(s, 3);
      wide_t<T> sum;
      if constexpr (is_complex_v<T>) sum = wide_t<T>(s[0], s[1]);
      else sum = s[0];
      const T mean = T(sum / total_unknowns);
      for (std::size_t i = 0; i < N; ++i) X[i] -= mean;
      const double removed = std::abs(mean) * std::sqrt(total_unknowns);
      st.incompatible_part = std::max(st.incompatible_part, s[2] > 0 ? removed / std::sqrt(s[2]) : 0.0);
    }
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
    if (m.data.pure_neumann) {
      double s[2] = {0, 0};
      for (std::size_t i = 0; i < N; ++i) {
        const wide_t<T> v = m.neumann_weights[i] * wide_t<T>(X[i]);
        s[0] += std::real(v);
        s[1] += std::imag(v);
      }
      comm.sum(s, 2);
      wide_t<T> sum;
      if constexpr (is_complex_v<T>) sum = wide_t<T>(s[0], s[1]);
      else sum = s[0];
      const T mean = T(sum / m.neumann_weight_sum);
      for (std::size_t i = 0; i < N; ++i) X[i] -= mean;
    }
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
