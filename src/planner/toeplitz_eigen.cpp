#include "toeplitz_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

namespace pscr::planner {

namespace {

// The type of an end row; `either` for a diagonal matrix, whose end fits both.
enum class End { either, dirichlet, neumann };

// sin(π p / q) for integers p, q > 0, the argument reduced to [0, π/2] exactly.
double sin_pi(std::int64_t p, std::int64_t q) {
  std::int64_t r = p % (2 * q);
  if (r < 0) r += 2 * q;
  double sign = 1;
  if (r >= q) {
    r -= q;
    sign = -1;
  }
  if (2 * r > q) r = q - r;
  return sign * std::sin(M_PI * static_cast<double>(r) / static_cast<double>(q));
}

// cos(π p / q) = sin(π (q − 2p) / (2q)).
double cos_pi(std::int64_t p, std::int64_t q) { return sin_pi(q - 2 * p, 2 * q); }

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

std::optional<PencilEigen<double>> eigen_toeplitz(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                                  const std::vector<int>& keep, bool vectors) {
  const int m = int(A.size());
  if (m < 3 || M.size() != A.size()) return std::nullopt;
  const auto fa = family_of(A), fm = family_of(M);
  if (!fa || !fm) return std::nullopt;
  const auto merged_left = merge(fa->left, fm->left), merged_right = merge(fa->right, fm->right);
  if (!merged_left || !merged_right) return std::nullopt;
  const End left = *merged_left, right = *merged_right;
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
    const double s = sin_pi(num(k), 2 * den);
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
      if (nn) v = cos_pi((2 * i - 1) * num(k), 2 * den);
      else if (mixed && left == End::neumann) v = sin_pi((m + 1 - i) * num(k), den);
      else v = sin_pi(i * num(k), den);
      out.rows[t * m + l] = v * scale;
    }
  }
  return out;
}

}  // namespace pscr::planner
