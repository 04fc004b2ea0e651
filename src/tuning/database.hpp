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

Resolved resolve(const Options& options, const std::string& device, const std::string& problem_class, std::size_t n);

}  // namespace pscr::tuning
