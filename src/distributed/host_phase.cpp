// One level of a distributed plan on the host (internal; docs/distributed.md):
// the rows a group reads cross ranks, each rank computes its shares of the
// modes with the reference level solver, and the shares' partial sums go to
// the ranks holding the rows they update.
#include <algorithm>
#include <complex>
#include <deque>
#include <map>
#include <vector>

#include "slab_executor.hpp"

namespace pscr::distributed {
namespace {

// Rows that arrived from other ranks, kept while the level runs.
template <class T> struct Arrivals {
  std::size_t R;
  std::deque<std::vector<T>> rows;
  T* add() { return rows.emplace_back(R).data(); }
};

// The level's groups as this rank sees them: the index of its share of each
// group's modes (−1: none, or a group without sources), and the level's
// layout, eigen references and work.
template <class T> struct Level {
  const SlabExecutor<T>& ex;
  int level;
  bool back;
  const planner::Level& layout;
  const std::vector<planner::GroupRef>& refs;
  const std::vector<typename SlabExecutor<T>::GroupWork>& work;
  std::vector<int> my_share;

  Level(const SlabExecutor<T>& e, int i, bool b)
      : ex(e), level(i), back(b), layout(e.dim().layout.levels[i - 1]), refs(e.dim().groups[i - 1]),
        work(e.work[i - 1]), my_share(layout.groups.size(), -1) {
    for (std::size_t gi = 0; gi < groups(); ++gi) {
      if (layout.groups[gi].sources.empty()) continue;
      const auto& sh = work[gi].shares;
      for (std::size_t s = 0; s < sh.size(); ++s)
        if (sh[s].rank == ex.me()) my_share[gi] = int(s);
    }
  }
  std::size_t groups() const { return layout.groups.size(); }
  bool computes(std::size_t gi) const { return my_share[gi] >= 0; }
  // What group gi produces: (kept-row position, destination row) per output (SlabExecutor::outputs).
  const std::vector<std::pair<int, int>>& outputs(std::size_t gi) const { return work[gi].outputs[back]; }
  bool holds(int row) const { return ex.slabs.owner(row) == ex.me(); }
};

// Step 1. The rows each group this rank computes reads (SlabExecutor::inputs):
// its own from the slab X, the others received. [group][input].
template <class T>
std::vector<std::vector<const T*>> receive_inputs(const Level<T>& lv, T* X, Arrivals<T>& arrived) {
  const SlabExecutor<T>& ex = lv.ex;
  auto local = [&](int row) { return X + (std::size_t(row) - ex.row_begin()) * ex.R; };
  std::vector<std::vector<const T*>> in(lv.groups());
  for (std::size_t gi = 0; gi < lv.groups(); ++gi) {
    if (!lv.computes(gi)) continue;
    const std::vector<int>& rows = lv.work[gi].inputs[lv.back];
    in[gi].assign(rows.size(), nullptr);
    for (std::size_t x = 0; x < rows.size(); ++x)
      if (lv.holds(rows[x])) in[gi][x] = local(rows[x]);
  }
  std::vector<Transfer> sends, receives;
  const std::size_t row_bytes = ex.R * sizeof(T);
  ex.each_input(lv.level, lv.back, [&](std::size_t gi, std::size_t x, int row, int from, int to) {
    if (from == ex.me()) sends.push_back({to, local(row), row_bytes});
    if (to == ex.me()) {
      T* row_in = arrived.add();
      in[gi][x] = row_in;
      receives.push_back({from, row_in, row_bytes});
    }
  });
  ex.comm->exchange(sends, receives);
  return in;
}

// Step 2. This rank's share of the modes of each group it computes: the
// partial sums of its outputs, R values each. [group][output · R].
template <class T>
std::vector<std::vector<T>> compute_shares(const Level<T>& lv, const std::vector<std::vector<const T*>>& in,
                                           reference::PivotWatch& watch) {
  const SlabExecutor<T>& ex = lv.ex;
  const auto& dp = ex.dim();
  const std::size_t R = ex.R;
  const int n = dp.layout.n;
  const T sigma = ex.data.problem.c();
  const bool null_level = lv.back && ex.data.pure_neumann && lv.level == dp.layout.k;
  std::vector<std::size_t> mine;
  for (std::size_t gi = 0; gi < lv.groups(); ++gi)
    if (lv.computes(gi)) mine.push_back(gi);
  std::vector<std::vector<T>> partial(lv.groups());
  auto compute = [&](std::size_t gi, bool parallel) {
    const auto& g = lv.layout.groups[gi];
    const auto& sh = lv.work[gi].shares[std::size_t(lv.my_share[gi])];
    std::vector<int> outpos;
    for (auto& o : lv.outputs(gi)) outpos.push_back(o.first);
    partial[gi].assign(outpos.size() * R, T(0));
    // back substitution: the boundary terms of the final rows around the group
    std::vector<T> bl, br, tmp(R);
    std::size_t x = g.sources.size();
    if (lv.back && g.start > 0) {
      bl.resize(R);
      ex.solver.apply_block(0, sigma, g.start, g.start - 1, in[gi][x++], bl.data(), tmp.data(), false);
    }
    if (lv.back && g.end + 1 < n) {
      br.resize(R);
      ex.solver.apply_block(0, sigma, g.end, g.end + 1, in[gi][x++], br.data(), tmp.data(), false);
    }
    ex.solver.partial_solutions(0, sigma, null_level, dp.eigen[lv.refs[gi].eigen], lv.refs[gi], g, in[gi].data(),
                                bl.empty() ? nullptr : bl.data(), br.empty() ? nullptr : br.data(), outpos,
                                sh.mode_begin, sh.mode_end, partial[gi].data(), parallel, watch);
  };
  const int threads = ex.solver.threads();
  if (threads > 1 && mine.size() >= std::size_t(2 * threads)) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (std::size_t t = 0; t < mine.size(); ++t) compute(mine[t], false);
  } else {
    for (std::size_t gi : mine) compute(gi, threads > 1);
  }
  return partial;
}

// Step 3. The shares' partial sums go to the ranks holding the rows they
// update: for each output row this rank holds, (group, output), its parts
// in share order.
template <class T> using Parts = std::map<std::pair<std::size_t, std::size_t>, std::vector<const T*>>;

template <class T>
Parts<T> exchange_outputs(const Level<T>& lv, const std::vector<std::vector<T>>& partial, Arrivals<T>& arrived) {
  const SlabExecutor<T>& ex = lv.ex;
  const std::size_t R = ex.R;
  Parts<T> parts;
  for (std::size_t gi = 0; gi < lv.groups(); ++gi) {
    if (lv.layout.groups[gi].sources.empty()) continue;
    const auto& outs = lv.outputs(gi);
    for (std::size_t o = 0; o < outs.size(); ++o)
      if (lv.holds(outs[o].second)) {
        auto& p = parts[{gi, o}];
        p.assign(lv.work[gi].shares.size(), nullptr);
        if (lv.computes(gi)) p[std::size_t(lv.my_share[gi])] = partial[gi].data() + o * R;
      }
  }
  std::vector<Transfer> sends, receives;
  const std::size_t row_bytes = R * sizeof(T);
  ex.each_output(lv.level, lv.back, [&](std::size_t gi, std::size_t o, std::size_t s, int from, int to) {
    if (from == ex.me()) sends.push_back({to, const_cast<T*>(partial[gi].data() + o * R), row_bytes});
    if (to == ex.me()) {
      T* part = arrived.add();
      parts[{gi, o}][s] = part;
      receives.push_back({from, part, row_bytes});
    }
  });
  ex.comm->exchange(sends, receives);
  return parts;
}

// The sum of an output's parts, in share order (the same on every rank count).
template <class T> void sum_parts(const std::vector<const T*>& p, std::size_t R, std::vector<T>& out) {
  out.assign(p[0], p[0] + R);
  for (std::size_t s = 1; s < p.size(); ++s)
    for (std::size_t r = 0; r < R; ++r) out[r] += p[s][r];
}

// Back substitution: the solution at the sources this rank holds.
template <class T> void store_solutions(const Level<T>& lv, const Parts<T>& parts, T* X) {
  const SlabExecutor<T>& ex = lv.ex;
  std::vector<T> u;
  for (const auto& [key, p] : parts) {
    const int row = lv.outputs(key.first)[key.second].second;
    sum_parts(p, ex.R, u);
    std::copy(u.begin(), u.end(), X + (std::size_t(row) - ex.row_begin()) * ex.R);
  }
}

// Reduction: F_j −= B(j, j−1) v_{j−1} + B(j, j+1) v_{j+1} for the survivors
// j of this slab, as the reference executor does it; v: the sums of the
// groups before and after j (zero where there is none).
template <class T> void update_survivors(const Level<T>& lv, const Parts<T>& parts, T* X) {
  const SlabExecutor<T>& ex = lv.ex;
  const std::size_t R = ex.R;
  const int n = ex.dim().layout.n;
  const T sigma = ex.data.problem.c();
  std::map<int, std::vector<T>> before, after;  // by survivor row
  for (const auto& [key, p] : parts) {
    const int j = lv.outputs(key.first)[key.second].second;
    sum_parts(p, R, j < lv.layout.groups[key.first].start ? after[j] : before[j]);
  }
  const std::vector<T> zero(R, T(0));
  std::vector<T> w(R), tmp(R);
  for (int j : lv.layout.survivors) {
    if (!lv.holds(j)) continue;
    const auto left = before.find(j);
    ex.solver.apply_block(0, sigma, j, j - 1, left != before.end() ? left->second.data() : zero.data(), w.data(),
                          tmp.data(), false);
    if (j + 1 < n) {
      const auto right = after.find(j);
      ex.solver.apply_block(0, sigma, j, j + 1, right != after.end() ? right->second.data() : zero.data(),
                            w.data(), tmp.data(), true);
    }
    reference::axpy(R, T(-1), w.data(), X + (std::size_t(j) - ex.row_begin()) * R);
  }
}

}  // namespace

// One level of the reduction (back = false) or the back substitution on
// this rank's slab X: inputs in, this rank's shares, outputs out and summed.
template <class T> void SlabExecutor<T>::phase(int level, bool back, T* X, reference::PivotWatch& watch) const {
  const Level<T> lv(*this, level, back);
  Arrivals<T> arrived{R, {}};
  const auto in = receive_inputs(lv, X, arrived);
  const auto partial = compute_shares(lv, in, watch);
  const Parts<T> parts = exchange_outputs(lv, partial, arrived);
  if (back) store_solutions(lv, parts, X);
  else update_survivors(lv, parts, X);
}

template void SlabExecutor<float>::phase(int, bool, float*, reference::PivotWatch&) const;
template void SlabExecutor<double>::phase(int, bool, double*, reference::PivotWatch&) const;
template void SlabExecutor<std::complex<float>>::phase(int, bool, std::complex<float>*, reference::PivotWatch&) const;
template void SlabExecutor<std::complex<double>>::phase(int, bool, std::complex<double>*, reference::PivotWatch&) const;

}  // namespace pscr::distributed
