/// @file
/// A plan distributed over several processes (ranks), each holding a slab of
/// rows of the first dimension (docs/distributed.md). The library itself does
/// not depend on MPI: the ranks talk through a Communicator, and
/// pscr/mpi.hpp provides the MPI one (header only; include it where MPI is).
///
/// Data distribution: the unknowns form an array (n1, n2[, n3]) stored row
/// by row as for Plan; rank p of P holds the rows [begin, end) of the first
/// dimension given by slab_rows(n1, P, p) — the first n1 mod P ranks one row
/// more than the others — that is, the contiguous part f[begin·R, end·R) of
/// the global array, R = n2 (·n3) values per row.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "pscr/export.hpp"
#include "pscr/plan.hpp"

namespace pscr {

/// A range [begin, end) of rows of the first dimension.
struct RowRange {
  /// @{
  /// The rows [begin, end).
  std::size_t begin = 0, end = 0;
  /// @}
  std::size_t size() const { return end - begin; }  ///< end - begin
};

/// The rows of the first dimension that rank `rank` of `ranks` holds.
PSCR_API RowRange slab_rows(std::size_t n1, int ranks, int rank);

/// One message: `bytes` bytes at `data`, to or from rank `peer`.
struct Transfer {
  int peer = 0;  ///< the other rank
  void* data = nullptr;  ///< the message's bytes (sent from or received into)
  std::size_t bytes = 0;  ///< the message's length
};

/// What a distributed plan needs of its processes. Every call is collective:
/// all ranks make the same sequence of calls.
class PSCR_API Communicator {
 public:
  virtual ~Communicator();
  virtual int rank() const = 0;  ///< this rank, 0 … size() - 1
  virtual int size() const = 0;  ///< the number of ranks
  /// Posts all sends and receives, returns when all have completed. Between
  /// one pair of ranks, messages are matched in the order of the lists; every
  /// receive matches a send of the same length in the same exchange.
  virtual void exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives) = 0;
  /// Element-wise sum and maximum over all ranks, in place.
  virtual void sum(double* values, std::size_t count) = 0;
  virtual void max(double* values, std::size_t count) = 0;  ///< element-wise maximum over all ranks, in place
};

/// One copy of copy_messages: `bytes` bytes from `src` to `dst`.
struct MessageCopy {
  void* dst = nullptr;        ///< where to
  const void* src = nullptr;  ///< where from
  std::size_t bytes = 0;      ///< how many bytes
};

/// Copies messages, all of them together in pieces on up to `threads`
/// threads (no more than this process's OpenMP threads) where they are
/// large (one thread moves a few GB/s): for Communicators that copy messages
/// (the local ones, and MpiCommunicator between the ranks of one host).
PSCR_API void copy_messages(const std::vector<MessageCopy>& copies, int threads);

/// `ranks` communicators of one process, rank r to be used by its own thread
/// r: ranks that are threads (the devices of one host; Options::device_split).
/// A rank that throws between collective calls leaves the others waiting,
/// as with MPI.
PSCR_API std::vector<std::shared_ptr<Communicator>> local_communicators(int ranks);

/// This rank's messages of one level of the method per right-hand side.
struct LevelTraffic {
  int level = 0;                    ///< i = 1 … k
  bool back_substitution = false;   ///< false: the reduction
  std::size_t messages = 0;         ///< sent by this rank
  std::size_t bytes = 0;  ///< sent by this rank
};

/// What a distributed plan holds on this rank and what it sends.
struct DistributedInfo {
  PlanInfo plan;                    ///< of the plan each rank holds (backend "reference")
  int ranks = 1;  ///< the number of ranks
  int rank = 0;  ///< this rank
  RowRange rows;                    ///< this rank's slab of the first dimension
  std::size_t local_unknowns = 0;   ///< rows.size() · R
  std::size_t messages_per_solve = 0;  ///< sent by this rank per right-hand side
  std::size_t bytes_per_solve = 0;  ///< sent by this rank per right-hand side
  std::vector<LevelTraffic> levels;   ///< the same, level by level
  /// Of this rank's construction time (plan.init_seconds), beside the layout
  /// and eigen data (plan.eigen_seconds, their sums over the ranks
  /// included): the set-up, the rest (the options' device and radix, each
  /// group's work and traffic, the device's programs and uploads, the
  /// pure-Neumann weights)...
  double setup_seconds = 0;
  /// ...and the collective checks that the ranks agree (their messages and
  /// waits for the slowest rank).
  double agreement_seconds = 0;
};

/// A plan over the ranks of a Communicator. Construction and solves are
/// collective. Every rank holds the eigen data of the whole problem (O(n·q)
/// per dimension); the ranks compute the eigenpairs of its large pencils
/// (512 rows or more, Newton's and the twisted method) once between them,
/// each a part, and share them by sums over the ranks. Each runs its share
/// of every level on the reference backend with Options::threads threads:
/// the groups inside its slab, and a share of the modes of each group that
/// spans several slabs, or on its OpenCL device (Options::backend = opencl).
template <class T> class PSCR_API DistributedPlan {
 public:
  /// Every rank passes the same problem and options (checked: a difference is
  /// an InvalidArgument on all ranks). Options::refine must be 0; with
  /// Options::backend = opencl each rank takes a device (docs/distributed.md).
  DistributedPlan(std::shared_ptr<Communicator> comm, const Problem<T>& problem, const Options& options = {});
  ~DistributedPlan();
  /// Plans move; they are not copied.
  DistributedPlan(DistributedPlan&&) noexcept;
  /// Move assignment.
  DistributedPlan& operator=(DistributedPlan&&) noexcept;

  /// This rank's plan, slab and traffic.
  const DistributedInfo& info() const;
  /// The (whole) problem.
  const Problem<T>& problem() const;
  RowRange rows() const;               ///< = info().rows
  std::size_t local_unknowns() const;  ///< values of one local right-hand side

  /// f, u: this rank's slab (local_unknowns() values each; u may equal f).
  /// Collective. Pure Neumann as Plan::solve (the means are global). Errors
  /// are collective too: NonFiniteInput names, on every rank, the first
  /// non-finite value of the whole problem's right-hand side (in a batch,
  /// "right-hand side c of the batch"), by its index in the whole right-hand
  /// side (Problem numbering, not the slab's) and the rank that holds it.
  SolveStats solve(const T* f, T* u) const;
  /// `count` right-hand sides, each a local slab, one after another; an empty
  /// batch as Plan::solve_batch (nothing solved, null arrays allowed).
  SolveStats solve_batch(const T* f, T* u, std::size_t count) const;
  /// Per-kernel device times of this rank's OpenCL device, summed over the
  /// launches while profiling was on (Options::profile, set_profiling): the
  /// set-up's launches (a transformed split's eliminations of its reduced
  /// rows) included. Empty without profiling, or on the reference backend.
  std::vector<KernelTime> kernel_times() const;
  /// Turns the collection of kernel_times() on or off (not collective).
  void set_profiling(bool on);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pscr
