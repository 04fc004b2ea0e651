// How a plan is chosen from the options before planning (plan_choice.hpp).
#include "plan_choice.hpp"

#include <complex>
#include <string>

#include "opencl/opencl_executor.hpp"
#include "pscr/errors.hpp"

namespace pscr {

template <class T> int plan_radix(const Problem<T>& problem, const Options& options) {
  if (options.radix < 0 || options.radix == 1)
    throw InvalidArgument("radix q = " + std::to_string(options.radix) + " (needs q >= 2, or 0 for automatic)");
  if (options.backend == Backend::opencl && options.radix > kMaxOpenCLRadix)
    throw InvalidArgument("radix q = " + std::to_string(options.radix) + " (the OpenCL backend takes q <= " +
                          std::to_string(kMaxOpenCLRadix) + ": its kernels hold q + 1 scalars per work-item)");
  if (options.radix > 0) return options.radix;
  if (options.backend == Backend::opencl) return opencl_parameters(problem, options).parameters.radix;
  return kReferenceRadix;
}

template <class T> PlanChoice plan_choice(const Problem<T>& problem, const Options& options) {
  if (options.backend != Backend::opencl) return {plan_radix(problem, options), 0, 0};
  // on OpenCL: the parameters resolved once, for the radix, dense_top and transforms
  const int named = options.radix == 0 ? 0 : plan_radix(problem, options);  // throws for a bad radix
  const KernelParameters p = opencl_parameters(problem, options).parameters;
  const bool split = options.device_split == DeviceSplit::rows && opencl_devices(options).size() > 1;
  const int sine_limit = p.transforms == 1 && options.shifts == 1 && !split ? opencl_sine_limit<T>(options, p) : 0;
  return {named > 0 ? named : p.radix, dense_leading(p, problem), sine_limit};
}

void check_threads(int threads) {
  // OpenMP starts every thread asked for: a million of them end the process
  if (threads < 0 || threads > kMaxThreads)
    throw InvalidArgument("threads = " + std::to_string(threads) + " (needs 0 ... " + std::to_string(kMaxThreads) +
                          "; 0 = all cores)");
}

void check_enumerations(const Options& options) {
  // enumerations set from integers (a cast, a binding) must name a value
  if (options.backend != Backend::reference && options.backend != Backend::opencl)
    throw InvalidArgument("backend = " + std::to_string(int(options.backend)) +
                          " (needs Backend::reference or Backend::opencl)");
  if (options.device_split != DeviceSplit::batches && options.device_split != DeviceSplit::rows)
    throw InvalidArgument("device_split = " + std::to_string(int(options.device_split)) +
                          " (needs DeviceSplit::batches or DeviceSplit::rows)");
  if (options.elimination != Elimination::automatic && options.elimination != Elimination::ordinary)
    throw InvalidArgument("elimination = " + std::to_string(int(options.elimination)) +
                          " (needs Elimination::automatic or Elimination::ordinary)");
}

void check_options(const Options& options) {
  check_enumerations(options);
  check_threads(options.threads);
  if (options.refine < 0 || options.refine > 10)
    throw InvalidArgument("refine = " + std::to_string(options.refine) + " (needs 0 ... 10 steps)");
  if (options.shifts < 1 || options.shifts > 64)
    throw InvalidArgument("shifts = " + std::to_string(options.shifts) + " (needs 1 ... 64 problems per solve)");
  if (options.device_split != DeviceSplit::rows) return;
  // the reference executor runs on the host and would ignore the split
  if (options.backend != Backend::opencl)
    throw InvalidArgument("device_split = rows needs the OpenCL backend (backend = reference): it splits a solve "
                          "over the OpenCL devices of Options::devices");
  // a split plan has no device-buffer solves, so none of shifted problems
  // (opencl::solve_shifts_async), and its ranks' buffers hold one problem
  if (options.shifts > 1)
    if (const std::size_t devices = opencl_devices(options).size(); devices > 1)
      throw InvalidArgument("shifts = " + std::to_string(options.shifts) + " with device_split = rows over " +
                            std::to_string(devices) +
                            " devices: shifted solves (opencl::solve_shifts_async) need a plan on one device");
}

template PlanChoice plan_choice(const Problem<float>&, const Options&);
template PlanChoice plan_choice(const Problem<double>&, const Options&);
template PlanChoice plan_choice(const Problem<std::complex<float>>&, const Options&);
template PlanChoice plan_choice(const Problem<std::complex<double>>&, const Options&);
template int plan_radix(const Problem<float>&, const Options&);
template int plan_radix(const Problem<double>&, const Options&);
template int plan_radix(const Problem<std::complex<float>>&, const Options&);
template int plan_radix(const Problem<std::complex<double>>&, const Options&);

}  // namespace pscr
