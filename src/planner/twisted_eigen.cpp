#include "twisted_eigen.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "../lapack.hpp"
#include "bisection.hpp"
#include "eigen_share.hpp"
#include "pscr/errors.hpp"

namespace pscr::planner {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// A twisted-factorisation vector has an angle error of about ε / relgap; below
// this relative gap (2e-12 of error) the vector comes from dstemr instead.
constexpr double kMinRelativeGap = 1e-4;
constexpr int kLanes = 16;       // shifts per twisted-factorisation sweep
constexpr int kMaxRounds = 400;  // bisection rounds (each halves every open interval)
constexpr int kMaxRqi = 10;      // Rayleigh quotient steps (convergence is cubic: 3 or 4 suffice)

// L D Lᵀ = sign · (T − shift I), definite; ld = d l, lld = d l².
struct Representation {
  double shift = 0;
  int sign = 1;
  std::vector<double> d, l, ld, lld;
  double pivmin = 0;  // pivots smaller than this are replaced by it (dstebz's safeguard)
  double upper = 0;   // Gershgorin bound: all eigenvalues lie in [0, upper]
  double to_t(double mu) const { return shift + sign * mu; }
  double from_t(double lambda) const { return sign * (lambda - shift); }
};

// L D Lᵀ of the symmetric tridiagonal matrix with off-diagonal o and diagonal
// e_i + |o_i−1| + |o_i| (row excess e ≥ 0) by additions of non-negative
// numbers: pivot p_i = ê_i + |o_i|, pivot excess ê_i = e_i + |o_i−1| ê_i−1 / p_i−1.
// False when a pivot before the last one vanishes (a split, singular block).
// guarded: an excess may fall short of zero (the rounding of data in a
// narrower type) where what the elimination adds covers it: each such row
// multiplies the relative error of ê by added / ê, and their product must
// stay below 2 (a bit lost in all), else false.
bool factor_dominant(const std::vector<double>& e, const std::vector<double>& o, Representation& r,
                     bool guarded = false) {
  const int m = int(e.size());
  r.d.assign(m, 0);
  r.l.assign(m, 0);
  double e_hat = 0, prev_o = 0, prev_p = 1, growth = 1;
  for (int i = 0; i < m; ++i) {
    const double added = i > 0 ? std::abs(prev_o) * (e_hat / prev_p) : 0.0;
    const double oi = i + 1 < m ? o[i] : 0.0;
    e_hat = e[i] + added;
    // (a deficit within 8 ε_double of the diagonal was always accepted)
    if (guarded && e[i] < -8 * kEps * (std::abs(prev_o) + std::abs(oi))) {
      growth *= added / e_hat;
      if (!(e_hat > 0) || !(growth <= 2)) return false;
    }
    double p = e_hat + std::abs(oi);
    if (i + 1 < m && !(p > 0)) return false;
    if (i + 1 == m) p = std::max(p, 0.0);  // singular up to the rounding of the data (pure Neumann)
    r.d[i] = p;
    r.l[i] = i + 1 < m ? oi / p : 0.0;
    prev_o = oi;
    prev_p = p;
  }
  return true;
}

void finish(Representation& r) {
  const int m = int(r.d.size());
  r.ld.resize(m);
  r.lld.resize(m);
  double big = 1;
  for (int i = 0; i < m; ++i) {
    r.ld[i] = r.d[i] * r.l[i];
    r.lld[i] = r.ld[i] * r.l[i];
    big = std::max(big, std::abs(r.lld[i]));
  }
  r.upper = 0;
  for (int i = 0; i < m; ++i) {
    const double diag = r.d[i] + (i > 0 ? r.lld[i - 1] : 0.0);
    const double off = (i > 0 ? std::abs(r.ld[i - 1]) : 0.0) + (i + 1 < m ? std::abs(r.ld[i]) : 0.0);
    r.upper = std::max(r.upper, diag + off);
  }
  // A pivot replaced by pivmin makes the next term t·lld/pivmin: about
  // upper·lld/pivmin, which must stay finite.
  r.pivmin = std::numeric_limits<double>::min() / kEps * big * std::max(1.0, r.upper);
}

using namespace lanes;
static_assert(kLanes % kVec == 0 && kCountLanes % kVec == 0);
inline Vec guard(Vec v, double pivmin) { return guard_real(v, pivmin); }

// Number of eigenvalues of L D Lᵀ below each shift x[k] (Sylvester's inertia
// of the stationary qd transform L D Lᵀ − x I = L₊ D₊ L₊ᵀ).
PSCR_LANE_CLONES
void sturm_counts(int m, const double* d, const double* lld, double pivmin, const double* x, int* count) {
  constexpr int V = kCountLanes / kVec;
  Vec t[V], c[V], xv[V];
  for (int v = 0; v < V; ++v) {
    xv[v] = load(x + v * kVec);
    t[v] = -xv[v];
    c[v] = splat(0);
  }
  for (int i = 0; i < m; ++i) {
    const double di = d[i], li = i + 1 < m ? lld[i] : 0.0;
    for (int v = 0; v < V; ++v) {
      const Vec dp = guard(di + t[v], pivmin);
      c[v] += dp < 0 ? splat(1) : splat(0);
      t[v] = t[v] / dp * li - xv[v];
    }
  }
  for (int v = 0; v < V; ++v)
    for (int k = 0; k < kVec; ++k) count[v * kVec + k] = int(c[v][k]);
}

// Twisted factorisations of L D Lᵀ − x_k I (Dhillon and Parlett): the
// stationary transform downwards (lp; s in scratch), the progressive one
// upwards (um), and at each row γ_i = s_i + p_i + x; the twist index r is
// where |γ_i| is smallest. The squared norm of the vector twisted at r (see
// twisted_vectors) comes without the vector: U_0 = 1, U_i+1 = 1 + lp_i² U_i
// (rows up to r) and D_m−1 = 1, D_i = 1 + um_i² D_i+1 (rows from r), ‖z‖² =
// U_r + D_r − 1; it is infinite where an untaken twist overflows it.
// Arrays are m × kLanes, row-major.
PSCR_LANE_CLONES
void twisted_factorisations(int m, const double* d, const double* l, const double* ld, const double* lld, double pivmin,
                            const double* x, double* s, double* up, double* lp, double* um, double* twist,
                            double* gamma, double* norm2) {
  constexpr int V = kLanes / kVec;
  Vec xv[V], sv[V], uv[V];
  for (int v = 0; v < V; ++v) {
    xv[v] = load(x + v * kVec);
    sv[v] = -xv[v];
    uv[v] = splat(1);
    store(s + v * kVec, sv[v]);
    store(up + v * kVec, uv[v]);
  }
  for (int i = 0; i + 1 < m; ++i) {
    const double di = d[i], ldi = ld[i], li = l[i];
    const std::size_t row = std::size_t(i) * kLanes;
    for (int v = 0; v < V; ++v) {
      const Vec q = ldi / guard(di + sv[v], pivmin);
      store(lp + row + v * kVec, q);
      sv[v] = sv[v] * q * li - xv[v];
      uv[v] = 1 + q * q * uv[v];
      store(s + row + kLanes + v * kVec, sv[v]);
      store(up + row + kLanes + v * kVec, uv[v]);
    }
  }
  Vec p[V], down[V], best[V], g_best[V], r_best[V], n_best[V];
  const std::size_t last = std::size_t(m - 1) * kLanes;
  for (int v = 0; v < V; ++v) {
    p[v] = d[m - 1] - xv[v];
    down[v] = splat(1);
    g_best[v] = load(s + last + v * kVec) + p[v] + xv[v];
    best[v] = vabs(g_best[v]);
    r_best[v] = splat(m - 1);
    n_best[v] = load(up + last + v * kVec);
  }
  for (int i = m - 2; i >= 0; --i) {
    const double di = d[i], lldi = lld[i], li = l[i];
    const std::size_t row = std::size_t(i) * kLanes;
    for (int v = 0; v < V; ++v) {
      const Vec q = di / guard(lldi + p[v], pivmin);
      const Vec u = li * q;
      store(um + row + v * kVec, u);
      p[v] = p[v] * q - xv[v];
      down[v] = 1 + u * u * down[v];
      const Vec g = load(s + row + v * kVec) + p[v] + xv[v];
      const auto smaller = vabs(g) < best[v];
      best[v] = smaller ? vabs(g) : best[v];
      g_best[v] = smaller ? g : g_best[v];
      r_best[v] = smaller ? splat(i) : r_best[v];
      n_best[v] = smaller ? load(up + row + v * kVec) + down[v] - 1 : n_best[v];
    }
  }
  for (int v = 0; v < V; ++v) {
    store(gamma + v * kVec, g_best[v]);
    store(twist + v * kVec, r_best[v]);
    store(norm2 + v * kVec, n_best[v]);
  }
}

// The vectors of the twisted factorisations, z_r = 1, z_i = −lp_i z_i+1
// (i < r), z_i+1 = −um_i z_i (i ≥ r): their squared norms, and their entries at
// the rows with slot[i] ≥ 0 (kept[slot · kLanes + k]). Each pass runs over all
// rows; the part before the twist carries zeros.
PSCR_LANE_CLONES
void twisted_vectors(int m, const double* lp, const double* um, const double* twist, const int* slot, double* norm2,
                     double* kept) {
  constexpr int V = kLanes / kVec;
  Vec z[V], n2[V], r[V];
  for (int v = 0; v < V; ++v) {
    r[v] = load(twist + v * kVec);
    z[v] = splat(0);
    n2[v] = splat(-1);  // z_r = 1 is counted by both passes
  }
  for (int i = 0; i < m; ++i) {  // rows r .. m−1
    const double* u = um + std::size_t(i > 0 ? i - 1 : 0) * kLanes;
    for (int v = 0; v < V; ++v) {
      z[v] = r[v] == double(i) ? splat(1) : -load(u + v * kVec) * z[v];
      n2[v] += z[v] * z[v];
      if (slot[i] >= 0) store(kept + std::size_t(slot[i]) * kLanes + v * kVec, z[v]);
    }
  }
  for (int v = 0; v < V; ++v) z[v] = splat(0);
  for (int i = m - 1; i >= 0; --i) {  // rows 0 .. r
    const double* q = lp + std::size_t(i) * kLanes;
    for (int v = 0; v < V; ++v) {
      z[v] = r[v] == double(i) ? splat(1) : -load(q + v * kVec) * z[v];
      n2[v] += z[v] * z[v];
      if (slot[i] >= 0) {
        double* k = kept + std::size_t(slot[i]) * kLanes + v * kVec;
        store(k, r[v] > double(i) ? z[v] : load(k));
      }
    }
  }
  for (int v = 0; v < V; ++v) store(norm2 + v * kVec, n2[v]);
}

// Counts of the representation at the points x.
std::vector<int> representation_counts(const Representation& r, const std::vector<double>& x) {
  const int m = int(r.d.size());
  return counts_at(m, x, [&](const double* lanes, int* out) {
    sturm_counts(m, r.d.data(), r.lld.data(), r.pivmin, lanes, out);
  });
}

// One eigenvalue to refine: its index, the representation it is refined in,
// and its isolating interval there.
struct Item {
  int j;
  const Representation* rep;
  double x, lo, hi;
};

struct Result {
  double mu = 0;      // eigenvalue of the representation
  bool ok = false;    // converged inside its interval with a finite vector
};

// Rayleigh quotient iteration on twisted factorisations for kLanes items at
// once (items first .. first + count − 1, count ≤ kLanes); the vector of the step that converged is the eigenvector (kept rows
// normalised in out_rows[t * m + j]).
// Work arrays of one thread (4 × kLanes × m), released when the pencil is done.
struct Scratch {
  std::vector<double> s, up, lp, um, kept;
};

void refine(const std::vector<Item>& items, int first, int count, int m, const std::vector<int>& slot, int nkeep,
            std::vector<Result>& res, std::vector<double>& out_rows, Scratch& scratch) {
  auto& [s, up, lp, um, kept] = scratch;
  for (auto* v : {&s, &up, &lp, &um}) v->resize(std::size_t(m) * kLanes);
  kept.assign(std::size_t(std::max(nkeep, 1)) * kLanes, 0.0);
  const Representation& r = *items[first].rep;
  double x[kLanes], twist[kLanes], gamma[kLanes], norm2[kLanes], vnorm2[kLanes], last[kLanes];
  bool done[kLanes];
  for (int k = 0; k < kLanes; ++k) {
    x[k] = items[first + std::min(k, count - 1)].x;
    done[k] = k >= count;
    last[k] = std::numeric_limits<double>::infinity();
  }
  const double floor = 4 * kEps * kEps * r.upper + r.pivmin;
  for (int it = 0; it < kMaxRqi; ++it) {
    twisted_factorisations(m, r.d.data(), r.l.data(), r.ld.data(), r.lld.data(), r.pivmin, x, s.data(), up.data(),
                           lp.data(), um.data(), twist, gamma, norm2);
    // the vector pass, for lanes that may converge in this step or whose norm recurrence overflowed
    bool vectors = false;
    for (int k = 0; k < count; ++k) {
      if (done[k]) continue;
      const double tol = 4 * kEps * std::abs(x[k]) + floor;
      if (!std::isfinite(norm2[k]) || std::abs(gamma[k] / norm2[k]) <= 1e3 * tol) vectors = true;
    }
    if (vectors) twisted_vectors(m, lp.data(), um.data(), twist, slot.data(), vnorm2, kept.data());
    bool all = true;
    for (int k = 0; k < count; ++k) {
      if (done[k]) continue;
      const Item& item = items[first + k];
      const double n2 = std::isfinite(norm2[k]) ? norm2[k] : vnorm2[k];
      const double delta = gamma[k] / n2, xn = x[k] + delta;
      if (!std::isfinite(xn) || !(n2 > 0)) {
        done[k] = true;  // not trusted: res stays !ok
        continue;
      }
      if (xn < item.lo || xn > item.hi) {  // overshot its interval: half way to the violated end
        x[k] = (x[k] + std::clamp(xn, item.lo, item.hi)) / 2;
        all = false;
        continue;
      }
      // converged, or stalled at the rounding level (a step that no longer
      // shrinks fourfold, below 1e3 times the tolerance: how close the
      // rounding lets the iteration come depends on the machine's arithmetic,
      // e.g. on fused multiply-adds)
      const double tol = 4 * kEps * std::abs(x[k]) + floor, step = std::abs(delta);
      const bool accept = step <= tol || (step <= 1e3 * tol && step >= 0.25 * last[k]);
      last[k] = step;
      if (accept) {
        done[k] = true;
        res[item.j] = {xn, std::isfinite(vnorm2[k]) && vnorm2[k] > 0};
        const double inv = 1 / std::sqrt(vnorm2[k]);
        for (int t = 0; t < nkeep; ++t) out_rows[std::size_t(t) * m + item.j] = kept[std::size_t(t) * kLanes + k] * inv;
        continue;
      }
      x[k] = xn;
      all = false;
    }
    if (all) break;
  }
}

// T = M^-1/2 A M^-1/2 of a pencil with M diagonal positive, and sqrt(M).
struct SymmetricForm {
  std::vector<double> sq, td, to;  // sqrt(M_ii), T's diagonal and off-diagonal
  double scale = 0;                // its largest entry
};

// Empty when M is not diagonal positive or T has a non-finite entry.
std::optional<SymmetricForm> symmetric_form(const Tridiagonal<double>& A, const Tridiagonal<double>& M) {
  const int m = int(A.size());
  for (int i = 0; i < m; ++i)
    if (!(M.diag[i] > 0) || (i + 1 < m && M.off[i] != 0)) return std::nullopt;
  SymmetricForm T;
  T.sq.resize(m);
  T.td.resize(m);
  T.to.resize(std::max(m - 1, 0));
  for (int i = 0; i < m; ++i) {
    T.sq[i] = std::sqrt(M.diag[i]);
    T.td[i] = A.diag[i] / M.diag[i];
    T.scale = std::max(T.scale, std::abs(T.td[i]));
  }
  for (int i = 0; i + 1 < m; ++i) {
    T.to[i] = A.off[i] / (T.sq[i] * T.sq[i + 1]);
    T.scale = std::max(T.scale, std::abs(T.to[i]));
  }
  if (!std::isfinite(T.scale)) return std::nullopt;
  return T;
}

// The two definite representations of T (twisted_eigen.hpp): bottom from
// A's row excess where A is diagonally dominant (relative: its small
// eigenvalues to high relative accuracy), else T − σ_lo I; top σ_hi I − T.
struct Representations {
  Representation bottom, top;
  bool relative = false;
};

std::optional<Representations> representations(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                               const SymmetricForm& T) {
  const int m = int(A.size());
  // Gershgorin bounds of T, and a margin that keeps both shifted matrices definite.
  long double g_lo = std::numeric_limits<double>::infinity(), g_hi = -g_lo;
  auto radius = [&](int i) {
    return (i > 0 ? std::abs((long double)T.to[i - 1]) : 0.0L) + (i + 1 < m ? std::abs((long double)T.to[i]) : 0.0L);
  };
  for (int i = 0; i < m; ++i) {
    g_lo = std::min(g_lo, T.td[i] - radius(i));
    g_hi = std::max(g_hi, T.td[i] + radius(i));
  }
  const double margin = 4 * kEps * T.scale + std::numeric_limits<double>::min();
  std::vector<double> e(m), neg_off(T.to.size());
  Representations r;
  Representation &bottom = r.bottom, &top = r.top;
  bool dominant = true;
  for (int i = 0; i < m && dominant; ++i) {
    long double x = A.diag[i];
    if (i > 0) x -= std::abs((long double)A.off[i - 1]);
    if (i + 1 < m) x -= std::abs((long double)A.off[i]);
    // a deficit of the data's rounding is the data's: up to 8 ε of float
    // (a graded factor rounded to float has deficits of an ulp or two of
    // float; refused at 8 ε_double, its eigenvalues were only absolutely
    // accurate, and a float mesh graded by 1.3e5 was refused as singular),
    // provided the factorisation below keeps its relative accuracy
    dominant = A.diag[i] > 0 && x >= -8 * double(std::numeric_limits<float>::epsilon()) * A.diag[i];
    e[i] = double(x);
  }
  if (dominant && factor_dominant(e, A.off, bottom, true)) {
    for (int i = 0; i < m; ++i) {
      bottom.d[i] /= M.diag[i];
      if (i + 1 < m) bottom.l[i] *= T.sq[i] / T.sq[i + 1];
    }
  } else {
    dominant = false;
    bottom.shift = double(g_lo) - margin;
    for (int i = 0; i < m; ++i) e[i] = double((long double)T.td[i] - bottom.shift - radius(i));
    if (!factor_dominant(e, T.to, bottom)) return std::nullopt;
  }
  r.relative = dominant;
  top.shift = double(g_hi) + margin;
  top.sign = -1;
  for (int i = 0; i < m; ++i) e[i] = double(top.shift - (long double)T.td[i] - radius(i));
  for (std::size_t i = 0; i < T.to.size(); ++i) neg_off[i] = -T.to[i];
  if (!factor_dominant(e, neg_off, top)) return std::nullopt;
  finish(bottom);
  finish(top);
  return r;
}

// Every interval of one eigenvalue, or several at the rounding level (a
// cluster), by Sturm counts of the bottom representation; empty on failure.
// A distributed plan's parts share each round's counts (eigen_share.hpp).
std::vector<Interval> isolate_all(const Representation& bottom, int m) {
  const double lo0 = -(4 * kEps * bottom.upper + bottom.pivmin), hi0 = bottom.upper * (1 + 4 * kEps) + bottom.pivmin;
  const EigenShare* share = eigen_share(m);
  return isolate(m, lo0, hi0, bottom.pivmin, true, kMaxRounds, [&](const std::vector<double>& x) {
    return shared_counts(share, x,
                         [&](const std::vector<double>& points) { return representation_counts(bottom, points); });
  });
}

// The eigenvalues at their intervals' midpoints (lambda) and, for each
// isolated one, the item that refines it, in the representation where it is
// smaller (relative gaps larger), those of the bottom first; the members of
// clusters are marked instead.
std::vector<Item> starting_items(const std::vector<Interval>& found, const Representation& bottom,
                                 const Representation& top, std::vector<double>& lambda, std::vector<char>& cluster) {
  std::vector<Item> items;
  const double slack = 8 * kEps * (top.shift - bottom.shift) + bottom.pivmin + top.pivmin;
  for (const Interval& v : found) {
    const double mid = v.lo + (v.hi - v.lo) / 2;
    for (int j = v.nlo; j < v.nhi; ++j) lambda[j] = bottom.to_t(mid);
    if (v.nhi - v.nlo > 1) {
      for (int j = v.nlo; j < v.nhi; ++j) cluster[j] = 1;
      continue;
    }
    const double lam = bottom.to_t(mid);
    if (top.from_t(lam) < mid)
      items.push_back({v.nlo, &top, top.from_t(lam), top.from_t(bottom.to_t(v.hi)) - slack,
                       top.from_t(bottom.to_t(v.lo)) + slack});
    else
      items.push_back({v.nlo, &bottom, mid, v.lo, v.hi});
  }
  std::stable_partition(items.begin(), items.end(), [&](const Item& it) { return it.rep == &bottom; });
  return items;
}

// Rayleigh quotient iteration over a list of items ordered by
// representation, in batches of up to kLanes of one representation each,
// spread over the threads; the vectors' kept rows go into `rows`.
class Refiner {
 public:
  Refiner(int m, const std::vector<int>& keep, std::vector<double>& rows)
      : m_(m), nkeep_(int(keep.size())), slot_(m, -1), rows_(rows), pool_(std::max(1, omp_get_max_threads())) {
    for (std::size_t t = 0; t < keep.size(); ++t) slot_[keep[t]] = int(t);
  }
  void run(const std::vector<Item>& list, std::vector<Result>& res) const {
    std::vector<int> starts;
    for (int i = 0; i < int(list.size());) {
      starts.push_back(i);
      const Representation* rep = list[i].rep;
      for (int k = 0; i < int(list.size()) && list[i].rep == rep && k < kLanes; ++k) ++i;
    }
    starts.push_back(int(list.size()));
    parallel_for(int(starts.size()) - 1, m_ >= 128, [&](int b) {
      refine(list, starts[b], starts[b + 1] - starts[b], m_, slot_, nkeep_, res, rows_, pool_[omp_get_thread_num()]);
    });
  }

