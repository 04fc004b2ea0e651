/// @file
/// A plan: the eigenpairs and layout of a problem, built once, that solves
/// any number of right-hand sides (FFTW-style plan/execute split).
#pragma once
#include "pscr/export.hpp"
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "pscr/options.hpp"
#include "pscr/problem.hpp"

namespace pscr {

/// What a plan chose and what it holds: Plan::info() (docs/guide/options.md).
struct PlanInfo {
  double init_seconds = 0;      ///< plan construction: layout, eigenpairs, backend set-up (program build, uploads)
  double eigen_seconds = 0;     ///< of which the layout and eigenpairs
  double build_seconds = 0;     ///< of which the OpenCL program (compiled, or loaded from the program cache)
  std::string program_cache;    ///< OpenCL: "hit", "miss", "miss (not stored: ...)", "off" or "off (the driver caches its programs)"
  int radix = 0;                ///< the radix q of the plan's reduction (Options::radix, or the automatic choice; 0: none)
  std::size_t eigen_problems = 0;  ///< distinct sub-pencils solved (identical ones shared)
  std::size_t host_bytes = 0;   ///< memory held by the plan on the host
  std::size_t device_bytes = 0; ///< memory held on the device (OpenCL backend; summed over the devices of a plan on several)
  /// OpenCL backend: the page-locked host memory through which host-array
  /// solves copy, allocated by the first: four chunks of a quarter of
  /// $PSCR_HOST_STAGING_BYTES (default 32 MiB) or of one right-hand side,
  /// whichever is smaller; 0 when it is not used (devices other than GPUs,
  /// unless $PSCR_HOST_STAGING=pinned; $PSCR_HOST_STAGING=pageable;
  /// SolveStats::staging_bytes is 0 too where the driver refused it). A batch
  /// of host arrays also allocates a second solution vector on the device
  /// (one more unknowns × scalar bytes, beyond device_bytes) when it can.
  std::size_t staging_bytes = 0;
  bool pure_neumann = false;    ///< the singular pure-Neumann case (see solve())
  /// @{
  /// How each stage keeps its accuracy (docs/accuracy.md). elimination: the
  /// tridiagonal systems of the last dimension, "excess" (every system
  /// diagonally dominant: eliminated in the excess representation) or
  /// "ordinary"; eigen_methods: per PSCR dimension, the method of its largest
  /// group sub-pencil (others may differ): "toeplitz" (closed form, uniform
  /// meshes), "relative" (eigenpairs to high relative accuracy), "twisted",
  /// "newton", "aberth", "mrrr", "crawford" or "dense" (docs/eigen.md).
  std::string elimination;
  std::vector<std::string> eigen_methods;
  /// @}
  /// How each dimension is taken, in order: a leading one by "reduction"
  /// (PSCR levels of the radix), "dense products" (one level, its whole
  /// basis applied as matrix products: KernelParameters::dense_top) or "sine
  /// transform" (one level, its basis a fast DST-I: KernelParameters::
  /// transforms); the last one "tridiagonal" (its systems solved as
  /// line_solver says). A distributed plan whose other dimensions are all
  /// transforms has dimension 1 first as "tridiagonal (partitioned over
  /// ranks)" (docs/distributed.md), and its eigen_methods are those of the
  /// others.
  std::vector<std::string> dimension_methods;
  /// How many times nearer to singular the shifted tridiagonal systems of the
  /// partial solutions come than the operator itself: its smallest |eigenvalue|
  /// over theirs (1 for definite problems, where the shifts only move away).
  /// Errors of indefinite problems grow by about its square beyond the
  /// operator's condition. Above eps^(-1/4) (54 in single, 8192 in double
  /// precision: more than half the digits lost) the automatic radix (neither
  /// Options::radix nor, on OpenCL, Options::parameters given) moves to
  /// the candidate that at least halves it, if one does; plans at or above
  /// 1/sqrt(eps) (2896, 6.7e7: no correct digit) are refused
  /// (NumericalBreakdown). (opencl::solve_shifts_async takes shifts >= c of
  /// excess-form plans only, definite problems where it stays 1.)
  double shift_amplification = 1;
  /// The largest growth of the unpivoted eliminations that solve the lines
  /// of the last dimension, over every shift they are solved at: the ratio
  /// of |L||U| to |A + σM|, row by row, for the backend's way (Thomas on
  /// the reference backend, chunks of each line on OpenCL; docs/accuracy.md
  /// §9). It multiplies predicted_error of indefinite problems. 1 where
  /// nothing grows and where it is not measured: diagonally dominant lines,
  /// lines solved in their eigenbasis, the OpenCL backend's global CR stages.
  double elimination_growth = 1;
  /// Estimated relative forward error of a solve (docs/accuracy.md,
  /// §9): 2 log2 N ε (N unknowns, ε of the working precision: the rounding
  /// of the solve's stages) for diagonally dominant problems in the excess
  /// form (real types, and complex ones with real data), n² ε (n = the
  /// last size) for dominant ones eliminated by the ordinary formulas
  /// (Elimination::ordinary); for
  /// indefinite and complex problems ε · κ · shift_amplification² ·
  /// elimination_growth, with κ the operator's eigenvalue ratio, which the
  /// unpivoted eliminations lose.
  double predicted_error = 0;
  /// Non-empty when predicted_error leaves fewer than half the digits of the
  /// working precision (above sqrt(ε)): what was estimated and what recovers
  /// the digits (Options::refine, a wider type). Every SolveStats of the plan
  /// repeats it; pscr-solve prints it, Python issues pscr.AccuracyWarning.
  std::string warning;
  std::string backend;          ///< "reference" or "opencl: <platform> / <device>"
  std::string device;           ///< OpenCL: CL_DEVICE_NAME, the key of tuning entries
  /// OpenCL: the device's architecture ("nvidia-sm90"; empty where unknown),
  /// by which a device without tuning entries of its own takes those of
  /// another (TuningEntry::architecture)
  std::string device_architecture;
  KernelParameters parameters;  ///< OpenCL backend: the kernel parameters in use
  /// "options", "<file>: <device> <class> n <range>", "shipped: ..." (either
  /// ending "(same architecture, <architecture>)" where the entry is another
  /// device's) or "defaults"
  std::string parameters_source;
  /// How the tridiagonal systems of the last dimension are solved: "thomas"
  /// (reference), "whole lines" (OpenCL: each line read and written once in
  /// one work-group, kernels/line_solve.cl), "halved lines" (the same after one
  /// CR step taken while a line is loaded: lines up to twice as long;
  /// KernelParameters::halve_lines), "global CR" (OpenCL: lines longer than
  /// that, or KernelParameters::line_rows = 0), "eigenbasis" (the lines of a
  /// periodic or indefinite last dimension below dense dimensions, multiplied
  /// by its eigenvector basis: dimension_methods ends "(eigenbasis)") or
  /// "partitioned over ranks" (a
  /// transformed split: the lines of dimension 1 split over devices or ranks,
  /// docs/distributed.md).
  std::string line_solver;
  /// @{
  /// OpenCL backend: estimated floating-point operations and device-memory
  /// traffic (bytes) of one solve, from a per-kernel cost model summed over the
  /// launch sequence (complex arithmetic counted in real operations).
  double flops = 0, bytes = 0;
  /// @}
};

/// Device time of one kernel, summed over launches (Options::profile).
/// Device time of one kernel, summed over launches (Options::profile).
struct KernelTime {
  std::string kernel;  ///< kernel name
  double seconds = 0;  ///< device time, summed over launches
  std::size_t launches = 0;  ///< how many launches
};

/// What one solve (or batch) reports.
struct SolveStats {
  double seconds = 0;           ///< wall time of the solve
  /// @{
  /// OpenCL backend, host arrays (docs/host-arrays.md): the host's wall time
  /// of the copies in (the caller's arrays to the device: copied through
  /// page-locked staging, checked for non-finite values on the way), of the
  /// device solves, and of the copies out, each summed over the right-hand
  /// sides. In a batch the copies of one right-hand side overlap the solves of
  /// its neighbours, so the three sum to more than `seconds`.
  /// transfer_seconds = copy_in_seconds + copy_out_seconds.
  double transfer_seconds = 0;
  double copy_in_seconds = 0, copy_out_seconds = 0, solve_seconds = 0;
  /// @}
  /// @{
  /// The page-locked host memory the copies went through (its bound,
  /// PlanInfo::staging_bytes; 0: none, the driver copied from the caller's
  /// pageable memory) and how they were staged, in words.
  std::size_t staging_bytes = 0;
  std::string staging;
  /// @}
  /// Distributed plans on OpenCL ranks: the levels on this rank's device (a
  /// plan split by rows in one process: its slowest device's),
  /// from the moment every rank holds its slab on its device (after the
  /// uploads and their scan) to the end of its last level (the messages
  /// included, the download not).
  double device_seconds = 0;
  /// @{
  /// Of device_seconds, the host's time at the exchanges between ranks
  /// (docs/distributed.md), summed over the levels: waiting for the device
  /// (the level's kernels, then the copy of the rows to send to the host),
  /// and the exchanges themselves (messages, sums of shares, the copy of the
  /// arrived rows enqueued). The device has nothing to do meanwhile.
  double exchange_wait_seconds = 0, exchange_seconds = 0;
  /// @}
  /// Pure-Neumann problems only: ‖f − f_c‖₂ / ‖f‖₂, where f_c (the orthogonal
  /// projection of f onto the range of A, i.e. f minus its mean) is what was solved.
  double incompatible_part = 0;
  /// PlanInfo::warning of the plan that solved (empty when it has none), so
  /// that a report of a solve carries it.
  std::string warning;
};

/// Threads: a plan may be used from several threads at once. solve() and
/// solve_batch() of the reference backend run concurrently (each call has its
/// own workspace); an OpenCL plan has one set of device buffers (a plan split
/// over devices by rows, one set of communicators between them), so its
/// solves (and opencl::solve) take turns under a lock held by the plan; a plan
/// splitting batches over devices takes turns per device. set_parameters() may
/// be called while other threads solve: it waits for the solves in progress,
/// and solves started meanwhile (host arrays or opencl:: calls) wait for it
/// and then run with the new parameters. It rewrites info() (and, when the
/// radix changes, problem() with equal values), so reads of those must not
/// overlap it. Moving, assigning or destroying a plan must not overlap any
/// other call on it.
template <class T> class PSCR_API Plan {
 public:
  /// Plans `problem`: layout, eigenpairs and (OpenCL) program and buffers. Throws an Error subclass naming the cause (SingularPencil for a singular operator other than pure Neumann, NumericalBreakdown for a hopeless indefinite plan, AllocationTooLarge, BackendError, ...).
  Plan(const Problem<T>& problem, const Options& options = {});
  ~Plan();
  /// Plans move; they are not copied.
  Plan(Plan&&) noexcept;
  /// Move assignment (not while another call on either plan runs).
  Plan& operator=(Plan&&) noexcept;

  /// Solves A u = f. f and u have problem.unknowns() entries; u == f (in place)
  /// is allowed, other overlaps are not. On OpenCL f is read where it lies (no
  /// copy of it on the host) and checked for non-finite values as it is copied
  /// to the device: NonFiniteInput for one in the k-th right-hand side of a
  /// batch may come after the solutions of the ones before it were written.
  /// It names the value's index in f (the whole batch) and, in a batch of
  /// several, "right-hand side k of the batch", on every backend and split.
  /// For the pure-Neumann case (c = 0, every A_d with zero row sums: constants
  /// span the null space) the compatible part of f is solved and the returned
  /// u has zero weighted mean: sum (M1⊗M2[⊗M3] 1)_i u_i = 0.
  SolveStats solve(const T* f, T* u) const;
  /// `count` right-hand sides stored one after another. An empty batch
  /// (count = 0) is valid and solves nothing: f and u may then be null, and
  /// the stats are zero. The same rule holds for opencl::solve, the C API
  /// (pscr_solve), Python (a (0, n1, n2[, n3]) array gives an empty result)
  /// and pscr-solve / pscr-solve-mpi (an empty output file). AllocationTooLarge
  /// when count · unknowns · sizeof(T) overflows size_t.
  SolveStats solve_batch(const T* f, T* u, std::size_t count) const;

  /// What the plan chose (radix, methods, parameters, memory, times, predicted error).
  const PlanInfo& info() const;
  /// Per-kernel device times summed over the launches while profiling was on
  /// (OpenCL backend with Options::profile or set_profiling; empty otherwise).
  /// A plan split by rows over devices gives its first device's, set-up
  /// launches included (DistributedPlan::kernel_times).
  std::vector<KernelTime> kernel_times() const;
  /// The problem the plan solves.
  const Problem<T>& problem() const;

  /// Turns collection of per-kernel device times on or off (Options::profile
  /// sets the initial state); collection adds a little host work per launch.
  void set_profiling(bool on);

  /// OpenCL backend: runs from now on with kernel parameters p (rebuilding the
  /// program and the plan's device buffers on the same queue and context, so
  /// the caller's buffers stay valid; the eigenpairs are kept unless p takes
  /// another radix). Safe while other threads solve (see Threads above).
  /// InvalidArgument, and the plan unchanged, when p is out of range, exceeds
  /// the device's limits (see check_parameters) or the plan is not OpenCL.
  void set_parameters(const KernelParameters& p);
  /// Why p cannot run this plan; empty when it can. Cheap: nothing is built.
  std::string check_parameters(const KernelParameters& p) const;

  struct Impl;
  const Impl& impl() const { return *impl_; }  ///< the implementation, for the backend-specific APIs (pscr/opencl.hpp)

 private:
  SolveStats solve_once(const T* f, T* u, std::size_t count) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pscr
