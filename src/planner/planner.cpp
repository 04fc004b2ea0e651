#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "eigen_share.hpp"
#include "pencil_eigen.hpp"
#include "plan_data.hpp"
#include "precision.hpp"
#include "toeplitz_eigen.hpp"
#include "pscr/errors.hpp"

namespace pscr::planner {
namespace {

template <class T> using W = wide_t<T>;

template <class C> Tridiagonal<C> sub_pencil(const Tridiagonal<C>& t, int s, int e) {
  return Tridiagonal<C>(std::vector<C>(t.diag.begin() + s, t.diag.begin() + e + 1),
                        std::vector<C>(t.off.begin() + s, t.off.begin() + e));
}

template <class C> void append_bytes(std::string& key, const std::vector<C>& v) {
  key.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(C));
}

// The bytes of the sub-pencil (A, M) on rows s..e of f: identical keys,
// identical pencils (and eigenvalues).
template <class C> void append_pencil(std::string& key, const Factor<C>& f, int s, int e) {
  for (auto* t : {&f.A, &f.M}) {
    key.append(reinterpret_cast<const char*>(t->diag.data() + s), std::size_t(e - s + 1) * sizeof(C));
    key.append(reinterpret_cast<const char*>(t->off.data() + s), std::size_t(e - s) * sizeof(C));
  }
}

template <class T> double abs_max(const std::vector<T>& v) {
  double b = 0;
  for (auto& x : v) b = std::max(b, double(std::abs(x)));
  return b;
}

// The index of the eigenvalue of least magnitude: the null mode of a
// pure-Neumann pencil.
template <class C> std::size_t null_mode(const std::vector<C>& lambda) {
  return std::size_t(std::min_element(lambda.begin(), lambda.end(),
                                      [](const C& a, const C& b) { return std::abs(a) < std::abs(b); }) -
                     lambda.begin());
}

// Pencils at least this large are computed one after another, each spread
// over the host threads (twisted_eigen.hpp); smaller ones side by side.
constexpr int kLargePencil = kSharedPencil;  // eigen_share.hpp: the shared pencils are these

// The factor pencil d as the eigen solvers take it: in double (W<T>),
// projected onto exact zero row sums of A where the problem is pure Neumann
// (its row sums are the rounding of zero: precision.hpp), and scaled by
// powers of two where its entries lie far from 1 (a factor of 1e160 would
// overflow the squares the Crawford reduction forms). The scales are exact:
// the pencil's eigenvalues are those of f times lambda_scale, its M-normal
// eigenvectors those of f times vector_scale.
template <class C> struct WideFactor {
  Factor<C> f;
  double lambda_scale = 1, vector_scale = 1;
  bool same_as(const WideFactor& o) const {
    return f.A.diag == o.f.A.diag && f.A.off == o.f.A.off && f.M.diag == o.f.M.diag && f.M.off == o.f.M.off &&
           lambda_scale == o.lambda_scale && vector_scale == o.vector_scale;
  }
};

// Entries with magnitudes inside [2^-kSafeExponent, 2^kSafeExponent] are left
// as they are (their squares and products stay far from over- and underflow).
constexpr int kSafeExponent = 256;

template <class T> WideFactor<W<T>> wide_factor(const Factor<T>& given, bool pure_neumann) {
  WideFactor<W<T>> w{given.template cast<W<T>>()};
  Factor<W<T>>& f = w.f;
  const std::size_t n = f.size();
  if (pure_neumann) {
    const bool cyclic = f.A.periodic();  // off[n-1]: the corner, in rows 0 and n-1
    for (std::size_t i = 0; i < n; ++i)
      f.A.diag[i] = -((i > 0 ? f.A.off[i - 1] : cyclic ? f.A.off[n - 1] : W<T>(0)) +
                      (i + 1 < n || cyclic ? f.A.off[i] : W<T>(0)));
  }
  auto exponent = [](const Tridiagonal<W<T>>& t) {
    const double big = std::max(abs_max(t.diag), abs_max(t.off));
    return big > 0 ? std::ilogb(big) : 0;
  };
  const int ea = exponent(f.A), em = exponent(f.M);
  if (std::abs(ea) <= kSafeExponent && std::abs(em) <= kSafeExponent) return w;
  const int sa = -ea, sm = -(em / 2) * 2;  // M by an even power: its square root is exact
  for (auto* v : {&f.A.diag, &f.A.off})
    for (auto& x : *v) x = x * std::ldexp(1.0, sa);
  for (auto* v : {&f.M.diag, &f.M.off})
    for (auto& x : *v) x = x * std::ldexp(1.0, sm);
  w.lambda_scale = std::ldexp(1.0, sm - sa);
  w.vector_scale = std::ldexp(1.0, sm / 2);
  return w;
}

// Whether an eigenvalue v (of the pencil scaled as WideFactor keeps it) is
// zero or, times `scale`, a normal number of T: an eigenvalue in T's
// subnormal range (A small and M large: a pencil of 1e-160 against 1e160 in
// double, 1e-22 against 1e22 in float) keeps only some of its digits, or
// none, and the shifts built from it would be wrong with no other sign.
template <class T, class C> bool normal_eigenvalue(const C& v, double scale) {
  if (v == C(0)) return true;
  const double x = std::abs(v) * scale;
  return std::isfinite(x) && x >= double(std::numeric_limits<real_t<T>>::min()) &&
         x <= double(std::numeric_limits<real_t<T>>::max());
}

template <class T> std::string eigenvalue_range_error(double value) {
  std::ostringstream os;
  os << "an eigenvalue of magnitude " << value << " outside the normal range of " << scalar_name<T>() << " ("
     << std::numeric_limits<real_t<T>>::min() << " ... " << std::numeric_limits<real_t<T>>::max()
     << "): the magnitudes of A and M differ too much for this precision; scale them (A and M of a factor by "
        "different powers of ten, and c and the other factors accordingly)";
  return os.str();
}

// "factor 2 (A2, M2)": how errors name a factor (d from 0).
std::string factor_name(int d) {
  const std::string k = std::to_string(d + 1);
  return "factor " + k + " (A" + k + ", M" + k + ")";
}

// `whole` receives the eigenvalues of the whole factor's pencil (the top-level group).
template <class T>
DimensionPlan<T> plan_dimension(const WideFactor<W<T>>& wf, int d, int radix, bool neumann, std::size_t& count,
                                std::vector<W<T>>& whole) {
  const Factor<W<T>>& f = wf.f;
  DimensionPlan<T> dp;
  dp.layout = make_layout(static_cast<int>(f.size()), radix);
  struct Job { int s, e; std::vector<int> rows; };
  std::vector<Job> jobs;
  std::unordered_map<std::string, int> seen;
  for (auto& lv : dp.layout.levels) {
    std::vector<GroupRef> refs;
    for (auto& g : lv.groups) {
      std::vector<int> rows;
      for (int r : g.sources) rows.push_back(r - g.start);
      rows.push_back(0);
      rows.push_back(g.size() - 1);
      std::sort(rows.begin(), rows.end());
      rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
      // Identical sub-pencils with identical kept rows share their eigenpairs.
      std::string key;
      append_bytes(key, rows);
      append_pencil(key, f, g.start, g.end);
      auto it = seen.find(key);
      int idx;
      if (it == seen.end()) {
        idx = static_cast<int>(jobs.size());
        seen.emplace(std::move(key), idx);
        jobs.push_back({g.start, g.end, rows});
      } else {
        idx = it->second;
      }
      GroupRef ref;
      ref.eigen = idx;
      auto pos = [&](int r) { return int(std::lower_bound(rows.begin(), rows.end(), r - g.start) - rows.begin()); };
      for (int r : g.sources) ref.source_pos.push_back(pos(r));
      ref.start_pos = pos(g.start);
      ref.end_pos = pos(g.end);
      refs.push_back(std::move(ref));
    }
    dp.groups.push_back(std::move(refs));
  }
  dp.eigen.resize(jobs.size());
  count += jobs.size();
  std::vector<std::string> errors(jobs.size());
  std::vector<double> conditions(jobs.size(), 1.0);
  // Largest pencils first so the threads finish together.
  std::vector<int> order(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) order[i] = int(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return jobs[a].e - jobs[a].s > jobs[b].e - jobs[b].s; });
  auto solve_job = [&](std::size_t o) {
    const Job& j = jobs[order[o]];
    try {
      // a periodic factor is planned in one group of all its rows, corner entries included
      const bool whole_factor = j.s == 0 && j.e + 1 == int(f.size());
      auto pe = whole_factor ? pencil_eigen(f.A, f.M, j.rows)
                             : pencil_eigen(sub_pencil(f.A, j.s, j.e), sub_pencil(f.M, j.s, j.e), j.rows);
      GroupEigen<T>& ge = dp.eigen[order[o]];
      ge.m = j.e - j.s + 1;
      ge.rows = j.rows;
      if (o == 0) dp.eigen_method = pe.method;
      conditions[order[o]] = pe.condition;
      // the pure-Neumann null mode (the whole pencil's smallest) is exempt: it becomes exactly 0
      const bool whole_pencil = j.s == 0 && j.e + 1 == int(f.size());
      const std::size_t exempt = neumann && whole_pencil ? null_mode(pe.lambda) : pe.lambda.size();
      for (std::size_t l = 0; l < pe.lambda.size(); ++l)
        if (l != exempt && !normal_eigenvalue<T>(pe.lambda[l], wf.lambda_scale))
          throw NumericalBreakdown(eigenvalue_range_error<T>(std::abs(pe.lambda[l]) * wf.lambda_scale));
      for (auto& v : pe.lambda) v *= wf.lambda_scale;
      if (j.s == 0 && j.e + 1 == int(f.size())) whole = pe.lambda;
      for (auto& v : pe.lambda) ge.lambda.push_back(static_cast<T>(v));
      for (auto& v : pe.rows) ge.coeff.push_back(static_cast<T>(v * wf.vector_scale));
      // A and M of very different magnitudes: eigenvalues past the range of T
      for (auto* v : {&ge.lambda, &ge.coeff})
        for (auto& x : *v)
          if (!std::isfinite(std::abs(x)))
            throw NumericalBreakdown(std::string("eigenvalues or eigenvectors outside the range of ") +
                                     scalar_name<T>() + " (the magnitudes of A and M differ too much; scale them)");
    } catch (const SingularPencil& ex) {
      errors[order[o]] = std::string("S|") + ex.what();
    } catch (const std::exception& ex) {
      errors[order[o]] = std::string("B|") + ex.what();
    }
  };
  auto large = [&](std::size_t o) { return jobs[order[o]].e - jobs[order[o]].s + 1 >= kLargePencil; };
  for (std::size_t o = 0; o < order.size(); ++o)
    if (large(o)) solve_job(o);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t o = 0; o < order.size(); ++o)
    if (!large(o)) solve_job(o);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (!errors[i].empty()) {
      std::ostringstream os;
      os << factor_name(d) << ", group sub-pencil on rows " << jobs[i].s << ".." << jobs[i].e << " of "
         << f.size() << ": " << errors[i].substr(2);
      if (errors[i][0] == 'S') throw SingularPencil(os.str());
      throw NumericalBreakdown(os.str());
    }
  for (double c : conditions) dp.eigen_condition = std::max(dp.eigen_condition, c);
  if (neumann) {
    // The top-level pencil (A_d, M_d) of a pure-Neumann factor has eigenvalue 0.
    auto& top = dp.eigen[dp.groups.back()[0].eigen];
    dp.zero_mode = int(null_mode(top.lambda));
    top.lambda[std::size_t(dp.zero_mode)] = T(0);
  }
  return dp;
}

