// One level of a distributed plan on the host (internal; docs/distributed.md):
// the rows a group reads cross ranks, each rank computes its shares of the
// modes with the reference level solver, and the shares' partial sums go to
// the ranks holding the rows they update.
#include <algorithm>
#include <complex>
#include <deque>
#include <vector>

#include "slab_executor.hpp"

namespace pscr::distributed {

// One level of the reduction (back = false) or the back substitution on
// this rank's slab X.
template <class T> void SlabExecutor<T>::phase(int level, bool back, T* X, reference::PivotWatch& watch) const {
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


template void SlabExecutor<float>::phase(int, bool, float*, reference::PivotWatch&) const;
template void SlabExecutor<double>::phase(int, bool, double*, reference::PivotWatch&) const;
template void SlabExecutor<std::complex<float>>::phase(int, bool, std::complex<float>*, reference::PivotWatch&) const;
template void SlabExecutor<std::complex<double>>::phase(int, bool, std::complex<double>*, reference::PivotWatch&) const;

}  // namespace pscr::distributed
