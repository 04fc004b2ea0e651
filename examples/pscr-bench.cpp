// pscr-bench: solve times of the OpenCL (or reference) backend for Poisson
// and Helmholtz problems in 2D and 3D, with data resident on the device.
//
//   pscr-bench [--problem poisson|helmholtz] [--dim 2|3] [--sizes 1023,2047]
//              [--precision double|float] [--backend opencl|reference]
//              [--device SEL] [--reps R] [--omega W] [--json FILE]
//              [--tuning FILE] [--set key=value ...] [--max-residual X]
//              [--no-anchors] [--defaults] [--first-solution] [--host-batch K]
//              [--elimination automatic|ordinary] [--radix Q]
//
// For each size n (n^2 or n^3 unknowns, uniform mesh on the unit square/cube):
// plan time, host<->device copy time (a host-array solve beyond a device-resident one), the median (min, max) of R device-
// resident solves, the relative residual of a host solve, the estimated
// floating-point operations and device-memory traffic of a solve (the plan's
// cost model) with the attained GFlop/s and GB/s, and the share of each kernel
// in the device time of one profiled solve. For Poisson in double precision,
// two anchors solve the same system in the same run (--no-anchors skips them):
// FFTW's DST-I on the CPU (all cores) and a clFFT-based DST-I on the same
// OpenCL device; the table gives our time divided by theirs. One JSON object
// per case is appended to FILE. --host-batch K (OpenCL) adds host arrays in
// and out: medians of one solve at a time (with its copy in, solve and copy
// out), of a batch of K per right-hand side, the device-resident solve, the
// page-locked copy bandwidth each way and the floor max(copy in + copy out,
// solve) per right-hand side (docs/host-arrays.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <thread>

#include "clfft_dst_poisson.hpp"
#include "common/cli.hpp"
#include "common/peak_memory.hpp"
#include "common/pinned_bandwidth.hpp"
#include "fftw_dst_poisson.hpp"
#include "pscr/opencl.hpp"
#include "pscr/pscr.hpp"

namespace {

using clk = std::chrono::steady_clock;
const clk::time_point g_process_start = clk::now();  // static initialisation: before main
double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }

struct Config {
  std::string problem = "poisson", precision = "double", json, device, tuning;
  std::vector<std::string> devices;  // --devices A,B: one plan on several devices (batches split)
  int dim = 2, reps = 10, radix = 0;  // 0: automatic (PlanInfo::radix)
  double omega = 40.0;
  double ratio = 1.0;  // largest over smallest cell of the mesh (geometric grading; 1: uniform)
  double max_residual = 0;  // > 0: exit status 1 when a case's residual exceeds it
  bool anchors = true;
  bool defaults = false;  // --defaults: the built-in parameters, not the tuned ones
  bool first_solution = false;  // --first-solution: plan and one host solve, timed from process start
  int host_batch = 0;           // --host-batch K: throughput of K right-hand sides in host arrays
  pscr::Elimination elimination = pscr::Elimination::automatic;
  std::vector<int> sizes;
  pscr::Backend backend = pscr::Backend::opencl;
  std::vector<std::pair<std::string, int>> set;
};

const char* kTool = "pscr-bench";
const char* kUsage =
    "usage: pscr-bench [--problem poisson|helmholtz|channel] [--dim 2|3] [--sizes 1023,2047]\n"
    "                  [--precision double|float] [--backend opencl|reference] [--device SEL]\n"
    "                  [--reps R] [--omega W] [--json FILE] [--tuning FILE] [--set key=value ...]\n"
    "                  [--max-residual X] [--no-anchors] [--defaults] [--first-solution]\n"
    "                  [--host-batch K] [--elimination automatic|ordinary] [--devices SEL,SEL,...]\n"
    "                  [--radix Q] [--ratio R]\n"
    "Times device-resident solves (median of R) per size n (n^2 or n^3 unknowns) and prints plan\n"
    "time and its split, copy time, residual, GFlop/s, GB/s, per-kernel shares and, for Poisson in\n"
    "double, the FFTW and clFFT DST-I anchors of the same run. --ratio R grades the mesh\n"
    "geometrically, largest over smallest cell R (as ../tools' cupy_fdm_poisson.py; no FFT anchors).\n"
    "--host-batch K also times host arrays (one at a time, and batches of K) against the page-locked\n"
    "copy bandwidth each way and the floor max(copy in + copy out, solve).\n"
    "--problem channel: the channel of ../tools' cupy_channel_poisson.py, periodic x (and z) of n\n"
    "points (finite differences, period 2 pi), walls in y of n - 1 interior points graded by --ratio\n"
    "(linear elements, Dirichlet), y last: n x (n - 1) or n x n x (n - 1) unknowns.\n";
