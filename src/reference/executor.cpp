#include "executor.hpp"

#include <complex>

#include "../plan_description.hpp"
#include "level_solver.hpp"

namespace pscr {
namespace {

using reference::LevelSolver;
using reference::PivotWatch;

template <class T> class ReferenceExecutor final : public Executor<T> {
 public:
  ReferenceExecutor(const planner::PlanData<T>& pd, int threads) : pd_(pd), solver_(pd, threads) {}

  double solve_in_place(T* x, std::size_t count) const override {
    const std::size_t N = pd_.problem.unknowns();
    PivotWatch watch;
    for (std::size_t c = 0; c < count; ++c)
      solver_.solve_dim(0, pd_.problem.c(), pd_.pure_neumann, x + c * N, solver_.threads() > 1, watch);
    solver_.check_pivots(watch.smallest, watch.system);
    return 0;
  }
  void describe(PlanInfo& info) const override {
    info.backend = "reference";
    info.line_solver = line_solver_name(pd_, "thomas");
  }
  std::optional<planner::LineElimination> line_elimination() const override {
    return planner::LineElimination{};  // Thomas' algorithm on whole lines
  }

 private:
  const planner::PlanData<T>& pd_;
  LevelSolver<T> solver_;
};

}  // namespace
template <class T>
std::unique_ptr<Executor<T>> make_reference_executor(const planner::PlanData<T>& plan, int threads) {
  return std::make_unique<ReferenceExecutor<T>>(plan, threads);
}

template std::unique_ptr<Executor<float>> make_reference_executor(const planner::PlanData<float>&, int);
template std::unique_ptr<Executor<double>> make_reference_executor(const planner::PlanData<double>&, int);
template std::unique_ptr<Executor<std::complex<float>>> make_reference_executor(
    const planner::PlanData<std::complex<float>>&, int);
template std::unique_ptr<Executor<std::complex<double>>> make_reference_executor(
    const planner::PlanData<std::complex<double>>&, int);

}  // namespace pscr
