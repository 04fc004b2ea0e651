#include "pencil_roots.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <string>

#include "../complex_arith.hpp"
#include "../lapack.hpp"
#include "bisection.hpp"
#include "eigen_share.hpp"
#include "pscr/errors.hpp"
#include "pscr/scalar.hpp"

namespace pscr::planner {
namespace {

using Z = std::complex<double>;
constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kMaxRounds = 400;   // bisection rounds (each halves every open interval)
constexpr int kMaxNewton = 200;   // safeguarded Newton steps per eigenvalue (bisection at worst)
constexpr int kMaxSweeps = 100;   // Aberth sweeps (most eigenvalues converge in 3 to 10)
constexpr int kWindow = 4;        // neighbours a vector is M-orthogonalised against
constexpr int kVectorChunk = 128; // vectors per task; each task recomputes kWindow vectors before it
constexpr int kBatch = 64;        // eigenvalues per task of the Newton and Aberth loops
using namespace lanes;

// Inner loops use reciprocal() and abs1() (src/complex_arith.hpp): the
// library's guarded complex division and hypot cost more than the sweep.
inline double re(double x) { return x; }
inline double re(Z z) { return z.real(); }

// The pencil and the factorisations of T = A − s M.
template <class C> struct Pencil {
  const Tridiagonal<C>& A;
  const Tridiagonal<C>& M;
  int m;
  double pivmin;  // pivots smaller than this in magnitude are replaced by it (dstebz's safeguard)

  C d(int i, C s) const { return A.diag[i] - s * M.diag[i]; }
  C e(int i, C s) const { return A.off[i] - s * M.off[i]; }
  // −pivmin for real pivots, so that a replaced pivot counts as negative
  C guard(C p) const {
    if constexpr (is_complex_v<C>) return abs1(p) < pivmin ? C(pivmin) : p;
    else return std::abs(p) < pivmin ? -pivmin : p;
  }

  // Top-down pivots D⁺ (dp) and their reciprocals (ip).
  void forward(C s, C* dp, C* ip) const {
    C t = 0;
    for (int i = 0; i < m; ++i) {
      const C p = guard(d(i, s) - t);
      dp[i] = p;
      ip[i] = reciprocal(p);
      if (i + 1 < m) {
        const C ei = e(i, s);
        t = ei * ei * ip[i];
      }
    }
  }

  // The twisted-factorisation vector at s: T z = γ_r e_r, z_r = 1, r the row
  // of smallest |γ_r|. dp, ip, im: work arrays of m entries.
  void vector(C s, C* dp, C* ip, C* im, C* z) const {
    forward(s, dp, ip);
    int r = m - 1;
    double best = std::numeric_limits<double>::infinity();
    C im_next = 0;
    for (int i = m - 1; i >= 0; --i) {
      C t = 0;
      if (i + 1 < m) {
        const C ei = e(i, s);
        t = ei * ei * im_next;
      }
      const double g = abs1(dp[i] - t);
      if (g < best) { best = g; r = i; }
      im[i] = im_next = reciprocal(guard(d(i, s) - t));
    }
    z[r] = 1;
    for (int i = r - 1; i >= 0; --i) z[i] = -e(i, s) * ip[i] * z[i + 1];
    for (int i = r + 1; i < m; ++i) z[i] = -e(i - 1, s) * im[i] * z[i - 1];
  }
};

// The pencil's entries as separate real arrays for the lane kernels (the
// imaginary ones empty for a real pencil); off-diagonals padded with a zero.
struct Entries {
  std::vector<double> ar, ai, br, bi, mr, mi, nr, ni;  // A diag, A off, M diag, M off
  int m = 0;
  double pivmin = 0;
  template <class C> Entries(const Tridiagonal<C>& A, const Tridiagonal<C>& M, double pivmin_) : m(int(A.size())), pivmin(pivmin_) {
    auto split = [&](const std::vector<C>& v, std::vector<double>& r, std::vector<double>& i) {
      r.assign(m, 0.0);
      i.assign(m, 0.0);
      for (std::size_t k = 0; k < v.size(); ++k) { r[k] = std::real(v[k]); i[k] = std::imag(v[k]); }
    };
    split(A.diag, ar, ai);
    split(A.off, br, bi);
    split(M.diag, mr, mi);
    split(M.off, nr, ni);
  }
};

// Sturm counts of the real pencil at kCountLanes shifts x.
PSCR_LANE_CLONES
void sturm_counts(const Entries& P, const double* x, int* count) {
  constexpr int V = kCountLanes / kVec;
  Vec t[V], c[V], xv[V];
  for (int v = 0; v < V; ++v) {
    xv[v] = load(x + v * kVec);
    t[v] = splat(0);
    c[v] = splat(0);
  }
  for (int i = 0; i < P.m; ++i) {
    const double a = P.ar[i], md = P.mr[i], b = P.br[i], n = P.nr[i];
    for (int v = 0; v < V; ++v) {
      const Vec p = guard_real(a - xv[v] * md - t[v], P.pivmin);
      c[v] += p < 0 ? splat(1) : splat(0);
      const Vec e = b - xv[v] * n;
      t[v] = e * e / p;
    }
  }
  for (int v = 0; v < V; ++v)
    for (int k = 0; k < kVec; ++k) count[v * kVec + k] = int(c[v][k]);
}

// Newton terms of the real pencil at kVec shifts s: the Sturm count and
// p'/p = Σ_i D'_i / D_i, the derivative of log det(A − s M) through the
// pivots D_i = d_i − t_i, t_i = e_i−1² / D_i−1 and their derivatives in s
// (d' = −M_ii, e' = −M_i,i+1), one division per row.
PSCR_LANE_CLONES
void newton_terms(const Entries& P, const double* s, double* count, double* logdet_derivative) {
  const Vec sv = load(s);
  Vec t = splat(0), tp = splat(0), c = splat(0), acc = splat(0);
  for (int i = 0; i < P.m; ++i) {
    const Vec p = guard_real(P.ar[i] - sv * P.mr[i] - t, P.pivmin), pp = -P.mr[i] - tp;
    c += p < 0 ? splat(1) : splat(0);
    const Vec r = 1 / p;
    acc += pp * r;
    const Vec e = P.br[i] - sv * P.nr[i];
    t = e * e * r;
    tp = -r * (2 * P.nr[i] * e + t * pp);
  }
  store(count, c);
  store(logdet_derivative, acc);
}

// Complex lanes: real and imaginary parts in two vectors.
struct CVec { Vec r, i; };
inline CVec operator-(CVec a, CVec b) { return {a.r - b.r, a.i - b.i}; }
inline CVec operator+(CVec a, CVec b) { return {a.r + b.r, a.i + b.i}; }
inline CVec cmul(CVec a, CVec b) { return {a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r}; }
// (x + iy)·(a + ib) for a scalar x + iy
inline CVec cmul(double x, double y, CVec a) { return {x * a.r - y * a.i, x * a.i + y * a.r}; }
// 1/a by the textbook formula; lanes where |a|² leaves the range of doubles
// (a guarded pivot, or extreme data) are redone with the larger part scaled out.
inline CVec crecip(CVec a) {
  const Vec n = a.r * a.r + a.i * a.i, inv = 1 / n;
  CVec out{a.r * inv, -a.i * inv};
  const auto bad = (n < 1e-290) | (n > 1e290) | (n != n);
  bool any = false;
  for (int v = 0; v < kVec; ++v) any = any || bad[v] != 0;
  if (any) {
    const Vec big = vabs(a.r) > vabs(a.i) ? vabs(a.r) : vabs(a.i), sc = 1 / big;
    const Vec r = a.r * sc, i = a.i * sc, q = sc / (r * r + i * i);
    out.r = bad ? r * q : out.r;
    out.i = bad ? -i * q : out.i;
  }
  return out;
}
inline CVec cguard(CVec p, double pivmin) {
  const auto small = vabs(p.r) + vabs(p.i) < pivmin;
  return {small ? splat(pivmin) : p.r, small ? splat(0) : p.i};
}
inline CVec cload(const double* p) { return {load(p), load(p + kVec)}; }
inline void cstore(double* p, CVec v) { store(p, v.r); store(p + kVec, v.i); }

// p'/p = d/ds log det(A − s M) of the complex pencil at kVec shifts
// (sr, si), as in newton_terms.
PSCR_LANE_CLONES
void aberth_terms(const Entries& P, const double* sr, const double* si, double* logdet_derivative) {
  const CVec s{load(sr), load(si)}, zero{splat(0), splat(0)};
  CVec t = zero, tp = zero, acc = zero;
  for (int i = 0; i < P.m; ++i) {
    const CVec p = cguard(CVec{splat(P.ar[i]), splat(P.ai[i])} - cmul(P.mr[i], P.mi[i], s) - t, P.pivmin);
    const CVec pp = CVec{splat(-P.mr[i]), splat(-P.mi[i])} - tp;
    const CVec r = crecip(p);
    acc = acc + cmul(pp, r);
    const CVec e = CVec{splat(P.br[i]), splat(P.bi[i])} - cmul(P.nr[i], P.ni[i], s);
    t = cmul(cmul(e, e), r);
    tp = cmul(zero - r, cmul(2 * P.nr[i], 2 * P.ni[i], e) + cmul(t, pp));
  }
  store(logdet_derivative, acc.r);
  store(logdet_derivative + kVec, acc.i);
}

// Σ_j≠k 1/(z_k − z_j) over the approximations z = (zr, zi), padded to a
// multiple of kVec with far-away values (their terms vanish); equal values
// contribute nothing.
PSCR_LANE_CLONES
Z repulsion(const double* zr, const double* zi, int padded, int k) {
  const double xr = zr[k], xi = zi[k];
  Vec sr = splat(0), si = splat(0);
  for (int j = 0; j < padded; j += kVec) {
    const Vec dr = xr - load(zr + j), di = xi - load(zi + j), n = dr * dr + di * di;
    const Vec w = n > 0 ? 1 / n : splat(0);
    sr += dr * w;
    si -= di * w;
  }
  double a = 0, b = 0;
  for (int v = 0; v < kVec; ++v) { a += sr[v]; b += si[v]; }
  return {a, b};
}

template <class C> double guard_size(const Tridiagonal<C>& A, const Tridiagonal<C>& M, double shift_bound) {
  double big = 1;
  for (std::size_t i = 0; i + 1 < A.size(); ++i) {
    const double e = std::abs(A.off[i]) + shift_bound * std::abs(M.off[i]);
    big = std::max(big, e * e);
  }
  // a replaced pivot makes the next term e²/pivmin, which must stay finite
  return std::numeric_limits<double>::min() / kEps * big;
}

// The vectors of the (converged) eigenvalues, M-orthogonalised against the
// kWindow neighbours before them in the order of real parts, normalised to
// wᵀ M w = 1; each eigenvalue is replaced by the Rayleigh quotient of its
// final vector. False on a breakdown (non-finite or M-isotropic vector).
template <class C>
bool eigenvectors(const Pencil<C>& P, const std::vector<int>& keep, PencilEigen<C>& out,
                  const EigenShare* share = nullptr) {
  const int m = P.m;
  std::vector<C> lam = out.lambda;
  std::vector<int> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return re(lam[a]) < re(lam[b]); });
  out.rows.assign(keep.size() * m, C(0));
  const double mnorm = norm1(P.M);
  const int chunks = (m + kVectorChunk - 1) / kVectorChunk;
  std::vector<char> failed(chunks, 0);
  std::vector<double> condition(chunks, 1.0);
  parallel_for(chunks, m >= 2 * kVectorChunk, [&](int ch) {
    if (share && !share->owns(ch, chunks)) return;
    std::vector<C> dp(m), ip(m), im(m), ax(m), lu_l(m), lu_d(m), lu_u(m), lu_u2(m);
    std::vector<lapack_int> pivots(m);
    std::vector<std::vector<C>> x(kWindow + 1, std::vector<C>(m)), mx = x;
    const int first = ch * kVectorChunk, last = std::min(m, first + kVectorChunk);
    int held = 0;  // vectors in the ring before the current one
    for (int idx = std::max(0, first - kWindow); idx < last; ++idx) {
      const int l = order[idx], slot = idx % (kWindow + 1);
      C* v = x[slot].data();
      C* mv = mx[slot].data();
      P.vector(lam[l], dp.data(), ip.data(), im.data(), v);
      // one step of inverse iteration with partial pivoting from it: the
      // twisted vector's error, about ε‖A‖/gap, shrinks by the eigenvalue's
      // error over the gap
      for (int i = 0; i < m; ++i) lu_d[i] = P.A.diag[i] - lam[l] * P.M.diag[i];
      for (int i = 0; i + 1 < m; ++i) lu_l[i] = lu_u[i] = P.A.off[i] - lam[l] * P.M.off[i];
      P.M.multiply(v, mv);
      if (gttrf(m, lu_l.data(), lu_d.data(), lu_u.data(), lu_u2.data(), pivots.data()) == 0 &&
          gttrs(m, lu_l.data(), lu_d.data(), lu_u.data(), lu_u2.data(), pivots.data(), mv) == 0) {
        double big = 0;
        for (int i = 0; i < m; ++i) big = std::max(big, abs1(mv[i]));  // a scale, not a norm
        if (big > 0 && std::isfinite(big))
          for (int i = 0; i < m; ++i) v[i] = mv[i] / big;
      }  // else λ is an eigenvalue to the last bit: the twisted vector stands
      for (int k = 1; k <= held; ++k) {
        const int ps = (idx - k) % (kWindow + 1);
        const C h = bilinear(mx[ps].data(), v, m);
        for (int i = 0; i < m; ++i) v[i] -= h * x[ps][i];
      }
      P.M.multiply(v, mv);
      const C vmv = bilinear(v, mv, m);
      double vv = 0;
      for (int i = 0; i < m; ++i) vv += std::norm(v[i]);
      if (!std::isfinite(vv) || !(std::abs(vmv) > 1e-12 * vv * mnorm)) {
        failed[ch] = 1;
        return;
      }
      if (idx >= first) condition[ch] = std::max(condition[ch], eigenvector_condition(v, mv, m));
      const C inv = C(1) / std::sqrt(vmv);
      for (int i = 0; i < m; ++i) { v[i] *= inv; mv[i] *= inv; }
      if (idx >= first) {
        P.A.multiply(v, ax.data());
        const C q = bilinear(v, ax.data(), m);  // Rayleigh quotient (v normalised)
        out.lambda[l] = q;
        for (std::size_t t = 0; t < keep.size(); ++t) out.rows[t * m + l] = v[keep[t]];
      }
      held = std::min(held + 1, kWindow);
    }
  });
  bool ok = std::none_of(failed.begin(), failed.end(), [](char f) { return f != 0; });
  out.condition = *std::max_element(condition.begin(), condition.end());
  if constexpr (std::is_same_v<C, double>) {
    if (share) {
      // the other parts' eigenvalues (their Rayleigh quotients) and vectors,
      // and whether any part failed
      for (int ch = 0; ch < chunks; ++ch)
        if (!share->owns(ch, chunks))
          for (int idx = ch * kVectorChunk; idx < std::min(m, (ch + 1) * kVectorChunk); ++idx) out.lambda[order[idx]] = 0;
      std::vector<double> all(1 + out.lambda.size() + out.rows.size());
      all[0] = ok ? 0 : 1;
      std::copy(out.lambda.begin(), out.lambda.end(), all.begin() + 1);
      std::copy(out.rows.begin(), out.rows.end(), all.begin() + 1 + std::ptrdiff_t(out.lambda.size()));
      share->sum(all.data(), all.size());
      ok = all[0] == 0;
      std::copy(all.begin() + 1, all.begin() + 1 + std::ptrdiff_t(out.lambda.size()), out.lambda.begin());
      std::copy(all.begin() + 1 + std::ptrdiff_t(out.lambda.size()), all.end(), out.rows.begin());
    }
  }
  return ok;
}