[[noreturn]] void usage(const std::string& why) { pscr::cli::usage(kTool, why); }

template <class T> pscr::Problem<T> make_problem(const Config& c, int n) {
  if (c.problem == "channel") {
    const int ny = n - 1;
    const auto y = pscr::graded_mesh(ny + 2, 1.0, c.ratio == 1 ? 1.0 : std::pow(c.ratio, 1.0 / ny));
    const auto x = pscr::laplacian_factor(n, 2 * M_PI / n, pscr::Boundary::Periodic, pscr::Boundary::Periodic);
    auto p = c.dim == 2 ? pscr::Problem<double>::make2d(x, pscr::poisson_factor(y), 0.0)
                        : pscr::Problem<double>::make3d(x, x, pscr::poisson_factor(y), 0.0);
    if constexpr (pscr::is_complex_v<T>) usage("channel is real: use --precision double|float");
    else return p.template cast<T>();
  }
  if (c.problem == "poisson") {
    // n interior points, n + 1 cells growing by q with q^n = ratio
    const auto x = pscr::graded_mesh(n + 2, 1.0, c.ratio == 1 ? 1.0 : std::pow(c.ratio, 1.0 / n));
    auto p = c.dim == 2 ? pscr::poisson2d(x, x) : pscr::poisson3d(x, x, x);
    if constexpr (pscr::is_complex_v<T>) usage("poisson is real: use --precision double|float");
    else return p.template cast<T>();
  } else {
    const auto x = pscr::graded_mesh(n, 1.0, 1.0);
    auto p = c.dim == 2 ? pscr::helmholtz2d(x, x, c.omega) : pscr::helmholtz3d(x, x, x, c.omega);
    if constexpr (!pscr::is_complex_v<T>) usage("helmholtz is complex");
    else return p.template cast<T>();
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median of `reps` timed calls of solve() after one untimed warm-up;
// prepare() runs before each call, outside the timing.
template <class P, class S> double median_time(int reps, P&& prepare, S&& solve) {
  prepare();
  solve();
  std::vector<double> ts;
  for (int r = 0; r < reps; ++r) {
    prepare();
    const auto t = clk::now();
    solve();
    ts.push_back(since(t));
  }
  return median(ts);
}

// What the device attains moving the unknowns' bytes: a buffer copied to
// another (read and written once), bytes moved per second, median of reps.
template <class T> double copy_bandwidth(const pscr::Plan<T>& plan, std::size_t bytes, int reps) {
  cl_context ctx = pscr::opencl::context(plan);
  cl_command_queue q = pscr::opencl::queue(plan);
  cl_int st = CL_SUCCESS;
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &st);
  cl_mem b = st == CL_SUCCESS ? clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &st) : nullptr;
  double t = 0;
  if (st == CL_SUCCESS) {
    std::vector<char> zero(bytes, 0);
    clEnqueueWriteBuffer(q, a, CL_TRUE, 0, bytes, zero.data(), 0, nullptr, nullptr);
    t = median_time(std::max(reps, 3), [] {}, [&] {
      clEnqueueCopyBuffer(q, a, b, 0, 0, bytes, 0, nullptr, nullptr);
      clFinish(q);
    });
  }
  if (a) clReleaseMemObject(a);
  if (b) clReleaseMemObject(b);
  return t > 0 ? 2.0 * double(bytes) / t : 0.0;
}

struct Anchors {
  double fftw = 0, clfft = 0;  // median seconds (0: not run)
  int threads = 0;
  double difference = 0;       // max |u - u_anchor| / max |u| over the anchors run
  std::string clfft_note = "not run";
};

