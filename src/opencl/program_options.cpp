#include "program_options.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "cl_check.hpp"
#include "pscr/errors.hpp"
#include "level_tables.hpp"
#include "line_coefficients.hpp"
#include "sine_transform.hpp"
#include "solve_flags.hpp"
#include "transform_slab.hpp"

namespace pscr::ocl {

std::string program_options(const Device& dev, const KernelParameters& p, const ProgramShape& shape) {
  const int q = shape.radix;
  std::ostringstream opts;
  // -w: the compilers' warnings (PoCL's clang prints "N warnings generated."
  // on the caller's stderr) are the library's business, not the user's
  opts << "-cl-std=CL1.2 -w -DKEPT=" << q + 1 << " -DNSRC=" << q - 1 << " -DGROUP_RECORD_INTS=" << group_record_ints(q)
       << " -DCOEF_SCALARS=" << kCoefScalars << " -DRHS_ROWS=" << kRhsRows << " -DRHS_MODES=" << p.rhs_modes
       << " -DRHS_TILE_ROWS=" << kRhsTileRows;
  if (shape.dense_products)
    opts << " -DDENSE_PRODUCTS -DDENSE_SIDE=" << kDenseSide << " -DDENSE_MICRO_OUT=" << dense_micro_out(shape.complex)
         << " -DDENSE_MICRO_COLUMNS=" << kDenseMicroColumns;
  // m16n8k8 where the device has it (sm_90): twice the rate of m8n8k4 on
  // the H100 (66 against 33 TFLOP/s in a loop of independent products)
  if (dense_tensor_cores(dev, p, shape))
    opts << " -DDENSE_MMA -DMMA_GROUP=" << kMmaGroup << " -DMMA_TILE=" << kMmaTile
         << " -DMMA_SHAPE=" << (dev.nv_compute_capability >= 90 ? 1688 : 884);
  // every program has the sine transforms (a few small kernels), so that
  // plans with and without them share programs and their builds
  opts << " -DSINE_GROUP=" << std::min<std::size_t>(std::size_t(p.sine_group), dev.max_work_group)
       << " -DSINE_ELEMENTS=" << sine_elements(shape.double_precision ? sizeof(double) : sizeof(float), p.sine_halves)
       << " -DSINE_HALVES=" << (p.sine_halves ? 1 : 0);
  opts << " -DPARTITION_CHUNK=" << kPartitionChunk;
  if (shape.double_precision) opts << " -DSCALAR_DOUBLE";
  if (shape.complex) opts << " -DSCALAR_COMPLEX";
  if (p.newton_raphson) opts << " -DNEWTON_RAPHSON";
  if (shape.excess_form) opts << " -DEXCESS_FORM";
  // GPUs keep a chunk's pivots in registers only when its loops are
  // unrolled; a CPU compiler (PoCL) gains nothing from that and takes
  // seconds longer per work-group shape.
  if (p.line_rows > 0) opts << " -DLINE_ROWS=" << p.line_rows << (dev.gpu ? " -DLINE_UNROLL" : "");
  opts << " -DLINE_CHECKPOINT=" << kLineCheckpoint;
  opts << " -DFLAGS_SHIFT_INTS=" << kFlagsShiftOffset / sizeof(int);
  if (p.halved_rows_once) opts << " -DHALVED_ROWS_ONCE";
  if (p.register_cap > 0 && dev.nv_compiler_options) opts << " -cl-nv-maxrregcount=" << p.register_cap;
  opts << kernel_defines_from_env();
  return opts.str();
}

std::string kernel_defines_from_env() {
  const char* env = std::getenv("PSCR_KERNEL_DEFINES");
  if (!env || !*env) return "";
  std::istringstream words(env);
  std::string out, w;
  while (words >> w) {
    if (w.size() < 3 || w.compare(0, 2, "-D") != 0)
      throw InvalidArgument("PSCR_KERNEL_DEFINES: '" + w + "' is not a definition -DNAME or -DNAME=VALUE");
    out += " " + w;
  }
  return out;
}

Device options_device(const Options& o) {
  if (!o.opencl_queue) return select_device(o.device);
  cl_device_id device = nullptr;
  check(clGetCommandQueueInfo(static_cast<cl_command_queue>(o.opencl_queue), CL_QUEUE_DEVICE, sizeof device, &device,
                              nullptr),
        "clGetCommandQueueInfo(CL_QUEUE_DEVICE) of Options::opencl_queue");
  return describe_device(device);
}

}  // namespace pscr::ocl
