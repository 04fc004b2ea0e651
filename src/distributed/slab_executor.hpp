// What a rank of a distributed plan holds and does (internal;
// docs/distributed.md): its slab, the work of each group of each level derived
// from the layout once, and the two ways of running a level, on the host
// (host_phase.cpp) and on the rank's OpenCL device (device_phase.cpp).
#pragma once
#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "../planner/eigen_share.hpp"
#include "../planner/plan_data.hpp"
#include "../reference/level_solver.hpp"
#include "pscr/distributed.hpp"
#include "slab_device.hpp"
#include "slabs.hpp"
#include "transform_split.hpp"

namespace pscr::distributed {

// The plan data of p, the same on every rank, the eigen work of its large
// pencils shared between the ranks (planner/eigen_share.hpp). o.radix: the
// plan's q; radix_free: chosen automatically (the planner may take another).
template <class T>
planner::PlanData<T> plan_over_ranks(Communicator& comm, const Problem<T>& p, const Options& o, bool radix_free) {
  const planner::EigenShare share{comm.rank(), comm.size(), [&comm](double* v, std::size_t n) { comm.sum(v, n); }};
  const planner::EigenShareScope scope(share);
  return planner::make_plan_data(p, o.radix, o.elimination == Elimination::automatic, radix_free);
}

// Where a rank's host time goes at the exchanges of its device's levels:
// waiting for the device (its kernels, then the gathered rows' copy to the
// host), and the exchanges themselves (messages, sums of shares, the copy
// back enqueued). The device is idle meanwhile.
struct ExchangeTimes {
  double wait_seconds = 0, exchange_seconds = 0;
};

// DistributedPlan's Impl derives from it.
template <class T> struct SlabExecutor {
  SlabExecutor(std::shared_ptr<Communicator> c, const Problem<T>& p, const Options& o, bool radix_free)
      : comm(std::move(c)),
        data(plan_over_ranks(*comm, p, o, radix_free)),
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
  // The shares of outputs that phase_device receives from other ranks.
  mutable std::vector<T> received_parts;
  // A transformed split (transform_split.hpp): its plan (dimension 1 last)
  // and this rank's device, instead of the levels above
  std::optional<planner::PlanData<T>> transform_data;
  std::unique_ptr<TransformSlab<T>> transform;
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

  // The shares, inputs and outputs of every group of every level.
  void derive_work() {
    const auto& L = dim().layout;
    work.resize(L.levels.size());
    for (std::size_t i = 0; i < L.levels.size(); ++i)
      for (std::size_t gi = 0; gi < L.levels[i].groups.size(); ++gi) {
        const auto& g = L.levels[i].groups[gi];
        const auto& ref = dim().groups[i][gi];
        GroupWork gw;
        gw.shares = shares(slabs, g.start, g.end, dim().eigen[ref.eigen].m);
        for (bool back : {false, true}) {
          gw.inputs[back] = inputs(g, back);
          gw.outputs[back] = outputs(g, ref, back);
        }
        work[i].push_back(std::move(gw));
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
      for (bool back : {false, true}) ls.exchange_rows = std::max(ls.exchange_rows, exchange_rows(int(i) + 1, back));
      interior(int(i) + 1, ls);
    }
  }
  // The interior of a rank's groups of a level (LevelShare::interior_begin):
  // between the runs of groups at either end of its range that receive
  // inputs from other ranks or send them outputs, in the reduction or the
  // back substitution, halved by modes. None where no group crosses ranks,
  // or where one inside it does.
  void interior(int level, LevelShare& ls) const {
    std::vector<char> crosses(dim().layout.levels[level - 1].groups.size(), 0);
    for (bool back : {false, true}) {
      each_input(level, back, [&](std::size_t gi, std::size_t, int, int, int to) {
        if (to == me()) crosses[gi] = 1;
      });
      each_output(level, back, [&](std::size_t gi, std::size_t, std::size_t, int from, int) {
        if (from == me()) crosses[gi] = 1;
      });
    }
    int b = ls.group_begin, e = ls.group_end;
    while (b < e && crosses[std::size_t(b)]) ++b;
    while (e > b && crosses[std::size_t(e - 1)]) --e;
    const bool inside = std::any_of(crosses.begin() + b, crosses.begin() + e, [](char c) { return c != 0; });
    const bool any = std::any_of(crosses.begin(), crosses.end(), [](char c) { return c != 0; });
    if (!any || inside || b == e) return;
    long modes = 0, half = 0;
    for (int g = b; g < e; ++g) modes += ls.modes[std::size_t(g)].second - ls.modes[std::size_t(g)].first;
    int m = b;
    while (m < e && 2 * half < modes) {
      half += ls.modes[std::size_t(m)].second - ls.modes[std::size_t(m)].first;
      ++m;
    }
    ls.interior_begin = b;
    ls.interior_middle = m;
    ls.interior_end = e;
  }
  // The most rows one exchange of phase (level, back) gathers or scatters
  // here (an upper bound): those this rank sends or receives, and its own
  // shares of the outputs it sums.
  int exchange_rows(int level, bool back) const {
    int inputs = 0, outputs = 0;
    each_input(level, back, [&](std::size_t, std::size_t, int, int from, int to) {
      inputs += from == me() || to == me();
    });
    std::vector<std::pair<std::size_t, std::size_t>> summed;
    each_output(level, back, [&](std::size_t gi, std::size_t o, std::size_t, int from, int to) {
      outputs += from == me() || to == me();
      if (to == me()) summed.push_back({gi, o});
    });
    std::sort(summed.begin(), summed.end());
    outputs += int(std::unique(summed.begin(), summed.end()) - summed.begin());
    return std::max(inputs, outputs);
  }

  // One level of the reduction (back = false) or the back substitution on
  // this rank's slab X, on the host (host_phase.cpp).
  void phase(int level, bool back, T* X, reference::PivotWatch& watch) const;
  // The same on this rank's device (device_phase.cpp).
  void phase_device(int level, bool back, ExchangeTimes& times) const;
};

}  // namespace pscr::distributed
