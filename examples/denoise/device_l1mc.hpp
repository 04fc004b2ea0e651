// The L1-mean-curvature denoiser of l1mc.hpp on an OpenCL device
// (kernels/l1mc.cl): every subproblem and update on the device, the two
// separable solves as one shifted pair of a libpscr device-resident plan
// (opencl::solve_shifts_async) on the same queue; only the stopping
// criterion's partial sums come back each iteration.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "l1mc.hpp"

namespace pscr::denoise {

class DeviceL1mc {
 public:
  // `device`: an OpenCL device selector as Options::device ("" = the default);
  // `single`: float buffers, kernels and solves (double otherwise).
  DeviceL1mc(int width, int height, Parameters parameters, const std::string& device = "", bool single = false);
  ~DeviceL1mc();
  DeviceL1mc(const DeviceL1mc&) = delete;
  DeviceL1mc& operator=(const DeviceL1mc&) = delete;

  const Parameters& parameters() const;
  std::string device_name() const;
  // Per-subproblem times (Result::mean) need the queue finished after each
  // stage; off, only the whole iteration is timed (mean.misc holds it all).
  void set_stage_timing(bool on);

  Result denoise(const std::vector<double>& f, std::vector<double>& u);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace pscr::denoise