// A factor as a real double pencil: empty when an entry has an imaginary part.
template <class T> std::optional<Factor<double>> real_factor(const Factor<T>& f) {
  Factor<double> r;
  for (auto [from, to] : {std::pair{&f.A, &r.A}, std::pair{&f.M, &r.M}}) {
    for (auto* v : {&from->diag, &from->off})
      for (auto& x : *v) {
        if (std::imag(x) != 0) return std::nullopt;
        (v == &from->diag ? to->diag : to->off).push_back(double(std::real(x)));
      }
  }
  return r;
}

// The sine basis of dimension d where it can be taken by sine transforms of
// length at most sine_limit (see make_plan_data): its eigenvalues and scales
// in closed form, each a normal number of T; empty elsewhere.
// A periodic dimension's basis is the real Fourier one (fourier_basis), its
// transform a real FFT of n points packed in N = n / 2 complex ones; the
// constant's eigenvalue may be 0 (the pure-Neumann null mode).
template <class T> std::optional<SineBasis> dimension_sine_basis(const Problem<T>& problem, int d, int sine_limit) {
  const bool periodic = problem.factor(d).periodic();
  const std::size_t n = problem.size(d), N = periodic ? n / 2 : n + 1;
  if (periodic && n % 2 != 0) return std::nullopt;
  const int reach = periodic ? sine_limit : sine_reach(sine_limit);
  if (N < 4 || N > std::size_t(std::max(reach, 0)) || (N & (N - 1)) != 0) return std::nullopt;
  const auto f = real_factor(problem.factor(d));
  if (!f) return std::nullopt;
  auto b = periodic ? fourier_basis(f->A, f->M) : sine_basis(f->A, f->M);
  if (!b) return std::nullopt;
  for (std::size_t k = 0; k < n; ++k) {
    const bool null_mode = periodic && k == 0 && b->lambda[k] == 0;
    if (!normal_eigenvalue<T>(b->lambda[k], 1) || (b->lambda[k] == 0 && !null_mode) ||
        !normal_eigenvalue<T>(b->scale[k], 1))
      return std::nullopt;
  }
  return b;
}

