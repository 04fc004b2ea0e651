// A distributed plan's solves (docs/distributed.md): what every rank agrees
// on before and after them, and each right-hand side's levels on the rank's
// device or on the host.
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

#include "../finite_scan.hpp"
#include "../neumann_weights.hpp"
#include "../size_product.hpp"
#include "../stopwatch.hpp"
#include "agreement.hpp"
#include "distributed_impl.hpp"
#include "local_communicator.hpp"
#include "pscr/errors.hpp"

namespace pscr {
namespace distributed {
namespace {

// A device scans its slab itself, after the upload (a host pass over the
// arrays costs more than the device's solve), except in pure Neumann
// problems, whose projection passes over them on the host anyway.
template <class T> bool device_scans(const SlabExecutor<T>& ex) {
  return (ex.device || ex.transform) && !ex.data.pure_neumann;
}
// A sum over all ranks, for the pure-Neumann means.
template <class T> auto over_ranks(const SlabExecutor<T>& ex) {
  return [c = ex.comm.get()](double* s, int n) { c->sum(s, n); };
}

// Where the first non-finite value of the right-hand sides lies, agreed on
// by all ranks (collective): `local` is this rank's first, a flat index into
// its `count` slabs (npos: none). Throws on every rank with the same message,
// the index in the whole array as a serial plan names it, when any rank has one.
template <class T> void agree_on_nonfinite(const SlabExecutor<T>& ex, std::size_t local, std::size_t count) {
  constexpr std::size_t npos = std::size_t(-1);
  const std::size_t N = ex.info.local_unknowns, whole = ex.data.problem.unknowns();
  // the smallest (right-hand side, index in it) over the ranks, as a max of its negation
  double key = -std::numeric_limits<double>::infinity();
  if (local != npos) key = -(double(local / N) * double(whole) + double(ex.row_begin() * ex.R + local % N));
  ex.comm->max(&key, 1);
  if (key == -std::numeric_limits<double>::infinity()) return;
  const double g = -key;
  const std::size_t c = std::size_t(g / double(whole)), at = std::size_t(g - double(c) * double(whole));
  std::string where = "right-hand side";
  if (count > 1) where += " " + std::to_string(c) + " of the batch";
  throw NonFiniteInput(where + ": non-finite value at index " + std::to_string(at) + " (on rank " +
                       std::to_string(ex.slabs.owner(int(at / ex.R))) + ")");
}

// What every rank agrees on before any message of the solve: the size of
// the whole batch (the same on every rank, so each refuses alone), null
// arrays, non-finite values (where the host scans).
template <class T> void check_right_hand_sides(const SlabExecutor<T>& ex, const T* f, const T* u, std::size_t count) {
  const std::size_t N = ex.info.local_unknowns;
  size_product({ex.data.problem.unknowns(), count, sizeof(T)},
               "solve: unknowns × right-hand sides × bytes per scalar");
  const bool null = (!f || !u) && N * count > 0;
  // the same count on every rank (solves are collective: a rank with fewer
  // right-hand sides would leave the others waiting at an exchange)
  double agreed[3] = {double(count), -double(count), null ? 1.0 : 0.0};
  ex.comm->max(agreed, 3);
  if (agreed[0] != -agreed[1])
    throw InvalidArgument("solve: " + std::to_string(count) + " right-hand sides on rank " + std::to_string(ex.me()) +
                          ", between " + std::to_string(std::size_t(-agreed[1])) + " and " +
                          std::to_string(std::size_t(agreed[0])) +
                          " over the ranks (every rank solves the same number at once)");
  if (agreed[2] > 0)
    throw InvalidArgument(null ? "solve: null array on rank " + std::to_string(ex.me())
                               : std::string("solve: a null array on another rank"));
  if (!device_scans(ex)) {
    const std::size_t i = first_nonfinite(f, N * count);
    agree_on_nonfinite(ex, i < N * count ? i : std::size_t(-1), count);
  }
}

// After the upload: a non-finite value that a rank's device found in its
// slab (`found`), named by the rank that has it (the host looks there).
template <class T>
void check_uploaded(const SlabExecutor<T>& ex, bool found, const T* f_c, std::size_t first, std::size_t count) {
  if (!device_scans(ex) || !any(*ex.comm, found)) return;
  const std::size_t N = ex.info.local_unknowns, i = first_nonfinite(f_c, N);
  agree_on_nonfinite(ex, i < N ? first + i : std::size_t(-1), count);
}

// The reduced system's right-hand sides of a transformed split over ranks
// that do not share memory (MPI), from this rank's `rows` (2k rows of R
// lines, as TransformSlab::eliminate returns them, or of a range's R lines):
// its first k rows summed in place with what the next part adds, the first
// part's addition sent to the previous rank and the next rank's added to the
// last row, and every rank's k rows to every rank, received in `all`
// (TransformSlab::gathered). Returns where each rank's rows
// lie: this rank's in `rows`, the others' in `all`.
template <class T>
std::vector<const T*> gather_reduced_rows(const SlabExecutor<T>& ex, T* rows, T* all, std::size_t k, std::size_t R) {
  const int me = ex.me(), ranks = ex.comm->size();
  const std::size_t bytes = R * sizeof(T);
  T* mine = rows;
  T* next = all + std::size_t(ranks) * k * R;  // the next rank's first part's addition
  for (std::size_t j = 0; j + 1 < k; ++j)
    for (std::size_t i = 0; i < R; ++i) mine[j * R + i] += rows[(k + j + 1) * R + i];
  {
    std::vector<Transfer> sends, receives;
    if (me > 0) sends.push_back({me - 1, rows + k * R, bytes});
    if (me + 1 < ranks) receives.push_back({me + 1, next, bytes});
    ex.comm->exchange(sends, receives);
    if (me + 1 < ranks)
      for (std::size_t i = 0; i < R; ++i) mine[(k - 1) * R + i] += next[i];
  }
  std::vector<Transfer> sends, receives;
  for (int q = 0; q < ranks; ++q)
    if (q != me) {
      sends.push_back({q, mine, k * bytes});
      receives.push_back({q, all + std::size_t(q) * k * R, k * bytes});
    }
  ex.comm->exchange(sends, receives);
  std::vector<const T*> at;
  for (int q = 0; q < ranks; ++q) at.push_back(q == me ? mine : all + std::size_t(q) * k * R);
  return at;
}

// One right-hand side X of a transformed split (transform_split.hpp): the
// upload, the device's scan, the transforms and this slab's elimination, the
// exchange of every rank's rows of the reduced system, the back
// substitution and the transforms back, the download. True when the
// solution holds a non-finite value.
template <class T>
bool solve_on_transform_slab(const SlabExecutor<T>& ex, const T* f_c, std::size_t first, std::size_t count, T* X,
                             SolveStats& st) {
  TransformSlab<T>& dev = *ex.transform;
  auto t = clock_type::now();
  dev.write_slab(X);
  st.transfer_seconds += seconds_since(t);
  check_uploaded(ex, dev.nonfinite_slab(), f_c, first, count);
  t = clock_type::now();
  const std::size_t k = std::size_t(dev.parts());
  if (shares_address_space(*ex.comm)) {
    // ranks of one process: every device reads every rank's rows in place
    T* rows = dev.eliminate();
    const auto exchanged = clock_type::now();
    st.exchange_wait_seconds += seconds_since(t);
    std::vector<const T*> all;
    for (const void* p : share_in_place(*ex.comm, rows)) all.push_back(static_cast<const T*>(p));
    st.exchange_seconds += seconds_since(exchanged);
    dev.substitute(all, int(2 * k));
  } else {
    // by messages, range after range of the lines: a range's rows travel
    // while the device eliminates the next ranges and substitutes the ones
    // before (exchange_ranges)
    const std::vector<RowRange> ranges = exchange_ranges(ex.R);
    dev.eliminate_ranges(ranges);
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      const auto waiting = clock_type::now();
      T* rows = dev.eliminated(i);
      const auto exchanged = clock_type::now();
      st.exchange_wait_seconds += seconds_since(waiting);
      const std::vector<const T*> all = gather_reduced_rows(ex, rows, dev.gathered(i), k, ranges[i].size());
      st.exchange_seconds += seconds_since(exchanged);
      dev.substitute_range(i, all, int(k));
    }
    dev.transform_back();
  }
  const bool nonfinite = dev.solution_nonfinite();  // waits for the solve
  st.device_seconds += seconds_since(t);
  t = clock_type::now();
  dev.read_slab(X);
  st.transfer_seconds += seconds_since(t);
  return nonfinite;
}

// One right-hand side X (this rank's rows; f_c: as given, at offset
// `first` of the batch) on the device: the upload, the device's scan, the
// levels, the download. True when the solution holds a non-finite value.
template <class T>
bool solve_on_device(const SlabExecutor<T>& ex, const T* f_c, std::size_t first, std::size_t count, T* X,
                     SolveStats& st) {
  SlabDevice<T>& dev = *ex.device;
  const std::size_t rows = ex.info.rows.size();
  auto t = clock_type::now();
  if (rows > 0) dev.write_rows(ex.row_begin(), rows, X);
  st.transfer_seconds += seconds_since(t);
  check_uploaded(ex, rows > 0 && device_scans(ex) && dev.nonfinite_rows(ex.row_begin(), rows), f_c, first, count);
  // the levels' time from here, where every rank has its slab on its device
  // (the scan's agreement waits for the last): the uploads' skew is not in it
  t = clock_type::now();
  const int k = ex.dim().layout.k;
  ExchangeTimes times;
  for (int i = 1; i < k; ++i) ex.phase_device(i, false, times);
  for (int i = k; i >= 1; --i) ex.phase_device(i, true, times);
  st.exchange_wait_seconds += times.wait_seconds;
  st.exchange_seconds += times.exchange_seconds;
  const bool nonfinite = device_scans(ex) && rows > 0 && dev.nonfinite_rows(ex.row_begin(), rows);
  dev.finish();  // the copy's time without the solve's
  st.device_seconds += seconds_since(t);
  t = clock_type::now();
  if (rows > 0) dev.read_rows(ex.row_begin(), rows, X);
  st.transfer_seconds += seconds_since(t);
  return nonfinite;
}

// One right-hand side X on the host: the reduction, then the back substitution.
template <class T> void solve_on_host(const SlabExecutor<T>& ex, T* X, reference::PivotWatch& watch) {
  const int k = ex.dim().layout.k;
  for (int i = 1; i < k; ++i) ex.phase(i, false, X, watch);
  for (int i = k; i >= 1; --i) ex.phase(i, true, X, watch);
}

// Near-singular eliminations and non-finite solutions, agreed on by all
// ranks after the batch: each rank throws the same class, the rank that
// found it with the details.
template <class T>
void agree_on_breakdowns(const SlabExecutor<T>& ex, const reference::PivotWatch& watch, const T* u,
                         std::size_t count, bool device_nonfinite) {
  Communicator& comm = *ex.comm;
  const std::size_t N = ex.info.local_unknowns;
  const std::string device_breakdown = ex.device ? ex.device->breakdown() : ex.transform ? ex.transform->breakdown() : "";
  if (any(comm, !device_breakdown.empty()))
    throw NumericalBreakdown(device_breakdown.empty() ? "near-singular tridiagonal system on another rank's device"
                                                      : device_breakdown);
  double smallest = -watch.smallest;
  comm.max(&smallest, 1);
  smallest = -smallest;
  if (smallest < reference::kPivotLimit<T>) {
    if (watch.smallest == smallest) ex.solver.check_pivots(watch.smallest, watch.system);
    ex.solver.check_pivots(smallest, "a shift on another rank");
  }
  // the first non-finite solution value over all ranks, by right-hand side
  // and index in the whole problem (Problem numbering), the same on every rank
  const std::size_t i = !device_scans(ex) || device_nonfinite ? first_nonfinite(u, N * count) : N * count;
  const double whole = double(ex.data.problem.unknowns());
  double first = i < N * count ? -(double(i / N) * whole + double(ex.info.rows.begin * ex.R + i % N))
                               : -std::numeric_limits<double>::infinity();
  comm.max(&first, 1);
  if (first == -std::numeric_limits<double>::infinity()) return;
  const double at = -first, c = std::floor(at / whole);
  std::ostringstream nonfinite;
  nonfinite << "solve produced a non-finite value at index " << std::size_t(at - c * whole);
  if (count > 1) nonfinite << " of right-hand side " << std::size_t(c) << " of the batch";
  nonfinite << " (zero pivot in a tridiagonal solve or overflow)";
  throw NumericalBreakdown(nonfinite.str());
}

}  // namespace
}  // namespace distributed

