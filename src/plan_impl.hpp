// What a Plan holds (internal; shared by plan.cpp and the backend-specific APIs).
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "executor.hpp"
#include "plan_choice.hpp"
#include "planner/plan_data.hpp"
#include "pscr/plan.hpp"

namespace pscr {

// Who may use a plan's executor and data: solves and the other calls hold it
// shared (reference solves run side by side; OpenCL executors take turns
// under their own locks), set_parameters exclusively, as it replaces the
// executor and, for another radix, the layout and eigen data. A waiting
// exclusive holder keeps new shared ones out, so that threads solving in a
// loop cannot starve it (std::shared_mutex on glibc prefers readers). Not
// recursive: a holder must not take it again.
class PlanLock {
 public:
  void lock_shared() {
    std::unique_lock<std::mutex> guard(mutex_);
    changed_.wait(guard, [&] { return !writing_ && writers_waiting_ == 0; });
    ++readers_;
  }
  void unlock_shared() {
    std::lock_guard<std::mutex> guard(mutex_);
    if (--readers_ == 0) changed_.notify_all();
  }
  void lock() {
    std::unique_lock<std::mutex> guard(mutex_);
    ++writers_waiting_;
    changed_.wait(guard, [&] { return !writing_ && readers_ == 0; });
    --writers_waiting_;
    writing_ = true;
  }
  void unlock() {
    std::lock_guard<std::mutex> guard(mutex_);
    writing_ = false;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int readers_ = 0, writers_waiting_ = 0;
  bool writing_ = false;
};

template <class T> struct Plan<T>::Impl {
  // c.radix: the plan's q, which Options::radix leaves open when 0; the
  // planner may then take another (planner::make_plan_data)
  Impl(const Problem<T>& p, const Options& o, const PlanChoice& c)
      : options(o), choice(c), data(plan_data(p, o, c)) {}
  Options options;
  PlanChoice choice;  // what laid data out
  planner::PlanData<T> data;
  std::unique_ptr<Executor<T>> exec;
  PlanInfo info;
  std::vector<double> neumann_weights;  // pure Neumann: (M1 1)⊗(M2 1)[⊗(M3 1)]
  double neumann_weight_sum = 0;
  std::unique_ptr<Problem<wide_t<T>>> wide;  // Options::refine: the problem in double for residuals
  mutable PlanLock lock;  // over exec, data and options.parameters
};

}  // namespace pscr
