#include "toeplitz_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <complex>
#include <limits>
#include <numeric>

#include "lanes.hpp"
#include "pencil_roots.hpp"
#include "../sin_pi.hpp"

namespace pscr::planner {

namespace {

// The type of an end row; `either` for a diagonal matrix, whose end fits both.
enum class End { either, dirichlet, neumann };


// The matrix as αI + βL with the end types: empty when it is not of that form.
struct Family {
  long double alpha, beta;
  End left, right;
};

std::optional<Family> family_of(const Tridiagonal<double>& t) {
  const int m = int(t.size());
  const double off = t.off[0], inner = t.diag[1];
  for (int i = 1; i + 1 < m; ++i)
    if (t.off[i] != off) return std::nullopt;
  for (int i = 2; i + 1 < m; ++i)
    if (t.diag[i] != inner) return std::nullopt;
  Family f;
  f.beta = -(long double)off;
  f.alpha = (long double)inner - 2 * f.beta;
  auto end = [&](double d) -> std::optional<End> {
    if (d == inner) return off == 0 ? End::either : End::dirichlet;
    if (off != 0 && d == inner + off && (long double)d == (long double)inner + off) return End::neumann;
    return std::nullopt;
  };
  const auto l = end(t.diag[0]), r = end(t.diag[m - 1]);
  if (!l || !r) return std::nullopt;
  f.left = *l;
  f.right = *r;
  return f;
}

// The end type A and M agree on (both `either`: Dirichlet); empty when they disagree.
std::optional<End> merge(End a, End b) {
  if (a == End::either) return b == End::either ? End::dirichlet : b;
  if (b == End::either || a == b) return a;
  return std::nullopt;
}

}  // namespace

namespace {

// A pencil of two such matrices with the end types they agree on.
struct ToeplitzPencil {
  Family a, m;
  End left, right;
};

std::optional<ToeplitzPencil> toeplitz_pencil(const Tridiagonal<double>& A, const Tridiagonal<double>& M) {
  if (A.size() < 3 || M.size() != A.size()) return std::nullopt;
  const auto fa = family_of(A), fm = family_of(M);
  if (!fa || !fm) return std::nullopt;
  const auto left = merge(fa->left, fm->left), right = merge(fa->right, fm->right);
  if (!left || !right) return std::nullopt;
  return ToeplitzPencil{*fa, *fm, *left, *right};
}

}  // namespace

namespace {
// A cyclic matrix as αI + βL (L the cyclic tridiag(−1, 2, −1)): every entry alike.
std::optional<Family> circulant_family(const Tridiagonal<double>& t) {
  if (!t.periodic()) return std::nullopt;
  for (double v : t.diag)
    if (v != t.diag[0]) return std::nullopt;
  for (double v : t.off)
    if (v != t.off[0]) return std::nullopt;
  Family f;
  f.beta = -(long double)t.off[0];
  f.alpha = (long double)t.diag[0] - 2 * f.beta;
  f.left = f.right = End::either;
  return f;
}
}  // namespace

namespace {
// A circulant pencil's eigenvalues and M-normalising scales in the order of
// the real Fourier basis (fourier_basis), for any m >= 3; empty when the
// pencil is not circulant or M is not positive definite.
std::optional<SineBasis> circulant_modes(const Tridiagonal<double>& A, const Tridiagonal<double>& M) {
  const int m = int(A.size());
  if (m < 3 || int(M.size()) != m) return std::nullopt;
  const auto fa = circulant_family(A), fm = circulant_family(M);
  if (!fa || !fm) return std::nullopt;
  SineBasis b;
  b.fourier = true;
  for (int l = 0; l < m; ++l) {
    const int k = (l + 1) / 2;
    const double s = sin_pi<double>(k, m);
    const long double mu = 4.0L * s * s;
    const long double a = fa->alpha + fa->beta * mu, g = fm->alpha + fm->beta * mu;
    if (!(g > 0) || !std::isfinite(double(a))) return std::nullopt;  // M not positive definite
    b.lambda.push_back(double(a / g));
    // ‖cos‖² = ‖sin‖² = m / 2, the constant's and the alternating vector's m; M-normal: divided by g
    const bool single = k == 0 || 2 * k == m;
    b.scale.push_back(double(1 / std::sqrt((single ? (long double)m : m / 2.0L) * g)));
  }
  return b;
}
}  // namespace

std::optional<PencilEigen<double>> eigen_circulant(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                                   const std::vector<int>& keep, bool vectors) {
  const auto b = circulant_modes(A, M);
  if (!b) return std::nullopt;
  const int m = int(A.size());
  // column l of the basis: frequency k = (l + 1) / 2, the cosine for even l
  // and the sine for odd (l = 0: the constant; m even, l = m − 1: the
  // alternating vector); ascending eigenvalues
  std::vector<int> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return b->lambda[std::size_t(x)] < b->lambda[std::size_t(y)]; });
  PencilEigen<double> out;
  out.method = "toeplitz";
  for (int l : order) out.lambda.push_back(b->lambda[std::size_t(l)]);
  if (!vectors) return out;
  out.rows.assign(keep.size() * std::size_t(m), 0.0);
  for (int c = 0; c < m; ++c) {
    const int l = order[std::size_t(c)], k = (l + 1) / 2;
    const bool sine = l % 2 == 1 && 2 * k != m;
    for (std::size_t t = 0; t < keep.size(); ++t) {
      const std::int64_t jk = std::int64_t(keep[t]) * k % m;  // the phase 2π j k / m, reduced
      const double v = sine ? sin_pi<double>(2 * jk, m) : cos_pi<double>(2 * jk, m);
      out.rows[t * std::size_t(m) + std::size_t(c)] = b->scale[std::size_t(l)] * v;
    }
  }
  return out;
}

