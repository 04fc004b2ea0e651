// Who holds which rows of the first dimension, and who computes which modes
// of a group (internal; docs/distributed.md).
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

#include "pscr/distributed.hpp"

namespace pscr::distributed {

// The slabs of all ranks: rank p holds rows [first[p], first[p + 1]).
struct Slabs {
  std::vector<std::size_t> first;
  Slabs(std::size_t n1, int ranks) {
    for (int p = 0; p < ranks; ++p) first.push_back(slab_rows(n1, ranks, p).begin);
    first.push_back(n1);
  }
  int ranks() const { return int(first.size()) - 1; }
  // The rank holding `row` (ranks without rows come last and own none).
  int owner(int row) const {
    return int(std::upper_bound(first.begin(), first.end() - 1, std::size_t(row)) - first.begin()) - 1;
  }
};

// One rank's share of a group's modes [mode_begin, mode_end).
struct Share {
  int rank = 0;
  int mode_begin = 0, mode_end = 0;
};

// A group on rows [start, end] with `modes` modes is computed by the ranks
// holding its rows, each taking an equal contiguous share of the modes (so a
// group inside one slab stays on its rank, and the large groups of the top
// levels, which span many slabs, are spread over all of them). Ranks whose
// share would be empty are left out.
inline std::vector<Share> shares(const Slabs& s, int start, int end, int modes) {
  const int first = s.owner(start), last = s.owner(end), workers = last - first + 1;
  std::vector<Share> out;
  for (int w = 0; w < workers; ++w) {
    Share sh{first + w, int(long(modes) * w / workers), int(long(modes) * (w + 1) / workers)};
    if (sh.mode_end > sh.mode_begin) out.push_back(sh);
  }
  return out;
}

}  // namespace pscr::distributed
