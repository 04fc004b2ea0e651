#include "reduction_solve.hpp"

#include <algorithm>
#include <array>
#include <complex>

#include "program_options.hpp"

namespace pscr::ocl {

template <class T>
ReductionSolve<T>::ReductionSolve(const Runtime& rt, const planner::PlanData<T>& pd, const KernelParameters& p,
                                  const PlanBuffers<T>& b)
    : rt_(rt), pd_(pd), p_(p), b_(b), D_(pd.problem.dims()), dense_(rt, pd, p, b, *this) {}

// Rest-dimension factor buffers for the block products of dimension d.
template <class T>
void ReductionSolve<T>::rest_factors(int d, cl_mem& A2, cl_mem& M2, int& n2, cl_mem& A3, cl_mem& M3, int& n3) const {
  A2 = b_.afac[d + 1].get();
  M2 = b_.mfac[d + 1].get();
  n2 = int(pd_.problem.size(d + 1));
  if (d + 2 < D_) {
    A3 = b_.afac[d + 2].get();
    M3 = b_.mfac[d + 2].get();
    n3 = int(pd_.problem.size(d + 2));
  } else {
    A3 = A2;
    M3 = M2;
    n3 = 0;
  }
}

// The weighted sums of the partial solutions of one level (see accumulate
// in kernels/level.cl): T work-items per sum, as many as the longest group
// of the level needs for sum_terms terms each.
template <class T>
void ReductionSolve<T>::accumulate(const DimBufs& db, const LevelBufs& lb, cl_mem X, int batch, int to_sources,
                                   int whole) const {
  const std::size_t cap = std::min({std::size_t(p_.sum_work_group), rt_.max_group("accumulate_tree"),
                                    rt_.max_group("accumulate")}),
                    R = db.R, sums = R * std::size_t(lb.group_end - lb.group_begin);
  const auto& items = rt_.device().max_items;
  const std::size_t terms = (std::size_t(lb.max_m) + p_.sum_terms - 1) / p_.sum_terms;
  std::size_t wb, lanes, wr;
  std::array<std::size_t, 3> global, local;
  if (whole) {  // consecutive work-items on consecutive rows of Y[mode][b][r]
    wr = pow2_fit(sums, std::min({cap, items[0], std::size_t(32)}));
    lanes = pow2_fit(terms, std::min(cap / wr, items[1]));
    wb = pow2_fit(std::size_t(batch), std::min(cap / (wr * lanes), items[2]));
    global = {round_up(sums, wr), lanes, round_up(std::size_t(batch), wb)};
    local = {wr, lanes, wb};
  } else {
    wb = pow2_fit(std::size_t(batch), std::min(cap, items[0]));
    lanes = pow2_fit(terms, std::min(cap / wb, items[1]));
    wr = pow2_fit(sums, std::min(cap / (wb * lanes), items[2]));
    global = {round_up(std::size_t(batch), wb), lanes, round_up(sums, wr)};
    local = {wb, lanes, wr};
  }
  const double RB = double(R) * batch;
  rt_.count(2 * RB * (to_sources ? lb.source_modes : 2.0 * lb.modes),
            RB * (lb.modes + (to_sources ? lb.sources : 2.0 * lb.ngroups)));
  // the sums of groups [group_begin, group_end): work-items from group_begin·R on
  std::array<std::size_t, 3> offset{0, 0, 0};
  offset[whole ? 0 : 2] = std::size_t(lb.group_begin) * R;
  if (lanes == 1)
    rt_.launch_at("accumulate", 3, offset, global, local, db.Y.get(), lb.groups.get(), lb.W.get(), db.V.get(), X,
                  int(R), batch, lb.modes, lb.group_end, to_sources, whole);
  else
    rt_.launch_at("accumulate_tree", 3, offset, global, local, db.Y.get(), lb.groups.get(), lb.W.get(), db.V.get(), X,
                  int(R), batch, lb.modes, lb.group_end, to_sources, whole, LocalBytes{wb * lanes * wr * sizeof(T)});
}

// The partial solutions of one level of dimension d for `batch` problems
// X: right-hand sides from the source rows of X (and the boundary terms
// BL, BR in back substitution), then the tridiagonal solver or PSCR over
// dimension d+1. Cost model: a block product B(j,k) applied to one entry
// reads and combines the 3 (2D) or 9 (3D) neighbours in the rest dimensions.
template <class T>
void ReductionSolve<T>::partial_solutions(int d, const LevelBufs& lb, cl_mem X, int batch, cl_mem sigma, cl_mem pinned,
                                          int use_boundary) const {
  const std::size_t wg = std::size_t(p_.work_group);
  const DimBufs& db = b_.dims[d];
  const int R = int(db.R);
  const std::size_t B = std::size_t(batch), RR = db.R;
  const bool leaf = d + 2 == D_;
  const bool whole = leaf && b_.tri->whole_lines();  // Y stored [mode][b][r]
  const double RB = double(RR) * batch;
  // apart: by tiles of modes, then solved (KernelParameters::rhs_apart)
  const bool apart = whole && batch == 1 && p_.rhs_apart;
  const bool fused = leaf && b_.tri->forms_rhs() && !apart;
  const int lines = lb.modes * batch;
  // the formed right-hand sides are written here unless fused (then the
  // tridiagonal solver counts its one write)
  rt_.count(2 * RB * (lb.source_modes + 2.0 * use_boundary * lb.modes),
            RB * ((fused ? 0 : lb.modes) + lb.sources + 2.0 * use_boundary * lb.ngroups));
  if (fused) {
    b_.tri->form_and_solve({X, lb.groups.get(), lb.mode_group.get(), lb.W.get(), db.BL.get(), db.BR.get(), batch,
                            use_boundary, sigma, lb.lambda.get()},
                           db.Y.get(), lines, db.child_sigma.get());
    return;
  }
  if (apart)
    rt_.run("form_rhs_lines_tiles", wg,
            {(RR + kRhsTileRows - 1) / kRhsTileRows, std::size_t((lb.modes + p_.rhs_modes - 1) / p_.rhs_modes)}, X,
            db.Y.get(), lb.groups.get(), lb.mode_group.get(), lb.W.get(), db.BL.get(), db.BR.get(), R, lb.modes,
            use_boundary);
  else if (whole)
    rt_.run("form_rhs_lines", wg, {(RR + kRhsRows - 1) / kRhsRows, std::size_t(lb.modes), B}, X, db.Y.get(),
            lb.groups.get(), lb.mode_group.get(), lb.W.get(), db.BL.get(), db.BR.get(), R, batch, lb.modes,
            use_boundary);
  else {
    // tiles of modes and rows where a wavefront's work-items are lanes of
    // the batch (they share no loads); else a mode per work-item, so that
    // the work-items of a small batch still cover the modes
    if (batch >= 32 && p_.rhs_modes > 1)
      rt_.run("form_rhs_tiles", wg,
              {B, std::size_t((lb.modes + p_.rhs_modes - 1) / p_.rhs_modes), (RR + kRhsTileRows - 1) / kRhsTileRows}, X,
              db.Y.get(), lb.groups.get(), lb.mode_group.get(), lb.W.get(), db.BL.get(), db.BR.get(), R, batch,
              lb.modes, use_boundary);
    else
      rt_.run("form_rhs", wg, {B, std::size_t(lb.modes), (RR + kRhsRows - 1) / kRhsRows}, X, db.Y.get(),
              lb.groups.get(), lb.mode_group.get(), lb.W.get(), db.BL.get(), db.BR.get(), R, batch, lb.modes,
              use_boundary);
  }
  const auto [child_sigma, child_pinned] = child_shifts(db, lb, batch, sigma, pinned);
  if (leaf) b_.tri->solve(db.Y.get(), lines, child_sigma, child_pinned);
  else solve_dim(d + 1, db.Y.get(), lines, child_sigma, child_pinned);
}

// Block products of dimension d: the reduction's update of the survivors
// [survivor_begin, survivor_end) of a level from V, or the back
// substitution's boundary terms BL, BR of its groups [group_begin, group_end).
template <class T>
void ReductionSolve<T>::block_products(int d, const LevelBufs& lb, cl_mem X, int batch, cl_mem sigma, bool back) const {
  const DimBufs& db = b_.dims[d];
  cl_mem A2, M2, A3, M3;
  int n2, n3;
  rest_factors(d, A2, M2, n2, A3, M3, n3);
  cl_mem Ad = b_.afac[d].get(), Md = b_.mfac[d].get();
  const std::size_t wg = std::size_t(p_.work_group), B = std::size_t(batch), RR = db.R;
  const double RB = double(RR) * batch, blk = d + 2 == D_ ? 12 : 36;
  const int R = int(db.R);
  if (back) {
    const std::size_t groups = std::size_t(lb.group_end - lb.group_begin);
    rt_.count(RB * groups * 2 * blk, RB * groups * 4);
    if (groups > 0)
      rt_.run_at("boundary_terms", wg, {0, 0, std::size_t(lb.group_begin)}, {B, RR, groups}, X, db.BL.get(),
                 db.BR.get(), lb.groups.get(), lb.group_end, Ad, Md, db.n, sigma, R, batch, A2, M2, n2, A3, M3, n3);
    return;
  }
  const std::size_t surv = std::size_t(lb.survivor_end - lb.survivor_begin);
  rt_.count(RB * surv * 2 * blk, RB * surv * 4);
  if (surv > 0)
    rt_.run_at("update_survivors", wg, {0, 0, std::size_t(lb.survivor_begin)}, {B, RR, surv}, X, db.V.get(),
               lb.survivors.get(), lb.survivor_end, lb.ngroups, Ad, Md, db.n, sigma, R, batch, A2, M2, n2, A3, M3, n3);
}

// The children's shifts σ_b + λ_l and null-mode flags of a level, in the
// dimension's buffers, or in the level's own where it has them (3D,
// dimension 1: formed when they change, kept for the plan's own c).
// Returns the buffers of the shifts and flags.
template <class T>
std::pair<cl_mem, cl_mem> ReductionSolve<T>::child_shifts(const DimBufs& db, const LevelBufs& lb, int batch,
                                                          cl_mem sigma, cl_mem pinned) const {
  cl_mem child_sigma = db.child_sigma.get(), child_pinned = db.child_pinned.get();
  const bool own = lb.child_sigma.get() != nullptr;  // a level of its own shifts (3D, top dimension)
  const bool plan_c = own && sigma == b_.sigma0.get() && pinned == b_.pinned0.get();
  if (own) {
    child_sigma = lb.child_sigma.get();
    child_pinned = lb.child_pinned.get();
  }
  if (!(plan_c && lb.shifts_of_plan)) {
    rt_.run("child_shifts", std::size_t(p_.work_group), {std::size_t(batch), std::size_t(lb.modes)}, sigma,
            lb.lambda.get(), pinned, lb.zero_flag.get(), child_sigma, child_pinned, batch, lb.modes);
    if (own && !rt_.dry()) lb.shifts_of_plan = plan_c;  // in queue order before any later use
  }
  return {child_sigma, child_pinned};
}

// PSCR over dimension d for `batch` independent problems stored [n][R][batch].
template <class T> void ReductionSolve<T>::solve_dim(int d, cl_mem X, int batch, cl_mem sigma, cl_mem pinned) const {
  const DimBufs& db = b_.dims[d];
  if (db.dense) return dense_.solve(d, X, batch, sigma, pinned);
  const int k = int(db.levels.size());
  const int whole = d + 2 == D_ && b_.tri->whole_lines() ? 1 : 0;
  for (int i = 1; i < k; ++i) {
    const LevelBufs& lb = db.levels[i - 1];
    partial_solutions(d, lb, X, batch, sigma, pinned, 0);
    accumulate(db, lb, X, batch, 0, whole);
    block_products(d, lb, X, batch, sigma, false);
  }
  for (int i = k; i >= 1; --i) {
    const LevelBufs& lb = db.levels[i - 1];
    block_products(d, lb, X, batch, sigma, true);
    partial_solutions(d, lb, X, batch, sigma, pinned, 1);
    accumulate(db, lb, X, batch, 1, whole);
  }
}

template class ReductionSolve<float>;
template class ReductionSolve<double>;
template class ReductionSolve<std::complex<float>>;
template class ReductionSolve<std::complex<double>>;

}  // namespace pscr::ocl
