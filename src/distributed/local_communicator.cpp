// Ranks that are threads of one process (several devices of one host): the
// messages of an exchange are copied between the threads' buffers, between
// two barriers (the senders' buffers stay valid until every receiver has
// copied), and sums are taken in rank order, so every rank gets the same.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <omp.h>
#include <string>

#include "local_communicator.hpp"
#include "pscr/errors.hpp"

namespace pscr {
namespace {

struct Shared {
  explicit Shared(int ranks)
      : size(ranks), posted(std::size_t(ranks)), values(std::size_t(ranks)), shared(std::size_t(ranks)) {}
  const int size;
  std::mutex mutex;
  std::condition_variable changed;
  int waiting = 0;
  std::atomic<long> generation{0};
  std::atomic<bool> aborted{false};  // a rank has failed: the others leave their barriers
  std::vector<std::vector<Transfer>> posted;  // [rank]: its sends of the current exchange
  std::vector<const double*> values;           // [rank]: its operand of the current sum or max
  std::vector<const void*> shared;             // [rank]: its pointer of the current share

  // The ranks are threads that mostly arrive within microseconds of each
  // other, and a solve passes several barriers per level: a waiting rank
  // spins a while before it sleeps, saving a wake-up (tens of microseconds)
  // at most of them.
  static constexpr std::chrono::microseconds kSpin{300};
  void barrier() {
    std::unique_lock<std::mutex> lock(mutex);
    if (aborted) throw BackendError("another device of the plan failed");
    const long gen = generation.load();
    if (++waiting == size) {
      waiting = 0;
      ++generation;
      changed.notify_all();
      return;
    }
    lock.unlock();
    const auto start = std::chrono::steady_clock::now();
    while (generation.load() == gen && !aborted && std::chrono::steady_clock::now() - start < kSpin) {
    }
    lock.lock();
    changed.wait(lock, [&] { return generation.load() != gen || aborted; });
    if (aborted) throw BackendError("another device of the plan failed");
  }
};

class LocalCommunicator final : public Communicator {
 public:
  LocalCommunicator(std::shared_ptr<Shared> s, int rank) : s_(std::move(s)), rank_(rank) {}
  int rank() const override { return rank_; }
  void abort() {
    std::lock_guard<std::mutex> lock(s_->mutex);
    s_->aborted = true;
    s_->changed.notify_all();
  }
  void reset() {
    std::lock_guard<std::mutex> lock(s_->mutex);
    s_->aborted = false;
    s_->waiting = 0;
  }
  int size() const override { return s_->size; }

  void exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives) override {
    s_->posted[std::size_t(rank_)] = sends;
    s_->barrier();
    // the k-th receive from a peer matches the k-th send of that peer to this rank
    std::vector<std::size_t> next(std::size_t(s_->size), 0);
    std::vector<MessageCopy> copies;
    for (const Transfer& r : receives) {
      const auto& from = s_->posted.at(std::size_t(r.peer));
      std::size_t& k = next[std::size_t(r.peer)];
      while (k < from.size() && from[k].peer != rank_) ++k;
      if (k == from.size() || from[k].bytes != r.bytes)
        throw BackendError("local communicator: rank " + std::to_string(rank_) + " expects " +
                           std::to_string(r.bytes) + " bytes from rank " + std::to_string(r.peer) +
                           " that it did not send");
      copies.push_back({r.data, from[k].data, r.bytes});
      ++k;
    }
    // the ranks copy at once: four threads each kept four ranks' exchange at
    // 0.9 to 1.1 ms in three commands, where eight each ranged from 1.1 to 4.3 ms
    copy_messages(copies, std::min(4, std::max(1, omp_get_max_threads() / s_->size)));
    s_->barrier();
  }
  std::vector<const void*> share(const void* mine) {
    s_->shared[std::size_t(rank_)] = mine;
    s_->barrier();
    std::vector<const void*> all = s_->shared;
    s_->barrier();  // no rank posts its next pointer before every rank has read this one
    return all;
  }
  void sum(double* values, std::size_t count) override {
    reduce(values, count, [](double a, double b) { return a + b; });
  }
  void max(double* values, std::size_t count) override {
    reduce(values, count, [](double a, double b) { return a > b ? a : b; });
  }

 private:
  template <class Op> void reduce(double* values, std::size_t count, Op op) {
    std::vector<double> mine(values, values + count);
    s_->values[std::size_t(rank_)] = mine.data();
    s_->barrier();
    for (std::size_t i = 0; i < count; ++i) {
      double v = s_->values[0][i];
      for (int p = 1; p < s_->size; ++p) v = op(v, s_->values[std::size_t(p)][i]);
      values[i] = v;
    }
    s_->barrier();
  }
  std::shared_ptr<Shared> s_;
  int rank_;
};

}  // namespace

// Messages copied by several threads where they are large: one thread
// moves a few GB/s, and a transformed split's exchange (3D 511³) gives every
// rank 4 to 12 MB to copy (1.2 to 2.5 ms on one thread each, four H200s).
// The pieces are small enough that the messages of MPI ranks exchanging by
// ranges of lines (512 kB each at 511³ on four ranks) are shared too.
void copy_messages(const std::vector<MessageCopy>& copies, int threads) {
  constexpr std::size_t kPiece = std::size_t(128) << 10;
  // (Fewer threads for small exchanges, one for every 256 kB, saved
  // 0.4 ms of 19.9 over two H200 ranks at 8191² but cost 1.5–2 ms of 4.2 at
  // 511³ over four, A/B in one command each: not taken;
  // docs/results/h200-mpi-exchange-halves.txt.)
  std::vector<std::size_t> first(copies.size() + 1, 0);  // each message's first piece
  for (std::size_t m = 0; m < copies.size(); ++m) first[m + 1] = first[m] + (copies[m].bytes + kPiece - 1) / kPiece;
  const long pieces = long(first.back());
  threads = int(std::max<long>(1, std::min<long>({threads, omp_get_max_threads(), pieces})));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (long k = 0; k < pieces; ++k) {
    const std::size_t m = std::size_t(std::upper_bound(first.begin(), first.end(), std::size_t(k)) - first.begin()) - 1;
    const std::size_t at = (std::size_t(k) - first[m]) * kPiece;
    std::memcpy(static_cast<char*>(copies[m].dst) + at, static_cast<const char*>(copies[m].src) + at,
                std::min(kPiece, copies[m].bytes - at));
  }
}

void abort_local_ranks(Communicator& c) {
  if (auto* local = dynamic_cast<LocalCommunicator*>(&c)) local->abort();
}
void reset_local_ranks(Communicator& c) {
  if (auto* local = dynamic_cast<LocalCommunicator*>(&c)) local->reset();
}

std::vector<const void*> share_in_place(Communicator& c, const void* mine) {
  if (auto* local = dynamic_cast<LocalCommunicator*>(&c)) return local->share(mine);
  return {};
}
bool shares_address_space(const Communicator& c) { return dynamic_cast<const LocalCommunicator*>(&c) != nullptr; }

std::vector<std::shared_ptr<Communicator>> local_communicators(int ranks) {
  if (ranks < 1) throw InvalidArgument("local_communicators: " + std::to_string(ranks) + " ranks (needs >= 1)");
  auto shared = std::make_shared<Shared>(ranks);
  std::vector<std::shared_ptr<Communicator>> out;
  for (int r = 0; r < ranks; ++r) out.push_back(std::make_shared<LocalCommunicator>(shared, r));
  return out;
}

}  // namespace pscr