 private:
  int m_, nkeep_;
  std::vector<int> slot_;  // kept-row position of each row, −1 where not kept
  std::vector<double>& rows_;
  mutable std::vector<Scratch> pool_;  // by omp_get_thread_num() of parallel_for's team
};

// Where the iteration did not settle: bisection to full accuracy in the
// item's representation, the item then starting at its interval's midpoint.
void bisect_to_full_accuracy(std::vector<Item>& retry, const Representation& bottom, const Representation& top,
                             int m) {
  for (const Representation* rep : {&bottom, &top}) {
    std::vector<Item*> mine;
    for (Item& it : retry)
      if (it.rep == rep) mine.push_back(&it);
    for (int round = 0; round < kMaxRounds && !mine.empty(); ++round) {
      std::vector<double> mids;
      std::vector<Item*> open;
      for (Item* it : mine)
        if (it->hi - it->lo > 2 * kEps * std::max(std::abs(it->lo), std::abs(it->hi)) + rep->pivmin) {
          open.push_back(it);
          mids.push_back(it->lo + (it->hi - it->lo) / 2);
        }
      if (open.empty()) break;
      const auto c = representation_counts(*rep, mids);
      for (std::size_t i = 0; i < open.size(); ++i) {
        const int index = rep->sign > 0 ? open[i]->j : m - 1 - open[i]->j;  // the top one counts from the top
        (c[i] > index ? open[i]->hi : open[i]->lo) = mids[i];
      }
    }
  }
  for (Item& it : retry) it.x = it.lo + (it.hi - it.lo) / 2;
}

// A distributed plan's part of the items (eigen_share.hpp): those whose
// eigenvalue index lies in a chunk of kShareChunk indices it owns, in the
// order of `items`. Each item's iteration runs in its own lane, whatever
// shares its batch: the part computes what one process computes for it.
constexpr int kShareChunk = 128;

std::vector<Item> owned_items(const std::vector<Item>& items, const EigenShare& share, int m) {
  const int chunks = (m + kShareChunk - 1) / kShareChunk;
  std::vector<Item> mine;
  for (const Item& it : items)
    if (share.owns(it.j / kShareChunk, chunks)) mine.push_back(it);
  return mine;
}

// The other parts' results and vectors' kept rows (zero here), by a sum over the parts.
void complete_results(const EigenShare& share, std::vector<Result>& res, std::vector<double>& rows) {
  const std::size_t m = res.size();
  std::vector<double> all(2 * m + rows.size(), 0.0);
  for (std::size_t j = 0; j < m; ++j) {
    all[j] = res[j].mu;
    all[m + j] = res[j].ok ? 1 : 0;
  }
  std::copy(rows.begin(), rows.end(), all.begin() + std::ptrdiff_t(2 * m));
  share.sum(all.data(), all.size());
  for (std::size_t j = 0; j < m; ++j) res[j] = {all[j], all[m + j] > 0};
  std::copy(all.begin() + std::ptrdiff_t(2 * m), all.end(), rows.begin());
}

// The refined eigenvalues into lambda, and the eigenvalues whose vectors
// are not trusted: clusters, unconverged ones and small relative gaps.
std::vector<char> untrusted(const std::vector<Item>& items, const std::vector<Result>& res,
                            const std::vector<char>& cluster, std::vector<double>& lambda) {
  const int m = int(lambda.size());
  std::vector<char> bad(cluster);
  for (const Item& it : items) {
    if (res[it.j].ok) lambda[it.j] = it.rep->to_t(res[it.j].mu);
    else bad[it.j] = 1;
  }
  for (const Item& it : items) {
    const int j = it.j;
    if (bad[j]) continue;
    double gap = std::numeric_limits<double>::infinity();
    if (j > 0) gap = std::min(gap, lambda[j] - lambda[j - 1]);
    if (j + 1 < m) gap = std::min(gap, lambda[j + 1] - lambda[j]);
    if (gap < kMinRelativeGap * std::abs(res[j].mu)) bad[j] = 1;
  }
  return bad;
}

// The untrusted index ranges, each by dstemr, side by side (disjoint parts
// of `out`); eigenvalues that converged keep their (relative) accuracy.
void vectors_by_dstemr(const Tridiagonal<double>& A, const Tridiagonal<double>& M, const std::vector<int>& keep,
                       const std::vector<char>& bad, const std::vector<Result>& res, PencilEigen<double>& out) {
  const int m = int(bad.size());
  std::vector<std::pair<int, int>> ranges;
  for (int j = 0; j < m;) {
    if (!bad[j]) { ++j; continue; }
    int k = j;
    while (k + 1 < m && bad[k + 1]) ++k;
    ranges.push_back({j, k});
    j = k + 1;
  }
  std::vector<std::exception_ptr> failures(ranges.size());  // rethrown outside the parallel region
  parallel_for(int(ranges.size()), m >= 128, [&](int r) {
    const auto [j, k] = ranges[r];
    try {
      const std::vector<double> refined(out.lambda.begin() + j, out.lambda.begin() + k + 1);
      eigen_mrrr_range(A, M, keep, j, k, out);
      for (int i = j; i <= k; ++i)
        if (res[i].ok) out.lambda[i] = refined[i - j];
    } catch (...) {
      failures[r] = std::current_exception();
    }
  });
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
}

}  // namespace

