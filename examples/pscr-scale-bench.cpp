// pscr-scale-bench: one 2D or 3D Poisson plan (double, uniform mesh, Dirichlet) over
// 1 … P OpenCL devices of this host, with medians of --reps solves:
//   - one solve split by rows (Options::device_split = rows: a distributed
//     plan whose ranks are threads, one device each), from host arrays, with
//     the copies of the slabs in and out timed apart, the levels' time (all
//     slabs on their devices: device-resident) with its host time at the
//     exchanges, and the bytes sent beside a slab decomposition's least; the
//     plain one-device plan beside it (host arrays and device-resident);
//   - a batch of --batch right-hand sides of --batch-n² (default: --n²) split
//     over the devices (Options::devices, batches), per right-hand side, from
//     host arrays and already on the devices (a share each,
//     opencl::solve_async per device);
//   - with --weak, instead of both: weak scaling, P·(n + 1) − 1 rows of
//     dimension 1 split over P devices (n² or n³ unknowns per device);
//   - with --profile, each plan's kernels (the first device's for a split),
//     device time per solve (profiled solves, apart from the medians).
// Every split solution is compared with the one-device plan's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/cli.hpp"
#include "pscr/distributed.hpp"
#include "pscr/opencl.hpp"
#include "pscr/pscr.hpp"

namespace {

constexpr const char* kTool = "pscr-scale-bench";
constexpr const char* kUsage =
    "usage: pscr-scale-bench --devices SEL,SEL,... [--n N] [--dim 2|3] [--reps R] [--batch K] [--batch-n N] [--weak]\n"
    "                        [--profile]\n"
    "  Poisson, double, on 1 ... P of the devices listed (default --n 8191 in 2D and 511 in 3D, --dim 2, --reps 5,\n"
    "  --batch 8; the batch is 2D, --batch-n² with --batch-n = --n unless given; --batch 0 skips the batches)\n"
    "  --weak: weak scaling instead, P·(N + 1) − 1 rows of dimension 1 over P devices\n"
    "  --profile: each plan's kernels, device time per solve (the first device's for a split)\n";

using clk = std::chrono::steady_clock;
double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// n1 rows of dimension 1 (0: n), n in the others
pscr::Problem<double> problem(int n, int dim = 2, int n1 = 0) {
  auto mesh = [](int m) {
    std::vector<double> x(std::size_t(m) + 2);
    for (int i = 0; i <= m + 1; ++i) x[std::size_t(i)] = double(i) / (m + 1);
    return x;
  };
  const auto x = mesh(n), x1 = mesh(n1 > 0 ? n1 : n);
  return dim == 3 ? pscr::poisson3d(x1, x, x) : pscr::poisson2d(x1, x);
}

// Kernel times per solve: `after` less `before` (summed over `solves`), longest first.
void print_kernels(const std::vector<pscr::KernelTime>& before, const std::vector<pscr::KernelTime>& after,
                   int solves) {
  std::vector<pscr::KernelTime> d = after;
  for (auto& k : d)
    for (const auto& b : before)
      if (b.kernel == k.kernel) {
        k.seconds -= b.seconds;
        k.launches -= b.launches;
      }
  std::sort(d.begin(), d.end(), [](auto& a, auto& b) { return a.seconds > b.seconds; });
  double total = 0;
  for (const auto& k : d) total += k.seconds;
  std::printf("      kernels, per solve: %.3f ms in all\n", 1e3 * total / solves);
  for (const auto& k : d)
    if (k.launches > 0)
      std::printf("      %-28s %8.3f ms %6.1f launches\n", k.kernel.c_str(), 1e3 * k.seconds / solves,
                  double(k.launches) / solves);
}

std::vector<double> rhs(std::size_t N, std::size_t count) {
  std::vector<double> f(N * count);
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = std::sin(0.37 * double(i % N)) + 0.1 + 0.01 * double(i / N);
  return f;
}

double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::abs(a[i] - b[i]));
    s = std::max(s, std::abs(b[i]));
  }
  return d / s;
}

