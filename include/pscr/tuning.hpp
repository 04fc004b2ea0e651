/// @file
/// Tuned kernel parameters per device and problem class, as JSON files
/// (the format CLBlast-style databases use: one entry per device × class ×
/// size range). The tuner (tuning/pscr-tune) writes them; plans read them.
///
///   { "format": "libpscr-tuning", "version": 1,
///     "entries": [ { "device": "<CL_DEVICE_NAME>", "class": "2d-real-double",
///                    "min_n": 1024, "max_n": 8191,
///                    "parameters": { "work_group": 64, ... },
///                    "seconds": 0.0041, "default_seconds": 0.0049 } ] }
///
/// Keys missing from "parameters" keep their defaults; unknown keys and
/// out-of-range values are errors that name the file and the key. An entry
/// may name the device's architecture ("architecture": "nvidia-sm90"; the
/// tuner writes it): a plan on a device without entries of its own takes
/// those of a device of the same architecture (an H200 or an H100 PCIe the
/// H100 SXM's), and PlanInfo::parameters_source says so.
#pragma once
#include "pscr/export.hpp"
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "pscr/parameters.hpp"

namespace pscr {

/// One entry of a tuning file: the kernel parameters for a device, a problem class and a range of sizes.
struct TuningEntry {
  std::string device;         ///< CL_DEVICE_NAME, exact
  /// The device's architecture (PlanInfo::device_architecture: "nvidia-sm90"
  /// from an NVIDIA device's compute capability; empty where unknown), for
  /// devices of the same architecture without entries of their own.
  std::string architecture;
  std::string problem_class;  ///< problem_class(): "2d-real-double", "3d-complex-float", ...
  /// The range [min_n, max_n] of the largest dimension of the problem that the entry covers.
  /// @{
  std::size_t min_n = 0, max_n = std::numeric_limits<std::size_t>::max();
  /// @}
  KernelParameters parameters;  ///< the parameters plans of this class use
  /// The tuner's measured solve times with these parameters and with the defaults (informative).
  /// @{
  double seconds = 0, default_seconds = 0;
  /// @}
};

/// "<dims>d-<real|complex>-<float|double>".
PSCR_API std::string problem_class(int dims, bool complex, bool double_precision);

/// FileFormatError (unreadable file, malformed JSON, wrong types) or
/// InvalidArgument (out-of-range parameter); both name the file and the key.
PSCR_API std::vector<TuningEntry> parse_tuning(const std::string& json_text, const std::string& source_name);
/// parse_tuning of the file at `path` (FileFormatError when it cannot be read).
PSCR_API std::vector<TuningEntry> read_tuning(const std::string& path);
/// Writes `entries` into `path`, merged with what the file already holds: an
/// entry with the same device, class and size range is replaced.
PSCR_API void write_tuning(const std::string& path, const std::vector<TuningEntry>& entries);
/// The entry for this device and class whose range holds n (the narrowest if
/// several do), or nullptr.
PSCR_API const TuningEntry* find_tuning(const std::vector<TuningEntry>& entries, const std::string& device,
                               const std::string& problem_class, std::size_t n);
/// The same for a device without entries of its own: the entry of a device
/// of `architecture` (not empty) for the class whose range holds n, the
/// narrowest if several do, or nullptr.
PSCR_API const TuningEntry* find_tuning_by_architecture(const std::vector<TuningEntry>& entries,
                                                        const std::string& architecture,
                                                        const std::string& problem_class, std::size_t n);
/// The entry a plan on `device` of `architecture` takes for the class and n:
/// the device's own in `file` (Options::tuning_file), then in `shipped`, then
/// one of its architecture in the same order; nullptr: the defaults.
PSCR_API const TuningEntry* choose_tuning(const std::vector<TuningEntry>& file, const std::vector<TuningEntry>& shipped,
                                          const std::string& device, const std::string& architecture,
                                          const std::string& problem_class, std::size_t n);
/// The database compiled into the library from tuning/shipped/*.json.
PSCR_API const std::vector<TuningEntry>& shipped_tuning();

}  // namespace pscr
