// Which kernel parameters a plan uses (internal; see Options).
#pragma once
#include <string>

#include "pscr/options.hpp"
#include "pscr/tuning.hpp"

namespace pscr::tuning {

struct Resolved {
  KernelParameters parameters;
  std::string source;  // for PlanInfo::parameters_source and error messages
};

// Options::parameters; else the entry for the device (CL_DEVICE_NAME) in
// Options::tuning_file, then in the shipped database; else one for a device
// of the same architecture (not empty) in the same order; else the defaults.
Resolved resolve(const Options& options, const std::string& device, const std::string& architecture,
                 const std::string& problem_class, std::size_t n);

}  // namespace pscr::tuning