std::optional<SineBasis> fourier_basis(const Tridiagonal<double>& A, const Tridiagonal<double>& M) {
  if (A.size() < 4 || A.size() % 2 != 0) return std::nullopt;
  return circulant_modes(A, M);
}

std::optional<SineBasis> sine_basis(const Tridiagonal<double>& A, const Tridiagonal<double>& M) {
  const auto p = toeplitz_pencil(A, M);
  if (!p || p->left != End::dirichlet || p->right != End::dirichlet) return std::nullopt;
  const int m = int(A.size());
  SineBasis b;
  b.lambda.resize(std::size_t(m));
  b.scale.resize(std::size_t(m));
  for (int k = 1; k <= m; ++k) {
    const double s = sin_pi<double>(k, 2 * (m + 1));
    const long double mu = 4.0L * s * s;
    const long double a = p->a.alpha + p->a.beta * mu, g = p->m.alpha + p->m.beta * mu;
    if (!(g > 0) || !std::isfinite(double(a))) return std::nullopt;  // M not positive definite
    b.lambda[std::size_t(k - 1)] = double(a / g);
    // ‖sin(π i k / (m + 1))‖² = (m + 1) / 2; M-normal: divided by ν_k = g
    b.scale[std::size_t(k - 1)] = double(1 / std::sqrt((m + 1) / 2.0L * g));
  }
  return b;
}

