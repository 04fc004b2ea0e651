#include "pencil_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <optional>

#include "../lapack.hpp"
#include "crawford.hpp"
#include "pencil_roots.hpp"
#include "toeplitz_eigen.hpp"
#include "twisted_eigen.hpp"
#include "pscr/errors.hpp"
#include "pscr/scalar.hpp"

namespace pscr::planner {
namespace {

using Z = std::complex<double>;

template <class C> bool diagonal_mass(const Tridiagonal<C>& M) {
  return std::all_of(M.off.begin(), M.off.end(), [](const C& v) { return v == C(0); });
}

template <class C> bool all_real(const Tridiagonal<C>& t) {
  if constexpr (!is_complex_v<C>) return true;
  else {
    auto r = [](const C& v) { return v.imag() == 0; };
    return std::all_of(t.diag.begin(), t.diag.end(), r) && std::all_of(t.off.begin(), t.off.end(), r);
  }
}

Tridiagonal<double> real_part(const Tridiagonal<Z>& t) {
  Tridiagonal<double> r;
  for (auto& v : t.diag) r.diag.push_back(v.real());
  for (auto& v : t.off) r.off.push_back(v.real());
  return r;
}

// Real symmetric pencil with diagonal M > 0: LAPACK's MRRR (dstemr) on
// T = M^-1/2 A M^-1/2, all vectors at once (O(m²) memory); the fallback of
// the twisted method and a check on it.
PencilEigen<double> eigen_mrrr(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                               const std::vector<int>& keep) {
  const int m = static_cast<int>(A.size());
  PencilEigen<double> out;
  out.lambda.resize(m);
  out.rows.assign(keep.size() * m, 0.0);
  eigen_mrrr_range(A, M, keep, 0, m - 1, out);
  out.method = "mrrr";
  return out;
}

template <class C> std::vector<C> dense(const Tridiagonal<C>& t) {
  const int m = static_cast<int>(t.size());
  std::vector<C> a(static_cast<std::size_t>(m) * m, C(0));
  for (int i = 0; i < m; ++i) {
    a[i * m + i] = t.diag[i];
    if (i + 1 < m) a[i * m + i + 1] = a[(i + 1) * m + i] = t.off[i];
  }
  if (t.periodic()) a[m - 1] = a[(m - 1) * m] = t.off[m - 1];  // the corner entries
  return a;
}

// Dense fallback: dsygv (real, M > 0) or zggev (complex symmetric).
template <class C>
PencilEigen<C> eigen_dense(const Tridiagonal<C>& A, const Tridiagonal<C>& M, const std::vector<int>& keep) {
  const int m = static_cast<int>(A.size());
  std::vector<C> a = dense(A), b = dense(M);
  PencilEigen<C> out;
  out.method = "dense";
  out.lambda.resize(m);
  out.rows.resize(keep.size() * m);
  if constexpr (!is_complex_v<C>) {
    const int info = LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'U', m, a.data(), m, b.data(), m, out.lambda.data());
    if (info > m) throw SingularPencil("mass matrix M is not positive definite");
    if (info != 0) throw NumericalBreakdown("dsygv failed (info " + std::to_string(info) + ")");
    for (std::size_t t = 0; t < keep.size(); ++t)
      for (int l = 0; l < m; ++l) out.rows[t * m + l] = a[keep[t] * m + l];
  } else {
    std::vector<Z> alpha(m), beta(m), vr(static_cast<std::size_t>(m) * m), vl(1);
    const int info = LAPACKE_zggev(LAPACK_ROW_MAJOR, 'N', 'V', m, a.data(), m, b.data(), m, alpha.data(),
                                   beta.data(), vl.data(), 1, vr.data(), m);
    if (info != 0) throw NumericalBreakdown("zggev failed (info " + std::to_string(info) + ")");
    std::vector<Z> mv(m);
    for (int l = 0; l < m; ++l) {
      if (std::abs(beta[l]) <= 1e-14 * std::abs(alpha[l]))
        throw SingularPencil("the pencil has an infinite eigenvalue: M is singular");
      out.lambda[l] = alpha[l] / beta[l];
      std::vector<Z> v(m);
      for (int i = 0; i < m; ++i) v[i] = vr[i * m + l];
      // A repeated eigenvalue (periodic pencils have pairs): zggev's vectors
      // of one eigenspace need not be M-orthogonal in the bilinear form;
      // the earlier ones of the cluster are projected out (Gram-Schmidt in xᵀMy).
      for (int e = 0; e < l; ++e) {
        if (std::abs(out.lambda[e] - out.lambda[l]) > 1e-10 * (std::abs(out.lambda[l]) + norm1(A) / norm1(M))) continue;
        std::vector<Z> w(m);
        for (int i = 0; i < m; ++i) w[i] = vr[i * m + e];
        M.multiply(v.data(), mv.data());
        const Z proj = bilinear(w.data(), mv.data(), m);
        for (int i = 0; i < m; ++i) v[i] -= proj * w[i];
      }
      M.multiply(v.data(), mv.data());
      Z nrm = 0;
      double scale = 0;
      for (int i = 0; i < m; ++i) { nrm += v[i] * mv[i]; scale += std::norm(v[i]); }
      if (std::abs(nrm) <= 1e-12 * scale * norm1(M))
        throw SingularPencil("defective complex symmetric pencil (eigenvector with wᵀMw = 0)");
      out.condition = std::max(out.condition, eigenvector_condition(v.data(), mv.data(), m));
      const Z inv = Z(1) / std::sqrt(nrm);
      for (int i = 0; i < m; ++i) vr[i * m + l] = v[i] * inv;  // normalised, for the cluster's later vectors
      for (std::size_t t = 0; t < keep.size(); ++t) out.rows[t * m + l] = vr[keep[t] * m + l];
    }
  }
  return out;
}

// Crawford reduction for the eigenvalues, then inverse iteration on the
// original pencil for each eigenvector (O(m) each), a Rayleigh quotient for a
// consistent eigenvalue, and M-orthogonalisation against the nearest
// neighbours in the spectrum (where inverse iteration loses orthogonality).
template <class C>
PencilEigen<C> eigen_crawford(const Tridiagonal<C>& A, const Tridiagonal<C>& M, const std::vector<int>& keep) {
  const int m = static_cast<int>(A.size());
  std::vector<C> lam = tridiagonal_eigenvalues(crawford_reduce(A, M));
  std::vector<int> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if constexpr (is_complex_v<C>) return lam[a].real() < lam[b].real();
    else return lam[a] < lam[b];
  });
  const double anorm = norm1(A) + norm1(M) * 1e-300 + 1e-300;
  const double eps = std::numeric_limits<double>::epsilon();
  constexpr int window = 4;
  PencilEigen<C> out;
  out.method = "crawford";
  out.lambda.resize(m);
  out.rows.resize(keep.size() * m);
  // The vectors in spectral order, in chunks of fixed size spread over the
  // host threads; each chunk first recomputes the `window` vectors before it,
  // so its first vectors are orthogonalised against their neighbours too.
  constexpr int chunk = 128;
  const int chunks = (m + chunk - 1) / chunk;
  std::string failure;
  bool singular = false;
  std::vector<double> condition(chunks, 1.0);
