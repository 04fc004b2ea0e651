// One plan on several OpenCL devices: each device holds the whole plan (its
// eigen data are shared on the host) and a batch of right-hand sides is split
// into one contiguous share per device, solved side by side from one host
// thread per device. Single right-hand sides run on the first device, and so
// do device-buffer solves unless they name a device (pscr/opencl.hpp).
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <map>
#include <sstream>
#include <thread>

#include "device.hpp"
#include "opencl_executor.hpp"
#include "pscr/errors.hpp"

namespace pscr {

std::vector<std::string> opencl_devices(const Options& o) {
  if (o.opencl_queue) return {""};
  std::vector<std::string> list = o.devices;
  if (list.empty()) {
    if (const char* env = std::getenv("PSCR_DEVICES"); env && *env) {
      std::stringstream ss(env);
      for (std::string item; std::getline(ss, item, ',');) list.push_back(item);
      for (const auto& item : list)
        if (item.empty()) throw InvalidArgument("PSCR_DEVICES='" + std::string(env) + "' has an empty entry");
    }
  }
  for (const auto& item : list)
    if (item.empty()) throw InvalidArgument("Options::devices has an empty selector");
  if (list.empty()) list.push_back(o.device);
  return list;
}

namespace {

// o on the one device `selector`.
Options on_device(const Options& o, const std::string& selector) {
  Options one = o;
  one.devices.clear();
  one.device = selector;
  return one;
}

// An error of the i-th device of a plan, naming it.
BackendError device_error(std::size_t i, const std::string& selector, const Error& e) {
  return BackendError("device " + std::to_string(i) + " of the plan ('" + selector + "'): " + e.what());
}

template <class T> class MultiDeviceExecutor final : public Executor<T> {
 public:
  MultiDeviceExecutor(const planner::PlanData<T>& pd, const Options& o, const std::vector<std::string>& devices)
      : unknowns_(pd.problem.unknowns()), parts_(devices.size()) {
    // The devices are selected one after another (the OpenCL ICD loader's
    // first enumeration is not safe to run concurrently: a second thread saw
    // no platform on PoCL); then each device creates its context, builds its
    // program and uploads the plan from its own thread.
    for (std::size_t i = 0; i < devices.size(); ++i) {
      try {
        ocl::select_device(devices[i]);
      } catch (const Error& e) {
        throw device_error(i, devices[i], e);
      }
    }
    std::vector<std::exception_ptr> failed(devices.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < devices.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          parts_[i] = make_device_executor(pd, on_device(o, devices[i]));
        } catch (...) {
          failed[i] = std::current_exception();
        }
      });
    for (auto& t : threads) t.join();
    for (std::size_t i = 0; i < failed.size(); ++i)
      if (failed[i]) {
        try {
          std::rethrow_exception(failed[i]);
        } catch (const Error& e) {
          throw device_error(i, devices[i], e);
        }
      }
  }

  // Shares of `count` as equal as can be, the first devices taking the
  // remainder: run(i, first, share) for each device with a share, on a
  // thread of its own but the last (in the calling thread); a device's
  // exception is rethrown after all have finished.
  template <class Run> void for_shares(std::size_t count, Run&& run) const {
    const std::size_t D = parts_.size();
    std::vector<std::exception_ptr> failed(D);
    std::vector<std::thread> threads;
    std::size_t first = 0;
    for (std::size_t i = 0; i < D; ++i) {
      const std::size_t share = count / D + (i < count % D ? 1 : 0);
      if (share == 0) break;
      auto one = [&, i, first, share] {
        try {
          run(i, first, share);
        } catch (...) {
          failed[i] = std::current_exception();
        }
      };
      if (i + 1 < D && first + share < count) threads.emplace_back(one);
      else one();
      first += share;
    }
    for (auto& t : threads) t.join();
    for (const auto& e : failed)
      if (e) std::rethrow_exception(e);
  }

  double solve_in_place(T* x, std::size_t count) const override {
    if (count < 2) return parts_[0]->solve_in_place(x, count);
    std::vector<double> copies(parts_.size(), 0);
    for_shares(count, [&](std::size_t i, std::size_t first, std::size_t share) {
      copies[i] = parts_[i]->solve_in_place(x + first * unknowns_, share);
    });
    double total = 0;
    for (double c : copies) total += c;
    return total;
  }

