// Isolation of the eigenvalues of a definite problem by Sturm counts, shared by
// the twisted (twisted_eigen.cpp) and Newton (pencil_roots.cpp) eigensolvers
// (internal). A count function gives, for a batch of shifts, the number of
// eigenvalues below each.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "lanes.hpp"

namespace pscr::planner {

struct Interval {
  double lo, hi;
  int nlo, nhi;  // eigenvalues below lo and below hi
};

constexpr int kCountLanes = 32;  // shifts per Sturm-count sweep

// Counts at the points x: `sweep(lanes, out)` counts kCountLanes shifts at
// once; the sweeps are spread over the host threads (m: the problem size, for
// the task size).
template <class Sweep> std::vector<int> counts_at(int m, const std::vector<double>& x, const Sweep& sweep) {
  const int n = int(x.size());
  const int batches = (n + kCountLanes - 1) / kCountLanes, per_task = std::max(1, 4096 / std::max(m, 1));
  std::vector<int> out(static_cast<std::size_t>(batches) * kCountLanes);
  parallel_for((batches + per_task - 1) / per_task, m >= 128, [&](int task) {
    for (int b = task * per_task; b < std::min(batches, (task + 1) * per_task); ++b) {
      double lanes[kCountLanes];
      for (int k = 0; k < kCountLanes; ++k) lanes[k] = x[std::min(n - 1, b * kCountLanes + k)];
      sweep(lanes, &out[std::size_t(b) * kCountLanes]);
    }
  });
  out.resize(n);
  return out;
}

// Bisection rounds over all open intervals of [lo0, hi0] (which must hold all
// m eigenvalues) until each interval holds one eigenvalue and is narrower than
// a sixteenth of its distance to the neighbouring intervals, so that a
// Rayleigh quotient or Newton iteration started inside converges fast.
// Eigenvalues that bisection cannot separate (an interval at the rounding
// level, pivmin absolute) stay together when `keep_clusters`; otherwise the
// result is empty. Empty also when the counts are inconsistent (NaN or
// infinity in the data) or after max_rounds.
template <class Counts>
std::vector<Interval> isolate(int m, double lo0, double hi0, double pivmin, bool keep_clusters, int max_rounds,
                              const Counts& counts) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  const auto ends = counts({lo0, hi0});
  if (ends[0] != 0 || ends[1] != m) return {};
  std::vector<Interval> cur{{lo0, hi0, 0, m}}, next;
  std::vector<double> mids;
  std::vector<int> split;  // indices of the intervals bisected this round
  for (int round = 0; round < max_rounds; ++round) {
    mids.clear();
    split.clear();
    for (int a = 0; a < int(cur.size()); ++a) {
      const Interval& v = cur[a];
      const double width = v.hi - v.lo;
      bool open = v.nhi - v.nlo > 1;
      if (width <= 4 * eps * std::max(std::abs(v.lo), std::abs(v.hi)) + pivmin) {
        if (open && !keep_clusters) return {};
        continue;
      }
      if (!open) {
        double dist = std::numeric_limits<double>::infinity();
        if (a > 0) dist = std::min(dist, v.lo - cur[a - 1].hi);
        if (a + 1 < int(cur.size())) dist = std::min(dist, cur[a + 1].lo - v.hi);
        open = width > dist / 16;
      }
      if (open) {
        split.push_back(a);
        mids.push_back(v.lo + width / 2);
      }
    }
    if (split.empty()) return cur;
    const auto c = counts(mids);
    next.clear();
    std::size_t s = 0;
    for (int a = 0; a < int(cur.size()); ++a) {
      const Interval& v = cur[a];
      if (s < split.size() && split[s] == a) {
        const int cm = std::clamp(c[s], v.nlo, v.nhi);  // counts are monotone up to rounding
        if (cm > v.nlo) next.push_back({v.lo, mids[s], v.nlo, cm});
        if (v.nhi > cm) next.push_back({mids[s], v.hi, cm, v.nhi});
        ++s;
      } else {
        next.push_back(v);
      }
    }
    cur.swap(next);
  }
  return {};
}

}  // namespace pscr::planner