// Median seconds per right-hand side of solving `count` right-hand sides F
// held on the plan's devices, a share each (as solve_batch splits them),
// all devices at once; the solutions are read back into U.
double resident_batch(const pscr::Plan<double>& plan, const std::vector<double>& F, std::size_t count, int reps,
                      std::vector<double>& U) {
  namespace ocl = pscr::opencl;
  const std::size_t D = ocl::device_count(plan), N = plan.problem().unknowns();
  struct Share {
    std::size_t first, count;
    cl_mem rhs, work;
  };
  std::vector<Share> shares;
  for (std::size_t i = 0, first = 0; i < D; ++i) {
    const std::size_t c = count / D + (i < count % D ? 1 : 0);
    cl_int err = CL_SUCCESS;
    Share s{first, c, nullptr, nullptr};
    if (c > 0) {
      s.rhs = clCreateBuffer(ocl::context(plan, i), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, c * N * sizeof(double),
                             const_cast<double*>(F.data() + first * N), &err);
      if (err == CL_SUCCESS) s.work = clCreateBuffer(ocl::context(plan, i), CL_MEM_READ_WRITE, c * N * sizeof(double), nullptr, &err);
    }
    shares.push_back(s);
    if (err != CL_SUCCESS) throw std::runtime_error("clCreateBuffer failed (" + std::to_string(err) + ")");
    first += c;
  }
  std::vector<double> t;
  for (int rep = 0; rep < reps + 1; ++rep) {
    for (std::size_t i = 0; i < D; ++i)
      if (shares[i].count) {
        clEnqueueCopyBuffer(ocl::queue(plan, i), shares[i].rhs, shares[i].work, 0, 0, shares[i].count * N * sizeof(double),
                            0, nullptr, nullptr);
        clFinish(ocl::queue(plan, i));
      }
    const auto t1 = clk::now();
    std::vector<cl_event> done;
    for (std::size_t i = 0; i < D; ++i)
      if (shares[i].count) done.push_back(ocl::solve_async(plan, i, shares[i].work, shares[i].count));
    clWaitForEvents(cl_uint(done.size()), done.data());
    if (rep > 0) t.push_back(since(t1) / double(count));
    for (cl_event e : done) clReleaseEvent(e);
  }
  for (const auto& s : shares)
    if (s.count) {
      clEnqueueReadBuffer(ocl::queue(plan, std::size_t(&s - shares.data())), s.work, CL_TRUE, 0,
                          s.count * N * sizeof(double), U.data() + s.first * N, 0, nullptr, nullptr);
      clReleaseMemObject(s.rhs);
      clReleaseMemObject(s.work);
    }
  return median(t);
}