// Safeguarded Newton for one eigenvalue in its isolating interval: Newton's
// step is taken where it stays in the interval and at least halves the step
// before the last one; otherwise the interval is halved (far from the
// eigenvalue, Newton on a determinant of degree m creeps by about 1/m of the
// distance).
struct NewtonLane {
  int k = -1;  // eigenvalue index (its interval holds eigenvalue k, 0-based), −1: idle
  double lo = 0, hi = 0, s = 0, dx = 0, dx_old = 0, last_newton = 0;
  int steps = 0;
  void start(int index, const Interval& v) {
    k = index;
    lo = v.lo;
    hi = v.hi;
    s = 0.5 * (lo + hi);
    dx = dx_old = hi - lo;
    last_newton = std::numeric_limits<double>::infinity();
    steps = 0;
  }
  // One step from the count and p'/p at s; true when the eigenvalue is `result`.
  bool step(int count, double derivative, double pivmin, double& result) {
    ++steps;
    if (count > k) hi = s;  // more than k eigenvalues below s
    else lo = s;
    // p'/p is infinite or NaN only where a guarded pivot overflowed its
    // derivative (s at an eigenvalue of a leading block): then bisect
    const double newton = std::isfinite(derivative) && derivative != 0 ? s - 1 / derivative : lo - 1;
    const double size = std::abs(newton - s), tol = 4 * kEps * std::abs(s) + pivmin;
    const bool inside = newton >= lo && newton <= hi;
    // converged, or stalled at the rounding level of the determinant
    if (inside && (size <= tol || (size <= 1e4 * tol && size >= 0.5 * last_newton))) {
      result = newton;
      return true;
    }
    if (hi - lo <= 2 * kEps * std::max(std::abs(lo), std::abs(hi)) + pivmin) {
      result = 0.5 * (lo + hi);
      return true;
    }
    last_newton = size;
    dx_old = dx;
    if (inside && size < 0.5 * dx_old) {
      dx = size;
      s = newton;
    } else {
      dx = 0.5 * (hi - lo);
      s = 0.5 * (lo + hi);
    }
    return false;
  }
};

}  // namespace