void eigen_mrrr_range(const Tridiagonal<double>& A, const Tridiagonal<double>& M, const std::vector<int>& keep,
                      int il, int iu, PencilEigen<double>& out) {
  const int m = static_cast<int>(A.size());
  std::vector<double> sq(m);
  for (int i = 0; i < m; ++i) {
    if (!(M.diag[i] > 0))
      throw SingularPencil("mass matrix M is not positive definite (its diagonal entry in row " + std::to_string(i) + " is not > 0)");
    sq[i] = std::sqrt(M.diag[i]);
  }
  const std::size_t max_entries = std::size_t(1) << 26;  // 512 MiB of eigenvector block
  const int block = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(m, max_entries / m)));
  // A subset by index makes dstemr find its eigenvalues by bisection, which
  // costs more than all of them by dqds: take all when they fit in one block.
  const int first = (block == m && 2 * (iu - il + 1) > m) ? 0 : il;
  const int columns = std::min(block, iu - first + 1);  // a single eigenpair needs one, not a block
  std::vector<double> z(static_cast<std::size_t>(m) * columns), w(m);
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
                                    &found, w.data(), z.data(), m, columns, isuppz.data(), &tryrac);
    if (info != 0 || found != hi - lo + 1) throw NumericalBreakdown("dstemr failed (info " + std::to_string(info) + ")");
    for (int l = std::max(0, il - lo); l < found; ++l) {
      out.lambda[lo + l] = w[l];
      for (std::size_t t = 0; t < keep.size(); ++t)
        out.rows[t * m + lo + l] = z[static_cast<std::size_t>(l) * m + keep[t]] / sq[keep[t]];
    }
  }
}

