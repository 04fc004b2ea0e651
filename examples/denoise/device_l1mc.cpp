#include "device_l1mc.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <type_traits>

#include "opencl/cl_check.hpp"
#include "opencl/device.hpp"
#include "opencl/runtime.hpp"
#include "pscr/errors.hpp"
#include "pscr/opencl.hpp"

namespace pscr {
namespace kernels {
extern const char* const denoise_cl;
}

namespace denoise {
namespace {

using clk = std::chrono::steady_clock;
double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }
constexpr std::size_t kGroup = 256;  // GROUP in kernels/l1mc.cl (the reductions' work-group)

std::size_t round_up(std::size_t n, std::size_t k) { return (n + k - 1) / k * k; }

}  // namespace

struct DeviceL1mc::Impl {
  virtual ~Impl() = default;
  virtual Result denoise(const std::vector<double>& f, std::vector<double>& u) = 0;
  virtual std::string device_name() const = 0;
  Parameters par;
  bool stage_timing = false;
};

namespace {

// T: double, or float (the buffers, the kernels and both solves in single
// precision; the partial sums are added on the host in double).
template <class T> struct DeviceImpl final : DeviceL1mc::Impl {
  L1mc host;  // the problems (and parameters) of the two separable solves
  // Subproblems 2 and 4 have the same factors and differ only in c: one
  // plan solves both as a shifted pair (opencl::solve_shifts_async), their
  // right-hand sides interleaved in `pair`, with one set of launches (the
  // host's cost of a launch bounds small images).
  std::unique_ptr<Plan<T>> plan;
  std::vector<T> shifts;  // {subproblem 2's c, subproblem 4's c}
  std::unique_ptr<ocl::Runtime> rt;
  int W, H;
  std::size_t nv, nq;  // vertices; triangle components (4 per cell)
  ocl::Mem f, u, psi, lambda3, p1, p2, p3, lambda1, lambda2, b, v, q, pair, partial;
  ocl::Mem u_kept[2];        // u of iteration k in slot k % 2 (the answer when k's test stops)
  ocl::PinnedHost parts_in;  // two slots of partial sums, read back without waiting

  DeviceImpl(int w, int h, Parameters p, const std::string& device)
      : host(w, h, (p.resolve(), p)), W(w), H(h) {
    par = host.parameters();
    Options o;
    o.backend = Backend::opencl;
    o.device = device;
    o.shifts = 2;
    const Problem<double>& sub2 = host.subproblem2_problem();
    const Problem<double>& sub4 = host.subproblem4_problem();
    const double c2 = sub2.c(), c4 = sub4.c();
    plan = std::make_unique<Plan<T>>(
        Problem<double>::make2d(sub4.factor(0), sub4.factor(1), std::min(c2, c4)).template cast<T>(), o);
    shifts = {T(c2), T(c4)};
    const bool dbl = std::is_same_v<T, double>;
    rt = std::make_unique<ocl::Runtime>(
        opencl::queue(*plan), kernels::denoise_cl,
        dbl ? "-cl-std=CL1.2 -DREAL=double -DREAL_IS_DOUBLE=1" : "-cl-std=CL1.2 -DREAL=float -cl-single-precision-constant",
        false);
    if (dbl && !rt->device().fp64) throw BackendError("device " + rt->device().name + " lacks cl_khr_fp64");
    nv = std::size_t(W) * H;
    nq = 4 * std::size_t(W - 1) * (H - 1);
    auto vertex = [&](const char* what) { return rt->alloc(nv * sizeof(T), what); };
    auto triangle = [&](const char* what) { return rt->alloc(nq * sizeof(T), what); };
    f = vertex("image");
    u = vertex("u");
    psi = vertex("psi");
    lambda3 = vertex("lambda3");
    v = vertex("subproblem 2 solution");
    pair = rt->alloc(2 * nv * sizeof(T), "right-hand sides of subproblems 2 and 4, interleaved");
    for (ocl::Mem& m : u_kept) m = vertex("u of an iteration");
    p1 = triangle("p1");
    p2 = triangle("p2");
    p3 = triangle("p3");
    lambda1 = triangle("lambda1");
    lambda2 = triangle("lambda2");
    b = triangle("subproblem 2 right-hand side");
    q = triangle("subproblem 4 flux");
    // per vertex work-group: L's triangle terms, its vertex terms, J's: one read per iteration
    const std::size_t parts = 3 * round_up(nv, kGroup) / kGroup;
    partial = rt->alloc(parts * sizeof(T), "partial sums");
    parts_in = ocl::PinnedHost(rt->context(), rt->queue(), 2 * parts * sizeof(T), "partial sums on the host");
  }

  std::string device_name() const override { return rt->device().name; }

  void zero(const ocl::Mem& m, std::size_t n) const {
    const std::vector<T> z(n, T(0));
    rt->write(m.get(), z.data(), n * sizeof(T));
  }

  // The sums of the partial sums [begin, end) of `part`, in order, in double.
  static double sum(const T* part, std::size_t begin, std::size_t end) {
    double s = 0;
    for (std::size_t i = begin; i < end; ++i) s += double(part[i]);
    return s;
  }

  // Runs one stage; with stage timing, waits for it (both queues) and books its time.
  template <class F> void stage(double& into, F&& work) {
    const auto t = clk::now();
    work();
    if (stage_timing) {
      rt->finish();
      into += since(t);
    }
  }

  Result denoise(const std::vector<double>& fv, std::vector<double>& out) override {
    host.check_image(fv);
    // kernel arguments in the working precision
    const T invh = T(1 / par.h), area = T(par.h * par.h / 2), h = T(par.h), r1 = T(par.r1), r2 = T(par.r2),
            r3 = T(par.r3), epsilon = T(par.epsilon);
    const std::size_t cells = nq / 4, gv = round_up(nv, kGroup);
    const std::size_t gt = round_up(2 * cells, kGroup);  // subproblem 1: a work-item per triangle
    const std::size_t nv_groups = gv / kGroup, nparts = 3 * nv_groups;
    {
      const std::vector<T> ft(fv.begin(), fv.end());
      rt->write(f.get(), ft.data(), nv * sizeof(T));
    }
    for (const ocl::Mem* m : {&u, &psi, &lambda3}) zero(*m, nv);
    for (const ocl::Mem* m : {&p1, &p2, &p3, &lambda1, &lambda2}) zero(*m, nq);
    Result res;
    const double start_l = host.start_lagrangian(fv);
    const auto start = clk::now();
    double misc = 0;
    // The stopping test of iteration k reads its partial sums back while
    // iteration k + 1 runs (the device never waits for the host); when the
    // test stops at k, iteration k + 1 is discarded and the answer is u of
    // k, which multipliers_and_sums copies aside (two slots: iteration k + 1
    // writes the other one). The iterations, their values and the answer are
    // those of a test after every iteration.
    T* const slots = static_cast<T*>(parts_in.data());
    cl_event read[2] = {nullptr, nullptr};
    auto release_reads = [&] {
      for (cl_event& e : read)
        if (e) {
          clReleaseEvent(e);
          e = nullptr;
        }
    };
    // Waits for iteration k's partial sums and records it; true: stop.
    auto test = [&](int k) {
      cl_event& e = read[k % 2];
      const cl_int st = clWaitForEvents(1, &e);
      clReleaseEvent(e);
      e = nullptr;
      ocl::check(st, "clWaitForEvents");
      const T* part = slots + (k % 2) * nparts;  // iteration k's slot
      const double l = sum(part, nv_groups, 2 * nv_groups) + double(area) * sum(part, 0, nv_groups);
      return record_iteration(res, l, sum(part, 2 * nv_groups, nparts), start_l, par.tol);
    };
    int answer_kept = -1;  // the answer is u_kept[answer_kept], not u
    try {
      for (int it = 0; it < par.max_iterations; ++it) {
        const auto te = clk::now();
        stage(res.mean.sub[0], [&] {
          rt->launch("subproblem1", 1, {gt, 1, 1}, {kGroup, 1, 1}, u.get(), lambda1.get(), p3.get(), lambda2.get(),
                     psi.get(), lambda3.get(), p1.get(), p2.get(), b.get(), q.get(), W, H, invh, area, r1, r2,
                     r3);
        });
        // Subproblems 2 and 4 need only subproblem 1's results: both
        // right-hand sides in one kernel, both solves in one, then apart.
        stage(res.mean.sub[1], [&] {
          rt->launch("solve_rhs", 1, {gv, 1, 1}, {kGroup, 1, 1}, b.get(), q.get(), f.get(), pair.get(), W, H, invh,
                     h, r1);
          clReleaseEvent(opencl::solve_shifts_async(*plan, pair.get(), shifts));
          rt->launch("split", 1, {gv, 1, 1}, {kGroup, 1, 1}, pair.get(), v.get(), u.get(), W * H);
        });
        stage(res.mean.sub[2], [&] {
          // with subproblem 2's last step, p3 from the solution (a launch fewer)
          rt->launch("subproblem3", 1, {gv, 1, 1}, {kGroup, 1, 1}, b.get(), v.get(), p3.get(), lambda3.get(),
                     psi.get(), W, H, invh, area, h, r2, r3, epsilon);
        });
        const auto tm = clk::now();
        rt->launch("multipliers_and_sums", 1, {gv, 1, 1}, {kGroup, 1, 1}, u.get(), f.get(), p1.get(), p2.get(),
                   p3.get(), lambda1.get(), lambda2.get(), psi.get(), lambda3.get(), partial.get(), 0, int(nv_groups),
                   int(2 * nv_groups), u_kept[it % 2].get(), W, H, invh, area, h, r1, r2, r3, epsilon);
        ocl::check(clEnqueueReadBuffer(rt->queue(), partial.get(), CL_FALSE, 0, nparts * sizeof(T),
                                       slots + (it % 2) * nparts, 0, nullptr, &read[it % 2]),
                   "clEnqueueReadBuffer");
        ocl::check(clFlush(rt->queue()), "clFlush");
        res.enqueue += since(te);
        if (stage_timing) {  // the queues are idle: nothing to overlap
          misc += since(tm);
          if (test(it)) break;
          continue;
        }
        const bool stop = it > 0 && test(it - 1);
        if (!stop && it + 1 == par.max_iterations) test(it);
        misc += since(tm);
        if (stop) {
          answer_kept = (it - 1) % 2;
          break;
        }
      }
    } catch (...) {
      release_reads();
      rt->finish();
      throw;
    }
    release_reads();
    rt->finish();  // a discarded iteration counts in the time: the answer waits for it
    const double whole = since(start);
    for (double& t : res.mean.sub) t /= res.iterations;
    res.mean.joint_solves = true;
    res.enqueue /= res.iterations;
    res.mean.misc = stage_timing ? misc / res.iterations : whole / res.iterations;
    std::vector<T> ut(nv);
    rt->read((answer_kept < 0 ? u : u_kept[answer_kept]).get(), ut.data(), nv * sizeof(T));
    out.assign(ut.begin(), ut.end());
    return res;
  }
};

}  // namespace

DeviceL1mc::DeviceL1mc(int width, int height, Parameters parameters, const std::string& device, bool single)
    : impl_(single ? std::unique_ptr<Impl>(std::make_unique<DeviceImpl<float>>(width, height, parameters, device))
                   : std::unique_ptr<Impl>(std::make_unique<DeviceImpl<double>>(width, height, parameters, device))) {}
DeviceL1mc::~DeviceL1mc() = default;
const Parameters& DeviceL1mc::parameters() const { return impl_->par; }
std::string DeviceL1mc::device_name() const { return impl_->device_name(); }
void DeviceL1mc::set_stage_timing(bool on) { impl_->stage_timing = on; }
Result DeviceL1mc::denoise(const std::vector<double>& f, std::vector<double>& u) { return impl_->denoise(f, u); }

}  // namespace denoise
}  // namespace pscr
