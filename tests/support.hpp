// Test helpers: an independent banded direct solve of the assembled matrix,
// random problems, norms.
#pragma once
#include <cmath>
#include <complex>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "../src/lapack.hpp"
#include "pscr/pscr.hpp"

namespace test {

using pscr::is_complex_v;
using pscr::wide_t;

template <class T> T random_scalar(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  if constexpr (is_complex_v<T>) return T(u(rng), u(rng));
  else return T(u(rng));
}

template <class T> std::vector<T> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = random_scalar<T>(rng, -1, 1);
  return v;
}

// A random well-conditioned factor pencil of size n: A symmetric diagonally
// dominant positive (complex symmetric for complex T), M tridiagonal positive
// definite (diagonal when `diag_mass`).
template <class T> pscr::Factor<T> random_factor(int n, std::uint64_t seed, bool diag_mass = false) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  pscr::Factor<T> f;
  for (int i = 0; i < n; ++i) {
    f.A.diag.push_back(T(2.0 + u(rng)));
    f.M.diag.push_back(T(1.0 + 0.5 * u(rng)));
  }
  for (int i = 0; i + 1 < n; ++i) {
    f.A.off.push_back(T(-u(rng) * 0.9));
    f.M.off.push_back(diag_mass ? T(0) : T(0.2 * u(rng)));
  }
  if constexpr (is_complex_v<T>) {
    // Complex symmetric: absorbing-type imaginary parts, strongest at the ends.
    f.A.diag.front() += T(0, -0.7);
    f.A.diag.back() += T(0, -0.5);
    for (int i = 0; i < n; ++i) f.A.diag[i] += T(0, -0.05 * u(rng));
    if (!diag_mass) { f.M.diag.front() += T(0, 0.3); f.M.diag.back() += T(0, 0.2); }
  }
  return f;
}

// Dense-band solve of A u = f with LAPACK ?gbsv in double precision.
template <class T> std::vector<wide_t<T>> band_solve(const pscr::Problem<T>& p, const std::vector<T>& f) {
  using W = wide_t<T>;
  const auto pw = p.template cast<W>();
  const int N = static_cast<int>(p.unknowns());
  int band = 0, stride = 1;
  for (int d = p.dims() - 1; d >= 0; --d) { band += stride; stride *= int(p.size(d)); }
  const int kl = band, ku = band, ldab = 2 * kl + ku + 1;
  std::vector<W> ab(std::size_t(ldab) * N, W(0)), e(N, W(0)), col(N);
  // columns 2·band + 1 apart have disjoint rows in the band: one product
  // with their sum gives them all (2·band + 1 products, not N)
  const int spread = 2 * band + 1;
  for (int r = 0; r < std::min(spread, N); ++r) {
    for (int j = r; j < N; j += spread) e[j] = 1;
    pw.apply(e.data(), col.data());
    for (int j = r; j < N; j += spread) {
      e[j] = 0;
      for (int i = std::max(0, j - ku); i <= std::min(N - 1, j + kl); ++i)
        ab[std::size_t(j) * ldab + kl + ku + i - j] = col[i];
    }
  }
  std::vector<W> b(f.begin(), f.end());
  std::vector<lapack_int> ipiv(N);
  int info;
  if constexpr (is_complex_v<W>)
    info = LAPACKE_zgbsv(LAPACK_COL_MAJOR, N, kl, ku, 1, ab.data(), ldab, ipiv.data(), b.data(), N);
  else
    info = LAPACKE_dgbsv(LAPACK_COL_MAJOR, N, kl, ku, 1, ab.data(), ldab, ipiv.data(), b.data(), N);
  if (info != 0) throw std::runtime_error("band_solve: gbsv info " + std::to_string(info));
  return b;
}

template <class A, class B> double rel_error(const std::vector<A>& x, const std::vector<B>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    num = std::max(num, double(std::abs(wide_t<A>(x[i]) - wide_t<A>(ref[i]))));
    den = std::max(den, double(std::abs(ref[i])));
  }
  return den > 0 ? num / den : num;
}

// The 1D Laplacian of n interior points, h = 1, Dirichlet ends (M = I), and
// its k-th eigenvalue 4 sin²(kπ / (2(n + 1))): the spectra that near-singular
// and indefinite cases are built from.
inline pscr::Factor<double> dirichlet_laplacian(int n) {
  return pscr::laplacian_factor(n, 1.0, pscr::Boundary::Dirichlet, pscr::Boundary::Dirichlet);
}
inline double dirichlet_eigenvalue(int k, int n) {
  const double s = std::sin(3.14159265358979323846 * k / (2.0 * (n + 1)));
  return 4 * s * s;
}

// An environment variable set for one scope (the library reads those it
// knows when a plan is made).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_.c_str(), old_->c_str(), 1);
    else unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace test
