// Compiled OpenCL programs kept on disk (internal), so that a second process
// does not compile again. An entry is keyed by the platform, device, driver
// and device versions, the build options and a hash of the source; its key
// and a checksum of the binary are stored with it and checked on load. A
// missing, stale, corrupt or unloadable entry is rebuilt from source and
// replaced, never trusted. By default not on PoCL, which caches its own.
#pragma once
#include <string>

#include "device.hpp"

namespace pscr::ocl {

// The cache directory for a setting: "off" = none; "" = $PSCR_PROGRAM_CACHE
// (itself "off", or a directory), else $XDG_CACHE_HOME/pscr, else
// $HOME/.cache/pscr; anything else is the directory.
std::string program_cache_dir(const std::string& setting);

struct CachedBuild {
  Program program;
  // "hit", "miss" (built and stored), "miss (not stored: ...)", "off", or
  // "off (the driver caches its programs)" (PoCL, by default)
  std::string outcome;
  double seconds = 0;   // load or build time
};

// build_program (device.hpp) through the cache. KernelBuildError as there.
CachedBuild build_cached(cl_context ctx, const Device& dev, const char* source, const std::string& options,
                         const std::string& setting);

}  // namespace pscr::ocl
