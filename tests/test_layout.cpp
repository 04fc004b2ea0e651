// Level/group layout of docs/method.md for arbitrary n.
#define BOOST_TEST_MODULE layout
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "planner/layout.hpp"
#include "pscr/errors.hpp"

using pscr::planner::make_layout;

namespace {
bool in_J(int row0, long long qi) { return (row0 + 1) % qi == 0; }
}  // namespace

BOOST_AUTO_TEST_CASE(levels_and_groups_for_many_sizes) {
  for (int q : {2, 3, 4, 8}) {
    for (int n = 1; n <= 300; ++n) {
      const auto L = make_layout(n, q);
      BOOST_TEST_CONTEXT("q=" << q << " n=" << n) {
        BOOST_TEST(L.k == int(std::floor(std::log(double(n)) / std::log(double(q)) + 1e-12)) + 1);
        std::vector<int> computed(n, 0);
        long long qi = 1;
        for (int i = 1; i <= L.k; ++i) {
          const long long qprev = qi;
          qi *= q;
          const auto& lv = L.levels[i - 1];
          std::set<int> covered;
          for (auto& g : lv.groups) {
            BOOST_TEST(g.size() <= qi - 1);
            for (int r = g.start; r <= g.end; ++r) {
              BOOST_TEST(!in_J(r, qi));  // groups avoid J_i
              covered.insert(r);
            }
            if (g.start > 0) BOOST_TEST(in_J(g.start - 1, qi));  // maximal runs
            if (g.end < n - 1) BOOST_TEST(in_J(g.end + 1, qi));
            if (i > 1) BOOST_TEST(g.sources.size() <= std::size_t(q - 1));
            for (int r : g.sources) {
              BOOST_TEST(in_J(r, qprev));
              ++computed[r];
            }
          }
          for (int r = 0; r < n; ++r) BOOST_TEST(covered.count(r) == (in_J(r, qi) ? 0u : 1u));
          for (int s : lv.survivors) BOOST_TEST(in_J(s, qi));
          BOOST_TEST(lv.survivors.size() == std::size_t(n / qi));
        }
        BOOST_TEST(L.levels.back().groups.size() == 1u);  // level k: one group, all rows
        for (int r = 0; r < n; ++r) BOOST_TEST(computed[r] == 1);  // each row computed exactly once
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(group_with_empty_source_set) {
  // n = 17, q = 4: the level-2 group {17} (0-based row 16) has no source rows.
  const auto L = make_layout(17, 4);
  BOOST_TEST(L.k == 3);
  const auto& g = L.levels[1].groups.back();
  BOOST_TEST(g.start == 16);
  BOOST_TEST(g.end == 16);
  BOOST_TEST(g.sources.empty());
}

// The automatic radix's rule: the smallest radix whose layouts have no more
// levels than the given one's. Checked against the layouts themselves: no
// smaller radix keeps every size's level count, and the chosen one never
// reads more source rows per level than the given one.
BOOST_AUTO_TEST_CASE(fewest_sources_radix_keeps_the_levels) {
  using pscr::planner::fewest_sources_radix;
  auto most_sources = [](const pscr::planner::Layout& L) {
    std::size_t m = 0;
    for (auto& lv : L.levels)
      for (auto& g : lv.groups) m = std::max(m, g.sources.size());
    return m;
  };
  for (int radix : {2, 4, 8, 10, 16})
    for (int n1 : {1, 3, 17, 63, 127, 300, 1023, 2047, 4095, 8191})
      for (int n2 : {5, 255}) {
        const std::vector<int> ns{n1, n2};
        const int q = fewest_sources_radix(ns, radix);
        BOOST_TEST_CONTEXT("radix " << radix << ", n " << n1 << ", " << n2 << ": " << q) {
          BOOST_TEST(q >= 2);
          BOOST_TEST(q <= radix);
          for (int n : ns) {
            const auto given = make_layout(n, radix), chosen = make_layout(n, q);
            BOOST_TEST(chosen.k <= given.k);
            BOOST_TEST(chosen.k == int(chosen.levels.size()));
            BOOST_TEST(most_sources(chosen) <= most_sources(given));
          }
          if (q > 2) {
            bool more = false;  // q - 1 takes more levels somewhere
            for (int n : ns) more = more || make_layout(n, q - 1).k > make_layout(n, radix).k;
            BOOST_TEST(more);
          }
        }
      }
  // the sizes the H100 database names: 8191 at radix 10 keeps 10 (four
  // levels), 2047 at 16 takes 13, 2047 at 8 takes 7
  BOOST_TEST(fewest_sources_radix({8191}, 10) == 10);
  BOOST_TEST(fewest_sources_radix({2047}, 16) == 13);
  BOOST_TEST(fewest_sources_radix({2047}, 8) == 7);
  BOOST_TEST(fewest_sources_radix({3}, 16) == 4);  // one level: n + 1
}

BOOST_AUTO_TEST_CASE(bad_arguments) {
  BOOST_CHECK_THROW(make_layout(0, 4), pscr::InvalidArgument);
  BOOST_CHECK_THROW(make_layout(5, 1), pscr::InvalidArgument);
}
