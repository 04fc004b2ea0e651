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
// them. Bisection, closed forms and the other methods run on every part. The tasks and
// chunks are those of one process, so every part ends with the eigenpairs
// one process computes, to the bit. The planner computes the pencils of at
// least kLargePencil (= kSharedPencil) rows one after another on its own
// thread, in the same order on every part: the collective sums match up.
#pragma once
#include <cstddef>
#include <functional>

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
