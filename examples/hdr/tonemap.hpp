// The image client's library API: a Pipeline is planned once for an image
// size and device (the PSCR plan of the Neumann Poisson problem, the OpenCL
// program and all buffers), then tone-maps any number of images of that size.
// Everything runs on the plan's OpenCL queue; only the input image, the exposure
// histogram and the 8-bit result cross to and from the host.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "image.hpp"

// The shared image I/O (examples/image/) is this client's Image.
namespace pscr::hdr {
using namespace pscr::image;
}

namespace pscr::hdr {

// Gradient-domain compression (Fattal, Lischinski, Werman 2002).
struct FattalParameters {
  // α as a fraction of each level's mean gradient magnitude. The paper suggests
  // 0.1; with it every flat region is boosted at every level (fine texture
  // turns white), so the default is 1, as in pfstmo_fattal02.
  double alpha = 1.0;
  double beta = 0.9;              // β: gradients above α are compressed by (|∇H|/α)^(β−1)
  // Gradient magnitude (log luminance per pixel) treated as noise: φ uses
  // |∇H| + noise, which bounds the boost of flat regions (pfstmo's --noise,
  // whose default is 0.001·alpha).
  double noise = 1e-3;
  // Levels finer than this keep their gradients (φ = 1): contrast within
  // squares of 2^detail_level pixels is not changed (pfstmo's --detail-level;
  // the paper's method is 0).
  int detail_level = 0;
  double saturation = 0.8;        // s in C_out = (C_in / L_in)^s · L_out
  double black_percentile = 0.1;  // % of pixels mapped to black
  double white_percentile = 99.5; // % of pixels at or below white
  double luminance_floor = 1e-7;  // zero luminance counts as this fraction of the maximum
  // The pyramid stops before a side drops below this. The paper uses 32;
  // pfstmo uses 8 with its direct (DCT) solver, and so do we.
  int coarsest = 8;
};

// Reinhard et al. 2002, global operator.
struct ReinhardParameters {
  double key = 0.18;        // a: the log-average luminance maps to a
  double white = 0;         // L_white after scaling; <= 0: the scaled maximum
  double saturation = 1.0;  // s, as for Fattal
  double delta = 1e-6;      // δ in the log-average exp(mean log(δ + L))
};

// The Poisson solve of the reconstruction: the exact PSCR solve or an
// iterative solver on the same device.
enum class Solver { pscr, jacobi, gauss_seidel, sor, multigrid_v, multigrid_w, multigrid_f };
Solver parse_solver(const std::string& name);  // InvalidArgument naming the choices
std::string solver_name(Solver s);
std::vector<Solver> all_solvers();

struct SolverControls {
  Solver solver = Solver::pscr;
  double tolerance = 1e-6;       // iterative: stop at ‖b − A u‖₂ ≤ tolerance·‖b‖₂
  long max_iterations = 1000000; // sweeps (Jacobi, Gauss–Seidel, SOR) or cycles (multigrid)
  double max_seconds = 60;       // iterative: give up after this wall time
  double omega = 0;              // Jacobi damping / SOR factor; 0: 0.8 / 2 / (1 + sin(π / max(w, h)))
  int pre_smooth = 2, post_smooth = 2;  // multigrid: red-black Gauss–Seidel sweeps
};

struct SolveReport {
  Solver solver = Solver::pscr;
  long iterations = 0;            // 1 for PSCR
  double relative_residual = -1;  // ‖b − A u‖₂ / ‖b‖₂ (−1: not measured)
  double seconds = 0;
  bool converged = false;
  double incompatible_part = 0;   // ‖b − b_c‖ / ‖b‖ of the right-hand side
};

struct StageTime {
  std::string stage;
  double seconds = 0;
};

struct ToneMapped {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb8;  // sRGB, 3 bytes per pixel, top row first
  // With PipelineOptions::linear_output: the result before sRGB encoding,
  // linear RGB for a display whose white is 1, not clipped above 1 (for EXR).
  Image linear;
  std::vector<StageTime> stages;   // with PipelineOptions::stage_timing
  double seconds = 0;              // whole call, upload to download
  SolveReport solve;
};

// Page-locked host memory of a pipeline for one input image and its result.
// The device copies to and from it several times faster than from ordinary
// (pageable) memory: on the H100 the 2048² input takes 0.9 instead of 5.9 ms.
// Write the input into rgb, call fattal(frame) or reinhard(frame), read the
// result from rgb8. Both stay valid, and the same, while the pipeline lives.
struct Frame {
  int width = 0, height = 0;
  float* rgb = nullptr;               // 3·w·h floats: linear RGB, top row first
  const std::uint8_t* rgb8 = nullptr; // 3·w·h bytes: sRGB result of the last call on the frame
};

struct PipelineOptions {
  std::string device;          // OpenCL device selector (as pscr::Options::device)
  // Precision of the PSCR Poisson solve (the other stages stay in double):
  // float halves its memory traffic and, for this diagonally dominant
  // problem, keeps about six digits (docs/accuracy.md).
  bool float_solve = false;
  bool stage_timing = false;   // wait after each stage and time it (adds one sync per stage)
  bool linear_output = false;  // also return ToneMapped::linear (one more float RGB image to download)
};

class Pipeline {
 public:
  // InvalidArgument for sizes < 1 or beyond ReadLimits; errors of the plan
  // (device, allocation) as pscr::Plan.
  Pipeline(int width, int height, const PipelineOptions& options = {});
  ~Pipeline();
  Pipeline(Pipeline&&) noexcept;
  Pipeline& operator=(Pipeline&&) noexcept;

  // SizeMismatch when the image is not width x height; NonFiniteInput naming
  // the first NaN or infinite pixel. Negative components count as 0; an image
  // without light gives black.
  ToneMapped fattal(const Image& img, const FattalParameters& p = {}, const SolverControls& solver = {});
  ToneMapped reinhard(const Image& img, const ReinhardParameters& p = {});

  // The pipeline's frame, allocated by the first call (BackendError or
  // AllocationTooLarge when the driver refuses). The operators on a frame
  // leave ToneMapped::rgb8 empty and write the result to frame.rgb8;
  // InvalidArgument for a frame of another pipeline.
  Frame frame();
  ToneMapped fattal(const Frame& f, const FattalParameters& p = {}, const SolverControls& solver = {});
  ToneMapped reinhard(const Frame& f, const ReinhardParameters& p = {});

  // The fields of the last fattal() call, read back (row-major, w·h each):
  // log luminance H, attenuation Φ, right-hand side b = −div(Φ∇H) and the
  // reconstruction I (zero mean), which solves A I = b − mean(b), A = −Δ.
  struct Fields {
    std::vector<double> H, Phi, b, I;
  };
  Fields fields() const;

  // A u = b − mean(b) on host arrays (w·h values) with any solver; u has zero mean.
  std::vector<double> solve_poisson(const std::vector<double>& b, const SolverControls& controls,
                                    SolveReport* report = nullptr);

  int width() const;
  int height() const;
  int pyramid_levels() const;
  std::string device() const;
  double plan_seconds() const;  // PSCR plan and program build
  // Where the planning time went: the PSCR plan's eigen data and program, the
  // pipeline's own program (with their program-cache outcomes), the rest set-up.
  struct PlanTimes {
    double total = 0, eigen = 0, solver_program = 0, client_program = 0;
    std::string solver_cache, client_cache;
  };
  PlanTimes plan_times() const;
  // Device memory held: the PSCR plan's and the pipeline's buffers. The
  // iterative solvers' buffers are allocated by their first use.
  std::size_t device_bytes() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace pscr::hdr