std::optional<PencilEigen<double>> eigen_toeplitz(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                                  const std::vector<int>& keep, bool vectors) {
  const int m = int(A.size());
  const auto p = toeplitz_pencil(A, M);
  if (!p) return std::nullopt;
  const Family* fa = &p->a;
  const Family* fm = &p->m;
  const End left = p->left, right = p->right;
  // θ_k = π · num(k) / den, μ_k = 4 sin²(θ_k / 2), the eigenvector entries v_i
  // (i = 1..m) and ‖v‖²: Dirichlet–Dirichlet sin(i θ), Neumann–Neumann
  // cos((i − ½) θ), Dirichlet–Neumann sin(i θ) (Neumann–Dirichlet mirrored).
  const bool nn = left == End::neumann && right == End::neumann;
  const bool mixed = left != right;
  const std::int64_t den = nn ? m : mixed ? 2 * m + 1 : m + 1;
  auto num = [&](int k) -> std::int64_t { return nn ? k : mixed ? 2 * k + 1 : k + 1; };  // k = 0..m−1
  std::vector<long double> lam(m);
  std::vector<double> nu(m);
  for (int k = 0; k < m; ++k) {
    const double s = sin_pi<double>(num(k), 2 * den);
    const long double mu = 4.0L * s * s;
    const long double a = fa->alpha + fa->beta * mu, g = fm->alpha + fm->beta * mu;
    if (!(g > 0) || !std::isfinite(double(a))) return std::nullopt;  // M not positive definite
    lam[k] = a / g;
    nu[k] = double(g);
  }
  std::vector<int> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return lam[x] < lam[y]; });
  PencilEigen<double> out;
  out.method = "toeplitz";
  out.lambda.resize(m);
  for (int l = 0; l < m; ++l) out.lambda[l] = double(lam[order[l]]);
  if (!vectors) return out;
  out.rows.assign(keep.size() * std::size_t(m), 0.0);
  for (int l = 0; l < m; ++l) {
    const int k = order[l];
    const double norm2 = nn ? (k == 0 ? double(m) : m / 2.0) : mixed ? (2 * m + 1) / 4.0 : (m + 1) / 2.0;
    const double scale = 1 / std::sqrt(norm2 * nu[k]);
    for (std::size_t t = 0; t < keep.size(); ++t) {
      const std::int64_t i = keep[t] + 1;  // 1-based row
      double v;
      if (nn) v = cos_pi<double>((2 * i - 1) * num(k), 2 * den);
      else if (mixed && left == End::neumann) v = sin_pi<double>((m + 1 - i) * num(k), den);
      else v = sin_pi<double>(i * num(k), den);
      out.rows[t * m + l] = v * scale;
    }
  }
  return out;
}


// ---------------------------------------------------------------------------
// Toeplitz pencils whose two end diagonal entries differ (absorbing or other
// boundary terms), complex symmetric. Notation (docs/eigen.md):
//   interior rows of T(λ) = A − λM: o v_{i−1} + d v_i + o v_{i+1}, with
//   d + 2o cos θ = 0, i.e. λ(θ) = (α_A + β_A μ)/(α_M + β_M μ), μ = 4 sin²(θ/2);
//   end rows add e_x(λ) = εA_x − λ εM_x to the diagonal, c_x = e_x / o.
// With w = e^{iθ}, v_i = w^i − ρ w^{−i} solves the interior and the left end
// row for ρ = (1 − c_L w)/(1 − c_L/w); the right end row then gives
//   E(θ) = (1 − c_L w)(1 − c_R w) − w^{2m+2} (1 − c_L/w)(1 − c_R/w) = 0,
// or, taking logarithms, for some integer label k,
//   H_k(θ) = (m+1) θ − π k − φ(θ) = 0,
//   φ = −(i/2) Σ_x [log(1 − c_x w) − log(1 − c_x/w)].
// The m eigenvalues of a pure Toeplitz pencil are the labels k = 1..m
// (φ = 0); small end terms move each one a little, so Newton's method on H_k
// from θ = πk/(m+1) finds nearly all of them with O(1) work each. Where an end
// term is large enough to bind a mode to that end (|w| < 1 at the root), a
// label or two fail or duplicate another; those roots are found by Aberth
// steps on det(A − λM) deflated by all the others, again with O(1) work per
// evaluation. The result is accepted only when m distinct roots were found
// and their sum is tr(M⁻¹A); otherwise the caller takes the general path.
// ---------------------------------------------------------------------------

