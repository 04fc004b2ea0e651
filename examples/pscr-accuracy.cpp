// pscr-accuracy: forward error of PSCR solves, stage accuracy figures for
// docs/accuracy.md. For each case and precision it prints the forward error
// max|u − u*| / max|u*| of the chosen backend and, for uniform Dirichlet
// Poisson, of an FFTW DST-I solver in the same precision (the "/FFT" ratio).
//   pscr-accuracy [--backend reference|opencl] [--dim 2|3] [--sizes 63,255,1023]
//                 [--problem uniform|graded|neumann|helmholtz] [--radix Q] [--refine K]
//                 [--elimination automatic|ordinary] [--tuning FILE]
// The exact answer u*: a long double DST-I solve (uniform), else the double
// PSCR solution refined three times with residuals summed in long double.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "dst_poisson.hpp"
#include "pscr/pscr.hpp"

namespace {

using LD = long double;

const char* kTool = "pscr-accuracy";
const char* kUsage =
    "usage: pscr-accuracy [--backend reference|opencl] [--dim 2|3] [--sizes N,N,...]\n"
    "                     [--problem uniform|graded|neumann|helmholtz] [--radix Q] [--refine K]\n"
    "                     [--elimination automatic|ordinary] [--tuning FILE]\n"
    "Forward error max|u - u*| / max|u*| of PSCR solves in float and double against exact answers\n"
    "(long double DST-I, or long-double-refined), with FFTW DST-I solvers of the same precision.\n";
[[noreturn]] void usage(const std::string& why) { pscr::cli::usage(kTool, why); }
int integer(const std::string& flag, const std::string& text) {
  return int(pscr::cli::integer(kTool, flag, text, 1, 100000));
}

template <class W, class A> W widen(const A& a) {
  if constexpr (pscr::is_complex_v<W>) return W(LD(std::real(a)), LD(std::imag(a)));
  else return W(std::real(a));
}

// y = A x in long double precision (W = long double or its complex).
template <class W, class T> std::vector<W> apply_wide(const pscr::Problem<T>& p, const std::vector<W>& x) {
  const int D = p.dims();
  std::vector<W> y(x.size(), W(0));
  auto along = [&](const pscr::Tridiagonal<T>& t, int d, const std::vector<W>& in) {
    std::size_t inner = 1;
    for (int e = d + 1; e < D; ++e) inner *= p.size(e);
    const std::size_t n = p.size(d), outer = x.size() / (n * inner);
    std::vector<W> out(in.size());
    for (std::size_t a = 0; a < outer; ++a)
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t b = 0; b < inner; ++b) {
          const std::size_t k = (a * n + i) * inner + b;
          W v = widen<W>(t.diag[i]) * in[k];
          if (i > 0) v += widen<W>(t.off[i - 1]) * in[k - inner];
          if (i + 1 < n) v += widen<W>(t.off[i]) * in[k + inner];
          out[k] = v;
        }
    return out;
  };
  for (int d = 0; d <= D; ++d) {  // d = D: the c·M⊗M[⊗M] term
    std::vector<W> t = x;
    for (int e = 0; e < D; ++e) t = along(e == d ? p.factor(e).A : p.factor(e).M, e, t);
    const W c = d == D ? widen<W>(p.c()) : W(1);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] += c * t[i];
  }
  return y;
}

