/// @file
/// The tunable values of the OpenCL pipeline, in one struct shared by the
/// library, the tuner (tuning/pscr-tune) and the JSON tuning files. A new
/// parameter is one member here plus one row in parameter_table().
#pragma once
#include "pscr/export.hpp"
#include <iosfwd>
#include <string>
#include <vector>

namespace pscr {

/// Every tunable value of the OpenCL kernels, one struct (Options::parameters,
/// tuning files, pscr-tune; names and ranges in parameter_table()).
struct KernelParameters {
  /// Work-items per work-group of the element-wise kernels (right-hand sides of
  /// the partial solutions, survivor update, back-substitution boundary terms).
  int work_group = 64;
  /// Work-items per work-group of the weighted vector sums (accumulation of the
  /// partial solutions); long sums are split into partial sums reduced as a tree.
  int sum_work_group = 128;
  /// Terms each work-item adds before a sum is split further.
  int sum_terms = 16;
  /// Lines (independent tridiagonal systems) per work-group in the CR stages.
  int cr_work_group = 64;
  /// CR steps in global memory continue while a system is longer than this;
  /// the remaining system is solved in local memory.
  int local_size = 32;
  /// 1: global CR steps go two levels per kernel, the level in between
  /// regenerated in registers and never stored (less traffic, fewer
  /// work-items); 0: one level per kernel.
  int cr_two_levels = 1;
  /// Lines per work-group of the local-memory stage.
  int local_lines = 8;
  /// PCR steps in local memory before Thomas solves the 2^pcr_steps
  /// independent subsystems (one work-item each).
  int pcr_steps = 2;
  /// 1: reciprocals by Newton–Raphson (scaled into [1/2, 1), initial guess
  /// 48/17 − 32/17·D, four iterations in double, three in float); 0: native division.
  int newton_raphson = 0;
  /// Whole lines on chip (kernels/line_solve.cl): rows of a line each
  /// work-item eliminates in registers; a line whose right-hand side and
  /// reduced system fit the local memory of one work-group is read and written
  /// once instead of going through the global CR stages. 0: global CR always.
  int line_rows = 16;
  /// Lines longer than local memory holds whole: 1: halved, one CR step taken
  /// while a line is loaded so that level 1 of its reduction (half the rows)
  /// is solved on chip, the even rows recovered when it is stored
  /// (kernels/line_solve.cl), before falling back to global CR; 0: global CR;
  /// 2: every line halved (for tests on devices with large local memory).
  int halve_lines = 1;
  /// Work-items per work-group of the whole-line solver: short lines share a
  /// work-group (lines of up to line_rows · line_group rows).
  int line_group = 256;
  /// Modes per work-item forming the right-hand sides of the partial
  /// solutions in a batch of 32 or more problems (3D: the nested 2D problems)
  /// on the global CR path, and of 2D lines formed apart (rhs_apart), so
  /// that the modes of one group load their q − 1 sources once, not once
  /// each (kernels/level.cl, form_rhs_tiles, form_rhs_lines_tiles); 1: a
  /// mode per work-item (form_rhs).
  int rhs_modes = 4;
  /// Radix q of the reduction, used when Options::radix is 0 (automatic).
  /// A larger q means fewer levels (k = ⌊log_q n⌋ + 1) and so fewer
  /// tridiagonal solves, (2k − 1)·n per dimension, at the price of up to
  /// q − 1 sources per right-hand side and q + 1 kept eigenvector rows per
  /// mode. On the H100, 8 beats 4 at every 2D size (4095² double 6.5 →
  /// 5.5 ms) and 16 wins for large 3D problems (results@98b78fd/h100-radix.txt).
  int radix = 8;
  /// Halved lines: 1: each row's right-hand side formed once while a line is
  /// loaded (a level-1 row takes its first even row from the work-item before
  /// it, through local memory, one barrier per pass over the work-group);
  /// 0: three rows formed per level-1 row, the even ones twice, no barrier.
  /// Either way the even rows are formed again when the line is stored.
  int halved_rows_once = 0;
  /// Registers per work-item the device compiler may use (0: its own choice).
  /// Fewer registers let more work-groups share a multiprocessor; the whole-
  /// line kernels are bound by that (H100 2D 8191² double 19.6 → 17.3 ms at
  /// 80). Applied where the device takes cl_nv_compiler_options
  /// (-cl-nv-maxrregcount), ignored elsewhere.
  int register_cap = 0;
  /// Whole and halved lines of one problem (2D): 1: their right-hand sides
  /// are formed apart, by tiles of rhs_modes modes (a source row read once
  /// per tile, kernels/level.cl form_rhs_lines_tiles), written out and then
  /// solved; 0: formed in the line solver's load (a source row read once per
  /// mode, but the lines written once, not written and read again).
  int rhs_apart = 0;
  /// k: the first k leading dimensions (at most D − 1: 1 in 2D, 2 in 3D) are
  /// each taken in one level, their whole eigenvector basis applied by dense
  /// products (the single-level limit of PSCR, O(n_d²) work per line of
  /// dimension d; kernels/dense.cl), so that the problems of the later
  /// dimensions are solved once per mode instead of at each of the 2k − 1
  /// levels (3D, k = 1: about 3·n1 at radix 16 and n1 = 255; k = D − 1: fast
  /// diagonalisation with the lines of the last dimension solved); 0: PSCR
  /// levels. A dimension with n_d² > N (the basis would outgrow the data)
  /// keeps the levels, and so do those after it; PlanInfo::parameters says
  /// how many a plan took (periodic dimensions count: they are always dense).
  int dense_top = 0;
  /// 1: where every leading dimension's pencil is Toeplitz with Dirichlet
  /// ends (uniform meshes: finite differences, lumped or consistent linear
  /// elements) and n + 1 is a power of two whose line fits a work-group's
  /// local memory, those dimensions are taken by fast sine transforms and the
  /// last one by one tridiagonal solve per line (kernels/sine_transform.cl;
  /// PlanInfo::dimension_methods): 3 passes over the unknowns in 2D, 5 in 3D,
  /// instead of a reduction's levels. Plans with Options::shifts > 1 keep the
  /// reduction; plans split by rows over devices or MPI ranks transform every
  /// dimension but the first and partition its lines over the ranks where
  /// docs/distributed.md ("Transformed split") says, else they keep the
  /// reduction. 0: the reduction always.
  int transforms = 1;
  /// Work-items per work-group of the sine transforms: each holds 8 (double)
  /// or 16 (float) complex entries of the columns in registers, twice as
  /// many with sine_halves, so a work-group transforms columns of up to
  /// sine_group · 8 (16) entries, or twice that, several at a time where
  /// they are shorter; the longest sine transform a plan takes is that
  /// (PlanInfo::dimension_methods).
  int sine_group = 256;
  /// 1: the transforms keep their entries in registers between passes and
  /// exchange them through local memory in halves, the real parts and then
  /// the imaginary parts: columns twice as long in the same local memory,
  /// twice the barriers. 0: passes through local memory as complex entries,
  /// except for columns longer than that reaches (then halves;
  /// PlanInfo::parameters says what the plan took).
  int sine_halves = 0;
  /// 1: every sine transform of 64 entries or more runs as one step of
  /// decimation in frequency (a butterfly pass) and two transforms of half
  /// the length; 0: only those longer than a work-group holds (up to twice
  /// that; docs/method.md). Fourier transforms never split.
  int sine_split = 0;
  /// 1: real double dense products (dense_top, periodic lines) by the
  /// device's FP64 tensor cores where it has them (NVIDIA compute capability
  /// 8.0 or later: mma.m8n8k4.f64, m16n8k8 on 9.0; the same IEEE double products and sums in
  /// another order); 0, or other devices and scalars: by the work-items'
  /// FMA units. PlanInfo::parameters says what a plan with dense products
  /// took; other plans report the value given.
  int tensor_cores = 1;
};

/// One entry of parameter_table(): a kernel parameter, its range and what it does.
struct ParameterInfo {
  const char* name;  ///< JSON key
  int KernelParameters::*member;  ///< the field of KernelParameters
  /// The smallest and largest value the parameter takes.
  /// @{
  int min, max;
  /// @}
  bool power_of_two;  ///< only powers of two are valid
  const char* description;  ///< what the parameter does, one line
};

/// Every parameter with its range; the tuner searches exactly these.
PSCR_API const std::vector<ParameterInfo>& parameter_table();

/// @{
/// Whether parameter `e` takes effect on the solve of one right-hand side by
/// a plan of `dims` dimensions (what pscr-tune times): for some values of the
/// other parameters, or for those of `p`. rhs_apart only
/// in 2D, and only with whole lines on chip (line_rows > 0), as halve_lines and
/// line_group; halved_rows_once only where lines are halved (halve_lines > 0);
/// rhs_modes in 2D only with rhs_apart (3D forms its nested problems' batches
/// by tiles of modes). None depends on real or complex scalars. The tuner
/// searches only parameters that apply and holds the others at their defaults.
PSCR_API bool parameter_applies(const ParameterInfo& e, int dims);
PSCR_API bool parameter_applies(const ParameterInfo& e, int dims, const KernelParameters& p);
/// @}

/// Throws InvalidArgument naming the parameter (prefixed by `where`) when a
/// value is outside its range or not a power of two where one is required.
PSCR_API void validate(const KernelParameters& p, const std::string& where = "parameters");

/// Whether every field of a and b is equal.
/// @{
PSCR_API bool operator==(const KernelParameters& a, const KernelParameters& b);
inline bool operator!=(const KernelParameters& a, const KernelParameters& b) { return !(a == b); }
/// @}

/// "key=value key=value ..." for logs and reports.
PSCR_API std::string to_string(const KernelParameters& p);
/// Writes to_string(p).
PSCR_API std::ostream& operator<<(std::ostream& os, const KernelParameters& p);

}  // namespace pscr