#pragma omp parallel for schedule(dynamic, 1) if (m >= 2 * chunk)
  for (int ch = 0; ch < chunks; ++ch) {
    try {
      std::vector<std::vector<C>> prev, prevM;  // recent normalised vectors and M·w
      std::vector<C> dl(m), dd(m), du(m), du2(m), x(m), mx(m);
      std::vector<lapack_int> ipiv(m);
      const int first = ch * chunk, last = std::min(m, first + chunk);
      for (int idx = std::max(0, first - window); idx < last; ++idx) {
        const int l = order[idx];
        const bool store = idx >= first;
        C shift = lam[l];
        for (int attempt = 0;; ++attempt) {
          for (int i = 0; i < m; ++i) dd[i] = A.diag[i] - shift * M.diag[i];
          for (int i = 0; i + 1 < m; ++i) dl[i] = du[i] = A.off[i] - shift * M.off[i];
          if (gttrf(m, dl.data(), dd.data(), du.data(), du2.data(), ipiv.data()) == 0) break;
          if (attempt > 3) throw NumericalBreakdown("inverse iteration: shifted pencil stays singular");
          shift += C(4 * eps * anorm * (attempt + 1));  // exactly singular: nudge the shift
        }
        for (int i = 0; i < m; ++i) x[i] = C(1.0 + 0.37 * std::sin(0.7 * i + 0.3 * idx));
        for (int it = 0; it < 3; ++it) {
          M.multiply(x.data(), mx.data());
          gttrs(m, dl.data(), dd.data(), du.data(), du2.data(), ipiv.data(), mx.data());
          double big = 0;
          for (auto& v : mx) big = std::max(big, std::abs(v));
          if (!(big > 0) || !std::isfinite(big)) throw NumericalBreakdown("inverse iteration produced a zero vector");
          for (int i = 0; i < m; ++i) x[i] = mx[i] / big;
        }
        for (std::size_t p = 0; p < prev.size(); ++p) {
          const C h = bilinear(prevM[p].data(), x.data(), m);
          for (int i = 0; i < m; ++i) x[i] -= h * prev[p][i];
        }
        M.multiply(x.data(), mx.data());
        const C xmx = bilinear(x.data(), mx.data(), m);
        double xx = 0;
        for (auto& v : x) xx += std::norm(v);
        if (std::abs(xmx) <= 1e-12 * xx * norm1(M))
          throw SingularPencil("defective pencil: eigenvector with wᵀMw = 0");
        if (store) condition[ch] = std::max(condition[ch], eigenvector_condition(x.data(), mx.data(), m));
        std::vector<C> ax(m);
        A.multiply(x.data(), ax.data());
        const C inv = C(1) / std::sqrt(xmx);
        for (int i = 0; i < m; ++i) { x[i] *= inv; mx[i] *= inv; }
        if (store) {
          out.lambda[l] = bilinear(x.data(), ax.data(), m) * inv;  // Rayleigh quotient xᵀAx / xᵀMx (x now normalised)
          for (std::size_t t = 0; t < keep.size(); ++t) out.rows[t * m + l] = x[keep[t]];
        }
        prev.push_back(x);
        prevM.push_back(mx);
        if (static_cast<int>(prev.size()) > window) { prev.erase(prev.begin()); prevM.erase(prevM.begin()); }
      }
    } catch (const std::exception& e) {
#pragma omp critical(pscr_crawford_failure)
      if (failure.empty()) {
        failure = e.what();
        singular = dynamic_cast<const SingularPencil*>(&e) != nullptr;
      }
    }
  }
  if (!failure.empty()) {
    if (singular) throw SingularPencil(failure);
    throw NumericalBreakdown(failure);
  }
  out.condition = *std::max_element(condition.begin(), condition.end());
  return out;
}