// The solution of the double problem to long double accuracy: iterative
// refinement of the double plan's solution with long double residuals.
template <class T, class W> std::vector<W> refined(const pscr::Problem<T>& p, const std::vector<T>& f) {
  pscr::Plan<T> plan(p);
  const std::size_t N = f.size();
  std::vector<T> u(N), r(N), d(N);
  plan.solve(f.data(), u.data());
  std::vector<W> uw(N), fw(N);
  for (std::size_t i = 0; i < N; ++i) { uw[i] = widen<W>(u[i]); fw[i] = widen<W>(f[i]); }
  if (plan.info().pure_neumann) {  // the compatible part, as the plan solves it
    W mean = 0;
    for (auto& v : fw) mean += v;
    mean /= LD(N);
    for (auto& v : fw) v -= mean;
  }
  for (int it = 0; it < 3; ++it) {
    const auto au = apply_wide(p, uw);
    for (std::size_t i = 0; i < N; ++i) r[i] = T(fw[i] - au[i]);
    plan.solve(r.data(), d.data());
    for (std::size_t i = 0; i < N; ++i) uw[i] += widen<W>(d[i]);
  }
  if (plan.info().pure_neumann) {  // zero weighted mean, the plan's normalisation
    std::vector<std::vector<LD>> w;
    for (int e = 0; e < p.dims(); ++e) {
      const auto& M = p.factor(e).M;
      std::vector<LD> s(M.size());
      for (std::size_t i = 0; i < M.size(); ++i)
        s[i] = LD(std::real(M.diag[i])) + (i > 0 ? LD(std::real(M.off[i - 1])) : 0) +
               (i + 1 < M.size() ? LD(std::real(M.off[i])) : 0);
      w.push_back(s);
    }
    W num = 0;
    LD den = 0;
    for (std::size_t i = 0; i < N; ++i) {
      std::size_t rest = i;
      LD wi = 1;
      for (int e = p.dims() - 1; e >= 0; --e) { wi *= w[e][rest % p.size(e)]; rest /= p.size(e); }
      num += wi * uw[i];
      den += wi;
    }
    for (auto& v : uw) v -= num / den;
  }
  return uw;
}

template <class A, class B> double forward_error(const std::vector<A>& u, const std::vector<B>& exact) {
  LD num = 0, den = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    num = std::max<LD>(num, std::abs(widen<B>(u[i]) - exact[i]));
    den = std::max<LD>(den, std::abs(exact[i]));
  }
  return double(num / den);
}

template <class T> double pscr_error(const pscr::Problem<double>& pd, const std::vector<T>& f, const pscr::Options& o,
                                     const std::vector<LD>& exact, std::string& info) {
  pscr::Plan<T> plan(pd.cast<T>(), o);
  std::vector<T> u(f.size());
  plan.solve(f.data(), u.data());
  info = plan.info().elimination;
  for (auto& m : plan.info().eigen_methods) info += "/" + m;
  if (plan.info().dimension_methods.front() == "sine transform") info += "/DST";
  return forward_error(u, exact);
}

void real_case(const std::string& problem, int dim, int n, const pscr::Options& o) {
  std::vector<pscr::Factor<double>> fs;
  const double ratio = std::pow(1e3, 1.0 / n);  // graded: largest cell 1e3 times the smallest
  for (int d = 0; d < dim; ++d) {
    if (problem == "uniform") fs.push_back(pscr::laplacian_factor(n, 1.0, pscr::Boundary::Dirichlet, pscr::Boundary::Dirichlet));
    else if (problem == "graded") fs.push_back(pscr::poisson_factor(pscr::graded_mesh(n + 2, 1.0, d % 2 ? 1 / ratio : ratio)));
    else fs.push_back(pscr::laplacian_factor(n, 1.0, pscr::Boundary::Neumann, pscr::Boundary::Neumann));
  }
  const pscr::Problem<double> p(fs, 0.0);
  std::mt19937_64 rng(n);
  std::uniform_real_distribution<double> uni(-1, 1);
  std::vector<float> f32(p.unknowns());
  for (auto& x : f32) x = float(uni(rng));
  const std::vector<double> f64(f32.begin(), f32.end());
  std::vector<LD> exact(f32.size());
  std::vector<int> ns(dim, n);
  double fft32 = 0, fft64 = 0;
  if (problem == "uniform" || problem == "neumann") {
    // the FFT solvers of each precision: DST-I (Dirichlet) or DCT-II/III (Neumann)
    const bool neumann = problem == "neumann";
    std::vector<LD> fl(f32.begin(), f32.end());
    anchor::TrigPoisson<LD>(ns, neumann).solve(fl.data(), exact.data());
    std::vector<float> v32(f32.size());
    anchor::TrigPoisson<float>(ns, neumann).solve(f32.data(), v32.data());
    std::vector<double> v64(f32.size());
    anchor::TrigPoisson<double>(ns, neumann).solve(f64.data(), v64.data());
    fft32 = forward_error(v32, exact);
    fft64 = forward_error(v64, exact);
  } else {
    exact = refined<double, LD>(p, f64);
  }
  // The float problem is the double one with its data rounded to float; on
  // graded meshes that rounding alone moves the answer (the row sums of A
  // carry the small eigenvalues), so its exact answer is computed apart.
  const pscr::Problem<double> p32 = p.cast<float>().cast<double>();
  const std::vector<LD> exact32 = problem != "graded" ? exact : refined<double, LD>(p32, f64);
  std::string how;
  const double e32 = pscr_error(p32, f32, o, exact32, how), e64 = pscr_error(p, f64, o, exact, how);
  std::printf("%-9s %dD n=%-5d %-26s float %.2e", problem.c_str(), dim, n, how.c_str(), e32);
  if (fft32 > 0) std::printf(" (FFT %.2e, %5.1fx)", fft32, e32 / fft32);
  std::printf("  double %.2e", e64);
  if (fft64 > 0) std::printf(" (FFT %.2e, %5.1fx)", fft64, e64 / fft64);
  std::printf("\n");
}

