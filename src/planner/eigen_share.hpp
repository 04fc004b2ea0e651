// One process's part of the eigen work of the large pencils (internal): the
// ranks of a distributed plan compute the eigen data once between them
// instead of each computing all of it (docs/distributed.md).
//
// While an EigenShareScope is active on a thread, the pencils of at least
// kSharedPencil rows computed on that thread by the Newton method (its
// eigenvalue tasks and eigenvector chunks) or the twisted one (its Rayleigh
// quotient iterations, by chunks of eigenvalue indices) split that work over
// the parts (task or chunk c of C to part c · parts / C) and leave the
// others' values zero; `sum` (over the parts, collective) then completes
// them. The bisection that isolates their eigenvalues splits the Sturm counts
// of each round's points over the parts (shared_counts: integers, so the sum
// is exact and every part bisects alike). Closed forms and the other methods
// run on every part. The tasks and
// chunks are those of one process, so every part ends with the eigenpairs
// one process computes, to the bit. The planner computes the pencils of at
// least kLargePencil (= kSharedPencil) rows one after another on its own
// thread, in the same order on every part: the collective sums match up.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

namespace pscr::planner {

struct EigenShare {
  int part = 0, parts = 1;
  std::function<void(double*, std::size_t)> sum;  // element-wise over the parts, in place
  bool owns(int task, int tasks) const { return int(long(task) * parts / tasks) == part; }
};

inline constexpr int kSharedPencil = 512;

namespace detail {
inline thread_local const EigenShare* current_share = nullptr;
}

// The share that applies to a pencil of m rows computed on this thread, or null.
inline const EigenShare* eigen_share(int m) {
  const EigenShare* s = detail::current_share;
  return s && s->parts > 1 && m >= kSharedPencil ? s : nullptr;
}

// Rounds of fewer points than this count on every part: a sum over the
// parts costs more than their counts.
inline constexpr std::size_t kSharedCounts = 256;

// The counts at the points x (counts(points) → std::vector<int>), each part
// computing a contiguous block of them where `share` applies (collective:
// every part calls it with the same x), or all of them here.
template <class Counts>
std::vector<int> shared_counts(const EigenShare* share, const std::vector<double>& x, const Counts& counts) {
  if (!share || x.size() < kSharedCounts) return counts(x);
  const std::size_t n = x.size(), b = n * std::size_t(share->part) / std::size_t(share->parts),
                    e = n * std::size_t(share->part + 1) / std::size_t(share->parts);
  const std::vector<int> mine = counts(std::vector<double>(x.begin() + long(b), x.begin() + long(e)));
  std::vector<double> all(n, 0.0);
  for (std::size_t i = b; i < e; ++i) all[i] = double(mine[i - b]);
  share->sum(all.data(), n);
  std::vector<int> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = int(all[i]);
  return out;
}

class EigenShareScope {
 public:
  explicit EigenShareScope(const EigenShare& s) : previous_(detail::current_share) { detail::current_share = &s; }
  ~EigenShareScope() { detail::current_share = previous_; }
  EigenShareScope(const EigenShareScope&) = delete;
  EigenShareScope& operator=(const EigenShareScope&) = delete;

 private:
  const EigenShare* previous_;
};

}  // namespace pscr::planner