template <class C> PencilEigen<C> from_real(const PencilEigen<double>& r) {
  PencilEigen<C> out;
  out.lambda.assign(r.lambda.begin(), r.lambda.end());
  out.rows.assign(r.rows.begin(), r.rows.end());
  out.method = r.method;
  return out;
}

// The Aberth iteration started from the eigenvalues of the real part; empty
// where the real part has none (not a definite pencil) or the iteration fails.
std::optional<PencilEigen<Z>> aberth_from_real_part(const Tridiagonal<Z>& A, const Tridiagonal<Z>& M,
                                                    const std::vector<int>& keep, bool vectors) {
  std::vector<double> seeds;
  try {
    seeds = pencil_eigenvalues(real_part(A), real_part(M));
  } catch (const Error&) {
    return std::nullopt;
  }
  return eigen_aberth(A, M, keep, seeds, vectors);
}

}  // namespace

// The automatic choice: real Toeplitz pencils (uniform meshes) in closed
// form; other real pencils with diagonal M by the twisted method,
// with tridiagonal M by Sturm counts and Newton steps; complex pencils by the
// Aberth iteration from the real part's eigenvalues; the Crawford path where
// these do not apply or do not converge.
template <class C>
PencilEigen<C> pencil_eigen(const Tridiagonal<C>& A, const Tridiagonal<C>& M, const std::vector<int>& keep,
                            EigenMethod method) {
  if (A.size() != M.size() || A.size() == 0) throw SizeMismatch("pencil_eigen: A and M sizes differ or are 0");
  if (A.periodic() || M.periodic()) {
    // a cyclic pencil (periodic dimension): a uniform mesh's in closed form,
    // the small eigenvalues with high relative accuracy as an FFT solver's
    // (dsygv's carry errors of ε‖A‖: 6× an FFT's forward error at 64²);
    // others dense, the real ones by dsygv
    if constexpr (is_complex_v<C>) {
      if (all_real(A) && all_real(M)) return from_real<C>(pencil_eigen(real_part(A), real_part(M), keep, method));
    } else {
      if (method == EigenMethod::automatic || method == EigenMethod::toeplitz)
        if (auto r = eigen_circulant(A, M, keep)) return std::move(*r);
    }
    return eigen_dense(A, M, keep);
  }
  if constexpr (is_complex_v<C>) {
    // A complex pencil with real entries is a real symmetric one.
    if (method == EigenMethod::automatic && all_real(A) && all_real(M))
      return from_real<C>(pencil_eigen(real_part(A), real_part(M), keep, method));
  }
  const bool automatic = method == EigenMethod::automatic;
  if constexpr (!is_complex_v<C>) {
    if (automatic || method == EigenMethod::toeplitz) {
      if (auto r = eigen_toeplitz(A, M, keep)) return std::move(*r);
      if (!automatic) throw InvalidArgument("the closed-form eigenpairs need a Toeplitz pencil with Dirichlet/Neumann ends");
    }
  } else if (automatic || method == EigenMethod::toeplitz) {
    if (auto r = eigen_toeplitz_ends(A, M, keep)) return std::move(*r);
    if (!automatic)
      throw InvalidArgument("the closed-form eigenpairs need a Toeplitz pencil (end diagonal entries may differ)");
  }
  if (automatic) {
    if constexpr (!is_complex_v<C>) method = diagonal_mass(M) ? EigenMethod::twisted : EigenMethod::newton;
    else method = EigenMethod::aberth;
  }
  switch (method) {
    case EigenMethod::twisted:
      if constexpr (!is_complex_v<C>) {
        if (!diagonal_mass(M)) throw InvalidArgument("the twisted eigensolver needs a diagonal mass matrix");
        if (auto r = eigen_twisted(A, M, keep)) return std::move(*r);
        return eigen_mrrr(A, M, keep);
      } else {
        throw InvalidArgument("the twisted eigensolver needs a real pencil");
      }
    case EigenMethod::mrrr:
      if constexpr (!is_complex_v<C>) return eigen_mrrr(A, M, keep);
      else throw InvalidArgument("MRRR eigensolver needs a real pencil");
    case EigenMethod::dense: return eigen_dense(A, M, keep);
    case EigenMethod::newton:
      if constexpr (!is_complex_v<C>) {
        if (auto r = eigen_newton(A, M, keep)) return std::move(*r);
        if (!automatic) throw NumericalBreakdown("Newton eigensolver: a cluster, an indefinite M or no convergence");
        break;
      } else {
        throw InvalidArgument("the Newton eigensolver needs a real pencil");
      }
    case EigenMethod::aberth:
      if constexpr (is_complex_v<C>) {
        if (auto r = aberth_from_real_part(A, M, keep, true)) return std::move(*r);
        if (!automatic) throw NumericalBreakdown("Aberth eigensolver: no starting values or no convergence");
        break;
      } else {
        throw InvalidArgument("the Aberth eigensolver needs a complex pencil");
      }
    default: break;
  }
  try {
    return eigen_crawford(A, M, keep);
  } catch (const NumericalBreakdown&) {
    if (A.size() > 2048) throw;
    return eigen_dense(A, M, keep);  // rare isotropic breakdowns: dense is still affordable
  }
}

