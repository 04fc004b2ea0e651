// Options of a plan: which backend executes it and how.
#pragma once
#include <string>

namespace pscr {

enum class Backend {
  reference,  // multithreaded C++ executor on the host (the correctness oracle)
  opencl,     // OpenCL kernel pipeline
};

struct Options {
  Backend backend = Backend::reference;
  int radix = 4;       // q >= 2; 4 is the method's design point, 2 for comparison
  int threads = 0;     // host threads for the reference executor; 0 = all cores
  // OpenCL device selection: "platform:device" indices, or a substring of the
  // device name; empty = PSCR_DEVICE environment variable, else the first GPU,
  // else the first device.
  std::string device;
  std::string tuning_file;  // tuned parameters (JSON); empty = shipped database/defaults
};

}  // namespace pscr