// Dimension d taken by sine transforms: one level of all its rows (as a
// dense top), the eigenvalues in the order of the sines, no kept rows.
template <class T> DimensionPlan<T> transform_dimension(const SineBasis& b, std::vector<W<T>>& whole) {
  const int n = int(b.lambda.size());
  DimensionPlan<T> dp;
  dp.method = b.fourier ? DimensionMethod::fourier_transform : DimensionMethod::sine_transform;
  dp.transform_scale = b.scale;
  if (b.fourier && b.lambda[0] == 0) dp.zero_mode = 0;  // the constant: the pure-Neumann null mode
  dp.layout = make_layout(n, n + 1);
  GroupRef ref;
  ref.eigen = 0;
  dp.groups.push_back({ref});
  GroupEigen<T> ge;
  ge.m = n;
  for (double v : b.lambda) ge.lambda.push_back(T(v));
  dp.eigen.push_back(std::move(ge));
  dp.eigen_method = "toeplitz";
  whole.assign(b.lambda.begin(), b.lambda.end());
  return dp;
}

// The whole eigenbasis of the last dimension's pencil, in which its lines
// are solved (PlanData::line_eigen): every row kept, and the pure-Neumann
// null mode exactly 0 (PlanData::line_zero_mode).
template <class T> void set_line_eigen(PlanData<T>& pd, const WideFactor<W<T>>& wf, int d) {
  const bool neumann = pd.pure_neumann;
  const int n = int(wf.f.size());
  std::vector<int> rows(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) rows[std::size_t(i)] = i;
  PencilEigen<W<T>> pe;
  try {
    pe = pencil_eigen(wf.f.A, wf.f.M, rows);
  } catch (const SingularPencil& e) {
    throw SingularPencil(factor_name(d) + ": " + e.what());
  } catch (const NumericalBreakdown& e) {
    throw NumericalBreakdown(factor_name(d) + ": " + e.what());
  }
  ++pd.eigen_problems;
  pd.eigen_condition = std::max(pd.eigen_condition, pe.condition);
  if (!relative_eigenvalues(pe.method)) pd.absolute_eigenvalues = true;
  const std::size_t exempt = neumann ? null_mode(pe.lambda) : pe.lambda.size();
  GroupEigen<T> ge;
  ge.m = n;
  ge.rows = rows;
  for (std::size_t l = 0; l < pe.lambda.size(); ++l) {
    if (l != exempt && !normal_eigenvalue<T>(pe.lambda[l], wf.lambda_scale))
      throw NumericalBreakdown(factor_name(d) + ": " + eigenvalue_range_error<T>(std::abs(pe.lambda[l]) * wf.lambda_scale));
    ge.lambda.push_back(l == exempt ? T(0) : T(pe.lambda[l] * wf.lambda_scale));
  }
  for (auto& v : pe.rows) ge.coeff.push_back(T(v * wf.vector_scale));
  pd.line_eigen = std::move(ge);
  pd.line_zero_mode = neumann ? int(exempt) : -1;
}

template <class C> bool less_re(const C& a, const C& b) {
  if constexpr (is_complex_v<C>) return a.real() < b.real();
  else return a < b;
}
template <class C> double re(const C& a) {
  if constexpr (is_complex_v<C>) return a.real();
  else return a;
}

// An eigenvalue of a PSCR dimension's group, flagged: the top level's
// (the whole pencil's) and, pure Neumann, its zero mode.
template <class C> struct ShiftValue {
  C value;
  bool zero, top;
  double magnitude = 0;  // of a sum: the sum of its terms' magnitudes (what its rounding is relative to)
};

// The distinct eigenvalues of a planned dimension's groups.
template <class T> std::vector<ShiftValue<W<T>>> shift_values(const DimensionPlan<T>& dp) {
  std::vector<ShiftValue<W<T>>> vals;
  const int top = dp.groups.back()[0].eigen;
  for (std::size_t e = 0; e < dp.eigen.size(); ++e)
    for (int l = 0; l < dp.eigen[e].m; ++l)
      vals.push_back({W<T>(dp.eigen[e].lambda[l]), int(e) == top && l == dp.zero_mode, int(e) == top});
  return vals;
}

// The same for the layout of another radix, from eigenvalues alone (no
// vectors): what a candidate radix would meet, at a fraction of its plan's
// cost. `whole`: the top level's, known already.
template <class C>
std::vector<ShiftValue<C>> layout_shift_values(const WideFactor<C>& wf, int radix, const std::vector<C>& whole) {
  const Factor<C>& f = wf.f;
  const Layout layout = make_layout(static_cast<int>(f.size()), radix);
  std::vector<ShiftValue<C>> vals;
  for (auto& v : whole) vals.push_back({v, false, true});
  std::unordered_set<std::string> seen;
  for (std::size_t i = 0; i + 1 < layout.levels.size(); ++i)
    for (auto& g : layout.levels[i].groups) {
      std::string key;
      append_pencil(key, f, g.start, g.end);
      if (!seen.insert(std::move(key)).second) continue;
      for (auto& v : pencil_eigenvalues(sub_pencil(f.A, g.start, g.end), sub_pencil(f.M, g.start, g.end)))
        vals.push_back({v * wf.lambda_scale, false, false});
    }
  return vals;
}

