// One solve split over the OpenCL devices of one process
// (Options::device_split = rows): a distributed plan per device, its ranks
// threads of this process (local_communicators), each device holding a slab
// of rows of dimension 1 (docs/distributed.md).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "../opencl/device.hpp"
#include "../opencl/opencl_executor.hpp"
#include "local_communicator.hpp"
#include "pscr/distributed.hpp"
#include "pscr/errors.hpp"

namespace pscr {
namespace {

// Runs body(p) on one thread per rank (rank 0 on the calling thread); if a
// rank throws, the others are released from their collective calls, and the
// first rank's error (in rank order) is rethrown. The next call starts clear:
// a refused solve leaves the plan usable.
template <class F> void on_ranks(const std::vector<std::shared_ptr<Communicator>>& comms, F&& body) {
  const std::size_t P = comms.size();
  reset_local_ranks(*comms[0]);
  std::vector<std::exception_ptr> failed(P);
  auto run = [&](std::size_t p) {
    try {
      body(p);
    } catch (...) {
      failed[p] = std::current_exception();
      abort_local_ranks(*comms[p]);
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t p = 1; p < P; ++p) threads.emplace_back(run, p);
  run(0);
  for (auto& t : threads) t.join();
  // a rank's own error before "another device failed" of those it released
  for (const auto& f : failed)
    if (f) {
      try {
        std::rethrow_exception(f);
      } catch (const BackendError& e) {
        if (std::string(e.what()).find("another device of the plan failed") == std::string::npos) throw;
      }
    }
  for (const auto& f : failed)
    if (f) std::rethrow_exception(f);
}

// A distributed plan's message for a non-finite value of right-hand side c
// of a batch, which the split solves one at a time: the index into the whole
// batch, as a plan on one device names it ("right-hand side: non-finite value
// at index i (on rank r)" → index c·N + i, N the unknowns).
inline std::string batch_position(const std::string& what, std::size_t c, std::size_t unknowns) {
  const std::string key = "at index ";
  const std::size_t at = what.find(key);
  if (at == std::string::npos) return what;
  std::size_t end = at + key.size();
  while (end < what.size() && std::isdigit(static_cast<unsigned char>(what[end]))) ++end;
  const std::size_t i = std::stoull(what.substr(at + key.size(), end - at - key.size()));
  return "right-hand side " + std::to_string(c) + " of the batch: non-finite value " + key +
         std::to_string(c * unknowns + i) + what.substr(end);
}

template <class T> class DeviceSplitExecutor final : public Executor<T> {
 public:
  DeviceSplitExecutor(const planner::PlanData<T>& pd, const Options& o, const std::vector<std::string>& devices)
      : unknowns_(pd.problem.unknowns()), comms_(local_communicators(int(devices.size()))), plans_(devices.size()) {
    // as in the multi-device plan: the devices are selected one after another
    // (the ICD loader's first enumeration is not safe to run concurrently)
    for (const auto& d : devices) ocl::select_device(d);
    Options each = o;
    each.devices = devices;  // rank p takes device p
    each.refine = 0;         // the Plan refines around the split's solves
    // the radix of the plan's reductions (a dense dimension's one level is
    // no radix a rank may be given: n + 1)
    each.radix = pd.reduction_radix(o.radix);
    on_ranks(comms_, [&](std::size_t p) {
      plans_[p] = std::make_unique<DistributedPlan<T>>(comms_[p], pd.problem, each);
    });
  }

  double solve_in_place(T* x, std::size_t count) const override { return solve_ranks(x, count).transfer_seconds; }
  // f copied into u, then solved there: the ranks check it as they read it
  // (a non-finite value is named by its index in the whole array and the
  // rank holding it), and the stats carry the levels and the exchanges.
  bool solve_host(const T* f, T* u, std::size_t count, HostSolveResult& result) const override {
    if (u != f) std::memmove(u, f, unknowns_ * count * sizeof(T));
    result.stats = solve_ranks(u, count);
    return true;
  }
  double solve_device(void*, std::size_t, bool, void**) const override {
    throw InvalidArgument("device-buffer solves need a plan on one device; this one is split over " +
                          std::to_string(plans_.size()) + " devices (Options::device_split = rows)");
  }
  std::size_t device_count() const override { return plans_.size(); }
  std::string check_parameters(const KernelParameters&) const override {
    return "kernel parameters cannot be changed on a plan split over devices";
  }
  // the first device's (every device runs the same kernels on its slab)
  std::vector<KernelTime> kernel_times() const override { return plans_[0]->kernel_times(); }
  void set_profiling(bool on) override {
    for (auto& p : plans_) p->set_profiling(on);
  }
  void describe(PlanInfo& info) const override {
    const PlanInfo& first = plans_[0]->info().plan;
    info.backend = first.backend.substr(0, first.backend.find(" (distributed"));
    info.device = first.device;
    info.device_architecture = first.device_architecture;
    info.parameters = first.parameters;
    info.parameters_source = first.parameters_source;
    info.line_solver = first.line_solver;
    // the ranks' methods: a transformed split's differ from the plan data's
    // (distributed/transform_split.hpp)
    info.radix = first.radix;
    info.dimension_methods = first.dimension_methods;
    info.eigen_methods = first.eigen_methods;
    info.elimination = first.elimination;
    info.predicted_error = first.predicted_error;
    info.warning = first.warning;
    info.build_seconds = first.build_seconds;
    info.program_cache = first.program_cache;
    info.device_bytes = 0;
    for (std::size_t p = 0; p < plans_.size(); ++p) {
      info.device_bytes += plans_[p]->info().plan.device_bytes;
      if (p > 0) {
        const std::string& b = plans_[p]->info().plan.backend;
        info.backend += " + " + b.substr(b.find(": ") + 2, b.find(" (distributed") - b.find(": ") - 2);
      }
    }
    info.backend += " (rows split over " + std::to_string(plans_.size()) + " devices)";
  }

 private:
  // Each rank solves its rows of the `count` right-hand sides in x; the
  // levels and exchanges of the slowest rank, the longest copies (each
  // summed over the right-hand sides).
  SolveStats solve_ranks(T* x, std::size_t count) const {
    std::lock_guard<std::mutex> turn(mutex_);
    const std::size_t P = plans_.size();
    std::vector<SolveStats> stats(P);
    on_ranks(comms_, [&](std::size_t p) {
      const DistributedPlan<T>& plan = *plans_[p];
      const std::size_t begin = plan.rows().begin * (unknowns_ / plan.problem().size(0));
      for (std::size_t c = 0; c < count; ++c) {
        T* slab = x + c * unknowns_ + begin;  // this device's rows of right-hand side c, contiguous
        SolveStats s;
        try {
          s = plan.solve(slab, slab);
        } catch (const NonFiniteInput& e) {
          if (count == 1) throw;
          throw NonFiniteInput(batch_position(e.what(), c, unknowns_));
        } catch (const NumericalBreakdown& e) {  // a non-finite solution: named as in the batch
          if (count == 1) throw;
          throw NumericalBreakdown(batch_position(e.what(), c, unknowns_));
        }
        stats[p].transfer_seconds += s.transfer_seconds;
        stats[p].device_seconds += s.device_seconds;
        stats[p].exchange_wait_seconds += s.exchange_wait_seconds;
        stats[p].exchange_seconds += s.exchange_seconds;
      }
    });
    SolveStats slowest = *std::max_element(stats.begin(), stats.end(), [](const SolveStats& a, const SolveStats& b) {
      return a.device_seconds < b.device_seconds;
    });
    for (const SolveStats& s : stats) slowest.transfer_seconds = std::max(slowest.transfer_seconds, s.transfer_seconds);
    return slowest;
  }

  std::size_t unknowns_;
  // One set of communicators and device plans: solves from several threads
  // take turns (two at once mixed their messages: "rank 0 expects 264 bytes
  // from rank 1 that it did not send", "another device of the plan failed").
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<Communicator>> comms_;
  std::vector<std::unique_ptr<DistributedPlan<T>>> plans_;
};

}  // namespace

template <class T>
std::unique_ptr<Executor<T>> make_device_split_executor(const planner::PlanData<T>& plan, const Options& options,
                                                        const std::vector<std::string>& devices) {
  return std::make_unique<DeviceSplitExecutor<T>>(plan, options, devices);
}

template std::unique_ptr<Executor<float>> make_device_split_executor(const planner::PlanData<float>&, const Options&,
                                                                     const std::vector<std::string>&);
template std::unique_ptr<Executor<double>> make_device_split_executor(const planner::PlanData<double>&,
                                                                      const Options&, const std::vector<std::string>&);
template std::unique_ptr<Executor<std::complex<float>>> make_device_split_executor(
    const planner::PlanData<std::complex<float>>&, const Options&, const std::vector<std::string>&);
template std::unique_ptr<Executor<std::complex<double>>> make_device_split_executor(
    const planner::PlanData<std::complex<double>>&, const Options&, const std::vector<std::string>&);

}  // namespace pscr
