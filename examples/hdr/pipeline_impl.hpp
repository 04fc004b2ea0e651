// The state of a Pipeline (internal to the image client): the PSCR plan, the
// client's OpenCL program on the plan's queue, and the device buffers.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "opencl/runtime.hpp"
#include "pscr/opencl.hpp"
#include "pscr/pscr.hpp"
#include "tonemap.hpp"

namespace pscr::hdr {

// Slots of the device scalar array (reductions write there).
enum Slot { kLumMax = 0, kLogSum, kMin, kMax, kSum, kResidual2, kRhs2, kLevelSums };
constexpr int kSlots = kLevelSums + 64;

struct GridSize {
  int w = 0, h = 0;
  std::size_t n() const { return std::size_t(w) * std::size_t(h); }
};

struct Pipeline::Impl {
  Impl(int width, int height, const PipelineOptions& o);

  int w, h;
  std::size_t N;
  PipelineOptions options;
  double plan_seconds = 0;
  std::unique_ptr<Plan<double>> plan;   // the PSCR solve in double, or
  std::unique_ptr<Plan<float>> plan32;  // in float (PipelineOptions::float_solve)
  ocl::Mem I32;                         // float_solve: the right-hand side and solution in float
  const PlanInfo& plan_info() const { return plan ? plan->info() : plan32->info(); }
  std::unique_ptr<ocl::Runtime> rt;
  std::vector<GridSize> levels;        // Gaussian pyramid, level 0 = the image
  std::vector<ocl::Mem> H;             // log luminance per level
  ocl::Mem rgb, L, mag, phi[2], b, I, slots, bad, hist, rgb8, srgb_table, scratch[2];
  // allocated on first use (need_residual, solve_iterative): a PSCR-only
  // pipeline does not hold them (3 more images of doubles)
  ocl::Mem r, unew;
  ocl::Mem linear;  // with PipelineOptions::linear_output
  ocl::PinnedHost frame_in, frame_out;  // Pipeline::frame(), allocated on first use
  int phi0 = 0;                        // which phi buffer holds Φ_0 after fattal()
  // multigrid hierarchy below the image: u, b, r per coarser level
  std::vector<GridSize> mg;
  std::vector<ocl::Mem> mg_u, mg_b, mg_r;
  static constexpr int kBins = 4096;

  // Timing of the stages of one call.
  using clock = std::chrono::steady_clock;
  std::vector<StageTime>* stages = nullptr;
  clock::time_point stage_start;
  void begin_stage() { stage_start = clock::now(); }
  void end_stage(const char* name);

  // slots[slot] = op over map(in[0..n)) (reduce_stage in kernels/reduce.cl).
  enum Op { kSumOp = 0, kMaxOp = 1, kMinOp = 2 };
  enum Map { kIdentity = 0, kLogDelta = 1, kSquare = 2 };
  void reduce(cl_mem in, std::size_t n, Op op, Map map, int slot, double delta = 0) const;
  double read_slot(int slot) const;
  // The operators on w·h RGB floats; the result goes to dst, or to out.rgb8 when dst is null.
  ToneMapped fattal(const float* rgb, std::uint8_t* dst, const FattalParameters& p, const SolverControls& solver);
  ToneMapped reinhard(const float* rgb, std::uint8_t* dst, const ReinhardParameters& p);
  void check_frame(const Frame& f) const;      // InvalidArgument unless it is this pipeline's frame
  void upload(const float* rgb);                // rgb and L; NonFiniteInput for a bad pixel
  void download(ToneMapped& out, std::uint8_t* dst, clock::time_point t0);  // the 8-bit result and the call's time

  // Solvers: b holds the right-hand side; on return I holds the zero-mean solution.
  SolveReport solve(const SolverControls& c);
  SolveReport solve_iterative(const SolverControls& c);
  void multigrid_cycle(int level, Solver kind, int pre, int post);
  void smooth(cl_mem u, cl_mem bb, const GridSize& g, int sweeps, double omega) const;
  // b <- b − mean(b), what PSCR solves; returns ‖b‖₂ after it and, when asked,
  // the incompatible part ‖mean(b) 1‖ / ‖b‖ before it.
  double project_rhs(double* incompatible) const;
  void need_residual();                // r
  void need_solver_buffers(Solver s);  // r, and unew (Jacobi) or the multigrid hierarchy
  double residual_norm(cl_mem u, cl_mem bb, const GridSize& g, cl_mem rr) const;  // ‖b − A u‖₂
  void subtract_mean(cl_mem u, const GridSize& g) const;
};

}  // namespace pscr::hdr