std::optional<PencilEigen<double>> eigen_twisted(const Tridiagonal<double>& A, const Tridiagonal<double>& M,
                                                 const std::vector<int>& keep) {
  const int m = int(A.size());
  const auto T = symmetric_form(A, M);
  if (!T) return std::nullopt;
  const auto reps = representations(A, M, *T);
  if (!reps) return std::nullopt;
  const Representation &bottom = reps->bottom, &top = reps->top;
  const std::vector<Interval> found = isolate_all(bottom, m);
  if (found.empty()) return std::nullopt;
  PencilEigen<double> out;
  out.method = reps->relative ? "relative" : "twisted";
  out.lambda.assign(m, 0.0);
  out.rows.assign(keep.size() * m, 0.0);
  std::vector<char> cluster(m, 0);
  const std::vector<Item> items = starting_items(found, bottom, top, out.lambda, cluster);
  const EigenShare* share = eigen_share(m);
  const std::vector<Item> mine = share ? owned_items(items, *share, m) : items;
  const Refiner refiner(m, keep, out.rows);
  std::vector<Result> res(m);
  refiner.run(mine, res);
  std::vector<Item> retry;
  for (const Item& it : mine)
    if (!res[it.j].ok) retry.push_back(it);
  if (!retry.empty()) {  // in the order of `items`: by representation
    bisect_to_full_accuracy(retry, bottom, top, m);
    refiner.run(retry, res);
  }
  if (share) complete_results(*share, res, out.rows);
  const std::vector<char> bad = untrusted(items, res, cluster, out.lambda);
  vectors_by_dstemr(A, M, keep, bad, res, out);
  // rows of W = M^-1/2 V
  for (std::size_t t = 0; t < keep.size(); ++t)
    for (int j = 0; j < m; ++j)
      if (!bad[j]) out.rows[t * m + j] /= T->sq[keep[t]];
  return out;
}

}  // namespace pscr::planner