// The FFT anchors on the same right-hand side f (u: our solution), timed like
// our solves: median of --reps, data resident (host memory for FFTW, device
// memory for clFFT, fresh copy of f before each solve, outside the timing).
Anchors run_anchors(const Config& c, const pscr::Plan<double>& plan, int n, std::vector<double> f,
                    const std::vector<double>& u) {
  Anchors a;
  const std::size_t N = f.size();
  // Our lumped-mass elements give h^(dim-2) (T⊕T[⊕T]) with h = 1/(n+1); the
  // anchors solve T⊕T[⊕T] u = f, so they get f / h^(dim-2).
  for (double& v : f) v *= std::pow(double(n + 1), c.dim - 2);
  double umax = 0;
  for (double v : u) umax = std::max(umax, std::abs(v));
  auto diff = [&](const std::vector<double>& w) {
    double d = 0;
    for (std::size_t i = 0; i < N; ++i) d = std::max(d, std::abs(w[i] - u[i]));
    a.difference = std::max(a.difference, d / umax);
  };
  std::vector<double> w(N);
  a.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  {
    FftwDstPoisson fft(c.dim, n, a.threads);
    a.fftw = median_time(c.reps, [] {}, [&] { fft.solve(f.data(), w.data()); });
    diff(w);
  }
  if (c.backend != pscr::Backend::opencl) return a;
  cl_context ctx = pscr::opencl::context(plan);
  cl_command_queue q = pscr::opencl::queue(plan);
  cl_int st;
  cl_mem rhs = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(double), nullptr, &st);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(double), nullptr, &st);
  try {
    if (st != CL_SUCCESS) throw std::runtime_error("clCreateBuffer failed with status " + std::to_string(st));
    clEnqueueWriteBuffer(q, rhs, CL_TRUE, 0, N * sizeof(double), f.data(), 0, nullptr, nullptr);
    ClfftDstPoisson fft(ctx, q, c.dim, n);
    auto fresh = [&] {
      clEnqueueCopyBuffer(q, rhs, buf, 0, 0, N * sizeof(double), 0, nullptr, nullptr);
      clFinish(q);
    };
    a.clfft = median_time(c.reps, fresh, [&] { fft.solve(buf); });
    char note[32];
    std::snprintf(note, sizeof note, "%.3f ms", 1e3 * a.clfft);
    a.clfft_note = note;
    clEnqueueReadBuffer(q, buf, CL_TRUE, 0, N * sizeof(double), w.data(), 0, nullptr, nullptr);
    diff(w);
  } catch (const std::exception& e) {
    a.clfft_note = std::string("failed: ") + e.what();
  }
  if (rhs) clReleaseMemObject(rhs);
  if (buf) clReleaseMemObject(buf);
  return a;
}

// Returns false when the residual exceeds --max-residual.
// --host-batch K: host arrays in and out of the OpenCL plan against the
// bus. Medians of max(R, 5) repetitions after a warm-up of each path (which
// allocates the staging and the batch's second solution vector): single
// solves, batches of K per right-hand side, the page-locked copy bandwidth
// each way, and the floor per right-hand side max(copy in + copy out, solve)
// (copies of one right-hand side beside the solve of the next: a batch) and
// copy in + solve + copy out (one at a time).
struct HostFigures {
  double single = 0, batch = 0, floor = 0;  // seconds per right-hand side (0: not run)
  pscr::bench::PinnedBandwidth bw;
};
template <class T>
HostFigures host_arrays(const Config& c, const pscr::Plan<T>& plan, const std::vector<T>& f, double device_solve) {
  HostFigures h;
  const std::size_t N = f.size(), K = std::size_t(c.host_batch), bytes = N * sizeof(T);
  const int reps = std::max(c.reps, 5);
  std::vector<T> F(K * N), U(K * N);
  for (std::size_t k = 0; k < K; ++k) std::copy(f.begin(), f.end(), F.begin() + std::ptrdiff_t(k * N));
  plan.solve(F.data(), U.data());
  plan.solve_batch(F.data(), U.data(), K);
  std::vector<double> singles, batches, in, out, solve;
  pscr::SolveStats st;
  for (int r = 0; r < reps; ++r) {
    auto t = clk::now();
    st = plan.solve(F.data(), U.data());
    singles.push_back(since(t));
    in.push_back(st.copy_in_seconds);
    solve.push_back(st.solve_seconds);
    out.push_back(st.copy_out_seconds);
    t = clk::now();
    plan.solve_batch(F.data(), U.data(), K);
    batches.push_back(since(t) / double(K));
  }
  h.single = median(singles);
  h.batch = median(batches);
  h.bw = pscr::bench::pinned_bandwidth(plan, bytes, reps);
  const double tin = h.bw.to_device > 0 ? double(bytes) / h.bw.to_device : 0,
               tout = h.bw.to_host > 0 ? double(bytes) / h.bw.to_host : 0;
  h.floor = std::max(tin + tout, device_solve);
  const double serial = tin + tout + device_solve;
  std::printf("    host arrays (%.1f MB each way; staging %s):\n", 1e-6 * double(bytes), st.staging.c_str());
  std::printf("      one at a time      %8.3f ms  (copy in %.3f + solve %.3f + copy out %.3f ms, medians)\n",
              1e3 * h.single, 1e3 * median(in), 1e3 * median(solve), 1e3 * median(out));
  std::printf("      batch of %-4zu      %8.3f ms per right-hand side\n", K, 1e3 * h.batch);
  std::printf("      device-resident    %8.3f ms\n", 1e3 * device_solve);
  std::printf("      page-locked copies %8.1f GB/s to the device (%.3f ms), %.1f GB/s to the host (%.3f ms)\n",
              1e-9 * h.bw.to_device, 1e3 * tin, 1e-9 * h.bw.to_host, 1e3 * tout);
  std::printf("      floor              %8.3f ms = max(copy in + copy out, solve): batch at %.2fx it; one at a time "
              "at %.2fx copy in + solve + copy out = %.3f ms\n",
              1e3 * h.floor, h.batch / h.floor, h.single / serial, 1e3 * serial);
  return h;
}

