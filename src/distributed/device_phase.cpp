// One level of a distributed plan on the rank's OpenCL device (internal;
// docs/distributed.md): the host phase's three steps, with the rows moving
// between the device's copy of the array and the messages through the host.
#include <complex>
#include <deque>
#include <map>
#include <vector>

#include "slab_executor.hpp"

namespace pscr::distributed {

// One level on this rank's device, which holds the slab in its copy of
// the whole array: the same three steps as phase(), rows moving through
// the host.
template <class T> void SlabExecutor<T>::phase_device(int level, bool back) const {
  const auto& lv = dim().layout.levels[level - 1];
  const std::size_t row_bytes = R * sizeof(T);
  SlabDevice<T>& dev = *device;
  // 1. Inputs, written into the device's copy at their rows.
  std::deque<std::vector<T>> held;
  std::vector<std::pair<int, const T*>> arrived;
  std::vector<Transfer> sends, receives;
  each_input(level, back, [&](std::size_t, std::size_t, int row, int from, int to) {
    if (from == me()) {
      held.emplace_back(R);
      dev.read_rows(std::size_t(row), 1, held.back().data());
      sends.push_back({to, held.back().data(), row_bytes});
    }
    if (to == me()) {
      held.emplace_back(R);
      arrived.push_back({row, held.back().data()});
      receives.push_back({from, held.back().data(), row_bytes});
    }
  });
  comm->exchange(sends, receives);
  for (auto& [row, values] : arrived) dev.write_rows(std::size_t(row), 1, values);

  // 2. This rank's shares.
  dev.compute(level, back);

  // 3. Outputs: a group's output whose shares are not all on the rank
  // holding its row is summed there over the shares, in share order.
  // Where an output is on the device: the reduction's slot 0 (first row)
  // or 1 (last row) of the group's sums, the back substitution's source row.
  auto read_own = [&](std::size_t gi, std::size_t o, T* dst) {
    const auto& g = lv.groups[gi];
    const int row = work[level - 1][gi].outputs[back][o].second;
    if (back) dev.read_rows(std::size_t(row), 1, dst);
    else dev.read_sum(int(gi), row < g.start ? 0 : 1, dst);
  };
  sends.clear();
  receives.clear();
  std::map<std::pair<std::size_t, std::size_t>, std::vector<const T*>> parts;  // (group, output) → per share
  auto slot = [&](std::size_t gi, std::size_t o) -> std::vector<const T*>& {
    auto& p = parts[{gi, o}];
    p.resize(work[level - 1][gi].shares.size(), nullptr);
    return p;
  };
  each_output(level, back, [&](std::size_t gi, std::size_t o, std::size_t s, int from, int to) {
    if (from == me()) {
      held.emplace_back(R);
      read_own(gi, o, held.back().data());
      sends.push_back({to, held.back().data(), row_bytes});
    }
    if (to == me()) {
      held.emplace_back(R);
      slot(gi, o)[s] = held.back().data();
      receives.push_back({from, held.back().data(), row_bytes});
    }
  });
  comm->exchange(sends, receives);
  std::vector<T> total(R);
  for (auto& [key, p] : parts) {
    const auto [gi, o] = key;
    const auto& sh = work[level - 1][gi].shares;
    for (std::size_t s = 0; s < sh.size(); ++s)
      if (sh[s].rank == me()) {  // this rank's own share, still on the device
        held.emplace_back(R);
        read_own(gi, o, held.back().data());
        p[s] = held.back().data();
      }
    std::copy(p[0], p[0] + R, total.begin());
    for (std::size_t s = 1; s < p.size(); ++s)
      for (std::size_t r = 0; r < R; ++r) total[r] += p[s][r];
    const auto& g = lv.groups[gi];
    const int row = work[level - 1][gi].outputs[back][o].second;
    if (back) dev.write_rows(std::size_t(row), 1, total.data());
    else dev.write_sum(int(gi), row < g.start ? 0 : 1, total.data());
  }
  if (!back) dev.update_survivors(level);
}

template void SlabExecutor<float>::phase_device(int, bool) const;
template void SlabExecutor<double>::phase_device(int, bool) const;
template void SlabExecutor<std::complex<float>>::phase_device(int, bool) const;
template void SlabExecutor<std::complex<double>>::phase_device(int, bool) const;

}  // namespace pscr::distributed