void helmholtz_case(int dim, int n, const pscr::Options& o) {
  const auto x = pscr::graded_mesh(n + 1, 1.0, 1.0);
  const double omega = 0.3 * n;  // about 10 points per wavelength
  const pscr::Problem<std::complex<double>> p =
      dim == 2 ? pscr::helmholtz2d(x, x, omega) : pscr::helmholtz3d(x, x, x, omega);
  std::mt19937_64 rng(n);
  std::uniform_real_distribution<double> uni(-1, 1);
  std::vector<std::complex<float>> f32(p.unknowns());
  for (auto& v : f32) v = {float(uni(rng)), float(uni(rng))};
  const std::vector<std::complex<double>> f64(f32.begin(), f32.end());
  const auto exact = refined<std::complex<double>, std::complex<LD>>(p, f64);
  const auto p32 = p.cast<std::complex<float>>();
  const auto exact32 = refined<std::complex<double>, std::complex<LD>>(p32.cast<std::complex<double>>(), f64);
  pscr::Plan<std::complex<float>> plan32(p32, o);
  pscr::Plan<std::complex<double>> plan64(p, o);
  std::vector<std::complex<float>> u32(f32.size());
  std::vector<std::complex<double>> u64(f32.size());
  plan32.solve(f32.data(), u32.data());
  plan64.solve(f64.data(), u64.data());
  std::printf("helmholtz %dD n=%-5d %-26s complex64 %.2e  complex128 %.2e  (omega %.0f)\n", dim, n,
              plan64.info().elimination.c_str(), forward_error(u32, exact32), forward_error(u64, exact), omega);
}

}  // namespace

int main(int argc, char** argv) {
  pscr::cli::help(argc, argv, kUsage);
  pscr::Options o;
  int dim = 2;
  std::string problem = "uniform";
  std::vector<int> sizes{63, 255, 1023};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage(a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--backend") {
      if (v == "reference") o.backend = pscr::Backend::reference;
      else if (v == "opencl") o.backend = pscr::Backend::opencl;
      else usage("unknown backend '" + v + "'");
    } else if (a == "--dim") {
      dim = integer(a, v);
      if (dim != 2 && dim != 3) usage("--dim is 2 or 3");
    } else if (a == "--sizes") {
      sizes.clear();
      for (const auto& item : pscr::cli::split(v)) sizes.push_back(integer(a, item));
    } else if (a == "--problem") {
      if (v != "uniform" && v != "graded" && v != "neumann" && v != "helmholtz") usage("unknown problem '" + v + "'");
      problem = v;
    } else if (a == "--radix") {
      o.radix = integer(a, v);
    } else if (a == "--elimination") {
      if (v == "automatic") o.elimination = pscr::Elimination::automatic;
      else if (v == "ordinary") o.elimination = pscr::Elimination::ordinary;
      else usage("--elimination is automatic or ordinary");
    } else if (a == "--tuning") {
      o.tuning_file = v;  // the OpenCL kernel parameters (and with them the tridiagonal solver)
    } else if (a == "--refine") {
      o.refine = int(pscr::cli::integer(kTool, a, v, 0, 10));
    } else {
      usage("unknown option " + a);
    }
  }
  try {
    for (int n : sizes) {
      if (problem == "helmholtz") helmholtz_case(dim, n, o);
      else real_case(problem, dim, n, o);
      std::fflush(stdout);
    }
  } catch (const pscr::Error& e) {
    std::fprintf(stderr, "pscr-accuracy: %s\n", e.what());
    return 1;
  }
  return 0;
}