namespace {

// Long double (x87 extended on x86-64) inside: a vector entry is e^{ikθ} for k
// up to m, whose phase error is k times that of θ; 11 more bits keep it below
// double rounding for any m a plan can hold.
using Z = std::complex<double>;
using R = long double;
using W = std::complex<R>;
constexpr R kEps = std::numeric_limits<R>::epsilon();
constexpr R kPi = 3.14159265358979323846264338327950288L;
const W kI(0, 1);

// e^x − 1 without cancellation for small |x|.
W expm1(W x) {
  const R s = std::sin(x.imag() / 2);
  return {std::expm1(x.real()) * std::cos(x.imag()) - 2 * s * s, std::exp(x.real()) * std::sin(x.imag())};
}

// Σ_{j=1}^n w^{2j} for w = e^{iθ}, Im θ ≥ 0.
W power_sum(W theta, int n) {
  const W den = expm1(2.0L * kI * theta);
  if (den == W(0)) return R(n);
  return std::exp(2.0L * kI * theta) * expm1(2.0L * kI * R(n) * theta) / den;
}

struct EndPencil {
  int m = 0;
  W oA, oM, alA, beA, alM, beM;
  W eA[2], eM[2];
  bool symmetric = false;

  // λ(θ) and dλ/dθ.
  void lambda(W th, W& l, W& dl) const {
    const W s = std::sin(th / 2.0L), mu = 4.0L * s * s, den = alM + beM * mu;
    l = (alA + beA * mu) / den;
    dl = 2.0L * std::sin(th) * (beA * alM - alA * beM) / (den * den);
  }
  W lambda(W th) const {
    W l, dl;
    lambda(th, l, dl);
    return l;
  }
  // c_x(θ) and dc_x/dθ, and o(λ).
  void ends(W th, W c[2], W dc[2], W& o, W& dl) const {
    W l;
    lambda(th, l, dl);
    o = oA - l * oM;
    for (int x = 0; x < 2; ++x) {
      c[x] = (eA[x] - l * eM[x]) / o;
      dc[x] = (oM * eA[x] - eM[x] * oA) / (o * o) * dl;
    }
  }
  // The θ of λ with Im θ ≥ 0 (|w| ≤ 1).
  W theta(W l) const {
    const W mu = (alA - l * alM) / (l * beM - beA);
    W th = 2.0L * std::asin(std::sqrt(mu) / 2.0L);
    return th.imag() < 0 ? -th : th;
  }
  // d/dλ log det(A − λM) = m o'/o + (−(m+1) i + E'/E − cot θ) dθ/dλ.
  W log_derivative(W l) const {
    const W th = theta(l), w = std::exp(kI * th), wi = 1.0L / w, big = std::exp(R(2 * m + 2) * kI * th);
    W c[2], dc[2], o, dl;
    ends(th, c, dc, o, dl);
    W p[2], q[2], dp[2], dq[2];  // 1 − c w, 1 − c/w and their θ-derivatives
    for (int x = 0; x < 2; ++x) {
      p[x] = 1.0L - c[x] * w;
      q[x] = 1.0L - c[x] * wi;
      dp[x] = -(dc[x] + kI * c[x]) * w;
      dq[x] = -(dc[x] - kI * c[x]) * wi;
    }
    const W E = p[0] * p[1] - big * q[0] * q[1];
    const W dE = dp[0] * p[1] + p[0] * dp[1] - big * (R(2 * m + 2) * kI * q[0] * q[1] + dq[0] * q[1] + q[0] * dq[1]);
    return R(m) * -oM / o + (-R(m + 1) * kI + dE / E - std::cos(th) / std::sin(th)) / dl;
  }
  // θ solving H_k, or empty when Newton's method does not converge.
  std::optional<W> label_root(int k) const {
    W th(kPi * k / (m + 1), 0);
    R last = std::numeric_limits<R>::infinity();
    for (int it = 0; it < 40; ++it) {
      W c[2], dc[2], o, dl;
      ends(th, c, dc, o, dl);
      const W w = std::exp(kI * th), wi = 1.0L / w;
      W phi = 0, dphi = 0;
      for (int x = 0; x < 2; ++x) {
        phi += std::log(1.0L - c[x] * w) - std::log(1.0L - c[x] * wi);
        dphi += -(dc[x] + kI * c[x]) * w / (1.0L - c[x] * w) + (dc[x] - kI * c[x]) * wi / (1.0L - c[x] * wi);
      }
      phi *= -0.5L * kI;
      dphi *= -0.5L * kI;
      const W step = (R(m + 1) * th - kPi * k - phi) / (R(m + 1) - dphi);
      th -= step;
      const R size = std::abs(step), tol = 4 * kEps * std::abs(th);
      if (!std::isfinite(size)) return std::nullopt;
      if (size <= tol || (size <= 1e4 * tol && size >= 0.25L * last)) return th;
      last = size;
    }
    return std::nullopt;
  }
};

std::optional<EndPencil> end_pencil(const Tridiagonal<Z>& A, const Tridiagonal<Z>& M) {
  const int m = int(A.size());
  if (m < 4 || int(M.size()) != m) return std::nullopt;
  for (int i = 0; i + 1 < m; ++i)
    if (A.off[i] != A.off[0] || M.off[i] != M.off[0]) return std::nullopt;
  for (int i = 1; i + 1 < m; ++i)
    if (A.diag[i] != A.diag[1] || M.diag[i] != M.diag[1]) return std::nullopt;
  EndPencil p;
  p.m = m;
  const W dA(A.diag[1]), dM(M.diag[1]);
  p.oA = W(A.off[0]);
  p.oM = W(M.off[0]);
  if (p.oA == W(0) && p.oM == W(0)) return std::nullopt;  // diagonal: no coupling to parametrise
  p.alA = dA + 2.0L * p.oA;
  p.beA = -p.oA;
  p.alM = dM + 2.0L * p.oM;
  p.beM = -p.oM;
  p.eA[0] = W(A.diag[0]) - dA;
  p.eA[1] = W(A.diag[m - 1]) - dA;
  p.eM[0] = W(M.diag[0]) - dM;
  p.eM[1] = W(M.diag[m - 1]) - dM;
  if (p.beA * p.alM - p.alA * p.beM == W(0)) return std::nullopt;  // λ(θ) constant: A ∝ M inside
  p.symmetric = p.eA[0] == p.eA[1] && p.eM[0] == p.eM[1];
  return p;
}

// Two roots closer than `apart` are accepted only as the pair of modes that
// identical ends bind: one of each parity, their eigenvalues e^{−(m+1) Im θ}
// apart relative to their size (two of the same bit at 4095 rows and ω = 0.3 m,
// 1e-16 apart at about 1500 rows). Below 1e-10 the pair is certainly bound;
// the sum check still tells one root found twice from two.
bool bound_pair(const EndPencil& p, W theta) {
  return p.symmetric && std::abs(std::exp(R(p.m + 1) * kI * theta)) <= 1e-10L;
}

}  // namespace