// tr(M⁻¹A) = Σ_i (M⁻¹)_ii A_ii + 2 Σ_i (M⁻¹)_i,i+1 A_i,i+1, the sum of the
// pencil's eigenvalues: (M⁻¹)_ii = 1/γ_i from the twisted factorisations of M,
// (M⁻¹)_i,i+1 = −(M_i,i+1 / D⁺_i) (M⁻¹)_i+1,i+1.
Z trace_minv_a(const Tridiagonal<Z>& A, const Tridiagonal<Z>& M) {
  const int m = int(M.size());
  std::vector<Z> up(m), down(m);
  for (int i = 0; i < m; ++i) up[i] = M.diag[i] - (i > 0 ? M.off[i - 1] * M.off[i - 1] / up[i - 1] : Z(0));
  for (int i = m - 1; i >= 0; --i) down[i] = M.diag[i] - (i + 1 < m ? M.off[i] * M.off[i] / down[i + 1] : Z(0));
  Z tr = 0, g_next = 0;
  for (int i = m - 1; i >= 0; --i) {
    const Z g = Z(1) / (up[i] + down[i] - M.diag[i]);
    tr += g * A.diag[i];
    if (i + 1 < m) tr -= 2.0 * M.off[i] / up[i] * g_next * A.off[i];
    g_next = g;
  }
  return tr;
}

