#include "relative_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../lapack.hpp"
#include "pscr/errors.hpp"

namespace pscr::planner {
namespace {

// Relative gap below which a twisted-factorisation vector would lose
// orthogonality (its error is about ε / relgap): those come from dstemr.
constexpr double kMinRelativeGap = 1e-2;

// Eigenvector of L D Lᵀ for the eigenvalue lambda (known to high relative
// accuracy) by a twisted factorisation (Dhillon and Parlett): the stationary
// and progressive differential qd transforms of L D Lᵀ − λ I, the twist
// index r where |γ_r| is smallest, then z_r = 1 and the two recurrences.
// Unnormalised.
void twisted_vector(const std::vector<double>& d, const std::vector<double>& l, double lambda,
                    std::vector<double>& z, std::vector<double>& lp, std::vector<double>& um, std::vector<double>& s,
                    std::vector<double>& p) {
  const int n = int(d.size());
  const double tiny = std::numeric_limits<double>::min() / std::numeric_limits<double>::epsilon();
  auto nonzero = [&](double v) { return v != 0 ? v : tiny; };
  s[0] = -lambda;
  for (int i = 0; i + 1 < n; ++i) {
    const double dp = nonzero(d[i] + s[i]);
    lp[i] = d[i] * l[i] / dp;
    s[i + 1] = lp[i] * l[i] * s[i] - lambda;
  }
  p[n - 1] = d[n - 1] - lambda;
  for (int i = n - 2; i >= 0; --i) {
    const double dm = nonzero(d[i] * l[i] * l[i] + p[i + 1]);
    const double t = d[i] / dm;
    um[i] = l[i] * t;
    p[i] = p[i + 1] * t - lambda;
  }
  int r = 0;
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    const double g = std::abs(s[i] + p[i] + lambda);
    if (g < best) {
      best = g;
      r = i;
    }
  }
  z[r] = 1;
  for (int i = r - 1; i >= 0; --i) z[i] = -lp[i] * z[i + 1];
  for (int i = r; i + 1 < n; ++i) z[i + 1] = -um[i] * z[i];
}

}  // namespace

void eigen_mrrr_range(const Tridiagonal<double>& A, const Tridiagonal<double>& M, const std::vector<int>& keep,
                      int il, int iu, PencilEigen<double>& out) {
  const int m = static_cast<int>(A.size());
  std::vector<double> sq(m);
  for (int i = 0; i < m; ++i) {
    if (!(M.diag[i] > 0))
      throw SingularPencil("mass matrix M is not positive definite (diagonal entry " + std::to_string(i) + " <= 0)");
    sq[i] = std::sqrt(M.diag[i]);
  }
  const std::size_t max_entries = std::size_t(1) << 26;  // 512 MiB of eigenvector block
  const int block = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(m, max_entries / m)));
  // A subset by index makes dstemr find its eigenvalues by bisection, which
  // costs more than all of them by dqds: take all when they fit in one block.
  const int first = (block == m && 2 * (iu - il + 1) > m) ? 0 : il;
  std::vector<double> z(static_cast<std::size_t>(m) * block), w(m);
  std::vector<lapack_int> isuppz(2 * std::max(m, 1));
  for (int lo = first; lo <= iu; lo += block) {
    const int hi = std::min(iu, lo + block - 1);
    std::vector<double> d(m), e(std::max(m, 1), 0.0);
    for (int i = 0; i < m; ++i) d[i] = A.diag[i] / M.diag[i];
    for (int i = 0; i + 1 < m; ++i) e[i] = A.off[i] / (sq[i] * sq[i + 1]);
    lapack_int found = 0;
    lapack_logical tryrac = 1;
    const char range = (lo == 0 && hi == m - 1) ? 'A' : 'I';
    const int info = LAPACKE_dstemr(LAPACK_COL_MAJOR, 'V', range, m, d.data(), e.data(), 0, 0, lo + 1, hi + 1,
                                    &found, w.data(), z.data(), m, block, isuppz.data(), &tryrac);
    if (info != 0 || found != hi - lo + 1) throw NumericalBreakdown("dstemr failed (info " + std::to_string(info) + ")");
    for (int l = std::max(0, il - lo); l < found; ++l) {
      out.lambda[lo + l] = w[l];
      for (std::size_t t = 0; t < keep.size(); ++t)
        out.rows[t * m + lo + l] = z[static_cast<std::size_t>(l) * m + keep[t]] / sq[keep[t]];
    }
  }
}

