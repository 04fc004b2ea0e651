/// @file
/// Options of a plan: which backend executes it and how.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "pscr/parameters.hpp"

namespace pscr {

/// Which executor runs a plan.
enum class Backend {
  reference,  ///< multithreaded C++ executor on the host (the correctness oracle)
  opencl,     ///< OpenCL kernel pipeline
};

/// How a plan on several OpenCL devices (Options::devices) uses them.
enum class DeviceSplit {
  batches,  ///< every device holds the whole plan; solve_batch gives each a share of the right-hand sides
  rows,     ///< every solve is split over the devices by rows of dimension 1 (docs/distributed.md)
};

/// How the tridiagonal systems of the last dimension are eliminated
/// (docs/accuracy.md): automatic = the excess representation when every system
/// is diagonally dominant, else the ordinary formulas; ordinary = always the
/// ordinary formulas (to compare accuracy and speed).
enum class Elimination { automatic, ordinary };

/// The radix of automatic plans on the host: fewer levels mean fewer
/// tridiagonal solves, and the host pays little for the longer sums (2D 2047²
/// on 2 cores: 246 ms with q = 4, 211 with 8, 197 with 16; 3D 127³: 619, 399,
/// 172 ms).
inline constexpr int kReferenceRadix = 16;

/// The largest radix of OpenCL plans (Options::radix; the tuned radices,
/// KernelParameters::radix, stay within 2 ... 16). The kernels hold q + 1
/// scalars per work-item in private arrays and unroll their loops over them
/// (the weighted sums of kernels/level.cl), so registers, private memory and
/// compile time grow with q: PoCL compiled q = 256 in 20 to 50 s and could not
/// load the kernels it built for q = 999 (the process aborted). Larger radices
/// gain nothing there: q = 64 lays out n up to 2^31 in six levels, and the
/// automatic choice never passes 16. The reference backend has no bound (its
/// work arrays are sized by the groups, and a radix past n is one level).
inline constexpr int kMaxOpenCLRadix = 64;

/// The most host threads Options::threads may ask for.
inline constexpr int kMaxThreads = 1024;

/// Options of a plan: which backend executes it and how (docs/guide/options.md).
struct Options {
  Backend backend = Backend::reference;  ///< the executor; Backend::opencl for a device
  /// Radix q >= 2 of the reduction, or 0 (automatic): the OpenCL backend takes
  /// KernelParameters::radix of the parameters it resolves for its (first)
  /// device (tuned per device, problem class and size), the reference and
  /// distributed backends kReferenceRadix; that radix sets the number of
  /// levels, and the plan takes the smallest radix with no more levels for its
  /// sizes (fewer source rows per level, the same tridiagonal solves; 2D n =
  /// 2047 with 16: 13) if it has a million unknowns or more and every shifted
  /// system is diagonally dominant (smaller, indefinite and complex problems
  /// keep it: docs/method.md, "Choosing the radix"). Radices named in Options::parameters are kept as given.
  /// PlanInfo::radix tells which was used. OpenCL plans (over MPI ranks too)
  /// take at most kMaxOpenCLRadix.
  int radix = 0;
  int threads = 0;     ///< host threads for the reference executor; 0 = all cores; at most kMaxThreads
  /// OpenCL device selection: "platform:device" indices, or a substring of the
  /// device name; empty = PSCR_DEVICE environment variable, else the first GPU,
  /// else the first device.
  std::string device;
  /// Several OpenCL devices for one plan (selectors as `device`); empty =
  /// $PSCR_DEVICES (comma-separated) if set, else the one `device`. How they
  /// are used: device_split. With batches, single solves, device-buffer solves
  /// (pscr/opencl.hpp) and opencl::context/queue use the first device.
  std::vector<std::string> devices;
  /// With several devices: split batches (each device holds the whole plan)
  /// or split every solve by rows of dimension 1 (each device holds the array
  /// and its share of each level's partial solutions; host arrays only, the
  /// same distributed plan as over MPI ranks, its ranks threads here). rows
  /// needs Backend::opencl, and shifts = 1 when it splits over several devices
  /// (InvalidArgument otherwise).
  DeviceSplit device_split = DeviceSplit::batches;
  /// OpenCL kernel parameters, in this order of precedence: `parameters` when
  /// set; else the entry of `tuning_file` (JSON, see pscr/tuning.hpp) matching
  /// the device and problem class; else the shipped tuning database; else an
  /// entry of a device of the same architecture, in the same order; else the
  /// defaults of KernelParameters. PlanInfo::parameters_source tells which
  /// was used. The reference backend has no kernel parameters: it reads
  /// neither (a missing tuning_file is not an error there).
  std::optional<KernelParameters> parameters;
  std::string tuning_file;  ///< JSON tuning file (pscr/tuning.hpp) searched before the shipped database; "" = none
  /// Record per-kernel device times (OpenCL profiling events): Plan::kernel_times().
  bool profile = false;
  /// Compiled OpenCL programs kept on disk, so that later processes skip the
  /// compilation: "" = $PSCR_PROGRAM_CACHE if set ("off" or a directory), else
  /// $XDG_CACHE_HOME/pscr, else ~/.cache/pscr; "off" = compile every time; or
  /// a directory. Entries are checked (key and checksum) and rebuilt when
  /// stale or corrupt; PlanInfo::program_cache tells what happened. On PoCL,
  /// which caches the programs it builds itself, "" leaves it to PoCL.
  std::string program_cache;
  /// OpenCL: a cl_command_queue of the caller's (in-order), cast to void* so
  /// that this header needs no OpenCL; see opencl::on_queue in pscr/opencl.hpp.
  /// The plan then lives in that queue's context on its device (`device` is
  /// ignored), retains the queue, and orders its copies and kernels on it, so
  /// the caller's own work and the solves need no further synchronisation.
  void* opencl_queue = nullptr;
  /// Steps of iterative refinement of host solves: the residual f − A u is
  /// summed in double (for float and complex float plans: a wider precision
  /// than the solve) and the plan solves for the correction. For the cases the
  /// excess form does not cover (indefinite, complex); each step costs a solve
  /// and a product with A. 0 = none.
  int refine = 0;
  Elimination elimination = Elimination::automatic;  ///< how the tridiagonal systems are eliminated (Elimination)
  /// OpenCL: how many shifted problems one device-buffer solve takes together
  /// (opencl::solve_shifts_async): the plan's work buffers hold that many,
  /// and the problems share each launch. 1 ... 64; 1 (the default) plans no
  /// shifted solves.
  int shifts = 1;
};

}  // namespace pscr
