// Level/group layout of radix-q PSCR for arbitrary n (docs/method.md).
// Rows are 0-based here: row r is the paper's row r+1.
#pragma once
#include <vector>

namespace pscr::planner {

struct Group {
  int start = 0;             // first row s
  int end = 0;               // last row e (inclusive)
  std::vector<int> sources;  // S = G ∩ J(i-1): rows whose right-hand sides feed the partial solutions
  int size() const { return end - start + 1; }
};

struct Level {
  int index = 0;                  // i = 1..k
  std::vector<Group> groups;      // maximal runs of rows not in J_i
  std::vector<int> survivors;     // J_i: rows updated by the reduction at this level
};

struct Layout {
  int n = 0;
  int radix = 4;
  int k = 0;                   // number of levels, floor(log_q n) + 1
  std::vector<Level> levels;   // levels[i-1] is level i
};

Layout make_layout(int n, int radix);

// floor(log_q n) + 1, the number of levels: the smallest k with q^k > n.
int level_count(int n, int radix);

// The smallest radix q' <= radix whose layouts of every size in ns have no
// more levels than radix gives them: a level's tridiagonal solves cost the
// same whatever the radix, while its right-hand sides read up to q - 1 source
// rows and its sums write up to q + 1, so among radices with as many levels
// the smallest is the cheapest (H100, 2D 8191^2 double: radix 10 and 16 both
// take 4 levels, 13.1 against 15.6 ms).
int fewest_sources_radix(const std::vector<int>& ns, int radix);

}  // namespace pscr::planner