// What the spectra say of a plan's accuracy (shift_amplification).
struct ShiftReport {
  // how many times nearer to singular the shifted systems of the partial
  // solutions come than the operator (1 when none comes nearer, infinite when one is singular)
  double amplification = 1;
  // the operator's eigenvalue ratio, max |σ + ν| over min |σ + ν| (the
  // pure-Neumann null space left out): its condition in the M-norm for
  // real pencils, an estimate for complex symmetric ones
  double condition = 1;
  // The real parts of the operator's eigenvalues σ + ν share a sign (up to
  // the eigenvalues' resolution): no sum cancels toward zero, whose rounding
  // in the working precision a solve in the eigenbasis would carry.
  bool definite = true;
};

// Every tridiagonal system the method solves is (A_D + σ M_D) with σ = c + Σ λ
// over group eigenvalues of the PSCR dimensions; it is singular exactly when
// -σ is an eigenvalue ν of the last pencil. With top-level eigenvalues only,
// the sums are the eigenvalues of the operator: A itself is singular when one
// cancels a ν, and such plans are refused except for the null space of the
// pure-Neumann case (all λ = 0 and ν = 0). A sum cancels when it is within
// the resolution of the eigenvalues (computed in double: 4096 ε_double of
// the spectra's scale) or when σ and ν cancel to the working precision eps
// of the solve (kCancellationUlps). The sums of smaller groups belong to the
// shifted systems of the partial solutions: the report says how much nearer
// they come to singular than the operator. `nu`: the eigenvalues of the last pencil.
template <class C>
ShiftReport shift_amplification(std::vector<std::vector<ShiftValue<C>>> dims, std::vector<C> nu, C c,
                                bool pure_neumann, double eps, bool relative_spectra) {
  using Sum = ShiftValue<C>;
  std::sort(nu.begin(), nu.end(), less_re<C>);
  // Each dimension's distinct eigenvalues, with the flags "top-level zero
  // mode" and "top-level mode"; their sums are visited one at a time, not
  // stored (3D: the product of two dimensions' counts, millions of sums for
  // graded meshes of a thousand points).
  double scale = std::abs(c) + abs_max(nu);
  for (auto& vals : dims) {
    double big = 0;
    for (auto& v : vals) big = std::max(big, double(std::abs(v.value)));
    scale += big;
    auto key = [](const Sum& v) { return std::make_tuple(re(v.value), std::imag(v.value), v.zero, v.top); };
    std::sort(vals.begin(), vals.end(), [&](const Sum& a, const Sum& b) { return key(a) < key(b); });
    vals.erase(std::unique(vals.begin(), vals.end(), [&](const Sum& a, const Sum& b) { return key(a) == key(b); }),
               vals.end());
  }
  const double tol = 4096 * std::numeric_limits<double>::epsilon() * scale;
  const double inf = std::numeric_limits<double>::infinity();
  double operator_gap = inf, shifted_gap = inf;
  double top_low = inf, top_high = -inf;  // the operator's shifts σ, real parts
  bool shifted_singular = false;
  // σ = s.value: the distance from -σ to the nearest ν
  auto visit = [&](const Sum& s) {
    const C target = -s.value;
    // the ν nearest to -σ: outward from its place in real order, until the
    // real parts alone are farther than the nearest so far
    double nearest = inf;
    C at{};
    auto consider = [&](const C& v) {
      if (pure_neumann && s.zero && std::abs(v) <= tol) return;  // the documented null space
      const double d = std::abs(v - target);
      if (d < nearest) {
        nearest = d;
        at = v;
      }
    };
    const auto it = std::lower_bound(nu.begin(), nu.end(), target, less_re<C>);
    for (auto j = it; j != nu.end() && re(*j) - re(target) < nearest; ++j) consider(*j);
    for (auto j = it; j != nu.begin();) {
      --j;
      if (re(target) - re(*j) >= nearest) break;
      consider(*j);
    }
    if (nearest == inf) return;
    const double cancellation = kCancellationUlps * eps * (std::abs(s.value) + std::abs(at));
    // eigenvalues to high relative accuracy (relative_spectra): a sum's
    // resolution is relative to its own terms, not to the spectra's scale
    // (a Dirichlet mesh graded by 1.3e5 was refused as singular, |σ + ν| = 20
    // against a resolution of 32 from eigenvalues reaching 1e13)
    const double resolution = relative_spectra ? 4096 * std::numeric_limits<double>::epsilon() *
                                                     (s.magnitude + std::abs(at))
                                               : tol;
    const bool singular = nearest <= resolution || nearest <= cancellation;
    if (s.top && singular) {
      std::ostringstream os;
      os << "singular operator: an eigenvalue sum lambda = " << -target << " of the leading factor pencil(s) "
         << "plus c and the eigenvalue nu = " << at << " of the last pencil (A" << dims.size() + 1 << ", M"
         << dims.size() + 1 << ") leave the operator eigenvalue |lambda + nu| = " << nearest << " ";
      if (nearest <= resolution) {
        if (relative_spectra)
          os << "within the accuracy of the eigenvalues (" << resolution << ": 4096 eps of the terms' magnitudes)";
        else
          os << "within the accuracy of the eigenvalues (" << tol << ": 4096 eps of the spectra's scale " << scale << ")";
        // the two far from cancelling: the operator's smallest eigenvalue is
        // too small beside its largest for double eigenvalues to resolve
        // (a nearly singular operator, or a mesh graded by 1e12 and more)
        if (nearest > 1e-3 * (std::abs(s.value) + std::abs(at)))
          os << ", which spans more orders of magnitude than double eigenvalues resolve (a nearly singular "
                "operator, or a mesh graded too strongly?)";
      } else
        os << "to the working precision (|sum| = " << nearest << " <= " << kCancellationUlps << " eps (|lambda| + |nu|), "
           << "eps = " << eps << ": singular in this precision; a wider type may resolve it)";
      os << "; only the pure-Neumann case (c = 0, constant null space) is supported: row sums of every A_d "
         << "count as zero up to " << kZeroRowSumUlps << " eps of the row's entries";
      throw SingularPencil(os.str());
    }
    if (s.top) {
      top_low = std::min(top_low, re(s.value));
      top_high = std::max(top_high, re(s.value));
    }
    if (!s.top && singular) shifted_singular = true;
    double& gap = s.top ? operator_gap : shifted_gap;
    gap = std::min(gap, nearest);
  };
  // c plus one value of each dimension, dimension d onwards
  auto sums = [&](auto&& self, std::size_t d, const Sum& partial) -> void {
    if (d == dims.size()) return visit(partial);
    for (auto& v : dims[d])
      self(self, d + 1,
           {partial.value + v.value, partial.zero && v.zero, partial.top && v.top,
            partial.magnitude + std::abs(v.value)});
  };
  sums(sums, 0, {c, true, true, std::abs(c)});
  ShiftReport r;
  if (operator_gap < inf && operator_gap > 0) r.condition = std::max(1.0, scale / operator_gap);
  if (!nu.empty() && top_low <= top_high)
    r.definite = top_low + re(nu.front()) >= -tol || top_high + re(nu.back()) <= tol;
  if (shifted_singular) r.amplification = inf;
  else if (operator_gap == inf || shifted_gap >= operator_gap) r.amplification = 1.0;
  else r.amplification = operator_gap / shifted_gap;
  return r;
}

