// pscr-demo: solves 2D Poisson, 2D Helmholtz and 3D Poisson on non-uniform
// meshes (the reference backend, or --backend opencl) and prints sizes, the
// plan's radix, init and solve times, residual and error against a
// manufactured discrete solution.
//   pscr-demo [--bench N] [--reps R] [--threads T] [--backend reference|opencl]
// --bench N: 2D Poisson N² (uniform, double), init and median solve time of
// the backend against an FFTW DST-I solver in the same process.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "common/cli.hpp"
#include "fftw_dst_poisson.hpp"
#include "pscr/pscr.hpp"

namespace {

using clk = std::chrono::steady_clock;
double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Smooth manufactured solution on the index grid.
template <class T> std::vector<T> manufactured(std::size_t N, std::size_t stride) {
  std::vector<T> u(N);
  for (std::size_t i = 0; i < N; ++i) {
    const double a = std::sin(0.003 * double(i % stride) + 0.5) * std::cos(0.002 * double(i / stride));
    if constexpr (pscr::is_complex_v<T>) u[i] = T(a, 0.5 * a * a);
    else u[i] = T(a);
  }
  return u;
}

template <class T> void demo(const char* name, const pscr::Problem<T>& p, int threads, pscr::Backend backend) {
  pscr::Options o;
  o.threads = threads;
  o.backend = backend;
  pscr::Plan<T> plan(p, o);
  const std::size_t N = p.unknowns();
  const auto ustar = manufactured<T>(N, p.size(p.dims() - 1));
  std::vector<T> f(N), u(N);
  p.apply(ustar.data(), f.data());
  const auto st = plan.solve(f.data(), u.data());
  double num = 0, den = 0;
  for (std::size_t i = 0; i < N; ++i) { num += std::norm(u[i] - ustar[i]); den += std::norm(ustar[i]); }
  std::printf("%-26s", name);
  std::string sz;
  for (int d = 0; d < p.dims(); ++d) sz += (d ? "x" : "") + std::to_string(p.size(d));
  std::printf(" %-13s radix %2d  init %8.4f s  solve %8.4f s  residual %.2e  error %.2e\n", sz.c_str(),
              plan.info().radix, plan.info().init_seconds, st.seconds, p.relative_residual(f.data(), u.data()),
              std::sqrt(num / den));
}

int bench(int n, int reps, int threads, pscr::Backend backend) {
  const auto x = pscr::graded_mesh(n + 2, 1.0, 1.0);
  const auto p = pscr::poisson2d(x, x);
  std::vector<double> f(std::size_t(n) * n), u(f.size()), v(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = std::sin(0.37 * double(i)) + 0.1;
  pscr::Options o;
  o.threads = threads;
  o.backend = backend;
  const auto t0 = clk::now();
  pscr::Plan<double> plan(p, o);
  const double init = since(t0);
  // the same core count as the PSCR executor (0 = all cores)
  const int fft_threads = threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
  FftwDstPoisson fft(2, n, fft_threads);
  std::vector<double> ts, tf, tt;
  for (int r = 0; r < reps; ++r) {  // interleaved so both see the same machine load
    const auto st = plan.solve(f.data(), u.data());
    ts.push_back(st.seconds - st.transfer_seconds);
    tt.push_back(st.transfer_seconds);
    const auto t1 = clk::now();
    fft.solve(f.data(), v.data());
    tf.push_back(since(t1));
  }
  double diff = 0, ref = 0;
  for (std::size_t i = 0; i < u.size(); ++i) { diff = std::max(diff, std::abs(u[i] - v[i])); ref = std::max(ref, std::abs(v[i])); }
  const double ms = median(ts), mf = median(tf);
  std::printf("bench 2D Poisson %dx%d double, backend %s (%s host threads), %d reps\n", n, n,
              plan.info().backend.c_str(), threads ? std::to_string(threads).c_str() : "all", reps);
  std::printf("  host<->device copies %9.4f s   (median, excluded from the solve time below)\n", median(tt));
  std::printf("  pscr init            %9.4f s   (%.1fx one solve)\n", init, init / ms);
  std::printf("  pscr solve median    %9.4f s   (min %.4f, max %.4f)\n", ms, *std::min_element(ts.begin(), ts.end()),
              *std::max_element(ts.begin(), ts.end()));
  std::printf("  FFTW DST-I median    %9.4f s   (%d threads)\n", mf, fft_threads);
  std::printf("  ratio pscr / FFTW    %9.2f\n", ms / mf);
  std::printf("  max |u_pscr - u_fftw| / max |u| = %.2e, backward error %.2e\n", diff / ref,
              p.backward_error(f.data(), u.data()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* tool = "pscr-demo";
  pscr::cli::help(argc, argv,
                  "usage: pscr-demo [--bench N] [--reps R] [--threads T] [--backend reference|opencl]\n"
                  "Solves 2D Poisson, 2D Helmholtz and 3D Poisson on graded meshes and prints times, residual\n"
                  "and error; --bench N times 2D Poisson N^2 against an FFTW DST-I solver in the same process.\n");
  int bench_n = 0, reps = 5, threads = 0;
  pscr::Backend backend = pscr::Backend::reference;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) pscr::cli::usage(tool, a + " needs a value");
      return argv[++i];
    };
    if (a == "--bench") bench_n = int(pscr::cli::integer(tool, a, val(), 1, 1 << 16));
    else if (a == "--reps") reps = int(pscr::cli::integer(tool, a, val(), 1, 100000));
    else if (a == "--threads") threads = int(pscr::cli::integer(tool, a, val(), 0, pscr::kMaxThreads));
    else if (a == "--backend") {
      const std::string b = val();
      if (b == "reference") backend = pscr::Backend::reference;
      else if (b == "opencl") backend = pscr::Backend::opencl;
      else pscr::cli::usage(tool, "--backend is reference or opencl, got '" + b + "'");
    } else {
      pscr::cli::usage(tool, "unknown argument '" + a + "'");
    }
  }
  try {
    if (bench_n > 0) return bench(bench_n, reps, threads, backend);
    std::printf("libpscr demo: radix-q PSCR on the %s backend, non-uniform (graded) meshes\n",
                backend == pscr::Backend::opencl ? "OpenCL" : "reference");
    const auto a = pscr::graded_mesh(1025, 1.0, 1.002), b = pscr::graded_mesh(1025, 2.0, 0.999);
    demo("2D Poisson (double)", pscr::poisson2d(a, b), threads, backend);
    const auto c = pscr::graded_mesh(512, 1.0, 1.001), d = pscr::graded_mesh(480, 1.0, 1.0005);
    demo("2D Helmholtz w=40 (cdouble)", pscr::helmholtz2d(c, d, 40.0), threads, backend);
    const auto e = pscr::graded_mesh(65, 1.0, 1.02), g = pscr::graded_mesh(62, 1.0, 0.99), h = pscr::graded_mesh(73, 1.0, 1.01);
    demo("3D Poisson (double)", pscr::poisson3d(e, g, h), threads, backend);
    return 0;
  } catch (const pscr::Error& e) {
    std::fprintf(stderr, "pscr-demo: %s\n", e.what());
    return 1;
  }
}
