// The clock of the plans' timings (PlanInfo, SolveStats; internal).
#pragma once
#include <chrono>

namespace pscr {

using clock_type = std::chrono::steady_clock;

// Seconds from t0 to now.
inline double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

}  // namespace pscr
