// A transformed split (internal; docs/distributed.md): where every dimension
// but the first is taken by sine or Fourier transforms, as on one device,
// and dimension 1 is tridiagonal, a rank transforms its slab in those
// dimensions without a message (it holds whole rows of them), and each mode
// is then a line (A1 + σ M1) x = g along dimension 1, split over the slabs.
// Each rank cuts its slab into parts, and each part is one chunk of a
// partitioned tridiagonal solve (kernels/partitioned_lines.cl), eliminated
// by a work-item per line. The right-hand side of the reduced system's row
// on a part's last row sums that part's and what the next part's
// eliminations add to it: within a slab the rank adds them, across slabs a
// rank sends the latter to the previous rank, which adds it; the ranks then
// exchange their combined rows (parts × R values to every other rank), and
// every rank solves that system, substitutes back and transforms back,
// against the reduction's levels.
#pragma once
#include <algorithm>
#include <complex>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../planner/plan_data.hpp"
#include "pscr/distributed.hpp"
#include "pscr/plan.hpp"
#include "pscr/scalar.hpp"

namespace pscr::distributed {

// A rank's device in a transformed split: its slab, R values per row.
template <class T> class TransformSlab {
 public:
  virtual ~TransformSlab() = default;
  // This rank's slab (blocking).
  virtual void write_slab(const T* src) = 0;
  virtual void read_slab(T* dst) = 0;
  // Whether the slab as written holds a NaN or an infinity (waits).
  virtual bool nonfinite_slab() = 0;
  // Clears what the device reports of a solve (in queue order).
  virtual void clear_flags() = 0;
  // The parts of this rank's slab (transform_split_parts), as on every rank.
  virtual int parts() const = 0;
  // The transforms to modes and the elimination of this slab's parts.
  // Returns, once they are on the host (waits), what the eliminations leave
  // for the reduced system: 2·parts() rows of R values, page-locked; row j
  // the right-hand side of part j's last row, row parts() + j what part j's
  // eliminations add to that of the row before the part (part j − 1's last,
  // or the previous rank's last part's). Two such areas alternate from call
  // to call: the rows stay as returned until the next call but one, so that
  // ranks sharing the address space read each other's in place.
  virtual T* eliminate() = 0;
  // From every rank's reduced right-hand sides (rows[r] rank r's, per_rank
  // rows of R values each: 2·parts() rows as eliminate() returned them, or
  // parts() rows summed), the reduced system, this slab's back substitution
  // and the transforms back (enqueued; rows are read before the next
  // eliminate() returns).
  virtual void substitute(const std::vector<const T*>& rows, int per_rank) = 0;
  // The same in ranges of lines (exchange_ranges), for ranks that exchange
  // by messages: eliminate_ranges enqueues the transforms to modes and every
  // range's elimination, each range's rows copied to the host when it is
  // done, so that one range's rows travel while the next is eliminated.
  // eliminated(i) waits for range i's rows: 2·parts() rows of its w lines,
  // contiguous, as eliminate() returns them for all R; gathered(i):
  // page-locked room for range i's rows by messages, parts() rows of w per
  // rank, rank after rank (this rank's place unused), and one more row (the
  // next rank's addition to this rank's last row as received);
  // substitute_range(i, …) enqueues that range's reduced system and back
  // substitution (rows as substitute() takes them, rows of w values), and
  // transform_back the transforms back once every range is substituted.
  virtual void eliminate_ranges(const std::vector<RowRange>& ranges) = 0;
  virtual T* eliminated(std::size_t i) = 0;
  virtual T* gathered(std::size_t i) = 0;
  virtual void substitute_range(std::size_t i, const std::vector<const T*>& rows, int per_rank) = 0;
  virtual void transform_back() = 0;
  virtual void finish() = 0;  // waits for the device's queue
  // What the solve found (waits): a non-finite solution value, and the text
  // of a near-singular elimination (empty: none).
  virtual bool solution_nonfinite() = 0;
  virtual std::string breakdown() = 0;
  virtual void describe(PlanInfo& info) const = 0;
  // Per-kernel device times (Options::profile), summed over launches.
  virtual std::vector<KernelTime> kernel_times() const = 0;
  virtual void set_profiling(bool on) = 0;
};

// Each rank's slab is cut into parts; a work-item eliminates a line's rows
// of one part, one row after another, so the parts are as many as give each
// device about kTransformSplitItems work-items (lines · parts): one part per slab
// left the device waiting on a few long sweeps (2D 4095² on two H200s,
// 4095 lines of 2048 rows, 0.69× one device's speed). Every part has at
// least two rows (a pivot and its reduced row), and the partitions are at
// most kTransformSplitMaxParts in all (every rank solves the reduced system
// on their last rows, and receives every rank's rows of its right-hand side).
inline constexpr std::size_t kTransformSplitItems = std::size_t(1) << 17;
inline constexpr std::size_t kTransformSplitMaxParts = 64;
// A part's rows must stay few against the lines: the lines (R, the modes of
// the other dimensions) outnumber a part's rows this many times over, or the
// reduction's split is taken.
inline constexpr std::size_t kTransformSplitLinesPerRow = 4;

// Ranks exchanging by messages send the reduced rows of kExchangeRanges
// ranges of the lines one after another, each while the device eliminates
// the next (and substitutes the one before): the messages overlap the
// device's work instead of following it. Ranges are whole work-groups of
// 256 lines where they are that long.
inline constexpr std::size_t kExchangeRanges = 4;
inline std::vector<RowRange> exchange_ranges(std::size_t lines) {
  std::size_t w = (lines + kExchangeRanges - 1) / kExchangeRanges;
  if (w >= 256) w = (w + 255) / 256 * 256;
  std::vector<RowRange> out;
  for (std::size_t b = 0; b < lines; b += std::max<std::size_t>(w, 1)) out.push_back({b, std::min(lines, b + w)});
  return out;
}

// The parts per rank of a transformed split of n1 rows over `ranks` ranks
// (each at least two rows) with `lines` lines.
inline int transform_split_parts(std::size_t n1, std::size_t lines, int ranks) {
  const std::size_t shortest = n1 / std::size_t(ranks);
  std::size_t k = (kTransformSplitItems + lines / 2) / std::max<std::size_t>(lines, 1);  // rounded
  k = std::min({k, shortest / 2, kTransformSplitMaxParts / std::size_t(ranks)});
  return int(std::max<std::size_t>(k, 1));
}

// Where the partitions of every rank begin, rank after rank, `parts` per
// rank (slab_rows of slab_rows), and n1 last.
inline std::vector<std::size_t> partition_bounds(std::size_t n1, int ranks, int parts) {
  std::vector<std::size_t> bounds;
  for (int p = 0; p < ranks; ++p) {
    const RowRange slab = slab_rows(n1, ranks, p);
    for (int j = 0; j < parts; ++j) bounds.push_back(slab.begin + slab_rows(slab.size(), parts, j).begin);
  }
  bounds.push_back(n1);
  return bounds;
}

// The problem with dimension 1 moved last: its plan is a transformed plan's,
// whose last dimension's lines are split (the data stay in the given order).
template <class T> Problem<T> dimension_one_last(const Problem<T>& p) {
  std::vector<Factor<T>> f(p.factors().begin() + 1, p.factors().end());
  f.push_back(p.factor(0));
  return Problem<T>(std::move(f), p.c());
}

// Whether t + σ·m (m may be null: σ·0) has positive pivots in its
// elimination without pivoting, i.e. is positive definite (symmetric).
template <class T> bool positive_pivots(const Tridiagonal<T>& t, const Tridiagonal<T>* m, double sigma) {
  double before = 0;
  for (std::size_t i = 0; i < t.diag.size(); ++i) {
    double d = double(t.diag[i]) + (m ? sigma * double(m->diag[i]) : 0.0);
    if (i > 0) {
      const double o = double(t.off[i - 1]) + (m ? sigma * double(m->off[i - 1]) : 0.0);
      d -= o * o / before;
    }
    if (!(d > 0)) return false;
    before = d;
  }
  return true;
}

// Whether every line of a transformed plan (dimension 1 last), A1 + σ M1 with
// σ = c + the other dimensions' eigenvalues, is positive definite: M1 is, and
// A1 + σ_min M1 at the smallest σ (then A1 + σ M1 = that + (σ − σ_min) M1).
template <class T> bool definite_lines(const planner::PlanData<T>& pd) {
  const Factor<T>& f = pd.problem.factor(pd.problem.dims() - 1);
  double sigma = double(pd.problem.c());
  for (const auto& dp : pd.dims) {
    const auto& lambda = dp.eigen[0].lambda;
    if (lambda.empty()) return false;
    sigma += double(*std::min_element(lambda.begin(), lambda.end()));
  }
  return positive_pivots(f.M, static_cast<const Tridiagonal<T>*>(nullptr), 0.0) && positive_pivots(f.A, &f.M, sigma);
}

// The plan data of a transformed split over `ranks` ranks of n1 rows, where
// one applies (real scalars; transforms of length at most sine_limit; no
// pure-Neumann problem; diagonally dominant or positive definite lines;
// enough lines for its parts' rows); empty elsewhere, the reduction's split then.
template <class T>
std::optional<planner::PlanData<T>> transform_split_data(const Problem<T>& p, int ranks, int radix,
                                                         bool allow_excess, int sine_limit) {
  if constexpr (is_complex_v<T>) {
    return std::nullopt;  // a complex slab's contiguous lines are two columns each (not taken)
  } else {
    const std::size_t n1 = p.size(0), lines = p.unknowns() / n1;
    if (p.dims() < 2 || std::size_t(ranks) > kTransformSplitMaxParts || n1 < 2 * std::size_t(ranks) ||
        planner::is_pure_neumann(p))
      return std::nullopt;
    const std::size_t parts = std::size_t(transform_split_parts(n1, lines, ranks)),
                      part_rows = ((n1 + std::size_t(ranks) - 1) / std::size_t(ranks) + parts - 1) / parts;
    if (lines < kTransformSplitLinesPerRow * part_rows) return std::nullopt;
    auto pd = planner::make_transformed_plan_data(dimension_one_last(p), radix, allow_excess, sine_limit);
    // Only diagonally dominant or positive definite lines: a slab's rows are
    // eliminated in one sweep without pivoting (stable for those), and an
    // indefinite line (a shift inside A1's spectrum) met pivots just above
    // the watch's √ε there, losing four digits unseen (2D 200 × 255 on four
    // devices, c = −424.44: 4.9e-9 against one device's 4.6e-13), or below
    // it, refusing a problem the reduction's split solves.
    if (pd && (pd->pure_neumann || !(pd->dominant || definite_lines(*pd)))) return std::nullopt;
    return pd;
  }
}

}  // namespace pscr::distributed