template <class C>
std::vector<C> pencil_eigenvalues(const Tridiagonal<C>& A, const Tridiagonal<C>& M, const char** method) {
  const auto done = [&](PencilEigen<C>&& r) {
    if (method) *method = r.method;
    return std::move(r.lambda);
  };
  if (A.periodic() || M.periodic()) return done(pencil_eigen(A, M, {}));
  if constexpr (is_complex_v<C>) {
    if (all_real(A) && all_real(M)) {
      auto r = pencil_eigenvalues(real_part(A), real_part(M), method);
      return std::vector<C>(r.begin(), r.end());
    }
    if (auto r = eigen_toeplitz_ends(A, M, {}, false)) return done(std::move(*r));
    if (auto r = aberth_from_real_part(A, M, {}, false)) return done(std::move(*r));
  } else {
    if (auto r = eigen_toeplitz(A, M, {}, false)) return done(std::move(*r));
    if (diagonal_mass(M)) {
      if (auto r = eigen_twisted(A, M, {})) return done(std::move(*r));
    } else if (auto r = eigen_newton(A, M, {}, false)) {
      return done(std::move(*r));
    }
  }
  if (method) *method = "crawford";
  return tridiagonal_eigenvalues(crawford_reduce(A, M));
}

template PencilEigen<double> pencil_eigen(const Tridiagonal<double>&, const Tridiagonal<double>&,
                                          const std::vector<int>&, EigenMethod);
template PencilEigen<Z> pencil_eigen(const Tridiagonal<Z>&, const Tridiagonal<Z>&, const std::vector<int>&,
                                     EigenMethod);
template std::vector<double> pencil_eigenvalues(const Tridiagonal<double>&, const Tridiagonal<double>&, const char**);
template std::vector<Z> pencil_eigenvalues(const Tridiagonal<Z>&, const Tridiagonal<Z>&, const char**);

}  // namespace pscr::planner
