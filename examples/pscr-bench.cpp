// pscr-bench: solve times of the OpenCL (or reference) backend for Poisson
// and Helmholtz problems in 2D and 3D, with data resident on the device.
//
//   pscr-bench [--problem poisson|helmholtz] [--dim 2|3] [--sizes 1023,2047]
//              [--precision double|float] [--backend opencl|reference]
//              [--device SEL] [--reps R] [--omega W] [--json FILE]
//              [--tuning FILE] [--set key=value ...] [--max-residual X]
//
// For each size n (n^2 or n^3 unknowns, uniform mesh on the unit square/cube):
// plan time, host<->device copy time, the median (min, max) of R device-
// resident solves, the relative residual of a host solve, and the share of
// each kernel in the device time of one profiled solve. One JSON object per
// case is appended to FILE.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pscr/opencl.hpp"
#include "pscr/pscr.hpp"

namespace {

using clk = std::chrono::steady_clock;
double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }

struct Config {
  std::string problem = "poisson", precision = "double", json, device, tuning;
  int dim = 2, reps = 10;
  double omega = 40.0;
  double max_residual = 0;  // > 0: exit status 1 when a case's residual exceeds it
  std::vector<int> sizes;
  pscr::Backend backend = pscr::Backend::opencl;
  std::vector<std::pair<std::string, int>> set;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "pscr-bench: %s\n", why.c_str());
  std::exit(2);
}

