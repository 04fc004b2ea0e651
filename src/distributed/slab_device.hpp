// A rank's OpenCL device in a distributed plan (internal; docs/distributed.md).
// The device holds the whole array X of the problem, of which the rank's slab
// rows are its own and the rows of other slabs are where the rows it receives
// are put, at their global positions: the level kernels then index rows as on
// one device, and only their tables (the rank's share of the modes) and their
// launch ranges (its groups and survivors) differ.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../planner/elimination_growth.hpp"
#include "pscr/plan.hpp"

namespace pscr::distributed {

// What a rank computes of one level of dimension 1.
struct LevelShare {
  std::vector<std::pair<int, int>> modes;  // per group: its modes [begin, end) computed here (empty: none)
  int group_begin = 0, group_end = 0;        // the groups holding all of them
  int survivor_begin = 0, survivor_end = 0;  // the level's survivors in this rank's slab (indices into the list)
  int exchange_rows = 0;  // the most rows one exchange of the level gathers or scatters on this rank
  // The interior of the groups [group_begin, group_end): groups that neither
  // receive inputs from other ranks nor send them outputs (in the reduction
  // or the back substitution), in two halves by modes [begin, middle),
  // [middle, end), computed while the inputs and the outputs of the others
  // travel (empty: not split).
  int interior_begin = 0, interior_middle = 0, interior_end = 0;
};

// Which of a rank's groups of a level compute() runs: a half of the
// interior (LevelShare::interior_begin), or the groups around it (all of
// them where the level has no interior).
enum class GroupPart { interior_first, interior_second, edges };

// A row of R values on a rank's device: row `index` of X, or (sum) the
// partial sums `index` = 2·g + slot of group g of the level last computed
// (slot 0: the group's first row, 1: its last).
struct DeviceRow {
  bool sum = false;
  std::size_t index = 0;
};

template <class T> class SlabDevice {
 public:
  virtual ~SlabDevice() = default;
  // Rows [row, row + count) of X, R values each (blocking).
  virtual void write_rows(std::size_t row, std::size_t count, const T* src) = 0;
  virtual void read_rows(std::size_t row, std::size_t count, T* dst) const = 0;
  // An exchange's rows in one transfer each way, through page-locked host
  // memory: gather enqueues the copy of `rows` to the host and returns where
  // they will be, one after another (valid until the next gather), once
  // wait_gathered has returned; scatter_area is host memory for `count` rows
  // to scatter (it waits for the previous scatter's copy), and scatter puts
  // its first rows.size() rows in place (enqueued, not waited for).
  virtual const T* gather(const std::vector<DeviceRow>& rows) = 0;
  virtual void wait_gathered() = 0;
  virtual T* scatter_area(std::size_t count) = 0;
  virtual void scatter(const std::vector<DeviceRow>& rows) = 0;
  // Level `level` (1 … k) of the reduction or the back substitution: the
  // boundary terms (back), the partial solutions of this rank's shares of
  // modes and their weighted sums, into the reduction buffer (reduction) or
  // into the sources' rows of X (back substitution).
  virtual void compute(int level, bool back, GroupPart part) = 0;
  // The reduction's update of this rank's survivors of `level` from the
  // reduction buffer.
  virtual void update_survivors(int level) = 0;
  // Near-singular eliminations the tridiagonal kernels recorded since the
  // last call or clear_breakdown (waits for the device): a message, or empty.
  virtual std::string breakdown() = 0;
  virtual void clear_breakdown() = 0;
  virtual void finish() = 0;  // waits for the device's queue
  // Whether rows [row, row + count) of X hold a non-finite value (waits).
  virtual bool nonfinite_rows(std::size_t row, std::size_t count) = 0;
  virtual void describe(PlanInfo& info) const = 0;
  // How the device eliminates the lines (Executor::line_elimination).
  virtual std::optional<planner::LineElimination> line_elimination() const = 0;
  // Per-kernel device times (Options::profile), summed over launches.
  virtual std::vector<KernelTime> kernel_times() const = 0;
  virtual void set_profiling(bool on) = 0;
};

}  // namespace pscr::distributed
