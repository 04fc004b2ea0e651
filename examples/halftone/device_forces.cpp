#include "device_forces.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "opencl/device.hpp"
#include "opencl/runtime.hpp"
#include "pscr/opencl.hpp"
#include "pscr/pscr.hpp"

namespace pscr {
namespace kernels {
extern const char* const halftone_cl;
}

namespace halftone {
namespace {

using clock_type = std::chrono::steady_clock;
constexpr std::size_t kGroup = 256;

// What both device engines share: the dots and forces on the device, the
// iterations (evaluate, then move_dots) and the read-backs.
class DeviceDots : public ForceEngine {
 public:
  std::vector<Point> forces(const std::vector<Point>& dots) override {
    upload(dots);
    evaluate();
    std::vector<Point> f(dots.size());
    rt_->read(force_.get(), f.data(), f.size() * sizeof(Point));
    return f;
  }

  void iterate(std::vector<Point>& dots, const Motion& m, int k0, int k1) override {
    upload(dots);
    for (int k = k0; k < k1; ++k) {
      evaluate();
      const bool shake = m.shake_every > 0 && k > 0 && k % m.shake_every == 0 && k < m.shake_until;
      const double amp = m.shake * (1 - double(k) / std::max(1, m.shake_until));
      rt_->run("move_dots", kGroup, {std::size_t(count_)}, dots_.get(), force_.get(), count_, m.tau, int(shake), amp,
               cl_ulong(m.seed), cl_ulong(4 + k), m.width, m.height);
      moved();
    }
    rt_->read(dots_.get(), dots.data(), dots.size() * sizeof(Point));
  }

 protected:
  virtual void evaluate() = 0;         // the forces of dots_ into force_
  virtual void resized() {}            // count_ changed
  virtual void started() {}            // new dots uploaded
  virtual void moved() {}              // after each move

  void upload(const std::vector<Point>& dots) {
    static_assert(sizeof(Point) == 2 * sizeof(double), "Point must be two doubles (double2 on the device)");
    if (int(dots.size()) != count_) {
      count_ = int(dots.size());
      dots_ = rt_->alloc(dots.size() * sizeof(Point), "dots");
      force_ = rt_->alloc(dots.size() * sizeof(Point), "forces");
      resized();
    }
    rt_->write(dots_.get(), dots.data(), dots.size() * sizeof(Point));
    started();
  }

  std::unique_ptr<ocl::Runtime> rt_;
  ocl::Mem dots_, force_;
  int count_ = -1;
};

class DeviceEngine final : public DeviceDots {
 public:
  DeviceEngine(const Charges& c, const MeshParameters& p, const std::string& device)
      : charges_(c), g_(mesh_geometry(c.width, c.height, p, false)) {
    // the repulsion's Poisson plan on the device; the client's kernels on its queue
    Options o;
    o.backend = Backend::opencl;
    o.device = device;
    plan_ = compact_plan(g_, o);
    rt_ = std::make_unique<ocl::Runtime>(opencl::queue(*plan_), kernels::halftone_cl, "-cl-std=CL1.2", false);
    if (!rt_->device().fp64) throw BackendError("device " + rt_->device().name + " lacks cl_khr_fp64");
    N_ = std::size_t(g_.nx) * g_.ny;
    cell_ = g_.cutoff / 2;
    cw_ = std::max(1, int(std::ceil((c.width + 1) / cell_)));
    ch_ = std::max(1, int(std::ceil((c.height + 1) / cell_)));
    order_ = p.multipole_order;
    rhs_ = rt_->alloc(N_ * sizeof(double), "mesh potential");
    fill_ = rt_->alloc(std::size_t(cw_) * ch_ * sizeof(int), "cell fill");
    start_ = rt_->alloc(std::size_t(cw_) * ch_ * sizeof(int), "cell starts");
    row_total_ = rt_->alloc(std::size_t(ch_) * sizeof(int), "dots per row of cells");
    moments_ = rt_->alloc((order_ + 1) * 2 * sizeof(double), "multipole moments");
    attraction_ = rt_->alloc(c.q.size() * 2 * sizeof(double), "attraction");
    compute_attraction(p, o);
    density_ = rt_->alloc(N_ * sizeof(cl_long), "mesh density");
  }

  std::string name() const override {
    return "device particle mesh " + std::to_string(g_.nx) + " x " + std::to_string(g_.ny) + " on " +
           rt_->device().name;
  }
  std::vector<std::pair<std::string, double>> stage_times() const override {
    return {{"charges to mesh", t_[0]}, {"right-hand side, boundary", t_[1]}, {"Poisson solve (libpscr)", t_[2]},
            {"cell list", t_[3]},       {"forces", t_[4]},                    {"update", t_[5]}};
  }
  void reset_times() override {
    for (double& t : t_) t = 0;
  }

