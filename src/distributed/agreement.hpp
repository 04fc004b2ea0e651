// What the ranks of a distributed plan agree on before they act (internal;
// docs/distributed.md). A rank that failed alone would leave the others
// waiting in their next collective call: every decision that may differ
// between ranks goes through one of these calls, which all ranks make.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "pscr/distributed.hpp"

namespace pscr::distributed {

// True on every rank when `flag` is set on some rank.
bool any(Communicator& c, bool flag);

// The same 64-bit value on every rank (a hash of what all must share).
// waited: plus the seconds of the collective call (messages and the wait
// for the slowest rank), here and below.
bool same_everywhere(Communicator& c, std::uint64_t value, double& waited);

// Runs `step` on every rank; when it throws an Error on some rank, every
// rank throws: the failing rank its own error, named by its rank (`what`:
// what failed), the others that it failed on another rank. An
// AllocationTooLarge or an InvalidArgument (bad kernel parameters, as on one
// device) stays one on every rank; other errors become BackendError where
// `as_backend_error`, else keep their class where they arose.
void on_every_rank(Communicator& c, const std::string& what, bool as_backend_error, const std::function<void()>& step,
                   double& waited);

// FNV-1a over bytes: the problem and options every rank must share.
struct Hash {
  std::uint64_t h = 1469598103934665603ull;
  void add(const void* p, std::size_t n) {
    auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  template <class V> void add(const std::vector<V>& v) { add(v.data(), v.size() * sizeof(V)); }
};

}  // namespace pscr::distributed