bool sum_matches_trace(const std::vector<Z>& lambda, const Tridiagonal<Z>& A, const Tridiagonal<Z>& M) {
  Z sum = 0;
  double magnitude = 0;
  for (const Z& l : lambda) {
    sum += l;
    magnitude += std::abs(l);
  }
  return std::abs(sum - trace_minv_a(A, M)) <= 4 * double(lambda.size()) * kEps * magnitude;
}

std::optional<PencilEigen<double>> eigen_newton(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                                const std::vector<int>& keep, bool vectors) {
  const int m = int(A.size());
  if (m == 0 || M.size() != A.size()) return std::nullopt;
  // M positive definite (its pivots), and a bound on |λ|: |λ| ≤ ‖A‖∞ / λ_min(M)
  double mlow = std::numeric_limits<double>::infinity(), p = 0;
  for (int i = 0; i < m; ++i) {
    p = M.diag[i] - (i > 0 ? M.off[i - 1] * M.off[i - 1] / p : 0.0);
    if (!(p > 0) || !std::isfinite(p)) return std::nullopt;
    double g = M.diag[i];
    if (i > 0) g -= std::abs(M.off[i - 1]);
    if (i + 1 < m) g -= std::abs(M.off[i]);
    mlow = std::min(mlow, g);
  }
  const double mdiag_min = *std::min_element(M.diag.begin(), M.diag.end());
  double bound = norm1(A) / (mlow > 0 ? mlow : mdiag_min) * (1 + 1e-8) + std::numeric_limits<double>::min();
  if (!std::isfinite(bound)) return std::nullopt;
  const Entries P(A, M, guard_size(A, M, bound));
  const EigenShare* share = eigen_share(m);  // planner.cpp asks on its own thread only, vectors or not
  auto counts = [&](const std::vector<double>& x) {
    return shared_counts(share, x, [&](const std::vector<double>& points) {
      return counts_at(m, points, [&](const double* lanes, int* out) { sturm_counts(P, lanes, out); });
    });
  };
  for (int k = 0;; ++k) {
    const auto ends = counts({-bound, bound});
    if (ends[0] == 0 && ends[1] == m) break;
    if (k == 64) return std::nullopt;
    bound *= 2;
  }
  // a cluster that bisection cannot separate goes to the Crawford path, which orthogonalises it
  const std::vector<Interval> isolated = isolate(m, -bound, bound, P.pivmin, false, kMaxRounds, counts);
  if (int(isolated.size()) != m) return std::nullopt;

  PencilEigen<double> out;
  out.method = "newton";
  out.lambda.assign(m, 0);
  const int tasks = (m + kBatch - 1) / kBatch;
  std::vector<char> failed(tasks, 0);
  parallel_for(tasks, m >= 128, [&](int t) {
    if (share && !share->owns(t, tasks)) return;  // its eigenvalues stay 0 until the sum below
    NewtonLane lane[kVec];
    int queue = t * kBatch;
    const int end = std::min(m, (t + 1) * kBatch);
    for (;;) {
      double s[kVec], count[kVec], derivative[kVec];
      bool busy = false;
      for (int v = 0; v < kVec; ++v) {
        if (lane[v].k < 0 && queue < end) {
          lane[v].start(queue, isolated[queue]);
          ++queue;
        }
        busy = busy || lane[v].k >= 0;
        s[v] = lane[v].k >= 0 ? lane[v].s : 0.0;
      }
      if (!busy) break;
      newton_terms(P, s, count, derivative);
      for (int v = 0; v < kVec; ++v) {
        if (lane[v].k < 0) continue;
        if (lane[v].step(int(count[v]), derivative[v], P.pivmin, out.lambda[lane[v].k])) {
          lane[v].k = -1;
        } else if (lane[v].steps >= kMaxNewton) {
          failed[t] = 1;
          lane[v].k = -1;
        }
      }
    }
  });
  bool ok = std::none_of(failed.begin(), failed.end(), [](char f) { return f != 0; });
  if (share) {  // the other parts' eigenvalues, and whether any part failed
    std::vector<double> all(1 + std::size_t(m));
    all[0] = ok ? 0 : 1;
    std::copy(out.lambda.begin(), out.lambda.end(), all.begin() + 1);
    share->sum(all.data(), all.size());
    ok = all[0] == 0;
    std::copy(all.begin() + 1, all.end(), out.lambda.begin());
  }
  if (!ok) return std::nullopt;
  if (vectors && !eigenvectors(Pencil<double>{A, M, m, P.pivmin}, keep, out, share)) return std::nullopt;
  return out;
}

