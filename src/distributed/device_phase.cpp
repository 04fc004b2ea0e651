// One level of a distributed plan on the rank's OpenCL device (internal;
// docs/distributed.md): the host phase's three steps, the rows that cross
// ranks gathered on the device and copied to the host in one transfer, and
// those that arrive copied back in one and scattered on the device. Each
// exchange runs while the device computes a half of the rank's interior
// groups, which neither wait for rows from other ranks nor send any.
#include <complex>
#include <map>
#include <vector>

#include "../stopwatch.hpp"
#include "slab_executor.hpp"

namespace pscr::distributed {

template <class T> void SlabExecutor<T>::phase_device(int level, bool back, ExchangeTimes& times) const {
  const auto& lv = dim().layout.levels[level - 1];
  const std::size_t row_bytes = R * sizeof(T);
  SlabDevice<T>& dev = *device;
  // The rows to send are gathered (the copy enqueued), a half of the
  // interior is computed meanwhile, and the host exchanges the rows once
  // they are there; sends point into the gathered rows, receives into the
  // scatter area or `parts` (both ends list them in the order of
  // each_input / each_output). Exchanges are collective: a step makes them
  // where any rank sends.
  auto gathered = [&](const std::vector<DeviceRow>& rows, GroupPart meanwhile) {
    const T* g = dev.gather(rows);
    dev.compute(level, back, meanwhile);
    const auto t = clock_type::now();
    dev.wait_gathered();
    times.wait_seconds += seconds_since(t);
    return g;
  };
  auto exchange = [&](std::vector<Transfer>& sends, const T* g, std::vector<Transfer>& receives) {
    for (std::size_t i = 0; i < sends.size(); ++i) sends[i].data = const_cast<T*>(g + i * R);
    comm->exchange(sends, receives);
  };

  // 1. Inputs: rows sent from this rank's slab, rows arriving at their
  // global positions in the device's copy of the array.
  std::vector<DeviceRow> out_rows, in_rows;
  std::vector<Transfer> sends, receives;
  bool crossing = false;
  each_input(level, back, [&](std::size_t, std::size_t, int row, int from, int to) {
    crossing = true;
    if (from == me()) {
      out_rows.push_back({false, std::size_t(row)});
      sends.push_back({to, nullptr, row_bytes});
    }
    if (to == me()) {
      in_rows.push_back({false, std::size_t(row)});
      receives.push_back({from, nullptr, row_bytes});
    }
  });
  if (crossing) {
    const T* g = gathered(out_rows, GroupPart::interior_first);
    const auto t = clock_type::now();
    T* area = dev.scatter_area(in_rows.size());
    for (std::size_t i = 0; i < receives.size(); ++i) receives[i].data = area + i * R;
    exchange(sends, g, receives);
    dev.scatter(in_rows);
    times.exchange_seconds += seconds_since(t);
  } else {
    dev.compute(level, back, GroupPart::interior_first);
  }

  // 2. This rank's shares around its interior.
  dev.compute(level, back, GroupPart::edges);

  // 3. Outputs: a group's output whose shares are not all on the rank
  // holding its row is summed there over the shares, in share order. Where
  // an output is on the device: the reduction's slot 0 (first row) or 1
  // (last row) of the group's sums, the back substitution's source row.
  auto own = [&](std::size_t gi, std::size_t o) {
    const int row = work[level - 1][gi].outputs[back][o].second;
    if (back) return DeviceRow{false, std::size_t(row)};
    return DeviceRow{true, gi * 2 + (row < lv.groups[gi].start ? 0 : 1)};
  };
  out_rows.clear();
  sends.clear();
  receives.clear();
  // (group, output) → per share: the index of its part in `parts`, or of
  // this rank's own share among the gathered rows (own: true)
  struct Part {
    std::size_t index = 0;
    bool own = false;
  };
  std::map<std::pair<std::size_t, std::size_t>, std::vector<Part>> totals;
  auto slot = [&](std::size_t gi, std::size_t o) -> std::vector<Part>& {
    auto& p = totals[{gi, o}];
    p.resize(work[level - 1][gi].shares.size());
    return p;
  };
  crossing = false;
  each_output(level, back, [&](std::size_t gi, std::size_t o, std::size_t s, int from, int to) {
    crossing = true;
    if (from == me()) {
      out_rows.push_back(own(gi, o));
      sends.push_back({to, nullptr, row_bytes});
    }
    if (to == me()) {
      slot(gi, o)[s] = {receives.size(), false};
      receives.push_back({from, nullptr, row_bytes});
    }
  });
  if (crossing) {
    for (auto& [key, p] : totals) {
      const auto& sh = work[level - 1][key.first].shares;
      for (std::size_t s = 0; s < sh.size(); ++s)
        if (sh[s].rank == me()) {  // this rank's own share, still on the device
          p[s] = {out_rows.size(), true};
          out_rows.push_back(own(key.first, key.second));
        }
    }
    const T* g = gathered(out_rows, GroupPart::interior_second);
    const auto t = clock_type::now();
    std::vector<T>& parts = received_parts;  // kept from level to level: no pages taken anew
    if (parts.size() < receives.size() * R) parts.resize(receives.size() * R);
    for (std::size_t i = 0; i < receives.size(); ++i) receives[i].data = parts.data() + i * R;
    exchange(sends, g, receives);
    std::vector<DeviceRow> places;
    T* area = dev.scatter_area(totals.size());
    for (auto& [key, p] : totals) {
      T* total = area + places.size() * R;
      auto part = [&](const Part& x) { return x.own ? g + x.index * R : parts.data() + x.index * R; };
      std::copy(part(p[0]), part(p[0]) + R, total);
      for (std::size_t s = 1; s < p.size(); ++s) {
        const T* v = part(p[s]);
        for (std::size_t r = 0; r < R; ++r) total[r] += v[r];
      }
      places.push_back(own(key.first, key.second));
    }
    dev.scatter(places);
    times.exchange_seconds += seconds_since(t);
  } else {
    dev.compute(level, back, GroupPart::interior_second);
  }
  if (!back) dev.update_survivors(level);
}

template void SlabExecutor<float>::phase_device(int, bool, ExchangeTimes&) const;
template void SlabExecutor<double>::phase_device(int, bool, ExchangeTimes&) const;
template void SlabExecutor<std::complex<float>>::phase_device(int, bool, ExchangeTimes&) const;
template void SlabExecutor<std::complex<double>>::phase_device(int, bool, ExchangeTimes&) const;

}  // namespace pscr::distributed