// What the planner knows of the spectra beyond a plan: each PSCR dimension's
// whole-pencil eigenvalues and the last pencil's (ν).
template <class C> struct Spectra {
  std::vector<std::vector<C>> whole;
  std::vector<C> nu;
  // the singular-operator check relative to each sum's terms (plan_for_radix)
  bool relative = true;
};

// The leading dimensions taken in one level (DimensionMethod::dense): dimension
// 1 of a dense-top plan; every periodic dimension and every dimension before
// it (a reduction over dimension d multiplies by the factors after d, and
// those products have no corner entries); all of them when the last
// dimension is periodic (its lines are solved in its eigenbasis, for any shift).
template <class T> std::vector<bool> dense_dimensions(const Problem<T>& problem, int dense_top) {
  const int D = problem.dims();
  std::vector<bool> dense(std::size_t(D - 1), false);
  int through = std::min(dense_top, D - 1) - 1;
  for (int d = 0; d < D; ++d)
    if (problem.factor(d).periodic()) through = std::max(through, std::min(d, D - 2));
  for (int d = 0; d <= through; ++d) dense[std::size_t(d)] = true;
  return dense;
}

// The radix dimension d is laid out with: a dense dimension takes one level
// (a radix past its size: one group of all rows, each a source).
template <class T> int dimension_radix(const Problem<T>& problem, int d, int radix, const std::vector<bool>& dense) {
  return dense[std::size_t(d)] ? int(problem.size(d)) + 1 : radix;
}

// Every entry and c without imaginary part.
template <class T> bool real_valued(const Problem<T>& p) {
  if constexpr (is_complex_v<T>) {
    auto real = [](const std::vector<T>& v) { return std::all_of(v.begin(), v.end(), [](const T& x) { return x.imag() == 0; }); };
    if (p.c().imag() != 0) return false;
    for (auto& f : p.factors())
      if (!real(f.A.diag) || !real(f.A.off) || !real(f.M.diag) || !real(f.M.off)) return false;
  }
  return true;
}

// Whether every eigenvalue of the leading dimensions is real (exactly: a
// real pencil's, as pencil_eigen gives them for real data).
template <class T> bool real_shifts(const PlanData<T>& pd) {
  for (const auto& dp : pd.dims)
    for (const auto& ge : dp.eigen)
      for (const auto& l : ge.lambda)
        if (std::imag(l) != 0) return false;
  return true;
}

