// The tables of one PSCR level as the level kernels read them
// (kernels/level.cl), packed on the host: a group record (group_t) per
// group, the group of each mode, the eigenvector rows and eigenvalues of each
// mode, the top level's null-mode flag, the survivor rows. Host code only.
#pragma once
#include <algorithm>
#include <vector>

#include "../distributed/slab_device.hpp"
#include "../planner/plan_data.hpp"

namespace pscr::ocl {

// Ints of a group record (group_t, kernels/level.cl) for radix q: start, end,
// nsrc, mode0, m, src_row[q − 1], src_pos[q − 1], start_pos, end_pos. The
// kernels are built with -DGROUP_RECORD_INTS=this and refuse to compile if
// their struct differs.
constexpr int group_record_ints(int q) { return 5 + 2 * (q - 1) + 2; }

template <class T> struct LevelTables {
  std::vector<int> groups, mode_group, zero, survivors;
  std::vector<T> W, lambda;  // W: q + 1 kept eigenvector rows per mode
  int modes = 0, max_m = 0;  // modes computed here; the most of one group
  double sources = 0, source_modes = 0;  // Σ_g |sources_g|, Σ_g |sources_g|·m_g (cost model)
};

// Level i of dimension plan dp (radix q): every group's modes, or those of a
// rank's share.
template <class T>
LevelTables<T> level_tables(const planner::DimensionPlan<T>& dp, std::size_t i, int q,
                            const distributed::LevelShare* share) {
  const auto& lv = dp.layout.levels[i];
  LevelTables<T> t;
  t.survivors = lv.survivors;
  const bool top = i + 1 == dp.layout.levels.size();
  for (std::size_t g = 0; g < lv.groups.size(); ++g) {
    const auto& G = lv.groups[g];
    const auto& ref = dp.groups[i][g];
    const auto& ge = dp.eigen[ref.eigen];
    const int l0 = share ? share->modes[g].first : 0, l1 = share ? share->modes[g].second : ge.m;
    const int nsrc = int(G.sources.size());
    t.groups.insert(t.groups.end(), {G.start, G.end, nsrc, t.modes, l1 - l0});
    for (int p = 0; p < q - 1; ++p) t.groups.push_back(p < nsrc ? G.sources[p] : 0);
    for (int p = 0; p < q - 1; ++p) t.groups.push_back(p < nsrc ? ref.source_pos[p] : 0);
    t.groups.insert(t.groups.end(), {ref.start_pos, ref.end_pos});
    for (int l = l0; l < l1; ++l) {
      t.mode_group.push_back(int(g));
      t.lambda.push_back(ge.lambda[l]);
      t.zero.push_back(top && l == dp.zero_mode ? 1 : 0);
      for (int r = 0; r < q + 1; ++r) t.W.push_back(r < int(ge.rows.size()) ? ge.coeff[std::size_t(r) * ge.m + l] : T(0));
    }
    t.modes += l1 - l0;
    if (l1 > l0) {
      t.sources += double(nsrc);
      t.source_modes += double(nsrc) * (l1 - l0);
    }
    t.max_m = std::max(t.max_m, l1 - l0);
  }
  return t;
}

}  // namespace pscr::ocl