std::optional<PencilEigen<Z>> eigen_aberth(const Tridiagonal<Z>& A, const Tridiagonal<Z>& M,
                                           const std::vector<int>& keep, const std::vector<double>& seeds,
                                           bool vectors) {
  const int m = int(A.size());
  if (m == 0 || M.size() != A.size() || int(seeds.size()) != m) return std::nullopt;
  double scale = 0;
  for (double s : seeds) scale = std::max(scale, std::abs(s));
  scale = scale * 2 + norm1(A);
  if (!std::isfinite(scale)) return std::nullopt;
  const Entries P(A, M, guard_size(A, M, scale));
  const int padded = (m + kVec - 1) / kVec * kVec;
  // the approximations divided by `scale` (for the repulsion sums), padding far away
  std::vector<double> zr(padded, 1e200), zi(padded, 0.0);
  std::vector<Z> lam(seeds.begin(), seeds.end()), next = lam;
  std::vector<double> last_step(m, std::numeric_limits<double>::infinity());
  std::vector<char> done(m, 0);
  for (int sweep = 0;; ++sweep) {
    std::vector<int> active;
    for (int k = 0; k < m; ++k)
      if (!done[k]) active.push_back(k);
    if (active.empty()) break;
    if (sweep == kMaxSweeps) return std::nullopt;
    for (int k = 0; k < m; ++k) { zr[k] = lam[k].real() / scale; zi[k] = lam[k].imag() / scale; }
    const int n = int(active.size()), tasks = (n + kBatch - 1) / kBatch;
    // Each task updates its block of approximations in order and uses its own
    // new values at once (Gauss–Seidel within the block, so that a collective
    // shift of the roots travels through a block in one sweep), the other
    // blocks' values from the previous sweep (the result does not depend on
    // the thread count).
    parallel_for(tasks, m >= 128, [&](int t) {
      std::vector<double> wr = zr, wi = zi;
      const int end = std::min(n, (t + 1) * kBatch);
      for (int a0 = t * kBatch; a0 < end; a0 += kVec) {
        double sr[kVec], si[kVec], derivative[2 * kVec];
        for (int v = 0; v < kVec; ++v) {
          const int k = active[std::min(a0 + v, end - 1)];
          sr[v] = lam[k].real();
          si[v] = lam[k].imag();
        }
        aberth_terms(P, sr, si, derivative);
        for (int v = 0; v < kVec && a0 + v < end; ++v) {
          const int k = active[a0 + v];
          // Aberth: λ − (p/p') / (1 − (p/p') Σ) = λ − 1/(p'/p − Σ)
          const Z sum = repulsion(wr.data(), wi.data(), padded, k) / scale;
          const Z dlog(derivative[v], derivative[kVec + v]);
          if (!std::isfinite(dlog.real()) || !std::isfinite(dlog.imag())) {
            // a guarded pivot overflowed its derivative (λ_k at an eigenvalue
            // of a leading block, e.g. a real seed and a real leading block):
            // move λ_k off it by a relative 1e-9 and try again next sweep
            next[k] = lam[k] + Z(0, -1e-9 * (std::abs(lam[k]) + 1e-6 * scale));
            wr[k] = next[k].real() / scale;
            wi[k] = next[k].imag() / scale;
            continue;
          }
          const Z step = -reciprocal(dlog - sum);
          next[k] = lam[k] + step;
          wr[k] = next[k].real() / scale;
          wi[k] = next[k].imag() / scale;
          // Converged to the working precision, to the absolute accuracy of
          // the spectrum (ε times its extent), or stalled at the rounding level
          // of the determinant (steps that no longer shrink fourfold).
          const double size = std::abs(step), tol = 4 * kEps * std::abs(next[k]);
          if (size <= tol || size <= 4 * kEps * scale ||
              (size <= 1e4 * std::max(tol, 4e-3 * kEps * scale) && size >= 0.25 * last_step[k]))
            done[k] = 1;
          last_step[k] = size;
        }
      }
    });
    for (int k : active) {
      if (!std::isfinite(next[k].real()) || !std::isfinite(next[k].imag())) return std::nullopt;
      lam[k] = next[k];
    }
  }
  // All m roots of det(A − λM) must have been found: finite and distinct, or
  // a multiple root. Two approximations of one simple root are not a fixed
  // point (the repulsion moves each by about their distance), so they can
  // pass the stalling test above only within 1e4 times its tolerance of each
  // other; ten times that apart, they are two roots. Closer pairs are either
  // one root found twice (and another missed) or a multiple root: the sum of
  // all m roots, tr(M⁻¹A), tells which.
  std::vector<int> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return lam[a].real() < lam[b].real(); });
  auto apart = [&](const Z& v) { return 4e5 * kEps * std::max(std::abs(v), 1e-3 * scale); };
  std::vector<int> twice;  // one of each pair that met
  double magnitude_sum = 0;
  for (int a = 0; a < m; ++a) {
    const Z va = lam[order[a]];
    if (!std::isfinite(va.real()) || !std::isfinite(va.imag())) return std::nullopt;
    magnitude_sum += std::abs(va);
    for (int b = a + 1; b < m && lam[order[b]].real() - va.real() <= apart(va); ++b)
      if (std::abs(lam[order[b]] - va) <= apart(va)) twice.push_back(order[b]);
  }
  if (!twice.empty()) {
    std::sort(twice.begin(), twice.end());
    twice.erase(std::unique(twice.begin(), twice.end()), twice.end());
    Z missed = trace_minv_a(A, M), repeated = 0;  // the missed roots' sum, if any were missed
    for (int k = 0; k < m; ++k)
      if (std::binary_search(twice.begin(), twice.end(), k)) repeated += lam[k];
      else missed -= lam[k];
    if (!(std::abs(missed - repeated) <= 1e3 * kEps * magnitude_sum)) return std::nullopt;
  }
  // All the same, the sum: the iteration can also settle on m distinct values
  // that are not all roots (measured on a uniform 4095-row Helmholtz pencil
  // at omega 0.3 m: a sum off by 1.3e-6 of Σ|λ|, with no two values close).
  if (!sum_matches_trace(lam, A, M)) return std::nullopt;
  PencilEigen<Z> out;
  out.method = "aberth";
  out.lambda = lam;
  if (vectors && !eigenvectors(Pencil<Z>{A, M, m, P.pivmin}, keep, out)) return std::nullopt;
  return out;
}

}  // namespace pscr::planner
