#include "tridiagonal_solver.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "program_options.hpp"

namespace pscr::ocl {

std::string TridiagonalSolver::limits(const Device& dev, const KernelParameters& p, int n, std::size_t scalar_bytes,
                                      std::size_t local_stage_group) {
  int rows = n;
  while (rows > p.local_size) rows /= 2;
  const std::size_t items = std::size_t(p.local_lines) << p.pcr_steps;
  const std::size_t local = 6 * std::size_t(rows) * p.local_lines * scalar_bytes;
  std::ostringstream os;
  const std::size_t group_limit = std::min(dev.max_work_group, local_stage_group);
  if (items > group_limit)
    os << "local_lines * 2^pcr_steps = " << items << " work-items exceeds the work-group limit " << group_limit
       << " of the local-memory stage on " << dev.name;
  else if (local > dev.local_mem)
    os << "local_size " << p.local_size << " with local_lines " << p.local_lines << " needs " << local
       << " bytes of local memory; " << dev.name << " has " << dev.local_mem;
  else if (std::size_t(p.cr_work_group) > dev.max_work_group || std::size_t(p.work_group) > dev.max_work_group ||
           std::size_t(p.sum_work_group) > dev.max_work_group)
    os << "a work-group size in (" << to_string(p) << ") exceeds the limit " << dev.max_work_group << " of "
       << dev.name;
  return os.str();
}

namespace {
// Local memory of one whole line in scalars (kernels/line_solve.cl): the
// reduced system (3T), the n rows with one pad entry per chunk of k, then the
// pivots of chunks 0 and 1 (4k) or, every_chunk (line_solve_pivots), the
// checkpoints of all T chunks (two per kLineCheckpoint rows).
std::size_t line_span(int n, int k, int T, bool every_chunk = false) {
  const std::size_t runs = (std::size_t(k) + kLineCheckpoint - 1) / kLineCheckpoint;
  return 3 * std::size_t(T) + std::size_t(n) + std::size_t((n + k - 1) / k) +
         (every_chunk ? 2 * runs * std::size_t(T) : 4 * std::size_t(k));
}

// Lines per work-group: line_group / T, halved until they fit the group limit
// and local memory.
std::size_t group_lines(const Device& dev, int line_group, std::size_t T, std::size_t group_cap,
                        std::size_t line_bytes) {
  std::size_t lines = std::max<std::size_t>(1, std::size_t(line_group) / T);
  while (lines > 1 && (lines * T > group_cap || lines * line_bytes > dev.local_mem)) lines /= 2;
  return lines;
}
}  // namespace

TridiagonalSolver::TridiagonalSolver(Runtime& rt, const KernelParameters& p, int n, std::size_t max_lines,
                                     std::size_t scalar_bytes, cl_mem C, const void* packed, cl_mem flags,
                                     bool may_pin)
    : rt_(rt), p_(p), scalar_bytes_(scalar_bytes), C_(C), flags_(flags), may_pin_(may_pin) {
  rows_.push_back(n);
  while (rows_.back() > p.local_size) rows_.push_back(rows_.back() / 2);
  const std::string why = limits(rt.device(), p, n, scalar_bytes, rt.max_group("cr_local"));
  if (!why.empty()) throw InvalidArgument("kernel parameters: " + why);
  if (p.line_rows > 0) {
    std::size_t group_cap = rt.device().max_work_group;
    for (const char* kernel : {"line_solve", "line_solve_uniform", "line_solve_pivots", "form_solve_lines",
                               "form_solve_lines_uniform", "form_solve_halved_uniform"})
      group_cap = std::min(group_cap, rt.max_group(kernel));
    // T work-items per line (a power of two for the PCR of the reduced
    // system), k ≤ line_rows rows each, spread evenly, for a system of m rows.
    auto fits = [&](int m, int& T, int& k) {
      T = 1;
      while (T * p.line_rows < m) T *= 2;
      k = (m + T - 1) / T;
      return std::size_t(T) <= group_cap && line_span(m, k, T) * scalar_bytes <= rt.device().local_mem;
    };
    // Whole lines, or halved ones (kernels/line_solve.cl: one CR step while
    // a line is loaded) where a whole line does not fit or halve_lines = 2.
    int T = 0, k = 0;
    bool whole = !(p.halve_lines == 2 && n >= 4) && fits(n, T, k);
    if (!whole && p.halve_lines > 0 && n >= 4) whole = halved_ = fits(n / 2, T, k);
    if (whole) {
      const std::size_t line_bytes = line_span(halved_ ? n / 2 : n, k, T) * scalar_bytes;
      line_threads_ = T;
      line_rows_ = k;
      group_lines_ = int(group_lines(rt.device(), p.line_group, std::size_t(T), group_cap, line_bytes));
      const std::size_t entry = 4 * scalar_bytes;
      const auto* from = static_cast<const unsigned char*>(packed);
      uniform_ = 1;
      for (int i = 2; i + 1 < n && uniform_; ++i) uniform_ = std::memcmp(from + entry, from + i * entry, entry) == 0;
      if (uniform_ || halved_) return;  // halved lines generate their rows from C
      // any factor, lines neither pinned nor halved: line_solve_pivots where
      // a line with every chunk's pivots fits local memory
      const std::size_t pivot_bytes = line_span(n, k, T, true) * scalar_bytes;
      if (!may_pin_ && pivot_bytes <= rt.device().local_mem)
        pivot_lines_ = int(group_lines(rt.device(), p.line_group, std::size_t(T), group_cap, pivot_bytes));
      // entry t·k + j of the packed factor goes to j·T + t (zero past the end)
      std::vector<unsigned char> chunked(std::size_t(k) * T * entry, 0);
      for (int t = 0; t < T; ++t)
        for (int j = 0; j < k && t * k + j < n; ++j)
          std::memcpy(&chunked[(std::size_t(j) * T + t) * entry], from + std::size_t(t * k + j) * entry, entry);
      chunked_ = rt.upload(chunked, "packed factor by chunks");
      return;  // the global CR levels are never used
    }
  }
  // With cr_two_levels, levels 0, 2, 4, … and the last are stored and the
  // steps between them take two CR levels at once where they can.
  const int K = int(rows_.size()) - 1, step = p.cr_two_levels ? 2 : 1;
  stored_.push_back(0);
  while (stored_.back() + step <= K) stored_.push_back(stored_.back() + step);
  if (stored_.back() != K) stored_.push_back(K);
  std::size_t total = 0;
  for (std::size_t s = 1; s < stored_.size(); ++s) total += 3 * std::size_t(rows_[stored_[s]]) * max_lines;
  levels_ = rt.alloc(total * scalar_bytes, "CR levels of the tridiagonal solver");
}

void TridiagonalSolver::solve(cl_mem Y, int lines, cl_mem sigma, cl_mem pinned) const {
  const std::size_t L = std::size_t(lines), wg = std::size_t(p_.cr_work_group);
  const int n0 = rows_[0];
  if (may_pin_)
    rt_.run("center_pinned", p_.work_group, {L}, Y, n0, lines, cl_ulong(whole_lines() ? 1 : L),
            cl_ulong(whole_lines() ? n0 : 1), pinned);
  if (whole_lines()) {
    launch_lines(nullptr, Y, lines, sigma, pinned);
    return;
  }
  // Stored level s lives in Y (s = 0, `mode` 1) or in levels_ at offsets[s]
  // as planes a | c | d (`mode` 0); see kernels/tridiagonal.cl.
  const std::size_t S = stored_.size();
  std::vector<cl_ulong> offsets(S, 0);
  for (std::size_t s = 2; s < S; ++s) offsets[s] = offsets[s - 1] + 3 * cl_ulong(rows_[stored_[s - 1]]) * L;
  auto buf = [&](std::size_t s) { return s == 0 ? Y : levels_.get(); };
  auto mode = [](std::size_t s) { return s == 0 ? 1 : 0; };
  auto rows = [&](std::size_t s) { return rows_[stored_[s]]; };
  auto two = [&](std::size_t s) { return stored_[s + 1] - stored_[s] == 2; };  // step s → s+1
  // Cost model per row (ops): generating a level-0 row from A, M, σ ~10, one
  // CR elimination ~15, one back-substitution row ~5; a two-level step
  // regenerates three middle-level rows per output row.
  const double Ld = double(L);
  auto gen = [&](std::size_t s) { return s == 0 ? 10.0 * rows(0) : 0.0; };
  auto level_scalars = [&](std::size_t s) { return (s == 0 ? 1.0 : 3.0) * rows(s); };
  for (std::size_t s = 0; s + 1 < S; ++s) {
    const double out = rows(s + 1);
    rt_.count(Ld * (gen(s) + (two(s) ? 60 : 15) * out), Ld * (level_scalars(s) + 3 * out));
    if (two(s))
      rt_.run("cr_reduce2", wg, {L, std::size_t(rows(s + 1))}, buf(s), offsets[s], rows(s), mode(s), buf(s + 1),
              offsets[s + 1], lines, C_, n0, sigma, pinned, flags_);
    else
      rt_.run("cr_reduce", wg, {L, std::size_t(rows(s + 1))}, buf(s), offsets[s], rows(s), mode(s), buf(s + 1),
              offsets[s + 1], mode(s + 1), lines, C_, n0, sigma, pinned, flags_);
  }
  const std::size_t lanes = std::size_t(p_.local_lines), T = std::size_t(1) << p_.pcr_steps;
  rt_.count(Ld * (gen(S - 1) + (15.0 * p_.pcr_steps + 8) * rows(S - 1)),
            Ld * (level_scalars(S - 1) + rows(S - 1)));
  rt_.launch("cr_local", 2, {round_up(L, lanes), T, 1}, {lanes, T, 1}, buf(S - 1), offsets[S - 1], rows(S - 1),
             mode(S - 1), lines, C_, n0, sigma, pinned, flags_, LocalBytes{6 * std::size_t(rows(S - 1)) * lanes * scalar_bytes_});
  for (std::size_t s = S - 1; s-- > 0;) {
    rt_.count(Ld * (gen(s) + (two(s) ? 25 : 5) * rows(s)), Ld * (rows(s + 1) + level_scalars(s) + rows(s)));
    if (two(s))
      rt_.run("cr_back2", wg, {L, std::size_t(rows(s) + 3) / 4}, buf(s), offsets[s], rows(s), mode(s), buf(s + 1),
              offsets[s + 1], lines, C_, n0, sigma, pinned);
    else
      rt_.run("cr_back", wg, {L, std::size_t(rows(s) + 1) / 2}, buf(s), offsets[s], rows(s), mode(s), buf(s + 1),
              offsets[s + 1], mode(s + 1), lines, C_, n0, sigma, pinned);
  }
}

void TridiagonalSolver::solve_across(cl_mem Y, int lines, cl_mem sigma, cl_mem pinned) const {
  if (!lines_across()) throw std::logic_error("solve_across without whole lines that are not halved");
  const std::size_t L = std::size_t(lines);
  if (may_pin_) rt_.run("center_pinned", p_.work_group, {L}, Y, rows_[0], lines, cl_ulong(L), cl_ulong(1), pinned);
  launch_lines(nullptr, Y, lines, sigma, pinned, true);
}

void TridiagonalSolver::form_and_solve(const RhsSources& src, cl_mem Y, int lines, cl_mem sigma) const {
  if (!forms_rhs()) throw std::logic_error("form_and_solve without whole, unpinned lines");
  launch_lines(&src, Y, lines, sigma, nullptr);
}

void TridiagonalSolver::launch_lines(const RhsSources* src, cl_mem Y, int lines, cl_mem sigma, cl_mem pinned,
                                     bool across) const {
  // Cost model per row: generating it ~10, eliminating ~15, back
  // substitution ~6; the reduced system ~15 per PCR step and chunk. Formed
  // right-hand sides are not read (the executor counts their sources).
  const bool pivots = !src && pivot_lines_ > 0;  // line_solve_pivots
  const std::size_t L = std::size_t(lines), T = std::size_t(line_threads_);
  const std::size_t G = std::size_t(pivots ? pivot_lines_ : group_lines_);
  const int n0 = rows_[0];
  int steps = 0;
  while ((1 << steps) < line_threads_) ++steps;
  // Halved lines: one CR step more per row (~15) and their even rows read
  // again (or formed again).
  rt_.count(double(L) * ((halved_ ? 46.0 : 31.0) * n0 + 15.0 * steps * T),
            ((src ? 1.0 : 2.0) + (halved_ ? 0.5 : 0.0)) * double(L) * n0);
  const std::size_t span = line_span(halved_ ? n0 / 2 : n0, line_rows_, line_threads_, pivots);
  cl_mem CC = uniform_ || halved_ ? C_ : chunked_.get();
  const int halved = halved_ ? 1 : 0;
  const std::array<std::size_t, 3> local{T, G, 1};
  const LocalBytes lines_local{G * span * scalar_bytes_};
  if (src) {
    // a batch of 32 or more: a work-group's lines are tm modes by G / tm
    // lanes, so that the modes of a group share their sources' loads
    // (kernels/line_solve.cl, form_tile), where that kernel's work-group
    // limit (its registers) allows the shape of the others
    const char* tiled = uniform_ ? "form_solve_tiles_uniform" : "form_solve_tiles";
    const int tm = src->batch >= 32 && !halved_ && p_.rhs_modes > 1 && G > 1 && T * G <= rt_.max_group(tiled)
                       ? std::min(p_.rhs_modes, int(G))
                       : 0;
    std::size_t groups = (L + G - 1) / G;
    if (tm > 0) {
      const std::size_t bt = G / std::size_t(tm), modes = L / std::size_t(src->batch);
      groups = (modes + tm - 1) / tm * ((std::size_t(src->batch) + bt - 1) / bt);
    }
    const char* kernel = tm > 0       ? tiled
                         : !uniform_ ? "form_solve_lines"
                         : halved_   ? "form_solve_halved_uniform"
                                     : "form_solve_lines_uniform";
    rt_.launch(kernel, 2,
               {T, groups * G, 1}, local, src->X, src->groups, src->mode_group, src->W, src->BL, src->BR, src->batch,
               src->use_boundary, Y, n0, line_rows_, lines, C_, CC, src->parent_sigma, src->lambda, sigma, flags_,
               halved, tm, int(span), lines_local);
    return;
  }
  // lines of a uniform factor, neither pinned nor halved: the kernel
  // specialised to them (kernels/line_solve.cl)
  const char* kernel = pivots                              ? "line_solve_pivots"
                       : uniform_ && !halved_ && !may_pin_ ? "line_solve_uniform"
                                                            : "line_solve";
  rt_.launch(kernel, 2, {T, round_up(L, G), 1}, local, Y, n0, line_rows_, lines, C_, CC, uniform_, sigma, pinned,
             flags_, halved, across ? 1 : 0, int(span), lines_local);
}

}  // namespace pscr::ocl