// The layout and eigenpairs for one radix.
// sines: the leading dimensions' sine bases (a transformed plan), or empty.
template <class T>
PlanData<T> plan_for_radix(const Problem<T>& problem, int radix, bool allow_excess, Spectra<W<T>>& spectra,
                           const std::vector<bool>& dense, const std::vector<SineBasis>& sines = {}) {
  PlanData<T> pd(problem);
  pd.pure_neumann = is_pure_neumann(problem);
  const int D = problem.dims();
  const WideFactor<W<T>> wide_last = wide_factor(problem.factor(D - 1), pd.pure_neumann);
  std::vector<W<T>> nu;  // eigenvalues of the last pencil: those of an identical factor's top level if there is one
  spectra.whole.assign(std::size_t(D - 1), {});
  pd.transformed = !sines.empty();
  for (int d = 0; d + 1 < D; ++d) {
    std::vector<W<T>>& whole = spectra.whole[std::size_t(d)];
    if (pd.transformed) {
      pd.dims.push_back(transform_dimension<T>(sines[std::size_t(d)], whole));
      continue;  // the last pencil's eigenvalues are computed below, in ascending order
    }
    const WideFactor<W<T>> f = wide_factor(problem.factor(d), pd.pure_neumann);
    pd.dims.push_back(plan_dimension<T>(f, d, dimension_radix(problem, d, radix, dense), pd.pure_neumann,
                                        pd.eigen_problems, whole));
    pd.eigen_condition = std::max(pd.eigen_condition, pd.dims.back().eigen_condition);
    if (!relative_eigenvalues(pd.dims.back().eigen_method.c_str())) pd.absolute_eigenvalues = true;
    if (nu.empty() && f.same_as(wide_last)) nu = whole;
  }
  if (wide_last.f.periodic()) {
    // a periodic last dimension: its lines solved in its eigenbasis (PlanData::line_eigen)
    set_line_eigen(pd, wide_last, D - 1);
    nu.assign(pd.line_eigen.lambda.begin(), pd.line_eigen.lambda.end());
  } else if (nu.empty()) {
    try {
      const char* method = "";
      nu = pencil_eigenvalues(wide_last.f.A, wide_last.f.M, &method);
      if (!relative_eigenvalues(method)) pd.absolute_eigenvalues = true;
    } catch (const SingularPencil& e) {
      throw SingularPencil(factor_name(D - 1) + ": " + e.what());
    } catch (const NumericalBreakdown& e) {
      throw NumericalBreakdown(factor_name(D - 1) + ": " + e.what());
    }
    const std::size_t exempt = pd.pure_neumann ? null_mode(nu) : nu.size();
    for (std::size_t l = 0; l < nu.size(); ++l)
      if (l != exempt && !normal_eigenvalue<T>(nu[l], wide_last.lambda_scale))
        throw NumericalBreakdown(factor_name(D - 1) + ": " +
                                 eigenvalue_range_error<T>(std::abs(nu[l]) * wide_last.lambda_scale));
    for (auto& v : nu) v *= wide_last.lambda_scale;
  }
  if (pd.pure_neumann && !pd.periodic_lines()) {
    // the null mode of the last pencil is 0, as the leading ones' (plan_dimension)
    nu[null_mode(nu)] = W<T>(0);
  }
  spectra.nu = nu;
  // The singular-operator check at relative resolution only where the
  // leading dimensions' eigenpairs are closed forms: a strongly graded
  // leading dimension's eigenvalues are as accurate, but the eigenvectors
  // that the partial solutions use are not (a Dirichlet mesh graded by 1.2
  // per cell over 200 cells, cells spanning 7e15, gave 1e-3 in double and
  // float without a warning once planned; refused at the absolute resolution
  // as before). A strongly graded last dimension, whose lines are eliminated,
  // keeps its digits (test_precision/strongly_graded_meshes_*).
  bool leading_closed_form = true;
  for (const auto& dp : pd.dims) leading_closed_form = leading_closed_form && dp.eigen_method == "toeplitz";
  spectra.relative = !pd.absolute_eigenvalues && leading_closed_form;
  std::vector<std::vector<ShiftValue<W<T>>>> values;
  for (auto& dp : pd.dims) values.push_back(shift_values(dp));
  const ShiftReport report =
      shift_amplification(std::move(values), std::move(nu), W<T>(problem.c()), pd.pure_neumann, working_eps<T>(),
                          spectra.relative);
  pd.shift_amplification = report.amplification;
  pd.condition = report.condition;
  pd.definite = report.definite;
  // the smallest real part of the shifts σ = c + Σ λ the tridiagonal systems meet
  double sigma_min = std::real(problem.c());
  for (auto& dp : pd.dims) {
    double lo = std::numeric_limits<double>::infinity();
    for (auto& ge : dp.eigen)
      for (auto& l : ge.lambda) lo = std::min(lo, double(std::real(l)));
    sigma_min += lo;
  }
  const auto& last = problem.factor(D - 1);
  const bool real_data = real_valued(problem);  // true for real types
  // pure Neumann: dominance of the factor with exact zero row sums, which the plan solves
  if constexpr (is_complex_v<T>) {
    // complex type, real data (pure Neumann, or a real problem in complex
    // arithmetic): its systems are as dominant as the real ones, and their
    // ordinary eliminations as stable
    if (pd.pure_neumann || real_data)
      pd.dominant = excess_form_applies(*real_factor(wide_last.f), sigma_min, working_eps<T>());
  } else {
    pd.dominant = pd.pure_neumann ? excess_form_applies(wide_last.f, sigma_min) : excess_form_applies(last, sigma_min);
  }
  // Below dense dimensions only (no reduction: every line's shift is one of
  // the operator's own, c + Σ λ), lines that are not diagonally dominant
  // (indefinite, complex) are solved in the last pencil's eigenbasis rather
  // than by an unpivoted elimination, which meets a zero pivot where a shift
  // makes a leading minor singular (periodic 16 × Dirichlet 10 at c = −3 was
  // refused) and loses digits near one: O(n²) per line, for last dimensions
  // of at most kEigenbasisLines rows.
  const bool all_dense = !pd.transformed && std::all_of(dense.begin(), dense.end(), [](bool b) { return b; });
  if (!pd.periodic_lines() && !pd.dominant && all_dense && problem.size(D - 1) <= kEigenbasisLines) {
    set_line_eigen(pd, wide_last, D - 1);
  }
  if (pd.periodic_lines()) pd.dominant = false;  // no elimination: the lines are solved in their eigenbasis
  // complex types: real data whose shifts are real too (eigenvalues of the
  // real pencils, not of a complex eigen method asked for), so that every
  // coefficient, excess and pivot the eliminations meet is real (excess.hpp):
  // complex64 Poisson at 255^2 on OpenCL lost 2e-4 by the ordinary formulas
  pd.excess_form = allow_excess && pd.dominant && real_data && (!is_complex_v<T> || real_shifts(pd));
  if (pd.excess_form) pd.excess = excess_rows(last, pd.pure_neumann);
  return pd;
}

// What a complex pencil far from normal costs a solve in its eigenbasis
// (eigenvalue condition κ, PencilEigen::condition): its eigenpairs, computed
// in double, carry about κ ε_double, which the basis amplifies by up to κ n,
// and applying the basis in the working precision loses κ n ε. Measured on
// graded linear elements with a complex diagonal, 120 × 150: complex128,
// κ = 7e4 lost 4.8e-7 by dense products (this estimate 1.6e-4), κ = 1.2e10
// everything (8.7e2); complex64, κ = 7e4 everything (27; estimate 1.3).
template <class T> double far_from_normal_loss(const PlanData<T>& pd, double eps) {
  const double kappa = pd.eigen_condition;
  if (!(kappa > 1)) return 0;
  std::size_t longest = 1;
  for (int d = 0; d < pd.problem.dims(); ++d) longest = std::max(longest, pd.problem.size(d));
  const double n = double(longest), eps_double = std::numeric_limits<double>::epsilon();
  return eps_double * kappa * kappa * n + eps * kappa * n;
}

