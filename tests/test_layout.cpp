// Level/group layout of docs/method.md for arbitrary n.
#define BOOST_TEST_MODULE layout
#include <boost/test/unit_test.hpp>

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

BOOST_AUTO_TEST_CASE(bad_arguments) {
  BOOST_CHECK_THROW(make_layout(0, 4), pscr::InvalidArgument);
  BOOST_CHECK_THROW(make_layout(5, 1), pscr::InvalidArgument);
}