std::optional<PencilEigen<double>> eigen_relative(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                                  const std::vector<int>& keep) {
  const int m = int(A.size());
  const double eps = std::numeric_limits<double>::epsilon();
  for (int i = 0; i < m; ++i)
    if (!(M.diag[i] > 0) || (i + 1 < m && M.off[i] != 0) || !(A.diag[i] > 0)) return std::nullopt;
  // 1. excess of A; negative only by the rounding of its data, else not applicable
  std::vector<double> e(m);
  for (int i = 0; i < m; ++i) {
    long double x = A.diag[i];
    if (i > 0) x -= std::abs((long double)A.off[i - 1]);
    if (i + 1 < m) x -= std::abs((long double)A.off[i]);
    if (x < -8 * eps * A.diag[i]) return std::nullopt;
    e[i] = double(x);  // a negative excess of the size of the data's rounding is the data's
  }
  // 2. A = L D Lᵀ by positive additions; 3. B = L̃ D̃ L̃ᵀ
  std::vector<double> dt(m), lt(std::max(m - 1, 0));
  double e_hat = 0, prev_o = 0, prev_p = 1;
  for (int i = 0; i < m; ++i) {
    e_hat = e[i] + (i > 0 ? std::abs(prev_o) * (e_hat / prev_p) : 0.0);
    const double oi = i + 1 < m ? A.off[i] : 0.0;
    double piv = e_hat + std::abs(oi);
    if (i + 1 < m && !(piv > 0)) return std::nullopt;  // a zero pivot before the last row: not definite
    if (i + 1 == m) {  // singular (pure Neumann) up to the rounding of the data: λ_min = 0
      if (piv < -8 * eps * A.diag[i]) return std::nullopt;
      piv = std::max(piv, 0.0);
    }
    dt[i] = piv / M.diag[i];
    if (i + 1 < m) lt[i] = (oi / piv) * std::sqrt(M.diag[i] / M.diag[i + 1]);
    prev_o = oi;
    prev_p = piv;
  }
  // G Gᵀ = B with Gᵀ upper bidiagonal: diagonal sqrt(D̃_i), superdiagonal ℓ̃_i sqrt(D̃_i)
  std::vector<double> gd(m), ge(std::max(m - 1, 1), 0.0);
  for (int i = 0; i < m; ++i) gd[i] = std::sqrt(dt[i]);
  for (int i = 0; i + 1 < m; ++i) ge[i] = lt[i] * gd[i];
  double dummy = 0;
  const int info = LAPACKE_dbdsqr(LAPACK_COL_MAJOR, 'U', m, 0, 0, 0, gd.data(), ge.data(), &dummy, 1, &dummy, 1,
                                  &dummy, 1);
  if (info != 0) return std::nullopt;
  PencilEigen<double> out;
  out.method = "relative";
  out.lambda.resize(m);
  out.rows.assign(keep.size() * m, 0.0);
  for (int k = 0; k < m; ++k) out.lambda[k] = gd[m - 1 - k] * gd[m - 1 - k];  // ascending
  // 4. vectors: twisted factorisations while the relative gaps are large
  int first_dense = m;
  for (int k = 0; k < m; ++k) {
    const double lam = out.lambda[k];
    double gap = std::numeric_limits<double>::infinity();
    if (k > 0) gap = std::min(gap, lam - out.lambda[k - 1]);
    if (k + 1 < m) gap = std::min(gap, out.lambda[k + 1] - lam);
    if (lam > 0 && gap < kMinRelativeGap * lam) {
      first_dense = k;
      break;
    }
  }
  // O(m) each and independent: spread over the host threads when called
  // outside a parallel region (inside the planner's loop over groups, one thread).
#pragma omp parallel if (first_dense >= 256)
  {
    std::vector<double> z(m), lp(m), um(m), s(m), p(m);
#pragma omp for schedule(dynamic, 32)
    for (int k = 0; k < first_dense; ++k) {
      twisted_vector(dt, lt, out.lambda[k], z, lp, um, s, p);
      double nrm = 0;
      for (double v : z) nrm += v * v;
      const double inv = 1 / std::sqrt(nrm);
      for (std::size_t t = 0; t < keep.size(); ++t) out.rows[t * m + k] = z[keep[t]] * inv / std::sqrt(M.diag[keep[t]]);
    }
  }
  if (first_dense < m) {
    // dstemr's vectors (and its eigenvalues there: absolute accuracy is what counts at the top)
    const std::vector<double> accurate(out.lambda.begin(), out.lambda.end());
    eigen_mrrr_range(A, M, keep, first_dense, m - 1, out);
    for (int k = first_dense; k < m; ++k) out.lambda[k] = accurate[k];
  }
  return out;
}

}  // namespace pscr::planner