// Solves in the profiled time_solves call (its warm-up and one timed): the
// kernel times and launches are per solve once divided by it.
constexpr std::size_t kProfiledSolves = 2;

template <class T> bool run_case(const Config& c, int n, std::ofstream* json) {
  const auto p = make_problem<T>(c, n);
  pscr::Options o;
  o.backend = c.backend;
  o.elimination = c.elimination;
  o.radix = c.radix;
  o.device = c.device;
  o.devices = c.devices;
  o.tuning_file = c.tuning;
  if (c.defaults) o.parameters = pscr::KernelParameters{};
  if (!c.set.empty()) {
    pscr::KernelParameters kp;
    if (c.backend == pscr::Backend::opencl && !c.defaults)  // start from what this problem's plan would pick
      kp = pscr::Plan<T>(p, o).info().parameters;
    for (auto& [key, value] : c.set)  // names and ranges checked with the arguments
      for (auto& e : pscr::parameter_table())
        if (key == e.name) kp.*(e.member) = value;
    o.parameters = kp;
  }
  // --first-solution: the OpenCL driver's start-up and the context first, on
  // their own clock, so that the report separates them from the library's work
  double driver_s = 0;
  if (c.first_solution && c.backend == pscr::Backend::opencl && c.devices.empty()) {
    const auto td = clk::now();
    pscr::opencl::prepare_device(c.device);
    driver_s = since(td);
  }
  const bool peak_known = pscr::cli::reset_resident_high_water();
  const long long resident_before = peak_known ? pscr::cli::resident_high_water_bytes() : -1;
  const auto t0 = clk::now();
  pscr::Plan<T> plan(p, o);
  const double init = since(t0);
  const long long plan_peak = peak_known ? pscr::cli::resident_high_water_bytes() - resident_before : -1;
  const std::size_t N = p.unknowns();
  const auto tf = clk::now();
  std::vector<T> f(N), u(N);
  {  // over the host threads: a first-solution run would otherwise time mostly this loop
    const std::size_t parts = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> fill;
    for (std::size_t t = 0; t < parts; ++t)
      fill.emplace_back([&, t] {
        for (std::size_t i = N * t / parts; i < N * (t + 1) / parts; ++i) f[i] = T(std::sin(0.37 * double(i)) + 0.1);
      });
    for (auto& th : fill) th.join();
  }
  const double rhs_s = since(tf);
  const auto hs = plan.solve(f.data(), u.data());
  const pscr::PlanInfo& pi = plan.info();
  const double setup = pi.init_seconds - pi.eigen_seconds - pi.build_seconds;
  if (c.first_solution) {
    const double wall = since(g_process_start);
    std::printf("first solution %dD %d %s: %.3f s after process start (driver and context %.3f s; plan %.3f s: eigen "
                "data %.3f s, program %.3f s [cache %s], set-up %.3f s; solve with copies %.3f s; this program's "
                "right-hand side %.3f s; the rest %.3f s: loading, problem)\n",
                c.dim, n, pscr::scalar_name<T>(), wall, driver_s, pi.init_seconds, pi.eigen_seconds, pi.build_seconds,
                pi.program_cache.empty() ? "-" : pi.program_cache.c_str(), setup, hs.seconds, rhs_s,
                wall - driver_s - pi.init_seconds - hs.seconds - rhs_s);
    return true;
  }
  const double residual = p.relative_residual(f.data(), u.data());
  std::vector<double> ts;
  std::vector<pscr::KernelTime> shares;
  Anchors anc;
  if (c.backend == pscr::Backend::opencl) {
    ts = pscr::opencl::time_solves(plan, f.data(), c.reps);
    plan.set_profiling(true);
    pscr::opencl::time_solves(plan, f.data(), 1);  // kProfiledSolves: its warm-up and one timed
    plan.set_profiling(false);
    shares = plan.kernel_times();
  } else {
    for (int r = 0; r < c.reps; ++r) ts.push_back(plan.solve(f.data(), u.data()).seconds);
  }
  if constexpr (std::is_same_v<T, double>)
    if (c.anchors && c.problem == "poisson" && c.ratio == 1) anc = run_anchors(c, plan, n, f, u);
  const double med = median(ts), lo = *std::min_element(ts.begin(), ts.end()),
               hi = *std::max_element(ts.begin(), ts.end());
  // copy_ms: what a later solve from host arrays costs beyond the median
  // device-resident solve (the copies in and out; the first host solve above
  // may take another path, see Plan::solve)
  const double copy_s = c.backend == pscr::Backend::opencl ? std::max(0.0, plan.solve(f.data(), u.data()).seconds - med) : 0.0;
  double kernel_total = 0;
  for (auto& k : shares) kernel_total += k.seconds;
  std::sort(shares.begin(), shares.end(), [](auto& a, auto& b) { return a.seconds > b.seconds; });
  std::string sz = std::to_string(n) + (c.dim == 3 ? "^3" : "^2");
  const pscr::PlanInfo& info = plan.info();
  auto ratio = [&](double anchor) {
    char b[32];
    if (anchor > 0) std::snprintf(b, sizeof b, "%7.2f", med / anchor);
    else std::snprintf(b, sizeof b, "%7s", "-");
    return std::string(b);
  };
  std::printf("%-9s %dD %-7s %-10s %8.3f %8.2f %9.3f %9.3f %9.3f  %7.1e %8.1f %7.1f %7.2f %s %s\n", c.problem.c_str(),
              c.dim, sz.c_str(), pscr::scalar_name<T>(), init, 1e3 * copy_s, 1e3 * med, 1e3 * lo,
              1e3 * hi, residual, 1e-9 * info.flops / med, 1e-9 * info.bytes / med, info.flops / std::max(info.bytes, 1.0),
              ratio(anc.fftw).c_str(), ratio(anc.clfft).c_str());
  std::printf("    plan %.3f s (radix %d): eigen data %.3f s, program %.3f s (cache %s), set-up %.3f s; peak host memory %s\n",
              init, info.radix, info.eigen_seconds, info.build_seconds,
              info.program_cache.empty() ? "-" : info.program_cache.c_str(), setup,
              plan_peak >= 0 ? (std::to_string((plan_peak + (1 << 19)) >> 20) + " MiB").c_str() : "-");
  if (c.backend == pscr::Backend::opencl) std::printf("    parameters: %s\n", info.parameters_source.c_str());
  {
    std::string methods;
    for (auto& m : info.dimension_methods) methods += (methods.empty() ? "" : ", ") + m;
    std::printf("    methods: %s (%s)%s", methods.c_str(), info.line_solver.c_str(),
                info.parameters.tensor_cores && info.parameters.dense_top > 0 ? ", dense products on FP64 tensor cores"
                                                                              : "");
    if (c.backend == pscr::Backend::opencl && c.devices.empty()) {
      const double copy = copy_bandwidth(plan, N * sizeof(T), c.reps);
      std::printf("; %.0f GB/s effective = %.0f %% of the device's copy bandwidth, %.0f GB/s (clEnqueueCopyBuffer of "
                  "the unknowns)",
                  1e-9 * info.bytes / med, 100 * info.bytes / med / copy, 1e-9 * copy);
    }
    std::printf("\n");
  }
  HostFigures host;
  if (c.host_batch > 0 && c.backend == pscr::Backend::opencl) host = host_arrays(c, plan, f, med);
  if (anc.fftw > 0 || anc.clfft > 0)
    std::printf("    anchors: FFTW DST-I %.3f ms (%d threads), clFFT DST-I %s; max |u - u_anchor| / max |u| = %.1e\n",
                1e3 * anc.fftw, anc.threads, anc.clfft_note.c_str(), anc.difference);
  std::ostringstream ks;
  if (!shares.empty()) {
    std::size_t launches = 0;
    for (auto& k : shares) launches += k.launches;
    const double per_unknown = info.bytes / double(N), floor = 2.0 * sizeof(T);
    std::printf("    per solve: %zu kernel launches; device traffic (cost model) %.0f B per unknown against the "
                "floor of %.0f B (one read, one write): %.1f passes; host copies %.1f GB/s in and out\n",
                launches / kProfiledSolves, per_unknown, floor, per_unknown / floor,
                copy_s > 0 ? 2e-9 * double(N * sizeof(T)) / copy_s : 0.0);
  }
  for (auto& k : shares) {
    std::printf("    %-16s %5.1f %%  %4zu launches  %8.1f us per solve\n", k.kernel.c_str(), 100 * k.seconds / kernel_total,
                k.launches, 1e6 * k.seconds / kProfiledSolves);
    ks << (ks.tellp() > 0 ? ", " : "") << "\"" << k.kernel << "\": " << k.seconds;
  }
  if (json) {
    *json << "{\"problem\": \"" << c.problem << "\", \"dim\": " << c.dim << ", \"n\": " << n << ", \"type\": \""
          << pscr::scalar_name<T>() << "\", \"backend\": \"" << plan.info().backend << "\", \"parameters\": \""
          << pscr::to_string(plan.info().parameters) << "\", \"parameters_source\": \"" << plan.info().parameters_source
          << "\", \"radix\": " << info.radix << ", \"init_s\": " << init << ", \"eigen_s\": " << info.eigen_seconds
          << ", \"build_s\": " << info.build_seconds << ", \"program_cache\": \"" << info.program_cache << "\""
          << ", \"plan_peak_host_bytes\": " << plan_peak
          << ", \"transfer_s\": " << copy_s << ", \"solve_median_s\": " << med << ", \"solve_min_s\": " << lo
          << ", \"solve_max_s\": " << hi << ", \"reps\": " << c.reps << ", \"residual\": " << residual
          << ", \"device_bytes\": " << plan.info().device_bytes << ", \"flops\": " << info.flops
          << ", \"bytes\": " << info.bytes << ", \"host_single_s\": " << host.single
          << ", \"host_batch\": " << c.host_batch
          << ", \"host_batch_per_rhs_s\": " << host.batch << ", \"pinned_to_device_Bps\": " << host.bw.to_device
          << ", \"pinned_to_host_Bps\": " << host.bw.to_host << ", \"host_floor_s\": " << host.floor
          << ", \"device\": \"" << info.device << "\", \"fftw_s\": " << anc.fftw
          << ", \"fftw_threads\": " << anc.threads << ", \"clfft_s\": " << anc.clfft << ", \"kernel_s\": {" << ks.str()
          << "}}\n";
  }
  const bool ok = !(c.max_residual > 0) || residual <= c.max_residual;
  if (!ok) std::printf("    residual %.2e exceeds --max-residual %.2e\n", residual, c.max_residual);
  return ok;
}

