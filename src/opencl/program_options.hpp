// What a plan's OpenCL program is built from: its device (Options::device or
// the device of Options::opencl_queue), its kernel parameters (Options,
// tuning file, shipped database or defaults), and the -D options that pass
// the sizes host code and kernels share, each defined once on the host
// (level_tables.hpp, line_coefficients.hpp) and checked by the kernels.
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>

#include "../tuning/database.hpp"
#include "device.hpp"
#include "pscr/options.hpp"
#include "pscr/problem.hpp"

namespace pscr::ocl {

// Rows per work-item of form_rhs and form_rhs_lines (-DRHS_ROWS) and of
// form_rhs_tiles (-DRHS_TILE_ROWS), kernels/level.cl.
inline constexpr std::size_t kRhsRows = 16;
inline constexpr std::size_t kRhsTileRows = 4;

// Rows per checkpoint of line_solve_pivots (kernels/line_solve.cl,
// -DLINE_CHECKPOINT): its back substitution recomputes the pivots of each
// run of kLineCheckpoint rows from two scalars its elimination left in local
// memory (TridiagonalSolver's line_span counts them).
// Every 2, 4 or 8 rows alike on the H100 (graded 3D 255³ double: 336, 333,
// 339 µs, against 366 µs with every row's pivots stored and 382 µs with a
// checkpoint per row).
inline constexpr std::size_t kLineCheckpoint = 4;

// The dense products of kernels/dense.cl (-DDENSE_SIDE, -DDENSE_MICRO_OUT,
// -DDENSE_MICRO_COLUMNS): work-groups of kDenseSide² work-items, each work-item
// a block of dense_micro_out outputs by kDenseMicroColumns columns. 8 by 4
// real, 4 by 4 complex (H100, 3D 255³: double 4.13 → 3.93 ms at 8 by 4, 4.31
// at 4 by 8, 4.46 at 2 by 8; complex double 10.1 ms at 4 by 4, 12.0 at 8 by 4).
inline constexpr std::size_t kDenseSide = 16, kDenseMicroColumns = 4;
inline constexpr std::size_t kDenseGroup = kDenseSide * kDenseSide, kDenseTileColumns = kDenseSide * kDenseMicroColumns;
constexpr std::size_t dense_micro_out(bool complex) { return complex ? 4 : 8; }
constexpr std::size_t dense_tile_out(bool complex) { return kDenseSide * dense_micro_out(complex); }

// With FP64 tensor cores (kernels/dense.cl, DENSE_MMA): work-groups of
// kMmaGroup work-items (four warps of 32, each 32 × 32 outputs in 8 × 8
// fragments), each kMmaTile outputs by kMmaTile columns.
inline constexpr std::size_t kMmaGroup = 128, kMmaTile = 64;

// The scalar and the elimination a program is built for.
struct ProgramShape {
  int radix = 0;
  bool double_precision = false, complex = false;
  bool excess_form = false;  // the last factor's systems eliminated in the excess representation
  bool dense_products = false;  // a dimension (or periodic lines) by dense eigenvector products (kernels/dense.cl)
};

// Whether the program's dense products take the FP64 tensor cores: asked for
// (KernelParameters::tensor_cores), real double, and the device has them.
inline bool dense_tensor_cores(const Device& dev, const KernelParameters& p, const ProgramShape& shape) {
  return p.tensor_cores != 0 && shape.dense_products && shape.double_precision && !shape.complex &&
         dev.fp64_tensor_cores;
}

// The build options of the plan's program on `dev`, $PSCR_KERNEL_DEFINES last.
std::string program_options(const Device& dev, const KernelParameters& p, const ProgramShape& shape);

// $PSCR_KERNEL_DEFINES: definitions added to every program's build options,
// for trying variants of the kernels' compile-time constants without a
// rebuild (docs/guide/tuning.md); each word must be -DNAME or -DNAME=VALUE
// (InvalidArgument).
std::string kernel_defines_from_env();

// The device of options.opencl_queue, else the one options.device selects.
Device options_device(const Options& o);

// Options::parameters, else the tuning entry for the device, the problem's
// class and its largest dimension, else the defaults.
template <class T> tuning::Resolved resolve_parameters(const Device& dev, const Problem<T>& problem, const Options& o) {
  std::size_t nmax = 0;
  for (int d = 0; d < problem.dims(); ++d) nmax = std::max(nmax, problem.size(d));
  return tuning::resolve(o, dev.device_name, device_architecture(dev),
                         problem_class(problem.dims(), is_complex_v<T>, std::is_same_v<real_t<T>, double>), nmax);
}

}  // namespace pscr::ocl