// The estimated relative forward error of a plan: ε for diagonally dominant
// systems in the excess form (errors within a few ε of an FFT solver's,
// docs/accuracy.md), n² ε for them in the ordinary formulas; otherwise the
// unpivoted eliminations of indefinite or complex systems lose about the
// operator's condition times the square of the shift amplification. Where
// that leaves fewer than half the digits of T, the plan says so and what
// recovers them. A far-from-normal pencil's loss adds to it.
template <class T> void predict_error(PlanData<T>& pd, double eps) {
  // dominant systems eliminated by the ordinary formulas
  // (Elimination::ordinary, or real data in complex types whose eigenvalues
  // a complex eigen method left complex) lose up to n² ε where a shift is small beside the
  // diagonal (docs/accuracy.md §1); the excess form none of it
  const double n = double(pd.problem.size(pd.problem.dims() - 1));
  // every dimension in its eigenbasis (fast diagonalisation): the rounding
  // of the products, about n ε (no elimination, no shifted partial
  // solutions); an indefinite operator's smallest eigenvalues amplify it by up
  // to its condition (float, random indefinite 9 × 8 × 11, condition 1.3e5:
  // error 1.5e-3, once predicted 1.3e-6 and not warned of)
  // The excess form loses nothing in its eliminations, but every unknown is
  // a sum over the solve's stages (transforms, eigenvector products, levels,
  // back substitution), each rounded: up to about 2 log2 N ε (N unknowns).
  // Measured against long-double or double answers, where ε alone was once
  // predicted: float uniform 2D 1023² 3.7 ε, 3D 255³ 3.2 ε (log2 N 20, 24),
  // a random dimension 1 of 129 × 63 up to 7.9 ε on the reference backend
  // and 12.9 ε on OpenCL (log2 N 13); double graded 2D 1023² 30 ε (20).
  const double stages = 2 * std::max(1.0, std::log2(double(pd.problem.unknowns())));
  if (pd.periodic_lines()) pd.predicted_error = eps * n + (pd.definite ? 0.0 : eps * pd.condition);
  // indefinite lines: each unpivoted elimination's backward error is ε
  // times its growth (elimination_growth.hpp), 1 where nothing grows
  else pd.predicted_error = pd.dominant ? (pd.excess_form ? eps * stages : eps * std::max(1.0, n * n))
                                   : eps * pd.shift_amplification * pd.shift_amplification * pd.condition *
                                         pd.elimination_growth;
  const double kappa = pd.eigen_condition;
  pd.predicted_error += far_from_normal_loss(pd, eps);
  // eigenvalues to ε_double of the spectrum only: the smallest operator
  // eigenvalue σ + ν carries ε_double·scale, relative ε_double·condition (a
  // periodic dimension on a graded mesh, cells 1 : 2750, double: 2e-7 with
  // 9e-14 predicted and no warning)
  const double resolution_loss =
      pd.absolute_eigenvalues ? std::numeric_limits<double>::epsilon() * pd.condition : 0.0;
  pd.predicted_error += resolution_loss;
  pd.warning.clear();
  if (pd.predicted_error <= half_digits_error<T>()) return;
  std::ostringstream os;
  os.precision(3);
  os << "accuracy: estimated relative error " << pd.predicted_error << " (eps " << eps << " x condition "
     << pd.condition << " x shift amplification^2 " << pd.shift_amplification * pd.shift_amplification;
  if (!pd.dominant && !pd.periodic_lines() && pd.elimination_growth > 1)
    os << " x the growth of the unpivoted line eliminations " << pd.elimination_growth;
  if (kappa > 1) os << ", plus a far-from-normal pencil's loss: eigenvalue condition " << kappa << " times n";
  if (resolution_loss > 0)
    os << ", plus the eigenvalues' resolution: eps_double x condition " << pd.condition
       << " (eigenvalues of a pencil the planner gets to eps_double of its largest only)";
  os << ") leaves fewer than half the digits of the working precision; iterative refinement in double "
     << "(Options::refine = 2; Python refine=2; pscr-solve --refine 2) or a wider type recovers them";
  pd.warning = os.str();
}

}  // namespace

template <class T> bool is_pure_neumann(const Problem<T>& p) {
  if (p.c() != T(0)) return false;
  for (auto& f : p.factors()) {
    if constexpr (is_complex_v<T>) {
      for (auto* t : {&f.A, &f.M}) {
        for (auto& v : t->diag) if (v.imag() != 0) return false;
        for (auto& v : t->off) if (v.imag() != 0) return false;
      }
    }
    const std::size_t n = f.size();
    for (std::size_t i = 0; i < n; ++i) {
      double sum = std::real(f.A.diag[i]), mag = std::abs(f.A.diag[i]);
      if (i > 0) { sum += std::real(f.A.off[i - 1]); mag += std::abs(f.A.off[i - 1]); }
      if (i + 1 < n) { sum += std::real(f.A.off[i]); mag += std::abs(f.A.off[i]); }
      if (f.periodic() && (i == 0 || i + 1 == n)) { sum += std::real(f.A.off[n - 1]); mag += std::abs(f.A.off[n - 1]); }
      if (std::abs(sum) > zero_row_sum_tolerance<T>() * mag) return false;
      if (!(std::real(f.M.diag[i]) > 0)) return false;
    }
  }
  return true;
}

template <class T>
std::optional<PlanData<T>> make_transformed_plan_data(const Problem<T>& problem, int radix, bool allow_excess,
                                                      int sine_limit) {
  if (sine_limit < 4 || problem.factor(problem.dims() - 1).periodic()) return std::nullopt;
  // Every leading dimension a sine or Fourier transform, the lines
  // tridiagonal: no levels, no radix.
  std::vector<SineBasis> sines;
  for (int d = 0; d + 1 < problem.dims(); ++d) {
    auto b = dimension_sine_basis(problem, d, sine_limit);
    if (!b) return std::nullopt;
    sines.push_back(std::move(*b));
  }
  Spectra<W<T>> spectra;
  PlanData<T> pd = plan_for_radix(problem, radix, allow_excess, spectra,
                                  std::vector<bool>(std::size_t(problem.dims() - 1), false), sines);
  predict_error(pd, double(std::numeric_limits<real_t<T>>::epsilon()));
  return pd;
}