// Medians of --reps solves of p split by rows over the first P devices (a
// distributed plan over P threads, rank r on device r), from f into u.
struct SplitTimes {
  double wall, copies, levels, waits, exchanges, plan_seconds;
  std::size_t sent;  // bytes between devices per solve
  std::vector<pscr::KernelTime> kernels_before, kernels_after;  // rank 0's, around the timed solves (--profile)
};
SplitTimes split_solves(const pscr::Problem<double>& p, const pscr::Options& one, const std::vector<std::string>& devices,
                        std::size_t P, int reps, const std::vector<double>& f, std::vector<double>& u,
                        bool profile = false) {
  const std::size_t N = p.unknowns(), row = N / p.size(0);
  auto comms = pscr::local_communicators(int(P));
  pscr::Options o = one;
  o.devices.assign(devices.begin(), devices.begin() + long(P));
  o.profile = profile;
  std::vector<std::unique_ptr<pscr::DistributedPlan<double>>> plans(P);
  std::vector<pscr::KernelTime> before;
  std::vector<double> wall, copies, levels, waits, exchanges;
  const auto t0 = clk::now();
  // a rank's error is rethrown here, where main's handler reaches it
  auto on_ranks = [&](auto&& body) {
    std::vector<std::exception_ptr> failed(P);
    std::vector<std::thread> th;
    for (std::size_t r = 0; r < P; ++r)
      th.emplace_back([&, r] {
        try {
          body(r);
        } catch (...) {
          failed[r] = std::current_exception();
        }
      });
    for (auto& t : th) t.join();
    for (auto& e : failed)
      if (e) std::rethrow_exception(e);
  };
  // devices selected one after another first (the ICD loader's first enumeration)
  for (std::size_t r = 0; r < P; ++r) pscr::opencl::prepare_device(devices[r]);
  on_ranks([&](std::size_t r) { plans[r] = std::make_unique<pscr::DistributedPlan<double>>(comms[r], p, o); });
  const double plan_s = since(t0);
  for (int rep = 0; rep < reps + 1; ++rep) {
    std::copy(f.begin(), f.end(), u.begin());
    std::vector<double> c(P), d(P), wt(P), ex(P);
    const auto t1 = clk::now();
    on_ranks([&](std::size_t r) {
      double* slab = u.data() + plans[r]->rows().begin * row;
      const pscr::SolveStats st = plans[r]->solve(slab, slab);
      c[r] = st.transfer_seconds;
      d[r] = st.device_seconds;
      wt[r] = st.exchange_wait_seconds;
      ex[r] = st.exchange_seconds;
    });
    if (rep == 0) {  // the first solve allocates the host side
      before = plans[0]->kernel_times();
      continue;
    }
    wall.push_back(since(t1));
    copies.push_back(*std::max_element(c.begin(), c.end()));
    levels.push_back(*std::max_element(d.begin(), d.end()));
    waits.push_back(*std::max_element(wt.begin(), wt.end()));
    exchanges.push_back(*std::max_element(ex.begin(), ex.end()));
  }
  std::size_t sent = 0;
  for (auto& pl : plans) sent += pl->info().bytes_per_solve;
  return {median(wall), median(copies), median(levels), median(waits), median(exchanges), plan_s, sent, before,
          plans[0]->kernel_times()};
}

// Weak scaling: P·(n + 1) − 1 rows of dimension 1 split over P devices, n
// in the others (a slab of about n rows each), the levels' time against one
// device's; each answer against the one-device plan's.
void weak_scaling(const std::vector<std::string>& devices, int n, int dim, int reps, bool profile) {
  pscr::Options one;
  one.backend = pscr::Backend::opencl;
  one.device = devices[0];
  double base = 0, base_plan = 0;
  for (std::size_t P = 1; P <= devices.size(); ++P) {
    const int n1 = int(P) * (n + 1) - 1;
    const auto p = problem(n, dim, n1);
    const std::size_t N = p.unknowns();
    const auto f = rhs(N, 1);
    std::vector<double> ref(N), u(N);
    double resident = 0;
    {
      const pscr::Plan<double> plan(p, one);
      plan.solve(f.data(), ref.data());
      resident = median(pscr::opencl::time_solves(plan, f.data(), reps));
    }
    const SplitTimes st = split_solves(p, one, devices, P, reps, f, u, profile);
    if (P == 1) {
      base = st.levels;
      base_plan = resident;
    }
    std::printf("weak scaling, %d x %d%s double over %zu device(s): levels on the devices %.2f ms, %.2fx the split's "
                "on one device and %.2fx the one-device plan's of %d%s (device-resident); the one-device plan of "
                "this problem %.2f ms; %.2f MB between devices per solve; against the one-device plan %.1e\n",
                n1, n, dim == 3 ? (" x " + std::to_string(n)).c_str() : "", P, 1e3 * st.levels, st.levels / base,
                st.levels / base_plan, n, dim == 3 ? "^3" : "^2", 1e3 * resident, 1e-6 * double(st.sent),
                max_rel_diff(u, ref));
    if (profile) print_kernels(st.kernels_before, st.kernels_after, reps);
  }
}

}  // namespace

