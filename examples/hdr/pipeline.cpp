// Pipeline: planning, the tone-mapping operators and their stages.
#include <algorithm>
#include <climits>
#include <cmath>

#include "pipeline_impl.hpp"

namespace pscr {
namespace kernels {
extern const char* const hdr_cl;
}

namespace hdr {
namespace {
constexpr std::size_t kGroup = 256;
std::size_t sz(int v) { return std::size_t(v); }
}  // namespace

Pipeline::Impl::Impl(int width, int height, const PipelineOptions& o) : w(width), h(height), options(o) {
  const ReadLimits lim;
  if (w < 1 || h < 1 || w > lim.max_side || h > lim.max_side || std::size_t(w) * h > lim.max_pixels)
    throw InvalidArgument("pipeline for a " + std::to_string(w) + "x" + std::to_string(h) + " image (needs 1.." +
                          std::to_string(lim.max_side) + " per side, " + std::to_string(lim.max_pixels) + " pixels)");
  N = std::size_t(w) * h;
  const auto t0 = clock::now();
  Options po;
  po.backend = Backend::opencl;
  po.device = o.device;
  po.profile = o.stage_timing;
  // A I = b with A = A_y ⊗ I + I ⊗ A_x: rows (index 1) slowest, as the image.
  const auto fy = laplacian_factor(h, 1.0, Boundary::Neumann, Boundary::Neumann);
  const auto fx = laplacian_factor(w, 1.0, Boundary::Neumann, Boundary::Neumann);
  const auto problem = Problem<double>::make2d(fy, fx, 0.0);
  if (o.float_solve) plan32 = std::make_unique<Plan<float>>(problem.cast<float>(), po);
  else plan = std::make_unique<Plan<double>>(problem, po);  // refuses devices without fp64
  cl_command_queue q = plan ? opencl::queue(*plan) : opencl::queue(*plan32);
  rt = std::make_unique<ocl::Runtime>(q, kernels::hdr_cl, "-cl-std=CL1.2", o.stage_timing);
  if (!rt->device().fp64) throw BackendError("device " + rt->device().name + " lacks cl_khr_fp64, which the pipeline needs");
  if (plan32) I32 = rt->alloc(N * sizeof(float), "float solution");
  levels.push_back({w, h});
  // Gaussian pyramid down to a side of 1; FattalParameters::coarsest picks how many levels are used
  while (std::min(levels.back().w, levels.back().h) >= 2)
    levels.push_back({(levels.back().w + 1) / 2, (levels.back().h + 1) / 2});
  for (auto& g : levels) H.push_back(rt->alloc(g.n() * sizeof(double), "log-luminance pyramid"));
  rgb = rt->alloc(3 * N * sizeof(float), "input image");
  L = rt->alloc(N * sizeof(double), "luminance");
  mag = rt->alloc(N * sizeof(double), "gradient magnitudes");
  phi[0] = rt->alloc(N * sizeof(double), "attenuation");
  phi[1] = rt->alloc(N * sizeof(double), "attenuation");
  b = rt->alloc(N * sizeof(double), "divergence");
  I = rt->alloc(N * sizeof(double), "reconstruction");
  slots = rt->alloc(kSlots * sizeof(double), "reduction slots");
  bad = rt->alloc(sizeof(int), "flags");
  hist = rt->alloc(kBins * sizeof(int), "histogram");
  rgb8 = rt->alloc(3 * N, "8-bit image");
  // where each sRGB code begins: code k from the linear value whose encoding
  // reaches (k − 1/2) / 255, the rounding of the encoded value to 8 bits
  std::vector<float> table(256, 0.0f);
  for (int k = 1; k < 256; ++k) {
    const double e = (k - 0.5) / 255;
    table[k] = float(e <= 0.04045 ? e / 12.92 : std::pow((e + 0.055) / 1.055, 2.4));
  }
  srgb_table = rt->upload(table, "sRGB table");
  if (o.linear_output) linear = rt->alloc(3 * N * sizeof(float), "linear result");
  scratch[0] = rt->alloc(65536 * sizeof(double), "reduction scratch");
  scratch[1] = rt->alloc(1024 * sizeof(double), "reduction scratch");
  plan_seconds = std::chrono::duration<double>(clock::now() - t0).count();
}

void Pipeline::Impl::end_stage(const char* name) {
  if (!stages) return;
  rt->finish();
  stages->push_back({name, std::chrono::duration<double>(clock::now() - stage_start).count()});
  stage_start = clock::now();
}

void Pipeline::Impl::reduce(cl_mem in, std::size_t n, Op op, Map map, int slot, double delta) const {
  constexpr std::size_t fan = 64;
  cl_mem src = in;
  int cur = 0;
  for (bool first = true;; first = false) {
    const std::size_t m = n <= fan ? 1 : std::min<std::size_t>(65536, (n + fan - 1) / fan);
    cl_mem out = m == 1 ? slots.get() : scratch[cur].get();
    rt->run("reduce_stage", kGroup, {m}, src, cl_ulong(n), cl_ulong(m), out, cl_ulong(m == 1 ? slot : 0), int(op),
            first ? int(map) : 0, delta);
    if (m == 1) return;
    src = scratch[cur].get();
    n = m;
    cur ^= 1;
  }
}

double Pipeline::Impl::read_slot(int slot) const {
  double v = 0;
  ocl::check(clEnqueueReadBuffer(rt->queue(), slots.get(), CL_TRUE, slot * sizeof(double), sizeof v, &v, 0, nullptr, nullptr),
             "clEnqueueReadBuffer (reduction slot)");
  return v;
}

void Pipeline::Impl::download(ToneMapped& out, std::uint8_t* dst, clock::time_point t0) {
  end_stage("colour");
  out.width = w;
  out.height = h;
  if (!dst) {
    out.rgb8.resize(3 * N);
    dst = out.rgb8.data();
  }
  rt->read(rgb8.get(), dst, 3 * N);
  if (linear.get()) {
    out.linear = make_image(w, h);
    rt->read(linear.get(), out.linear.rgb.data(), 3 * N * sizeof(float));
  }
  end_stage("download");
  out.seconds = std::chrono::duration<double>(clock::now() - t0).count();
  stages = nullptr;
}

void Pipeline::Impl::upload(const float* rgb_in) {
  begin_stage();
  const int none = INT_MAX;
  ocl::check(clEnqueueWriteBuffer(rt->queue(), rgb.get(), CL_FALSE, 0, 3 * N * sizeof(float), rgb_in, 0, nullptr, nullptr),
             "clEnqueueWriteBuffer (image)");
  rt->write(bad.get(), &none, sizeof none);
  end_stage("upload");
  rt->run("luminance", kGroup, {N}, rgb.get(), int(N), L.get(), bad.get());
  int first_bad = none;
  rt->read(bad.get(), &first_bad, sizeof first_bad);
  if (first_bad != none) {
    const float* px = rgb_in + 3 * std::size_t(first_bad);
    throw NonFiniteInput("image pixel (" + std::to_string(first_bad % w) + ", " + std::to_string(first_bad / w) +
                         ") is NaN or infinite: (" + std::to_string(px[0]) + ", " + std::to_string(px[1]) + ", " +
                         std::to_string(px[2]) + ")");
  }
  reduce(L.get(), N, kMaxOp, kIdentity, kLumMax);
  end_stage("luminance");
}

namespace {
void check_image(const Image& img, int w, int h) {
  if (img.width != w || img.height != h || img.rgb.size() != 3 * std::size_t(w) * h)
    throw SizeMismatch("image is " + std::to_string(img.width) + "x" + std::to_string(img.height) + " with " +
                       std::to_string(img.rgb.size()) + " values; the pipeline was planned for " + std::to_string(w) +
                       "x" + std::to_string(h));
}
}  // namespace

void Pipeline::Impl::check_frame(const Frame& f) const {
  if (!frame_in.data() || f.rgb != frame_in.data() || f.rgb8 != frame_out.data() || f.width != w || f.height != h)
    throw InvalidArgument("the frame is not this pipeline's (get it from Pipeline::frame())");
}

Pipeline::Pipeline(int width, int height, const PipelineOptions& options)
    : impl_(std::make_unique<Impl>(width, height, options)) {}
Pipeline::~Pipeline() = default;
Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;

int Pipeline::width() const { return impl_->w; }
int Pipeline::height() const { return impl_->h; }
int Pipeline::pyramid_levels() const { return int(impl_->levels.size()); }
std::string Pipeline::device() const { return impl_->rt->device().name; }
double Pipeline::plan_seconds() const { return impl_->plan_seconds; }
Pipeline::PlanTimes Pipeline::plan_times() const {
  PlanTimes t;
  const PlanInfo& pi = impl_->plan_info();
  t.total = impl_->plan_seconds;
  t.eigen = pi.eigen_seconds;
  t.solver_program = pi.build_seconds;
  t.solver_cache = pi.program_cache;
  t.client_program = impl_->rt->build_seconds();
  t.client_cache = impl_->rt->program_cache();
  return t;
}
std::size_t Pipeline::device_bytes() const { return impl_->plan_info().device_bytes + impl_->rt->bytes(); }

namespace {
void check_fattal(const FattalParameters& p) {
  auto bad = [](const std::string& what, double v, const std::string& need) {
    throw InvalidArgument("Fattal " + what + " = " + std::to_string(v) + " (" + need + ")");
  };
  if (!(p.alpha > 0) || !std::isfinite(p.alpha)) bad("alpha", p.alpha, "needs > 0");
  if (!(p.beta > 0 && p.beta <= 1)) bad("beta", p.beta, "needs 0 < beta <= 1");
  if (!(p.saturation >= 0 && p.saturation <= 2)) bad("saturation", p.saturation, "needs 0..2");
  if (!(p.black_percentile >= 0 && p.black_percentile < p.white_percentile && p.white_percentile <= 100))
    bad("black/white percentile", p.black_percentile, "needs 0 <= black < white <= 100");
  if (!(p.luminance_floor > 0 && p.luminance_floor < 1)) bad("luminance floor", p.luminance_floor, "needs 0 < floor < 1");
  if (p.coarsest < 1) bad("coarsest pyramid side", p.coarsest, "needs >= 1");
  if (!(p.noise >= 0) || !std::isfinite(p.noise)) bad("noise", p.noise, "needs >= 0");
  if (p.detail_level < 0) bad("detail level", p.detail_level, "needs >= 0");
}
}  // namespace

ToneMapped Pipeline::fattal(const Image& img, const FattalParameters& p, const SolverControls& solver) {
  check_image(img, impl_->w, impl_->h);
  return impl_->fattal(img.rgb.data(), nullptr, p, solver);
}

ToneMapped Pipeline::fattal(const Frame& f, const FattalParameters& p, const SolverControls& solver) {
  impl_->check_frame(f);
  return impl_->fattal(f.rgb, static_cast<std::uint8_t*>(impl_->frame_out.data()), p, solver);
}

ToneMapped Pipeline::Impl::fattal(const float* rgb_in, std::uint8_t* dst, const FattalParameters& p,
                                  const SolverControls& solver) {
  check_fattal(p);
  Impl& s = *this;
  ToneMapped out;
  s.stages = s.options.stage_timing ? &out.stages : nullptr;
  const auto t0 = Impl::clock::now();
  s.upload(rgb_in);
  s.rt->run("log_luminance", kGroup, {s.N}, s.L.get(), int(s.N), s.slots.get(), int(kLumMax), p.luminance_floor, s.H[0].get());
  s.end_stage("log luminance");
  int top = 0;  // coarsest level used
  while (top + 1 < int(s.levels.size()) && std::min(s.levels[top + 1].w, s.levels[top + 1].h) >= p.coarsest) {
    const GridSize f = s.levels[top], c = s.levels[top + 1];
    s.rt->run("pyramid_down", kGroup, {sz(c.w), sz(c.h)}, s.H[top].get(), f.w, f.h, s.H[top + 1].get(), c.w, c.h);
    ++top;
  }
  s.end_stage("pyramid");
  // Φ from the coarsest level up, alternating between the two buffers
  int cur = 0;
  for (int k = top; k >= 0; --k) {
    const GridSize g = s.levels[k];
    s.rt->run("gradient_magnitude", kGroup, {sz(g.w), sz(g.h)}, s.H[k].get(), g.w, g.h, std::ldexp(1.0, k + 1), s.mag.get());
    s.reduce(s.mag.get(), g.n(), Impl::kSumOp, Impl::kIdentity, kLevelSums + k);
    const GridSize c = k < top ? s.levels[k + 1] : g;
    const int apply = k >= p.detail_level || k == top;  // the coarsest level always attenuates
    s.rt->run("attenuation", kGroup, {sz(g.w), sz(g.h)}, s.mag.get(), g.w, g.h, s.slots.get(), int(kLevelSums + k), p.alpha,
              p.beta, p.noise, apply, s.phi[1 - cur].get(), c.w, c.h, int(k < top), s.phi[cur].get());
    cur = 1 - cur;
  }
  s.phi0 = 1 - cur;
  s.end_stage("attenuation");
  s.rt->run("divergence", kGroup, {sz(s.w), sz(s.h)}, s.H[0].get(), s.phi[s.phi0].get(), s.w, s.h, s.b.get());
  s.end_stage("divergence");
  out.solve = s.solve(solver);
  s.end_stage("poisson solve");
  // exposure: black and white percentiles of I from a histogram
  s.reduce(s.I.get(), s.N, Impl::kMinOp, Impl::kIdentity, kMin);
  s.reduce(s.I.get(), s.N, Impl::kMaxOp, Impl::kIdentity, kMax);
  const int zero = 0;
  ocl::check(clEnqueueFillBuffer(s.rt->queue(), s.hist.get(), &zero, sizeof zero, 0, Impl::kBins * sizeof(int), 0, nullptr,
                                 nullptr),
             "clEnqueueFillBuffer");
  // a grid of work-groups that loop over the image (local counts per group)
  s.rt->run("histogram", kGroup, {std::min<std::size_t>(s.N, 256 * kGroup)}, s.I.get(), int(s.N), s.slots.get(), int(kMin), int(kMax), Impl::kBins, s.hist.get());
  std::vector<int> hist(Impl::kBins);
  double range[2];
  ocl::check(clEnqueueReadBuffer(s.rt->queue(), s.slots.get(), CL_FALSE, kMin * sizeof(double), 2 * sizeof(double), range, 0,
                                 nullptr, nullptr),
             "clEnqueueReadBuffer");
  s.rt->read(s.hist.get(), hist.data(), hist.size() * sizeof(int));
  auto percentile = [&](double pct) {
    const double want = pct / 100 * double(s.N);
    double cum = 0;
    for (int k = 0; k < Impl::kBins; ++k) {
      cum += hist[k];
      if (cum >= want && hist[k] > 0) return range[0] + (k + 0.5) / Impl::kBins * (range[1] - range[0]);
    }
    return range[1];
  };
  const double lo = percentile(p.black_percentile), hi = percentile(p.white_percentile);
  s.end_stage("exposure");
  s.rt->run("compose_fattal", kGroup, {s.N}, s.rgb.get(), s.L.get(), s.I.get(), int(s.N), std::exp(lo), std::exp(hi),
            p.saturation, s.srgb_table.get(), s.rgb8.get(), s.linear.get());
  s.download(out, dst, t0);
  return out;
}

ToneMapped Pipeline::reinhard(const Image& img, const ReinhardParameters& p) {
  check_image(img, impl_->w, impl_->h);
  return impl_->reinhard(img.rgb.data(), nullptr, p);
}

ToneMapped Pipeline::reinhard(const Frame& f, const ReinhardParameters& p) {
  impl_->check_frame(f);
  return impl_->reinhard(f.rgb, static_cast<std::uint8_t*>(impl_->frame_out.data()), p);
}

Frame Pipeline::frame() {
  Impl& s = *impl_;
  if (!s.frame_in.data()) {
    s.frame_in = ocl::PinnedHost(s.rt->context(), s.rt->queue(), 3 * s.N * sizeof(float), "the frame's input");
    s.frame_out = ocl::PinnedHost(s.rt->context(), s.rt->queue(), 3 * s.N, "the frame's result");
  }
  return {s.w, s.h, static_cast<float*>(s.frame_in.data()), static_cast<const std::uint8_t*>(s.frame_out.data())};
}

ToneMapped Pipeline::Impl::reinhard(const float* rgb_in, std::uint8_t* dst, const ReinhardParameters& p) {
  if (!(p.key > 0) || !std::isfinite(p.key)) throw InvalidArgument("Reinhard key = " + std::to_string(p.key) + " (needs > 0)");
  if (!(p.delta > 0)) throw InvalidArgument("Reinhard delta = " + std::to_string(p.delta) + " (needs > 0)");
  if (!(p.saturation >= 0 && p.saturation <= 2)) throw InvalidArgument("Reinhard saturation needs 0..2");
  if (!std::isfinite(p.white)) throw InvalidArgument("Reinhard white point must be finite");
  Impl& s = *this;
  ToneMapped out;
  s.stages = s.options.stage_timing ? &out.stages : nullptr;
  const auto t0 = Impl::clock::now();
  s.upload(rgb_in);
  s.reduce(s.L.get(), s.N, Impl::kSumOp, Impl::kLogDelta, kLogSum, p.delta);
  s.end_stage("log average");
  s.rt->run("compose_reinhard", kGroup, {s.N}, s.rgb.get(), s.L.get(), int(s.N), s.slots.get(), int(kLogSum), int(kLumMax), p.key,
            p.white, p.saturation, s.srgb_table.get(), s.rgb8.get(), s.linear.get());
  s.download(out, dst, t0);
  return out;
}

Pipeline::Fields Pipeline::fields() const {
  const Impl& s = *impl_;
  Fields f;
  auto get = [&](const ocl::Mem& m, std::vector<double>& v) {
    v.resize(s.N);
    s.rt->read(m.get(), v.data(), s.N * sizeof(double));
  };
  get(s.H[0], f.H);
  get(s.phi[s.phi0], f.Phi);
  get(s.b, f.b);
  get(s.I, f.I);
  return f;
}

std::vector<double> Pipeline::solve_poisson(const std::vector<double>& rhs, const SolverControls& c, SolveReport* report) {
  Impl& s = *impl_;
  if (rhs.size() != s.N)
    throw SizeMismatch("solve_poisson: " + std::to_string(rhs.size()) + " values for a " + std::to_string(s.w) + "x" +
                       std::to_string(s.h) + " grid");
  for (std::size_t i = 0; i < rhs.size(); ++i)
    if (!std::isfinite(rhs[i])) throw NonFiniteInput("solve_poisson: right-hand side value " + std::to_string(i) + " is not finite");
  s.rt->write(s.b.get(), rhs.data(), s.N * sizeof(double));
  SolveReport rep = s.solve(c);
  if (rep.relative_residual < 0) {  // PSCR: measure it as for the iterative solvers
    const double bn = s.project_rhs(nullptr);
    s.need_residual();
    rep.relative_residual = bn > 0 ? s.residual_norm(s.I.get(), s.b.get(), {s.w, s.h}, s.r.get()) / bn : 0;
  }
  if (report) *report = rep;
  std::vector<double> u(s.N);
  s.rt->read(s.I.get(), u.data(), s.N * sizeof(double));
  return u;
}

}  // namespace hdr
}  // namespace pscr