std::vector<int> default_sizes(int dim) {
  if (dim == 2) return {31, 63, 127, 255, 511, 1023, 2047, 4095, 8191};
  return {31, 63, 127, 255};
}

}  // namespace

int main(int argc, char** argv) {
  pscr::cli::help(argc, argv, kUsage);
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--problem") c.problem = val();
    else if (a == "--dim") c.dim = int(pscr::cli::integer(kTool, a, val(), 2, 3));
    else if (a == "--precision") c.precision = val();
    else if (a == "--radix") c.radix = int(pscr::cli::integer(kTool, a, val(), 0, 64));
    else if (a == "--reps") c.reps = int(pscr::cli::integer(kTool, a, val(), 1, 100000));
    else if (a == "--omega") c.omega = pscr::cli::number(kTool, a, val());
    else if (a == "--ratio") {
      c.ratio = pscr::cli::number(kTool, a, val());
      if (!(c.ratio >= 1) || !std::isfinite(c.ratio)) usage("--ratio needs a finite number >= 1");
    }
    else if (a == "--json") c.json = val();
    else if (a == "--max-residual") c.max_residual = pscr::cli::number(kTool, a, val());
    else if (a == "--device") c.device = val();
    else if (a == "--devices") c.devices = pscr::cli::split(val());
    else if (a == "--tuning") c.tuning = val();
    else if (a == "--no-anchors") c.anchors = false;
    else if (a == "--defaults") c.defaults = true;
    else if (a == "--first-solution") c.first_solution = true;
    else if (a == "--elimination") {
      const std::string v = val();
      if (v == "automatic") c.elimination = pscr::Elimination::automatic;
      else if (v == "ordinary") c.elimination = pscr::Elimination::ordinary;
      else usage("--elimination must be automatic or ordinary, got '" + v + "'");
    }
    else if (a == "--host-batch") c.host_batch = int(pscr::cli::integer(kTool, a, val(), 1, 4096));
    else if (a == "--backend") {
      const std::string b = val();
      if (b == "opencl") c.backend = pscr::Backend::opencl;
      else if (b == "reference") c.backend = pscr::Backend::reference;
      else usage("unknown backend '" + b + "'");
    } else if (a == "--sizes") {
      for (const auto& item : pscr::cli::split(val()))
        c.sizes.push_back(int(pscr::cli::integer(kTool, a, item, 1, 1 << 20)));
    } else if (a == "--set") {
      const std::string kv = val();
      const auto eq = kv.find('=');
      if (eq == std::string::npos) usage("--set needs key=value");
      const std::string key = kv.substr(0, eq);
      // the parameter's range, so that a bad value is a usage error before any table line
      const auto& table = pscr::parameter_table();
      const auto it = std::find_if(table.begin(), table.end(), [&](const auto& e) { return key == e.name; });
      if (it == table.end()) usage("--set: unknown kernel parameter '" + key + "'");
      const long v = pscr::cli::integer(kTool, "--set " + key, kv.substr(eq + 1), it->min, it->max);
      if (it->power_of_two && (v & (v - 1)) != 0) usage("--set " + key + " = " + std::to_string(v) + " is not a power of two");
      c.set.emplace_back(key, int(v));
    } else usage("unknown argument '" + a + "'");
  }
  if (c.problem != "poisson" && c.problem != "helmholtz" && c.problem != "channel") usage("unknown problem '" + c.problem + "'");
  if (c.dim != 2 && c.dim != 3) usage("--dim must be 2 or 3");
  if (c.precision != "double" && c.precision != "float") usage("--precision must be double or float");
  if (c.reps < 1) usage("--reps must be >= 1");
  if (c.sizes.empty()) c.sizes = default_sizes(c.dim);
  for (int n : c.sizes)
    if (n < 1) usage("sizes must be >= 1");
  std::ofstream json;
  if (!c.json.empty()) {
    json.open(c.json, std::ios::app);
    if (!json) usage("cannot write " + c.json);
  }
  std::printf("%-9s %-2s %-7s %-10s %8s %8s %9s %9s %9s  %7s %8s %7s %7s %7s %7s\n", "problem", "", "n", "type",
              "init_s", "copy_ms", "solve_ms", "min_ms", "max_ms", "resid", "GFlop/s", "GB/s", "flop/B", "/FFTW",
              "/clFFT");
  bool ok = true;
  try {
    for (int n : c.sizes) {
      std::ofstream* js = c.json.empty() ? nullptr : &json;
      const bool dbl = c.precision == "double";
      if (c.problem == "poisson" || c.problem == "channel") {
        ok &= dbl ? run_case<double>(c, n, js) : run_case<float>(c, n, js);
      } else {
        ok &= dbl ? run_case<std::complex<double>>(c, n, js) : run_case<std::complex<float>>(c, n, js);
      }
      std::fflush(stdout);
    }
  } catch (const pscr::Error& e) {
    std::fprintf(stderr, "pscr-bench: %s\n", e.what());
    return 1;
  }
  return ok ? 0 : 1;
}