template <class T> pscr::Problem<T> make_problem(const Config& c, int n) {
  if (c.problem == "poisson") {
    const auto x = pscr::graded_mesh(n + 2, 1.0, 1.0);
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

// Returns false when the residual exceeds --max-residual.
template <class T> bool run_case(const Config& c, int n, std::ofstream* json) {
  const auto p = make_problem<T>(c, n);
  pscr::Options o;
  o.backend = c.backend;
  o.device = c.device;
  o.tuning_file = c.tuning;
  if (!c.set.empty()) {
    pscr::KernelParameters kp;
    if (c.backend == pscr::Backend::opencl)  // start from what this problem's plan would pick
      kp = pscr::Plan<T>(p, o).info().parameters;
    for (auto& [key, value] : c.set) {
      bool found = false;
      for (auto& e : pscr::parameter_table())
        if (key == e.name) { kp.*(e.member) = value; found = true; }
      if (!found) usage("unknown parameter '" + key + "'");
    }
    o.parameters = kp;
  }
  const auto t0 = clk::now();
  pscr::Plan<T> plan(p, o);
  const double init = since(t0);
  const std::size_t N = p.unknowns();
  std::vector<T> f(N), u(N);
  for (std::size_t i = 0; i < N; ++i) f[i] = T(std::sin(0.37 * double(i)) + 0.1);
  const auto hs = plan.solve(f.data(), u.data());
  const double residual = p.relative_residual(f.data(), u.data());
  std::vector<double> ts;
  std::vector<pscr::KernelTime> shares;
  if (c.backend == pscr::Backend::opencl) {
    cl_int st;
    // The right-hand side stays in `rhs`; each solve works on a fresh device
    // copy in `buf` (copied outside the timed region), so repeated solves do
    // not feed solutions back in as right-hand sides.
    cl_command_queue q = pscr::opencl::queue(plan);
    cl_mem rhs = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_WRITE, N * sizeof(T), nullptr, &st);
    cl_mem buf = clCreateBuffer(pscr::opencl::context(plan), CL_MEM_READ_WRITE, N * sizeof(T), nullptr, &st);
    if (st != CL_SUCCESS) usage("clCreateBuffer failed: " + std::to_string(st));
    clEnqueueWriteBuffer(q, rhs, CL_TRUE, 0, N * sizeof(T), f.data(), 0, nullptr, nullptr);
    auto fresh = [&] {
      clEnqueueCopyBuffer(q, rhs, buf, 0, 0, N * sizeof(T), 0, nullptr, nullptr);
      clFinish(q);
    };
    fresh();
    pscr::opencl::solve(plan, buf);  // warm-up
    for (int r = 0; r < c.reps; ++r) {
      fresh();
      const auto t1 = clk::now();
      pscr::opencl::solve(plan, buf);
      ts.push_back(since(t1));
    }
    fresh();
    plan.set_profiling(true);
    pscr::opencl::solve(plan, buf);
    plan.set_profiling(false);
    shares = plan.kernel_times();
    clReleaseMemObject(buf);
    clReleaseMemObject(rhs);
  } else {
    for (int r = 0; r < c.reps; ++r) ts.push_back(plan.solve(f.data(), u.data()).seconds);
  }
  const double med = median(ts), lo = *std::min_element(ts.begin(), ts.end()),
               hi = *std::max_element(ts.begin(), ts.end());
  double kernel_total = 0;
  for (auto& k : shares) kernel_total += k.seconds;
  std::sort(shares.begin(), shares.end(), [](auto& a, auto& b) { return a.seconds > b.seconds; });
  std::string sz = std::to_string(n) + (c.dim == 3 ? "^3" : "^2");
  std::printf("%-9s %dD %-7s %-8s init %8.3f s  copies %8.2f ms  solve %9.3f ms (min %.3f, max %.3f)  residual %.1e\n",
              c.problem.c_str(), c.dim, sz.c_str(), pscr::scalar_name<T>(), init, 1e3 * hs.transfer_seconds,
              1e3 * med, 1e3 * lo, 1e3 * hi, residual);
  std::ostringstream ks;
  for (auto& k : shares) {
    std::printf("    %-16s %5.1f %%  %4zu launches\n", k.kernel.c_str(), 100 * k.seconds / kernel_total, k.launches);
    ks << (ks.tellp() > 0 ? ", " : "") << "\"" << k.kernel << "\": " << k.seconds;
  }
  if (json) {
    *json << "{\"problem\": \"" << c.problem << "\", \"dim\": " << c.dim << ", \"n\": " << n << ", \"type\": \""
          << pscr::scalar_name<T>() << "\", \"backend\": \"" << plan.info().backend << "\", \"parameters\": \""
          << pscr::to_string(plan.info().parameters) << "\", \"init_s\": " << init
          << ", \"transfer_s\": " << hs.transfer_seconds << ", \"solve_median_s\": " << med << ", \"solve_min_s\": " << lo
          << ", \"solve_max_s\": " << hi << ", \"reps\": " << c.reps << ", \"residual\": " << residual
          << ", \"device_bytes\": " << plan.info().device_bytes << ", \"kernel_s\": {" << ks.str() << "}}\n";
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
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--problem") c.problem = val();
    else if (a == "--dim") c.dim = std::atoi(val().c_str());
    else if (a == "--precision") c.precision = val();
    else if (a == "--reps") c.reps = std::atoi(val().c_str());
    else if (a == "--omega") c.omega = std::atof(val().c_str());
    else if (a == "--json") c.json = val();
    else if (a == "--max-residual") c.max_residual = std::atof(val().c_str());
    else if (a == "--device") c.device = val();
    else if (a == "--tuning") c.tuning = val();
    else if (a == "--backend") {
      const std::string b = val();
      if (b == "opencl") c.backend = pscr::Backend::opencl;
      else if (b == "reference") c.backend = pscr::Backend::reference;
      else usage("unknown backend '" + b + "'");
    } else if (a == "--sizes") {
      std::stringstream ss(val());
      std::string item;
      while (std::getline(ss, item, ',')) c.sizes.push_back(std::atoi(item.c_str()));
    } else if (a == "--set") {
      const std::string kv = val();
      const auto eq = kv.find('=');
      if (eq == std::string::npos) usage("--set needs key=value");
      c.set.emplace_back(kv.substr(0, eq), std::atoi(kv.c_str() + eq + 1));
    } else usage("unknown argument '" + a + "'");
  }
  if (c.problem != "poisson" && c.problem != "helmholtz") usage("unknown problem '" + c.problem + "'");
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
  bool ok = true;
  try {
    for (int n : c.sizes) {
      std::ofstream* js = c.json.empty() ? nullptr : &json;
      const bool dbl = c.precision == "double";
      if (c.problem == "poisson") {
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