  void set_stage_timing(bool on) override { timing_ = on; }

 private:
  void resized() override {
    groups_ = int((std::size_t(count_) + kGroup - 1) / kGroup);
    partial_ = rt_->alloc(std::size_t(groups_) * (order_ + 1) * 2 * sizeof(double), "moment partial sums");
    slot_ = rt_->alloc(std::size_t(count_) * sizeof(int), "dots' places in their cells");
    members_ = rt_->alloc(std::size_t(count_) * sizeof(int), "cell members");
  }
  void started() override { stamp_ = clock_type::now(); }
  void moved() override { lap(5); }
  // Stage times (each stage waited for) only when asked: the waits cost time.
  void lap(int stage) {
    if (!timing_) return;
    rt_->finish();
    const auto now = clock_type::now();
    t_[stage] += std::chrono::duration<double>(now - stamp_).count();
    stamp_ = now;
  }

  void zero(cl_mem m, std::size_t bytes) {  // bytes: a multiple of 4
    const cl_int z = 0;
    const cl_int status = clEnqueueFillBuffer(rt_->queue(), m, &z, sizeof z, 0, bytes, 0, nullptr, nullptr);
    if (status != CL_SUCCESS) throw BackendError("clEnqueueFillBuffer failed: " + std::to_string(status));
  }

  // The attraction at the pixel centres, once: the pixels' charges on the
  // finer mesh, its own Poisson plan, the mesh force and the pixels' near field.
  void compute_attraction(const MeshParameters& p, const Options& o) {
    const MeshGeometry f = mesh_geometry(charges_.width, charges_.height, p, true);
    const auto fine_plan = compact_plan(f, o);
    const std::size_t n = std::size_t(f.nx) * f.ny;
    ocl::Mem density = rt_->alloc(n * sizeof(cl_long), "fine mesh density");
    ocl::Mem phi = rt_->alloc(n * sizeof(double), "fine mesh potential");
    ocl::Mem q = rt_->upload(charges_.q, "pixel charges");
    zero(density.get(), n * sizeof(cl_long));
    const std::size_t w = std::size_t(charges_.width), h = std::size_t(charges_.height);
    rt_->run("spread_pixels", kGroup, {w, h}, q.get(), charges_.width, charges_.height, density.get(), f.x0, f.y0, f.h,
             f.nx, f.ny, f.reach, f.sigma);
    rt_->run("compact_rhs", kGroup, {std::size_t(f.nx), std::size_t(f.ny)}, density.get(), phi.get(), f.nx, f.ny);
    if (order_ > 0) {
      // the pixels' moments on the host (once)
      std::vector<Point> at;
      std::vector<double> q_at;
      for (std::size_t j = 0; j < h; ++j)
        for (std::size_t i = 0; i < w; ++i)
          if (charges_.q[j * w + i] != 0) {
            at.push_back({double(i), double(j)});
            q_at.push_back(charges_.q[j * w + i]);
          }
      const std::vector<double> mom = multipole_moments(at, q_at, f, order_);
      rt_->write(moments_.get(), mom.data(), mom.size() * sizeof(double));
      rt_->run("boundary_rhs", kGroup, {std::size_t(2 * f.nx + 2 * (f.ny - 2))}, phi.get(), f.x0, f.y0, f.h, f.nx, f.ny,
               g_.cx, g_.cy, g_.radius, order_, moments_.get());
    }
    // the finer plan has its own queue: its solve starts after this queue's work
    // (and returns when it has finished)
    rt_->finish();
    opencl::solve(*fine_plan, phi.get(), 1, false);
    rt_->run("pixel_attraction", kGroup, {w, h}, q.get(), charges_.width, charges_.height, phi.get(), f.x0, f.y0, f.h,
             f.nx, f.ny, f.reach, f.sigma, f.cutoff, attraction_.get());
    rt_->finish();
  }

