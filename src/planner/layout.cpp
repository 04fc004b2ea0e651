#include "layout.hpp"

#include "pscr/errors.hpp"

namespace pscr::planner {

Layout make_layout(int n, int radix) {
  if (n < 1) throw InvalidArgument("layout: n = " + std::to_string(n) + " (needs n >= 1)");
  if (radix < 2) throw InvalidArgument("layout: radix q = " + std::to_string(radix) + " (needs q >= 2)");
  Layout L;
  L.n = n;
  L.radix = radix;
  L.k = level_count(n, radix);
  long long qi = 1;  // q^i
  for (int i = 1; i <= L.k; ++i) {
    const long long qprev = qi;  // q^(i-1)
    qi *= radix;
    Level lv;
    lv.index = i;
    // 1-based: groups are (d q^i, (d+1) q^i) ∩ [1, n]; survivors are multiples of q^i.
    for (long long d = 0; d * qi + 1 <= n; ++d) {
      const long long s = d * qi + 1, e = std::min<long long>((d + 1) * qi - 1, n);
      if (e >= s) {
        Group g;
        g.start = static_cast<int>(s - 1);
        g.end = static_cast<int>(e - 1);
        for (long long r = s; r <= e; ++r)
          if (r % qprev == 0) g.sources.push_back(static_cast<int>(r - 1));
        lv.groups.push_back(std::move(g));
      }
      if ((d + 1) * qi <= n) lv.survivors.push_back(static_cast<int>((d + 1) * qi - 1));
    }
    L.levels.push_back(std::move(lv));
  }
  return L;
}

int level_count(int n, int radix) {
  // in integers: the smallest k with q^k > n
  int k = 0;
  for (long long qk = 1; qk <= n; qk *= radix) ++k;
  return k;
}

int fewest_sources_radix(const std::vector<int>& ns, int radix) {
  for (int q = 2; q < radix; ++q) {
    bool same = true;
    for (int n : ns) same = same && level_count(n, q) <= level_count(n, radix);
    if (same) return q;
  }
  return radix;
}

}  // namespace pscr::planner