  // The same shares from f into u; a bad value of a share is named by its
  // index in the whole batch.
  bool solve_host(const T* f, T* u, std::size_t count, HostSolveResult& result) const override {
    const std::size_t D = parts_.size();
    if (count < 2) return parts_[0]->solve_host(f, u, count, result);
    std::vector<HostSolveResult> results(D);
    std::vector<std::size_t> firsts(D, 0);
    for_shares(count, [&](std::size_t i, std::size_t first, std::size_t share) {
      firsts[i] = first;
      parts_[i]->solve_host(f + first * unknowns_, u + first * unknowns_, share, results[i]);
    });
    for (std::size_t i = 0; i < D; ++i) {
      const HostSolveResult& r = results[i];
      if (r.bad_input != std::size_t(-1))
        result.bad_input = std::min(result.bad_input, firsts[i] * unknowns_ + r.bad_input);
      result.nonfinite_output = result.nonfinite_output || r.nonfinite_output;
      SolveStats& st = result.stats;
      st.copy_in_seconds += r.stats.copy_in_seconds;
      st.copy_out_seconds += r.stats.copy_out_seconds;
      st.transfer_seconds += r.stats.transfer_seconds;
      st.solve_seconds += r.stats.solve_seconds;
      st.staging_bytes += r.stats.staging_bytes;
      if (i == 0) st.staging = r.stats.staging;
    }
    return true;
  }

  std::vector<KernelTime> kernel_times() const override {
    std::map<std::string, KernelTime> sum;
    for (const auto& p : parts_)
      for (const auto& k : p->kernel_times()) {
        KernelTime& s = sum[k.kernel];
        s.kernel = k.kernel;
        s.seconds += k.seconds;
        s.launches += k.launches;
      }
    std::vector<KernelTime> out;
    for (auto& [name, k] : sum) out.push_back(k);
    return out;
  }
  void* opencl_context() const override { return parts_[0]->opencl_context(); }
  void* opencl_queue() const override { return parts_[0]->opencl_queue(); }
  double solve_device(void* buffer, std::size_t count, bool check, void** event) const override {
    return parts_[0]->solve_device(buffer, count, check, event);
  }
  void set_profiling(bool on) override {
    for (auto& p : parts_) p->set_profiling(on);
  }
  std::string check_parameters(const KernelParameters& k) const override {
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      const std::string why = parts_[i]->check_parameters(k);
      if (!why.empty()) return "device " + std::to_string(i) + ": " + why;
    }
    return {};
  }
  std::size_t device_count() const override { return parts_.size(); }
  const Executor<T>* device_part(std::size_t i) const override { return i < parts_.size() ? parts_[i].get() : nullptr; }
  std::optional<planner::LineElimination> line_elimination() const override { return parts_[0]->line_elimination(); }
  void describe(PlanInfo& info) const override {
    parts_[0]->describe(info);
    for (std::size_t i = 1; i < parts_.size(); ++i) {
      PlanInfo one;
      parts_[i]->describe(one);
      info.device_bytes += one.device_bytes;
      info.staging_bytes += one.staging_bytes;
      info.backend += " + " + one.backend.substr(one.backend.find(": ") + 2);
    }
  }

 private:
  std::size_t unknowns_;
  std::vector<std::unique_ptr<Executor<T>>> parts_;
};

}  // namespace

template <class T>
std::unique_ptr<Executor<T>> make_opencl_executor(const planner::PlanData<T>& plan, const Options& options) {
  const auto devices = opencl_devices(options);
  if (devices.size() == 1) return make_device_executor(plan, on_device(options, devices[0]));
  if (options.device_split == DeviceSplit::rows) return make_device_split_executor(plan, options, devices);
  return std::make_unique<MultiDeviceExecutor<T>>(plan, options, devices);
}

template std::unique_ptr<Executor<float>> make_opencl_executor(const planner::PlanData<float>&, const Options&);
template std::unique_ptr<Executor<double>> make_opencl_executor(const planner::PlanData<double>&, const Options&);
template std::unique_ptr<Executor<std::complex<float>>> make_opencl_executor(
    const planner::PlanData<std::complex<float>>&, const Options&);
template std::unique_ptr<Executor<std::complex<double>>> make_opencl_executor(
    const planner::PlanData<std::complex<double>>&, const Options&);

}  // namespace pscr
