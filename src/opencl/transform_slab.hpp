// A rank's OpenCL device in a transformed split (internal;
// distributed/transform_split.hpp, kernels/partitioned_lines.cl): its slab
// of rows of dimension 1, the transforms of the other dimensions on it, and
// its part of every line's partitioned elimination.
#pragma once
#include <memory>
#include <vector>

#include "../distributed/transform_split.hpp"
#include "../planner/plan_data.hpp"
#include "pscr/distributed.hpp"
#include "pscr/options.hpp"

namespace pscr {
namespace ocl {
// Pivots between the back substitution's checkpoints (-DPARTITION_CHUNK):
// the pivots of a chunk are formed again in registers. 4 beat 16, 8 and 2
// on an H200 (docs/distributed.md); the checkpoints take 3/4 of the slab's
// memory.
inline constexpr int kPartitionChunk = 4;
}  // namespace ocl

// pd: transform_split_data's plan (dimension 1 last); slabs: every rank's
// rows, each cut into `parts` (transform_split_parts); the device is
// options.device.
template <class T>
std::unique_ptr<distributed::TransformSlab<T>> make_transform_slab(const planner::PlanData<T>& pd,
                                                                   const Options& options,
                                                                   const std::vector<RowRange>& slabs, int parts,
                                                                   int rank);

}  // namespace pscr
