#include "plan_buffers.hpp"

#include <algorithm>
#include <complex>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "dense_solve.hpp"
#include "level_tables.hpp"
#include "line_coefficients.hpp"

namespace pscr::ocl {

template <class T>
void PlanBuffers<T>::upload(Runtime& rt, const planner::PlanData<T>& pd, const KernelParameters& p,
                            const std::vector<distributed::LevelShare>* shares, int shift_capacity) {
  const int D = pd.problem.dims();
  const int q = pd.dims.back().layout.radix;
  for (int d = 0; d < D; ++d) {
    const auto& f = pd.problem.factor(d);
    std::vector<T> a(f.A.diag), m(f.M.diag);
    a.insert(a.end(), f.A.off.begin(), f.A.off.end());
    m.insert(m.end(), f.M.off.begin(), f.M.off.end());
    afac.push_back(rt.upload(a, "factor matrices"));
    mfac.push_back(rt.upload(m, "factor matrices"));
  }
  const std::vector<T> packed = packed_rows(pd.problem.factor(D - 1), pd.excess_form, pd.excess);
  line_coef = rt.upload(packed, "packed last factor");
  // The first buffer that grows with the unknowns (whose bytes fit size_t,
  // Problem checks): a plan past the device fails here, before the level
  // buffers multiply them by batches and groups.
  x = rt.alloc(pd.problem.unknowns() * sizeof(T), "solution vector");
  sigma0 = rt.upload(std::vector<T>{pd.problem.c()}, "shift");
  pinned0 = rt.upload(std::vector<int>{pd.pure_neumann ? 1 : 0}, "flags");
  flags = SolveFlags<T>(rt, D);
  if (pd.pure_neumann) null_space = NullSpaceProjection<T>(rt, pd.problem);
  if (shift_capacity > 1) {
    shifts = rt.alloc(std::size_t(shift_capacity) * sizeof(T), "shifts");
    shift_flags = rt.upload(std::vector<int>(std::size_t(shift_capacity), 0), "flags");
  }
  if (shares) {  // a rank's exchanges: their rows, one after another, and where they go
    for (const auto& ls : *shares) exchange_rows = std::max(exchange_rows, std::size_t(ls.exchange_rows));
    if (exchange_rows > 0) {
      const std::size_t R = pd.problem.unknowns() / pd.problem.size(0);
      exchange = rt.alloc(exchange_rows * R * sizeof(T), "exchange buffer");
      for (Mem& m : exchange_offsets) m = rt.alloc(exchange_rows * sizeof(cl_ulong), "exchange offsets");
    }
  }
  if (pd.transformed) return upload_transforms(rt, pd, p, packed);
  const int leaf_n = int(pd.problem.size(D - 1));
  // the top level's batch: the shifted problems one solve takes together
  int batch = shift_capacity;
  for (int d = 0; d + 1 < D; ++d) {
    const auto& dp = pd.dims[d];
    DimBufs db;
    db.n = dp.layout.n;
    db.R = pd.problem.unknowns();
    for (int e = 0; e <= d; ++e) db.R /= pd.problem.size(e);
    db.batch = batch;
    int maxmodes = 0, maxgroups = 0;
    db.dense = dp.method == planner::DimensionMethod::dense;
    if (db.dense) {
      db.levels.push_back(dense_level(rt, dp, batch, d == 0 && shares ? &(*shares)[0] : nullptr));
      maxmodes = std::max(db.levels[0].modes, 1);
      maxgroups = 1;  // no sums or boundary terms: V, BL and BR stay small
    }
    for (std::size_t i = 0; i < (db.dense ? 0 : dp.layout.levels.size()); ++i) {
      const distributed::LevelShare* share = d == 0 && shares ? &(*shares)[i] : nullptr;
      LevelBufs lb = level(rt, dp, i, q, share, d == 0 && D == 3, batch);
      // a rank's groups in four parts, computed apart (distributed/device_phase.cpp):
      // those before its interior, the interior's halves, computed while
      // rows travel between the ranks, and those after it
      if (share && share->interior_begin < share->interior_end) {
        for (auto [b, e] : {std::pair<int, int>{share->group_begin, share->interior_begin},
                            {share->interior_begin, share->interior_middle},
                            {share->interior_middle, share->interior_end},
                            {share->interior_end, share->group_end}}) {
          distributed::LevelShare part = *share;
          part.group_begin = b;
          part.group_end = e;
          for (int g = 0; g < int(part.modes.size()); ++g)
            if (g < b || g >= e) part.modes[std::size_t(g)] = {0, 0};
          lb.parts.push_back(level(rt, dp, i, q, &part, d == 0 && D == 3, batch));
        }
      }
      maxmodes = std::max(maxmodes, lb.modes);
      maxgroups = std::max(maxgroups, lb.ngroups);
      db.levels.push_back(std::move(lb));
    }
    const std::size_t lanes = std::size_t(maxmodes) * batch;
    db.Y = rt.alloc(db.R * lanes * sizeof(T), "partial-solution buffer");
    db.V = rt.alloc(std::size_t(maxgroups) * 2 * db.R * batch * sizeof(T), "reduction buffer");
    db.BL = rt.alloc(std::size_t(maxgroups) * db.R * batch * sizeof(T), "boundary buffer");
    db.BR = rt.alloc(std::size_t(maxgroups) * db.R * batch * sizeof(T), "boundary buffer");
    db.child_sigma = rt.alloc(lanes * sizeof(T), "shift buffer");
    db.child_pinned = rt.alloc(lanes * sizeof(int), "flag buffer");
    if (d + 2 == D) {
      tri = std::make_unique<TridiagonalSolver>(rt, p, leaf_n, lanes, sizeof(T), line_coef.get(), packed.data(),
                                                flags.buffer(), pd.pure_neumann);
      // a dense dimension's lines come [row][line] (but dense_modes_as_lines):
      // periodic ones go to their eigenbasis through a buffer of that
      // layout, halved ones are transposed to [line][row] for the line solver
      if (db.dense && (pd.periodic_lines() ||
                       (tri->halved_lines() &&
                        !dense_modes_as_lines(d, D, batch, pd.periodic_lines(), tri->whole_lines()))))
        row_lines = rt.alloc(db.R * lanes * sizeof(T), "line buffer");
      if (pd.periodic_lines()) {
        line_W = rt.upload(pd.line_eigen.coeff, "eigenvector rows");
        line_nu = rt.upload(pd.line_eigen.lambda, "eigenvalues");
      }
    }
    batch = int(lanes);
    dims.push_back(std::move(db));
  }
}

// Level i of dimension plan dp: its tables (all groups' modes, or a rank's
// share) and, for dimension 1 of a 3D plan, the buffers of its children's shifts.
template <class T>
LevelBufs PlanBuffers<T>::level(Runtime& rt, const planner::DimensionPlan<T>& dp, std::size_t i, int q,
                                const distributed::LevelShare* share, bool child_shifts, int batch) {
  const auto& lv = dp.layout.levels[i];
  const auto tables = level_tables(dp, i, q, share);
  LevelBufs lb;
  lb.modes = tables.modes;
  lb.max_m = tables.max_m;
  lb.sources = tables.sources;
  lb.source_modes = tables.source_modes;
  lb.ngroups = int(lv.groups.size());
  lb.nsurv = int(lv.survivors.size());
  lb.group_end = lb.ngroups;
  lb.survivor_end = lb.nsurv;
  if (share) {
    lb.group_begin = share->group_begin;
    lb.group_end = share->group_end;
    lb.survivor_begin = share->survivor_begin;
    lb.survivor_end = share->survivor_end;
  }
  lb.groups = rt.upload(tables.groups, "group table");
  lb.mode_group = rt.upload(tables.mode_group, "mode table");
  lb.W = rt.upload(tables.W, "eigenvector rows");
  lb.lambda = rt.upload(tables.lambda, "eigenvalues");
  lb.zero_flag = rt.upload(tables.zero, "mode flags");
  lb.survivors = rt.upload(tables.survivors, "survivor rows");
  if (child_shifts) {
    lb.child_sigma = rt.alloc(std::size_t(std::max(lb.modes, 1)) * batch * sizeof(T), "shift buffer");
    lb.child_pinned = rt.alloc(std::size_t(std::max(lb.modes, 1)) * batch * sizeof(int), "flag buffer");
  }
  return lb;
}

// The one level of a dense dimension: the basis W[j·m + l] (every row
// kept, in order) of its m modes, the eigenvalues, the null-mode flag and
// the children's shifts (formed once for the plan's c, as the top
// dimension's levels). All n modes, or a rank's share [begin, end) of them
// (the group's back substitution then writes the rank's part of the
// solution, which the ranks sum: distributed/device_phase.cpp).
template <class T>
LevelBufs PlanBuffers<T>::dense_level(Runtime& rt, const planner::DimensionPlan<T>& dp, int batch,
                                      const distributed::LevelShare* share) {
  const auto& ge = dp.eigen[dp.groups[0][0].eigen];
  const int n = dp.layout.n;
  if (dp.layout.levels.size() != 1 || ge.m != n || int(ge.rows.size()) != n)
    throw std::logic_error("dense dimension: the plan's level is not one group of every row");
  const auto [begin, end] = share ? share->modes.at(0) : std::pair<int, int>{0, n};
  const int m = end - begin;
  LevelBufs lb;
  lb.modes = lb.max_m = m;
  lb.ngroups = 1;
  lb.group_end = m > 0 ? 1 : 0;
  std::vector<T> W(std::size_t(n) * std::max(m, 1));
  for (int j = 0; j < n; ++j)
    for (int l = 0; l < m; ++l) W[std::size_t(j) * m + l] = ge.coeff[std::size_t(j) * n + begin + l];
  std::vector<int> zero(std::size_t(std::max(m, 1)), 0);
  if (dp.zero_mode >= begin && dp.zero_mode < end) zero[std::size_t(dp.zero_mode - begin)] = 1;
  std::vector<T> lambda(ge.lambda.begin() + begin, ge.lambda.begin() + end);
  lambda.resize(zero.size());
  lb.W = rt.upload(W, "eigenvector rows");
  lb.lambda = rt.upload(lambda, "eigenvalues");
  lb.zero_flag = rt.upload(zero, "mode flags");
  lb.child_sigma = rt.alloc(zero.size() * batch * sizeof(T), "shift buffer");
  lb.child_pinned = rt.alloc(zero.size() * batch * sizeof(int), "flag buffer");
  return lb;
}

// A transformed plan (PlanData::transformed): its lines' solver and the
// transforms around it (transformed_solve.hpp).
template <class T>
void PlanBuffers<T>::upload_transforms(Runtime& rt, const planner::PlanData<T>& pd, const KernelParameters& p,
                                       const std::vector<T>& packed) {
  const int leaf_n = int(pd.problem.size(pd.problem.dims() - 1));
  tri = std::make_unique<TridiagonalSolver>(rt, p, leaf_n, TransformedSolve<T>::line_count(pd), sizeof(T),
                                            line_coef.get(), packed.data(), flags.buffer(), pd.pure_neumann);
  transformed = std::make_unique<TransformedSolve<T>>(rt, pd, *tri,
                                                      SineShape{std::size_t(p.sine_group), p.sine_halves != 0, p.sine_split != 0});
}

template <class T>
std::size_t check_device_memory(Runtime& rt, const planner::PlanData<T>& pd, const KernelParameters& p,
                                const std::vector<distributed::LevelShare>* shares, int shift_capacity) {
  // the dry pass's tables of null buffers go with it
  auto items = rt.count_allocations([&] { PlanBuffers<T>().upload(rt, pd, p, shares, shift_capacity); });
  return check_allocations(rt.device(), items);
}

std::size_t check_allocations(const Device& dev, const std::vector<std::pair<std::string, std::size_t>>& items) {
  std::map<std::string, std::size_t> by_name;
  std::size_t total = 0;
  for (const auto& [what, bytes] : items) {
    by_name[what] += bytes;
    total += bytes;
  }
  if (total <= dev.global_mem) return total;
  std::vector<std::pair<std::size_t, std::string>> largest;
  for (const auto& [what, bytes] : by_name) largest.push_back({bytes, what});
  std::sort(largest.rbegin(), largest.rend());
  std::ostringstream os;
  os << "plan needs " << total << " bytes of device memory on " << dev.name << ", which has " << dev.global_mem << " (";
  for (std::size_t i = 0; i < largest.size() && i < 4; ++i)
    os << (i ? ", " : "") << largest[i].second << " " << largest[i].first;
  os << (largest.size() > 4 ? ", …)" : ")");
  throw AllocationTooLarge(os.str());
}

#define PSCR_PLAN_BUFFERS(T)                                                                               \
  template struct PlanBuffers<T>;                                                                          \
  template std::size_t check_device_memory(Runtime&, const planner::PlanData<T>&, const KernelParameters&, \
                                           const std::vector<distributed::LevelShare>*, int);
PSCR_PLAN_BUFFERS(float)
PSCR_PLAN_BUFFERS(double)
PSCR_PLAN_BUFFERS(std::complex<float>)
PSCR_PLAN_BUFFERS(std::complex<double>)
#undef PSCR_PLAN_BUFFERS

}  // namespace pscr::ocl
