// The radix-q PSCR of the reference backend on host arrays (internal): the
// partial solutions of a group (any range of its modes), the block products
// of the reduction and back substitution, and the whole solve over one
// dimension. Used by the reference executor and, one rank's share at a time,
// by the distributed backend (src/distributed/).
#pragma once
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "../executor.hpp"
#include "../kron.hpp"
#include "../planner/plan_data.hpp"
#include "eigenbasis_line.hpp"
#include "partial_solution_batch.hpp"
#include "thomas.hpp"
#include "pscr/errors.hpp"

namespace pscr::reference {

using planner::DimensionPlan;
using planner::Group;
using planner::GroupEigen;
using planner::GroupRef;
using planner::PlanData;

template <class T, class S> void axpy(std::size_t n, T a, const T* x, S* y) {
  for (std::size_t i = 0; i < n; ++i) y[i] += S(a * x[i]);
}

// Ordinary eliminations lose about log10(1/rel) digits at a pivot of relative
// size rel (cancellation); below √ε more than half the digits are gone.
template <class T> const double kPivotLimit = std::sqrt(double(std::numeric_limits<real_t<T>>::epsilon()));

template <class T> std::string shift_text(const T& s) {
  std::ostringstream os;
  os << "shift sigma = " << s;
  return os.str();
}

// Systems per interleaved Thomas batch.
template <class T> constexpr int batch_width() { return is_complex_v<T> ? 4 : 4; }

// The smallest relative pivot below kPivotLimit of the ordinary eliminations
// of one solve call, and the shift of its system, gathered from all threads
// (reported only on the way to a NumericalBreakdown, so never on a hot path).
struct PivotWatch {
  std::mutex m;
  double smallest = 1;
  std::string system;
  void report(double rel, const std::string& what) {
    std::lock_guard<std::mutex> lock(m);
    if (rel < smallest) {
      smallest = rel;
      system = what;
    }
  }
};

template <class T> class LevelSolver {
 public:
  LevelSolver(const PlanData<T>& pd, int threads)
      : pd_(pd), D_(pd.problem.dims()), threads_(threads > 0 ? threads : omp_get_max_threads()) {}

  void check_pivots(double smallest, const std::string& system) const {
    if (smallest >= kPivotLimit<T>) return;
    std::ostringstream os;
    os << "near-singular tridiagonal system (A" << D_ << " + sigma M" << D_ << ") with " << system
       << ": a pivot of relative size " << smallest << " (below sqrt(eps) = " << kPivotLimit<T>
       << "; the elimination does not pivot), so more than half the digits are lost; c is close to a sum of "
          "eigenvalues of the factor pencils (the operator is nearly singular), or the system is indefinite";
    throw NearSingularElimination(os.str());
  }

  const Factor<T>& factor(int d) const { return pd_.problem.factor(d); }
  const planner::ExcessRows<T>* excess() const { return pd_.excess_form ? &pd_.excess : nullptr; }
  // Values per row of dimension d (the product of the later sizes).
  std::size_t rest(int d) const {
    std::size_t r = 1;
    for (int e = d + 1; e < D_; ++e) r *= factor(e).size();
    return r;
  }

  // y (+)= B(j, j2) x, the (j, j2) block of A_d⊗M_r + M_d⊗(A_r + σM_r).
  void apply_block(int d, T sigma, int j, int j2, const T* x, T* y, T* tmp, bool accumulate) const {
    const auto& f = factor(d);
    const T a = j == j2 ? f.A.diag[j] : f.A.off[std::min(j, j2)];
    const T m = j == j2 ? f.M.diag[j] : f.M.off[std::min(j, j2)];
    detail::apply_rest(&pd_.problem.factors()[d + 1], D_ - 1 - d, T(a + m * sigma), m, x, y, tmp, accumulate);
  }

  // Partial solutions of one group: for every mode l,
  //   y_l = (A_r + (σ+λ_l) M_r)^-1 (Σ_S W[r,l] F_r − W[s,l] bl − W[e,l] br)
  // and out[t] = Σ_l W[outpos[t], l] y_l, summed in sweep_t<T> (double for
  // float): a float sum over the m modes of a large group would lose about
  // log2(m) bits (the device sums are compensated for the same reason).
  // The modes [mode_begin, mode_end) only (the distributed backend splits a
  // large group's modes over ranks); src[p]: the row of the group's p-th source.
  void partial_solutions(int d, T sigma, bool null_level, const GroupEigen<T>& ge, const GroupRef& ref,
                         const Group& g, const T* const* src, const T* bl, const T* br,
                         const std::vector<int>& outpos, int mode_begin, int mode_end, T* out, bool parallel,
                         PivotWatch& watch) const {
    const std::size_t R = rest(d);
    const int m = ge.m;
    std::fill(out, out + outpos.size() * R, T(0));
    if (g.sources.empty() && !bl && !br) return;  // zero right-hand sides
    if (mode_begin >= mode_end) return;
    const int zero = null_level ? pd_.dims[d].zero_mode : -1;
    const bool leaf = d + 1 == D_ - 1;
    constexpr int B = batch_width<T>();
    const int chunk = leaf ? B : 1;
    const int nchunks = (mode_end - mode_begin + chunk - 1) / chunk;
    auto W = [&](int pos, int l) { return ge.coeff[std::size_t(pos) * m + l]; };

    using S = reference::sweep_t<T>;
    auto run = [&](int c, T* rhs, S* work, S* acc) {
      const int l0 = mode_begin + c * chunk, cnt = std::min(chunk, mode_end - l0);
      if (!leaf || (zero >= l0 && zero < l0 + cnt) || pd_.periodic_lines()) {
        // One mode at a time: nested 2D solve, or the pinned singular mode.
        for (int l = l0; l < l0 + cnt; ++l) {
          std::fill(rhs, rhs + R, T(0));
          for (std::size_t p = 0; p < g.sources.size(); ++p)
            axpy(R, W(ref.source_pos[p], l), src[p], rhs);
          if (bl) axpy(R, T(-W(ref.start_pos, l)), bl, rhs);
          if (br) axpy(R, T(-W(ref.end_pos, l)), br, rhs);
          const T s = sigma + ge.lambda[l];
          if (leaf && pd_.periodic_lines()) {
            reference::eigenbasis_line(pd_.line_eigen, pd_.line_zero_mode, s, l == zero, rhs, work);
          } else if (leaf) {
            const double rel = reference::thomas_single(factor(D_ - 1), excess(), s, l == zero, rhs, work);
            if (rel < kPivotLimit<T>) watch.report(rel, shift_text(s));
          } else {
            solve_dim(d + 1, s, l == zero, rhs, false, watch);
          }
          for (std::size_t t = 0; t < outpos.size(); ++t) axpy(R, W(outpos[t], l), rhs, acc + t * R);
        }
        return;
      }
      // Interleaved batch of B modes (padded with a repeated shift and zero weights).
      reference::ModeBatch<B, T> mb;
      for (int b = 0; b < B; ++b) mb.sigma[b] = sigma + ge.lambda[l0 + std::min(b, cnt - 1)];
      auto add_source = [&](const T* src, int pos, T sign) {
        mb.src.push_back(src);
        auto& w = mb.wsrc.emplace_back();
        for (int b = 0; b < B; ++b) w[b] = b < cnt ? T(sign * W(pos, l0 + b)) : T(0);
      };
      for (std::size_t p = 0; p < g.sources.size(); ++p)
        add_source(src[p], ref.source_pos[p], T(1));
      if (bl) add_source(bl, ref.start_pos, T(-1));
      if (br) add_source(br, ref.end_pos, T(-1));
      for (std::size_t t = 0; t < outpos.size(); ++t) {
        mb.out.push_back(acc + t * R);
        auto& w = mb.wout.emplace_back();
        for (int b = 0; b < B; ++b) w[b] = b < cnt ? W(outpos[t], l0 + b) : T(0);
      }
      const reference::LineSystem<T> sys(factor(D_ - 1), excess());
      reference::partial_solution_batch<B>(sys, mb, work, work + R * B);
      if (sys.smallest_pivot < kPivotLimit<T>)
        watch.report(sys.smallest_pivot,
                     shift_text(mb.sigma[0]) + " (or one of the next " + std::to_string(cnt - 1) + " modes)");
    };

    const std::size_t scratch = R * B, outs = outpos.size() * R;
    // out itself where the sweep runs in the data's precision (it is zeroed above)
    std::vector<S> wide;
    S* sum = nullptr;
    if constexpr (std::is_same_v<S, T>) {
      sum = out;
    } else {
      wide.assign(outs, S(0));
      sum = wide.data();
    }
    if (!parallel || nchunks == 1) {
      std::vector<T> rhs(scratch);
      std::vector<S> work(2 * scratch);
      for (int c = 0; c < nchunks; ++c) run(c, rhs.data(), work.data(), sum);
    } else {
      // Static chunk assignment and an ordered sum of the per-thread partial
      // outputs keep results bitwise reproducible for a given thread count.
      std::vector<std::vector<S>> partial(threads_);
#pragma omp parallel num_threads(threads_)
      {
        std::vector<T> rhs(scratch);
        std::vector<S> work(2 * scratch), acc(outs, S(0));
#pragma omp for schedule(static, 1)
        for (int c = 0; c < nchunks; ++c) run(c, rhs.data(), work.data(), acc.data());
        partial[omp_get_thread_num()] = std::move(acc);
      }
      for (auto& acc : partial)
        if (!acc.empty()) axpy(outs, S(1), acc.data(), sum);
    }
    if constexpr (!std::is_same_v<S, T>)
      for (std::size_t i = 0; i < outs; ++i) out[i] = T(sum[i]);
  }

  // Solves (A_d⊗M_r + M_d⊗(A_r + σ M_r)) x = x in place by radix-q PSCR over
  // dimension d. `null_mode`: σ is the shift of the pure-Neumann null space.
  void solve_dim(int d, T sigma, bool null_mode, T* X, bool parallel, PivotWatch& watch) const {
    const DimensionPlan<T>& dp = pd_.dims[d];
    const auto& L = dp.layout;
    const int n = L.n, k = L.k;
    const std::size_t R = rest(d);
    auto for_groups = [&](std::size_t G, auto&& body) {
      if (parallel && G >= std::size_t(2 * threads_)) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
        for (std::size_t gi = 0; gi < G; ++gi) body(gi, false);
      } else {
        for (std::size_t gi = 0; gi < G; ++gi) body(gi, parallel);
      }
    };

    // Reduction: levels 1..k-1 update the rows of J_i from the partial
    // solutions' first and last rows of the neighbouring groups.
    for (int i = 1; i < k; ++i) {
      const auto& lv = L.levels[i - 1];
      const auto& refs = dp.groups[i - 1];
      const std::size_t G = lv.groups.size();
      std::vector<T> V(G * 2 * R);
      for_groups(G, [&](std::size_t gi, bool par) {
        const GroupRef& ref = refs[gi];
        const std::vector<int> outpos{ref.start_pos, ref.end_pos};
        const GroupEigen<T>& ge = dp.eigen[ref.eigen];
        partial_solutions(d, sigma, false, ge, ref, lv.groups[gi], rows(X, R, lv.groups[gi].sources).data(), nullptr,
                          nullptr, outpos, 0, ge.m, &V[gi * 2 * R], par, watch);
      });
      const std::size_t S = lv.survivors.size();
#pragma omp parallel for if (parallel) num_threads(threads_)
      for (std::size_t t = 0; t < S; ++t) {
        const int j = lv.survivors[t];
        std::vector<T> w(R), tmp(R);
        apply_block(d, sigma, j, j - 1, &V[t * 2 * R + R], w.data(), tmp.data(), false);
        if (t + 1 < G) apply_block(d, sigma, j, j + 1, &V[(t + 1) * 2 * R], w.data(), tmp.data(), true);
        axpy(R, T(-1), w.data(), X + std::size_t(j) * R);
      }
    }
    // Back substitution: levels k..1 compute the source rows of every group
    // from their right-hand sides and the already final rows around the group.
    for (int i = k; i >= 1; --i) {
      const auto& lv = L.levels[i - 1];
      const auto& refs = dp.groups[i - 1];
      for_groups(lv.groups.size(), [&](std::size_t gi, bool par) {
        const Group& g = lv.groups[gi];
        const GroupRef& ref = refs[gi];
        if (g.sources.empty()) return;
        std::vector<T> bl, br, tmp(R), out(g.sources.size() * R);
        if (g.start > 0) {
          bl.resize(R);
          apply_block(d, sigma, g.start, g.start - 1, X + std::size_t(g.start - 1) * R, bl.data(), tmp.data(), false);
        }
        if (g.end < n - 1) {
          br.resize(R);
          apply_block(d, sigma, g.end, g.end + 1, X + std::size_t(g.end + 1) * R, br.data(), tmp.data(), false);
        }
        const GroupEigen<T>& ge = dp.eigen[ref.eigen];
        partial_solutions(d, sigma, null_mode && i == k, ge, ref, g, rows(X, R, g.sources).data(),
                          bl.empty() ? nullptr : bl.data(), br.empty() ? nullptr : br.data(), ref.source_pos, 0,
                          ge.m, out.data(), par, watch);
        for (std::size_t p = 0; p < g.sources.size(); ++p)
          std::copy(out.begin() + p * R, out.begin() + (p + 1) * R, X + std::size_t(g.sources[p]) * R);
      });
    }
  }

  int threads() const { return threads_; }

 private:
  static std::vector<const T*> rows(const T* X, std::size_t R, const std::vector<int>& which) {
    std::vector<const T*> out;
    for (int r : which) out.push_back(X + std::size_t(r) * R);
    return out;
  }

  const PlanData<T>& pd_;
  int D_;
  int threads_;
};


}  // namespace pscr::reference