std::optional<PencilEigen<Z>> eigen_toeplitz_ends(const Tridiagonal<Z>& A, const Tridiagonal<Z>& M,
                                                  const std::vector<int>& keep, bool vectors) {
  const auto pencil = end_pencil(A, M);
  if (!pencil) return std::nullopt;
  const EndPencil& p = *pencil;
  const int m = p.m;
  // Labels 0..m+1 (the end terms can shift the set by one either way).
  const int labels = m + 2;
  // Each root is kept with its θ: near θ = 0 and π, λ(θ) is flat and θ(λ) is
  // ill-conditioned, and the vector depends on θ, not λ.
  struct Root {
    W l, th;
  };
  std::vector<Root> found(labels);
  std::vector<char> ok(labels, 0);
  parallel_for((labels + 63) / 64, m >= 256, [&](int t) {
    for (int k = t * 64; k < std::min(labels, (t + 1) * 64); ++k) {
      const auto th = p.label_root(k);
      // θ = 0 and π solve H_k for every pencil (sin θ = 0: not an eigenvalue of T)
      if (th && std::abs(std::sin(*th)) > 1e-8) {
        // the representative with Im θ ≥ 0 (|w| ≤ 1)
        found[k] = {p.lambda(*th), th->imag() < 0 ? -*th : *th};
        ok[k] = std::isfinite(found[k].l.real()) && std::isfinite(found[k].l.imag());
      }
    }
  });
  std::vector<Root> lam;
  std::vector<W> starts;
  for (int k = 0; k < labels; ++k) {
    if (ok[k]) lam.push_back(found[k]);
    else if (k >= 1 && k <= m) starts.push_back(p.lambda(W(kPi * k / (m + 1), 0)) * W(1, 1e-3L));
  }
  auto apart = [](W a, W b) { return std::abs(a - b) > 4e5 * kEps * std::max(std::abs(a), std::abs(b)); };
  auto by_real = [](const Root& a, const Root& b) { return a.l.real() < b.l.real(); };
  std::sort(lam.begin(), lam.end(), by_real);
  {
    std::vector<Root> kept;  // one of each set of labels that found the same root
    for (const Root& r : lam) {
      bool seen = false;
      for (auto it = kept.rbegin(); it != kept.rend() && r.l.real() - it->l.real() <= 4e5 * kEps * std::abs(r.l); ++it)
        seen = seen || !apart(r.l, it->l);
      if (seen) starts.push_back(r.l * W(1, 1e-3L));
      else kept.push_back(r);
    }
    lam.swap(kept);
  }
  if (int(lam.size()) > m) return std::nullopt;
  // The missing roots: Aberth steps on det(A − λM) / Π_known (λ − λ_j).
  const int missing = m - int(lam.size());
  if (missing > 0) {
    if (int(starts.size()) < missing) return std::nullopt;
    std::vector<W> z(starts.begin(), starts.begin() + missing);
    std::vector<R> last(missing, std::numeric_limits<R>::infinity());
    std::vector<char> done(missing, 0);
    for (int sweep = 0;; ++sweep) {
      if (sweep == 100) return std::nullopt;
      bool all = true;
      for (int a = 0; a < missing; ++a) {
        if (done[a]) continue;
        W sum = 0;
        for (const Root& r : lam) sum += 1.0L / (z[a] - r.l);
        for (int b = 0; b < missing; ++b)
          if (b != a && z[b] != z[a]) sum += 1.0L / (z[a] - z[b]);
        const W step = -1.0L / (p.log_derivative(z[a]) - sum);
        z[a] += step;
        const R size = std::abs(step), tol = 4 * kEps * std::abs(z[a]);
        if (!std::isfinite(size)) return std::nullopt;
        if (size <= tol || (size <= 1e4 * tol && size >= 0.25L * last[a])) done[a] = 1;
        else all = false;
        last[a] = size;
      }
      if (all) break;
    }
    for (W v : z) lam.push_back({v, p.theta(v)});  // bound modes: θ well away from 0 and π
    std::sort(lam.begin(), lam.end(), by_real);
  }
  // m distinct roots (a close pair only as two bound modes), summing to tr(M⁻¹A).
  std::vector<char> second(m, 0);  // the second of a close pair
  for (int a = 0; a < m; ++a) {
    for (int b = a + 1; b < m && lam[b].l.real() - lam[a].l.real() <= 4e5 * kEps * std::abs(lam[a].l); ++b)
      if (!apart(lam[a].l, lam[b].l)) {
        if (second[a] || second[b] || !bound_pair(p, lam[a].th)) return std::nullopt;
        second[b] = 1;
      }
  }
  PencilEigen<Z> out;
  out.method = "toeplitz";
  for (const Root& r : lam) out.lambda.push_back(Z(r.l));
  if (!sum_matches_trace(out.lambda, A, M)) return std::nullopt;
  if (!vectors) return out;
  // Each vector as v_i = a w^i + b w^{m+1−i} (i = 1..m, |w| ≤ 1, max(|a|, |b|) = 1):
  //   symmetric ends: b = −s a with the parity s of the root (E = E₊ E₋,
  //     E_s = (1 − c w) − s w^{m+1} (1 − c/w));
  //   otherwise from the end whose factor 1 − c_x w is larger (no cancellation).
  // wᵀMw in closed form through the sums of w^{2j}.
  out.rows.assign(keep.size() * std::size_t(m), Z(0));
  std::vector<char> failed(m, 0);
  parallel_for((m + 63) / 64, m >= 256, [&](int t) {
    for (int l = t * 64; l < std::min(m, (t + 1) * 64); ++l) {
      const W th = lam[l].th, w = std::exp(kI * th), wi = 1.0L / w;
      const W wm = std::exp(R(m + 1) * kI * th);  // w^{m+1}
      W c[2], dc[2], o, dl;
      p.ends(th, c, dc, o, dl);
      W a = 1, b = 0;
      if (p.symmetric) {
        R s;
        if (second[l]) s = -1;  // a close pair: one of each parity
        else if (l + 1 < m && second[l + 1]) s = 1;
        else {
          const W u = 1.0L - c[0] * w, v = wm * (1.0L - c[0] * wi);
          s = std::abs(u - v) <= std::abs(u + v) ? 1 : -1;
        }
        b = -s;
      } else {
        // ρ w^{−(m+1)} from the left (x = 0) or the right (x = 1) end, in logarithms
        const int x = std::abs(1.0L - c[0] * w) >= std::abs(1.0L - c[1] * w) ? 0 : 1;
        const W L = std::log(1.0L - c[x] * w) - std::log(1.0L - c[x] * wi) - R(m + 1) * kI * th;
        W& near = x == 0 ? a : b;
        W& far = x == 0 ? b : a;
        if (L.real() <= 0) { near = 1; far = -std::exp(L); }
        else { near = -std::exp(-L); far = 1; }
      }
      const W g = power_sum(th, m), g1 = power_sum(th, m - 1);
      const W s2 = (a * a + b * b) * g + 2.0L * a * b * R(m) * wm;
      const W s1 = (a * a + b * b) * w * g1 + a * b * R(m - 1) * wm * (w + wi);
      const W v1 = a * w + b * std::exp(R(m) * kI * th);
      const W vm = a * std::exp(R(m) * kI * th) + b * w;
      const W dM = p.alM + 2.0L * p.beM;
      const W norm = dM * s2 + 2.0L * p.oM * s1 + p.eM[0] * v1 * v1 + p.eM[1] * vm * vm;
      // an M-isotropic vector (wᵀMw ≈ 0) cannot be normalised
      const R r = std::abs(w), size = r >= 1 ? R(m) : std::min(R(m), r * r / (1 - r * r) + 1);
      if (!(std::abs(norm) > 1e-8 * (std::abs(dM) + 2 * std::abs(p.oM)) * size) || !std::isfinite(std::abs(norm))) {
        failed[l] = 1;
        continue;
      }
      const W scale = 1.0L / std::sqrt(norm);
      for (std::size_t t2 = 0; t2 < keep.size(); ++t2) {
        const R i = keep[t2] + 1;
        out.rows[t2 * m + l] = Z((a * std::exp(i * kI * th) + b * std::exp((R(m) + 1 - i) * kI * th)) * scale);
      }
    }
  });
  if (std::any_of(failed.begin(), failed.end(), [](char f) { return f != 0; })) return std::nullopt;
  return out;
}

}  // namespace pscr::planner