template <class T> SolveStats DistributedPlan<T>::solve_batch(const T* f, T* u, std::size_t count) const {
  const distributed::SlabExecutor<T>& m = *impl_;
  const auto t0 = clock_type::now();
  const std::size_t N = m.info.local_unknowns;
  distributed::check_right_hand_sides(m, f, u, count);
  if (u != f && N * count > 0) std::memmove(u, f, N * count * sizeof(T));
  SolveStats st;
  if (m.device) m.device->clear_breakdown();
  if (m.transform) m.transform->clear_flags();
  reference::PivotWatch watch;
  bool device_nonfinite = false;  // in a solution, found by the device
  for (std::size_t c = 0; c < count; ++c) {
    T* X = u + c * N;
    if (m.data.pure_neumann)  // the compatible part: f minus its mean over all ranks' rows
      st.incompatible_part = std::max(st.incompatible_part, remove_mean(X, N, double(m.data.problem.unknowns()),
                                                                        distributed::over_ranks(m)));
    if (m.transform)
      device_nonfinite = distributed::solve_on_transform_slab(m, f + c * N, c * N, count, X, st) || device_nonfinite;
    else if (m.device)
      device_nonfinite = distributed::solve_on_device(m, f + c * N, c * N, count, X, st) || device_nonfinite;
    else distributed::solve_on_host(m, X, watch);
    if (m.data.pure_neumann)
      remove_weighted_mean(X, m.neumann_weights.data(), N, m.neumann_weight_sum, distributed::over_ranks(m));
  }
  distributed::agree_on_breakdowns(m, watch, u, count, device_nonfinite);
  st.seconds = seconds_since(t0);
  return st;
}

template SolveStats DistributedPlan<float>::solve_batch(const float*, float*, std::size_t) const;
template SolveStats DistributedPlan<double>::solve_batch(const double*, double*, std::size_t) const;
template SolveStats DistributedPlan<std::complex<float>>::solve_batch(const std::complex<float>*, std::complex<float>*,
                                                                     std::size_t) const;
template SolveStats DistributedPlan<std::complex<double>>::solve_batch(const std::complex<double>*,
                                                                      std::complex<double>*, std::size_t) const;

}  // namespace pscr
