// pscr-tune's search space for one problem class (tests/test_tuning.cpp
// checks it): the values each kernel parameter may take, and candidates in
// canonical form, where every parameter that does not take effect on the
// class's plans (pscr::parameter_applies) holds its default. So no candidate
// differs from another only where the plan would not notice (no evaluation
// is spent on it), and no entry is written with a value the plan does not
// run (a 2D plan reports dense_top = 1 when it was given 2).
#pragma once
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "pscr/parameters.hpp"

namespace pscr::tune {

using Genome = std::vector<int>;  // an index into each parameter's values

struct SearchSpace {
  int dims = 2;
  std::vector<std::vector<int>> values;  // per row of parameter_table()
  std::vector<bool> held;                // values given with --fix, kept as given

  KernelParameters decode(const Genome& g) const {
    KernelParameters p;
    const auto& table = parameter_table();
    for (std::size_t i = 0; i < table.size(); ++i) p.*(table[i].member) = values[i][std::size_t(g[i])];
    return p;
  }
  // The nearest candidate: a value outside the space becomes the first.
  Genome encode(const KernelParameters& p) const {
    Genome g;
    const auto& table = parameter_table();
    for (std::size_t i = 0; i < table.size(); ++i) {
      const auto& v = values[i];
      const auto it = std::find(v.begin(), v.end(), p.*(table[i].member));
      g.push_back(it == v.end() ? 0 : int(it - v.begin()));
    }
    return canonical(std::move(g));
  }
  // Parameters that do not take effect, given the others, at their defaults
  // (repeated: whether one applies can depend on another that was reset).
  Genome canonical(Genome g) const {
    const auto& table = parameter_table();
    const KernelParameters defaults;
    for (bool changed = true; changed;) {
      changed = false;
      const KernelParameters p = decode(g);
      for (std::size_t i = 0; i < table.size(); ++i) {
        if (held[i] || parameter_applies(table[i], dims, p)) continue;
        const auto& v = values[i];
        const int d = int(std::find(v.begin(), v.end(), defaults.*(table[i].member)) - v.begin());
        if (d < int(v.size()) && d != g[i]) {
          g[i] = d;
          changed = true;
        }
      }
    }
    return g;
  }
};

// Each parameter's table range (powers of two where the table says so), large
// ranges capped where more cannot help (the device limits are checked per
// candidate anyway); a parameter the class never uses (rhs_apart in 3D)
// only its default; dense_top at most D − 1; a held one only its value.
inline SearchSpace search_space(int dims, const std::vector<std::pair<std::string, int>>& fix) {
  SearchSpace s;
  s.dims = dims;
  const KernelParameters defaults;
  for (const auto& e : parameter_table()) {
    std::vector<int> v;
    const auto held = std::find_if(fix.begin(), fix.end(), [&](const auto& f) { return f.first == e.name; });
    s.held.push_back(held != fix.end());
    if (held != fix.end()) {
      s.values.push_back({held->second});
      continue;
    }
    const int hi = std::min(e.max, 1024);
    if (!parameter_applies(e, dims)) {
      v.push_back(defaults.*(e.member));
    } else if (e.member == &KernelParameters::dense_top) {
      // past D − 1 leading dimensions a larger count is the same plan
      for (int x = e.min; x <= std::min(e.max, dims - 1); ++x) v.push_back(x);
    } else if (e.member == &KernelParameters::register_cap) {
      // the compiler's own choice, or caps in steps of 8 from 32 (fewer
      // registers than that spill everything that matters)
      v.push_back(0);
      for (int x = 32; x <= e.max; x += 8) v.push_back(x);
    } else if (e.power_of_two) {
      for (long x = 1; x <= hi; x *= 2)
        if (x >= e.min) v.push_back(int(x));
    } else {
      for (int x = e.min; x <= hi; ++x) v.push_back(x);
    }
    s.values.push_back(v);
  }
  return s;
}

// Why a held value (--fix) cannot take effect on the class's plans, given
// the other held values and the defaults; empty when it can or is the default.
inline std::string held_value_unused(int dims, const std::vector<std::pair<std::string, int>>& fix) {
  KernelParameters p;
  for (const auto& [key, value] : fix)
    for (const auto& e : parameter_table())
      if (key == e.name) p.*(e.member) = value;
  const KernelParameters defaults;
  for (const auto& [key, value] : fix)
    if (key == "dense_top" && value > dims - 1)
      return key + "=" + std::to_string(value) + " does not take effect on " + std::to_string(dims) +
             "D plans: they have " + std::to_string(dims - 1) + " leading dimension(s)";
  for (const auto& [key, value] : fix)
    for (const auto& e : parameter_table()) {
      if (key != e.name || value == defaults.*(e.member) || parameter_applies(e, dims, p)) continue;
      const std::string what = key + "=" + std::to_string(value) + " does not take effect on " +
                               std::to_string(dims) + "D plans";
      if (!parameter_applies(e, dims)) return what;
      std::string others;
      for (const auto& [k, v] : fix)
        if (k != key) others += (others.empty() ? "" : ", ") + k + "=" + std::to_string(v);
      return what + " with " + (others.empty() ? "the defaults" : others);
    }
  return {};
}

}  // namespace pscr::tune