  // The force on every dot into force_.
  void evaluate() override {
    zero(density_.get(), N_ * sizeof(cl_long));
    rt_->run("spread_dots", kGroup, {std::size_t(count_)}, dots_.get(), count_, density_.get(), g_.x0, g_.y0, g_.h,
             g_.nx, g_.ny, g_.reach, g_.sigma);
    lap(0);
    rt_->run("compact_rhs", kGroup, {std::size_t(g_.nx), std::size_t(g_.ny)}, density_.get(), rhs_.get(), g_.nx, g_.ny);
    rt_->launch("dot_moments", 1, {std::size_t(groups_) * kGroup, 1, 1}, {kGroup, 1, 1}, dots_.get(), count_,
                g_.cx, g_.cy, g_.radius, order_, partial_.get(), ocl::LocalBytes{kGroup * 2 * sizeof(double)});
    rt_->run("sum_moments", 64, {std::size_t(order_ + 1)}, partial_.get(), groups_, order_, moments_.get());
    if (order_ > 0)
      rt_->run("boundary_rhs", kGroup, {std::size_t(2 * g_.nx + 2 * (g_.ny - 2))}, rhs_.get(), g_.x0, g_.y0, g_.h,
               g_.nx, g_.ny, g_.cx, g_.cy, g_.radius, order_, moments_.get());
    lap(1);
    opencl::solve(*plan_, rhs_.get(), 1, false);
    lap(2);
    zero(fill_.get(), std::size_t(cw_) * ch_ * sizeof(int));
    rt_->run("count_cells", kGroup, {std::size_t(count_)}, dots_.get(), count_, cell_, cw_, ch_, fill_.get(),
             slot_.get());
    rt_->run("row_fill", 64, {std::size_t(ch_)}, fill_.get(), cw_, ch_, row_total_.get());
    rt_->run("cell_starts", 64, {std::size_t(ch_)}, fill_.get(), row_total_.get(), cw_, ch_, start_.get());
    rt_->run("scatter_dots", kGroup, {std::size_t(count_)}, dots_.get(), count_, cell_, cw_, ch_, start_.get(),
             slot_.get(), members_.get());
    rt_->run("sort_cells", 64, {std::size_t(cw_) * ch_}, fill_.get(), start_.get(), members_.get(), cw_ * ch_);
    lap(3);
    rt_->run("dot_forces", kGroup, {std::size_t(count_)}, dots_.get(), count_, rhs_.get(), g_.x0, g_.y0, g_.h, g_.nx,
             g_.ny, g_.reach, g_.sigma, fill_.get(), start_.get(), members_.get(), cell_, cw_, ch_, g_.cutoff,
             attraction_.get(), charges_.width, charges_.height, force_.get());
    lap(4);
  }

  Charges charges_;
  MeshGeometry g_;  // the repulsion's mesh
  std::unique_ptr<Plan<double>> plan_;
  std::size_t N_ = 0;
  double cell_ = 0;
  int cw_ = 0, ch_ = 0, order_ = 0, groups_ = 0;
  // the near-field cell list (kernels/halftone.cl: count_cells ... sort_cells)
  ocl::Mem fill_, start_, row_total_, slot_, members_;
  ocl::Mem density_, rhs_, attraction_, moments_, partial_;
  double t_[6] = {0, 0, 0, 0, 0, 0};
  bool timing_ = false;
  clock_type::time_point stamp_ = clock_type::now();
};

// Direct summation of (1) on the device: the attraction at every pixel centre
// once (all pixels), the repulsion of all dots every iteration.
class DirectEngine final : public DeviceDots {
 public:
  DirectEngine(const Charges& c, const std::string& device) : charges_(c) {
    rt_ = std::make_unique<ocl::Runtime>(ocl::select_device(device), kernels::halftone_cl, "-cl-std=CL1.2", false);
    if (!rt_->device().fp64) throw BackendError("device " + rt_->device().name + " lacks cl_khr_fp64");
    ocl::Mem q = rt_->upload(c.q, "pixel charges");
    attraction_ = rt_->alloc(c.q.size() * 2 * sizeof(double), "attraction");
    rt_->run("direct_attraction", kGroup, {std::size_t(c.width), std::size_t(c.height)}, q.get(), c.width, c.height,
             attraction_.get());
    rt_->finish();
  }
  std::string name() const override { return "device direct summation on " + rt_->device().name; }

 private:
  void evaluate() override {
    const std::size_t global = (std::size_t(count_) + kGroup - 1) / kGroup * kGroup;
    rt_->launch("direct_forces", 1, {global, 1, 1}, {kGroup, 1, 1}, dots_.get(), count_, attraction_.get(),
                charges_.width, charges_.height, force_.get(), ocl::LocalBytes{kGroup * 2 * sizeof(double)});
  }
  Charges charges_;
  ocl::Mem attraction_;
};

}  // namespace

std::unique_ptr<ForceEngine> direct_device_engine(const Charges& charges, const std::string& device) {
  return std::make_unique<DirectEngine>(charges, device);
}

std::unique_ptr<ForceEngine> device_engine(const Charges& charges, const MeshParameters& p, const std::string& device) {
  return std::make_unique<DeviceEngine>(charges, p, device);
}

}  // namespace halftone
}  // namespace pscr