template <class T>
PlanData<T> make_plan_data(const Problem<T>& problem, int radix, bool allow_excess, bool radix_free,
                           int dense_top, int sine_limit) {
  if (radix < 2) throw InvalidArgument("radix q = " + std::to_string(radix) + " (needs q >= 2)");
  const double eps = double(std::numeric_limits<real_t<T>>::epsilon());
  if (auto pd = make_transformed_plan_data(problem, radix, allow_excess, sine_limit)) return std::move(*pd);
  const std::vector<bool> dense = dense_dimensions(problem, dense_top);
  std::vector<int> sizes;  // of the dimensions taken in levels of the radix
  for (int d = 0; d + 1 < problem.dims(); ++d)
    if (!dense[std::size_t(d)]) sizes.push_back(int(problem.factor(d).size()));
  Spectra<W<T>> spectra;
  // A radix chosen for the caller sets the number of levels; the smallest
  // radix with as many reads the fewest sources (fewest_sources_radix).
  // Only where every shifted system can be diagonally dominant (below): a
  // complex or non-dominant last factor never is, and is planned once. And
  // only for plans of kFewestSourcesUnknowns or more: another radix is
  // another OpenCL program (KEPT and NSRC are build options), whose build a
  // small plan's solves never earn back.
  const int given = radix;
  if (radix_free && problem.unknowns() >= kFewestSourcesUnknowns &&
      excess_form_applies(problem.factor(problem.dims() - 1), 0.0))
    radix = fewest_sources_radix(sizes, radix);
  PlanData<T> pd = plan_for_radix(problem, radix, allow_excess, spectra, dense);
  if (radix != given && !pd.dominant) {
    // Systems that are not diagonally dominant (indefinite, complex) are
    // eliminated without pivoting, and the digits that keeps depend on the
    // shifts a radix meets, not on its amplification alone (Helmholtz 3D
    // 127^3, reference backend: radix 16 leaves a residual of 2e-14, radix
    // 12 1.5e-12, radix 10 2e-6): the given radix stays.
    radix = given;
    pd = plan_for_radix(problem, radix, allow_excess, spectra, dense);
  }
  // The partial solutions grow by the amplification and cancel in the back
  // substitution: errors grow by about its square (docs/accuracy.md).
  if (radix_free && !pd.pure_neumann && pd.shift_amplification > std::pow(eps, -0.25)) {
    // More than half the digits lost: another grouping moves the shifts.
    // Candidates are judged by their group eigenvalues alone; the best is
    // planned when it at least halves the amplification.
    std::vector<WideFactor<W<T>>> wide;  // the PSCR dimensions' factors
    for (int d = 0; d + 1 < problem.dims(); ++d) wide.push_back(wide_factor(problem.factor(d), false));
    int best = radix;
    double best_amplification = pd.shift_amplification;
    for (int q : kRadixCandidates) {
      if (q == radix) continue;
      std::vector<std::vector<ShiftValue<W<T>>>> values;
      for (std::size_t d = 0; d < wide.size(); ++d) values.push_back(layout_shift_values(wide[d], dimension_radix(problem, int(d), q, dense), spectra.whole[d]));
      const double a =
          shift_amplification(std::move(values), spectra.nu, W<T>(problem.c()), false, working_eps<T>(),
                              spectra.relative)
              .amplification;
      if (a < best_amplification) {
        best = q;
        best_amplification = a;
      }
    }
    if (best != radix && 2 * best_amplification <= pd.shift_amplification)
      pd = plan_for_radix(problem, best, allow_excess, spectra, dense);
  }
  for (std::size_t d = 0; d < dense.size(); ++d)
    if (dense[d]) pd.dims[d].method = DimensionMethod::dense;
  predict_error(pd, eps);
  if (const double loss = far_from_normal_loss(pd, eps); loss >= 1) {
    std::ostringstream os;
    os.precision(3);
    os << "far-from-normal pencil: a complex factor's eigenvalues have condition " << pd.eigen_condition
       << " (max |wᴴMw| / |wᵀMw| over its eigenvectors w), so a solve in its eigenbasis (PSCR, dense products) "
       << "is estimated to lose a relative " << loss
       << ": no digit would be correct; a higher precision, a milder grading or a real-valued factor avoids it";
    throw NumericalBreakdown(os.str());
  }
  const double limit = 1 / std::sqrt(eps);
  if (pd.shift_amplification >= limit) {
    std::ostringstream os;
    os << "near-singular shifted systems in the partial solutions of radix " << pd.dims.back().layout.radix
       << ": a group's eigenvalue sum plus c "
       << (std::isfinite(pd.shift_amplification)
               ? "comes " + std::to_string(pd.shift_amplification) +
                     " times nearer to an eigenvalue of the last pencil than any eigenvalue of the operator does"
               : std::string("cancels an eigenvalue of the last pencil to the eigenvalues' resolution (a "
                             "singular shifted system)"))
       << " (limit "
       << "1/sqrt(eps) = " << limit << ": errors grow by its square, no digit would be correct); the operator "
       << "itself is regular: "
       << (radix_free ? "no radix of 2 ... 8 or 16 avoids it; solve in higher precision or change c"
                      : "another radix (Options::radix = 0 tries several) or higher precision avoids it");
    throw NumericalBreakdown(os.str());
  }
  return pd;
}

template <class T> void set_elimination_growth(PlanData<T>& pd, double growth) {
  pd.elimination_growth = growth;
  predict_error(pd, double(std::numeric_limits<real_t<T>>::epsilon()));
}

template <class T> std::size_t PlanData<T>::bytes() const {
  std::size_t b = 0;
  for (auto& d : dims)
    for (auto& e : d.eigen) b += (e.lambda.size() + e.coeff.size()) * sizeof(T) + e.rows.size() * sizeof(int);
  b += (line_eigen.lambda.size() + line_eigen.coeff.size()) * sizeof(T) + line_eigen.rows.size() * sizeof(int);
  return b;
}

#define PSCR_INSTANTIATE(T)                                              \
  template PlanData<T> make_plan_data(const Problem<T>&, int, bool, bool, int, int);\
  template std::optional<PlanData<T>> make_transformed_plan_data(const Problem<T>&, int, bool, int); \
  template bool is_pure_neumann(const Problem<T>&);                      \
  template void set_elimination_growth(PlanData<T>&, double);            \
  template std::size_t PlanData<T>::bytes() const;
PSCR_INSTANTIATE(float)
PSCR_INSTANTIATE(double)
PSCR_INSTANTIATE(std::complex<float>)
PSCR_INSTANTIATE(std::complex<double>)

}  // namespace pscr::planner
