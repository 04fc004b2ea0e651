// The device buffers of one plan on one device (internal): the factor
// matrices, the packed last factor, the solution vector and the plan's shift,
// per dimension of the reduction its level tables (level_tables.hpp) and the
// partial-solution, sum and boundary buffers they share, the one level of a
// dense dimension, the line solver (tridiagonal_solver.hpp), the eigenbasis
// of periodic lines and a transformed plan's transforms
// (transformed_solve.hpp). Uploaded once; the solves (reduction_solve.hpp,
// dense_solve.hpp) read them.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../distributed/slab_device.hpp"
#include "../planner/plan_data.hpp"
#include "null_space_projection.hpp"
#include "runtime.hpp"
#include "solve_flags.hpp"
#include "transformed_solve.hpp"
#include "tridiagonal_solver.hpp"

namespace pscr::ocl {

struct LevelBufs {
  int ngroups = 0, modes = 0, nsurv = 0, max_m = 0;
  // the groups and survivors computed here: all, or a rank's (LevelShare)
  int group_begin = 0, group_end = 0, survivor_begin = 0, survivor_end = 0;
  double sources = 0, source_modes = 0;  // Σ_g |sources_g|, Σ_g |sources_g|·m_g (cost model)
  Mem groups, mode_group, W, lambda, zero_flag, survivors;
  // The top dimension of a 3D plan: the child problems' shifts c + λ of
  // this level, kept per level; with the plan's own c they are the same in
  // every solve and formed once (a launch fewer per level and solve).
  Mem child_sigma, child_pinned;
  mutable bool shifts_of_plan = false;  // they hold those of the plan's c
  // a rank's groups in parts computed apart (LevelShare::interior_begin):
  // before its interior, the interior's two halves, after it (empty: not split)
  std::vector<LevelBufs> parts;
};

struct DimBufs {
  bool dense = false;  // one level, its whole basis applied by dense products (levels[0].W: n × n)
  int n = 0;
  std::size_t R = 0;
  int batch = 1;
  std::vector<LevelBufs> levels;
  Mem Y, V, BL, BR, child_sigma, child_pinned;
};

template <class T> struct PlanBuffers {
  // Allocates and writes every buffer of plan pd on rt: kernel parameters p
  // (radix, line solver), shares a rank's of dimension 1 (else null),
  // shift_capacity the top level's batch (Options::shifts).
  void upload(Runtime& rt, const planner::PlanData<T>& pd, const KernelParameters& p,
              const std::vector<distributed::LevelShare>* shares, int shift_capacity);

  std::vector<Mem> afac, mfac;  // A_d and M_d as diag|off
  std::vector<DimBufs> dims;
  std::unique_ptr<TridiagonalSolver> tri;
  std::unique_ptr<TransformedSolve<T>> transformed;  // a transformed plan's transforms and lines
  Mem row_lines;  // lines below a dense dimension: [row][line] or [line][row] copies
  Mem line_W, line_nu;  // a periodic last dimension: its eigenbasis (PlanData::line_eigen)
  Mem x, sigma0, pinned0, line_coef;
  SolveFlags<T> flags;
  Mem shifts, shift_flags;  // shift_capacity > 1: the shifts of a shifted solve and their flags
  NullSpaceProjection<T> null_space;  // pure Neumann
  // a rank of a distributed plan: the rows of its exchanges (SlabDevice::gather,
  // scatter) and their offsets in X or the sums, [0] gathered, [1] scattered
  std::size_t exchange_rows = 0;
  Mem exchange, exchange_offsets[2];

 private:
  LevelBufs level(Runtime& rt, const planner::DimensionPlan<T>& dp, std::size_t i, int q,
                  const distributed::LevelShare* share, bool child_shifts, int batch);
  LevelBufs dense_level(Runtime& rt, const planner::DimensionPlan<T>& dp, int batch,
                        const distributed::LevelShare* share);
  void upload_transforms(Runtime& rt, const planner::PlanData<T>& pd, const KernelParameters& p,
                         const std::vector<T>& packed);
};

// The total of allocations (name, bytes) counted by Runtime::count_allocations,
// or AllocationTooLarge naming it, the device's memory and the largest ones
// when they do not fit the device.
std::size_t check_allocations(const Device& dev, const std::vector<std::pair<std::string, std::size_t>>& items);

// What the plan's buffers need of the device, summed before any of them is
// allocated (a dry pass of PlanBuffers::upload, same arguments): the bytes
// upload will allocate, or AllocationTooLarge naming the total, the device's
// memory and the largest buffers when they do not fit.
template <class T>
std::size_t check_device_memory(Runtime& rt, const planner::PlanData<T>& pd, const KernelParameters& p,
                                const std::vector<distributed::LevelShare>* shares, int shift_capacity);

}  // namespace pscr::ocl