int main(int argc, char** argv) {
  pscr::cli::help(argc, argv, kUsage);
  std::vector<std::string> devices;
  int n = 0, dim = 2, reps = 5, batch = 8;  // n 0: 8191 in 2D, 511 in 3D
  int batch_n = 0;  // 0: --n, whichever order the options come in
  bool weak = false, profile = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) pscr::cli::usage(kTool, a + " needs a value");
      return argv[++i];
    };
    if (a == "--devices") devices = pscr::cli::split(val());
    else if (a == "--n") n = int(pscr::cli::integer(kTool, a, val(), 3, 1 << 17));
    else if (a == "--dim") dim = int(pscr::cli::integer(kTool, a, val(), 2, 3));
    else if (a == "--reps") reps = int(pscr::cli::integer(kTool, a, val(), 1, 1000));
    else if (a == "--batch") batch = int(pscr::cli::integer(kTool, a, val(), 0, 4096));
    else if (a == "--batch-n") batch_n = int(pscr::cli::integer(kTool, a, val(), 3, 1 << 16));
    else if (a == "--weak") weak = true;
    else if (a == "--profile") profile = true;
    else pscr::cli::usage(kTool, "unknown option '" + a + "'");
  }
  if (devices.empty()) pscr::cli::usage(kTool, "--devices is required");
  if (n == 0) n = dim == 3 ? 511 : 8191;
  if (batch_n == 0) batch_n = std::min(n, 1 << 16);  // the batch at the split problem's size
  try {
    if (weak) {
      weak_scaling(devices, n, dim, reps, profile);
      return 0;
    }
    const auto p = problem(n, dim);
    const std::size_t N = p.unknowns();
    const auto f = rhs(N, 1);
    std::vector<double> ref(N), u(N);
    pscr::Options one;
    one.backend = pscr::Backend::opencl;
    one.device = devices[0];
    double one_resident = 0;  // the one-device plan's time, whatever its method
    {
      pscr::Plan<double> plan(p, one);
      std::vector<double> host;
      for (int r = 0; r < reps + 1; ++r) host.push_back(plan.solve(f.data(), ref.data()).seconds);
      host.erase(host.begin());
      const auto resident = pscr::opencl::time_solves(plan, f.data(), reps);
      one_resident = median(resident);
      std::printf("%d^%d double, one device (%s): host arrays %.2f ms, device-resident %.2f ms; radix %d, "
                  "relative residual %.1e\n",
                  n, dim, plan.info().backend.c_str(), 1e3 * median(host), 1e3 * median(resident), plan.info().radix,
                  p.relative_residual(f.data(), ref.data()));
      if (profile) {
        plan.set_profiling(true);
        const auto before = plan.kernel_times();
        pscr::opencl::time_solves(plan, f.data(), reps);
        plan.set_profiling(false);
        print_kernels(before, plan.kernel_times(), reps + 1);  // time_solves' warm-up and reps
      }
    }
    double base = 0;
    for (std::size_t P = 1; P <= devices.size(); ++P) {
      const SplitTimes st = split_solves(p, one, devices, P, reps, f, u, profile);
      const double w = st.wall, cp = st.copies, lv = st.levels, plan_s = st.plan_seconds;
      const std::size_t sent = st.sent;
      if (P == 1) base = lv;
      std::printf("  rows split over %zu device(s): %.2f ms per solve from host arrays (slab copies in and out "
                  "%.2f ms; levels on the devices %.2f ms, %.2fx the split's on one device, %.2fx the one-device plan's "
                  "device-resident solve; the rest %.2f ms); %.2f MB between devices per solve (a slab decomposition's "
                  "least: %.2f MB, a row each way across each boundary); plan %.2f s; against the one-device plan %.1e\n",
                  P, 1e3 * w, 1e3 * cp, 1e3 * lv, base / lv, one_resident / lv, 1e3 * std::max(0.0, w - cp - lv),
                  1e-6 * double(sent), 1e-6 * double(2 * (P - 1) * (N / std::size_t(n)) * sizeof(double)), plan_s,
                  max_rel_diff(u, ref));
      if (P > 1)
        std::printf("    of the levels, the slowest rank's host at the exchanges: waiting for its device (kernels, "
                    "rows to the host) %.2f ms, exchanging (pointers to the rows shared, or messages and sums; rows enqueued "
                    "back) %.2f ms\n",
                    1e3 * st.waits, 1e3 * st.exchanges);
      if (profile) print_kernels(st.kernels_before, st.kernels_after, reps);
    }
    if (batch > 0) {
      const auto pb = problem(batch_n);
      const std::size_t Nb = pb.unknowns();
      const auto F = rhs(Nb, std::size_t(batch));
      std::vector<double> U(F.size()), U1(F.size());
      double first = 0, first_resident = 0, first_pinned = 0;
      for (std::size_t P = 1; P <= devices.size(); ++P) {
        pscr::Options o = one;
        o.devices.assign(devices.begin(), devices.begin() + long(P));
        pscr::Plan<double> plan(pb, o);
        std::vector<double> t;
        for (int rep = 0; rep < reps + 1; ++rep) {
          const auto t1 = clk::now();
          plan.solve_batch(F.data(), P == 1 ? U1.data() : U.data(), std::size_t(batch));
          if (rep > 0) t.push_back(since(t1) / batch);
        }
        const double m = median(t);
        if (P == 1) first = m;
        char diff[64] = "";
        if (P > 1) std::snprintf(diff, sizeof diff, ", against one device %.1e", max_rel_diff(U, U1));
        std::printf("  batch of %d right-hand sides of %d^2 on %zu device(s): %.2f ms per right-hand side "
                    "(%.2fx one device)%s\n",
                    batch, batch_n, P, 1e3 * m, first / m, diff);
        // the same batch from page-locked buffers of the caller's
        // (opencl::pinned_buffer): copied to and from the devices directly
        {
          pscr::opencl::PinnedBuffer fb = pscr::opencl::pinned_buffer(plan, F.size()),
                                     ub = pscr::opencl::pinned_buffer(plan, F.size());
          double* fp = static_cast<double*>(fb.data());
          double* up = static_cast<double*>(ub.data());
          std::copy(F.begin(), F.end(), fp);
          std::vector<double> tp;
          std::string how;
          for (int rep = 0; rep < reps + 1; ++rep) {
            const auto t1 = clk::now();
            how = plan.solve_batch(fp, up, std::size_t(batch)).staging;
            if (rep > 0) tp.push_back(since(t1) / batch);
          }
          const double mp = median(tp);
          if (P == 1) first_pinned = mp;
          std::printf("  the same batch from page-locked buffers (opencl::pinned_buffer; %s): %.2f ms per right-hand "
                      "side (%.2fx one device's from them, %.2fx one device's from host arrays), against one "
                      "device's host-array answer %.1e\n",
                      how.c_str(), 1e3 * mp, first_pinned / mp, first / mp,
                      max_rel_diff(std::vector<double>(up, up + F.size()), U1));
        }
        // the same batch already on the devices (a share each, solved side by
        // side: opencl::solve_async with a device), fresh copies between solves
        const double r = resident_batch(plan, F, std::size_t(batch), reps, U);
        if (P == 1) first_resident = r;
        std::printf("  the same batch resident on the device(s): %.2f ms per right-hand side (%.2fx one device), "
                    "against one device's %.1e\n",
                    1e3 * r, first_resident / r, max_rel_diff(U, U1));
      }
    }
  } catch (const std::bad_alloc&) {
    const double gb = 8e-9 * std::pow(double(n), dim);
    std::fprintf(stderr, "%s: out of host memory: %d^%d unknowns in double take %.3g GB per array (the right-hand "
                 "side, the one-device and the split solutions: three of them)", kTool, n, dim, gb);
    if (batch > 0) std::fprintf(stderr, ", the batch %d x %d^2 %.3g GB", batch, batch_n, 8e-9 * batch * double(batch_n) * batch_n);
    std::fprintf(stderr, "\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", kTool, e.what());
    return 1;
  }
  return 0;
}
