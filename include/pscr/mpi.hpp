/// @file
/// MPI for distributed plans (header only: libpscr does not link MPI; a
/// program that includes this header links MPI itself, e.g. with mpicxx or
/// CMake's MPI::MPI_CXX). docs/distributed.md.
///
///   MPI_Init(&argc, &argv);
///   pscr::DistributedPlan<double> plan = pscr::mpi_plan(MPI_COMM_WORLD, problem);
///   const pscr::RowRange rows = plan.rows();   // this rank's rows of dimension 1
///   plan.solve(f_local, u_local);              // collective
#pragma once
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#if __has_include(<sys/statvfs.h>)
#include <sys/statvfs.h>
#endif
#include <memory>
#include <string>
#include <vector>

#include "pscr/distributed.hpp"
#include "pscr/errors.hpp"

namespace pscr {

/// A Communicator over a duplicate of an MPI communicator (so the plan's
/// messages never meet the caller's).
///
/// Messages between ranks of one host go through memory that the host's
/// ranks share (an MPI-3 shared window, MPI_Win_allocate_shared): a sender
/// copies its messages into its own segment (a buffer sent to several ranks
/// once), each receiver copies its own out, several threads each
/// (copy_messages), with one collective step an exchange. MPI's shared-memory transport
/// moves a rank's messages on one thread and twice over fragments: about
/// 4 GB/s a rank on four ranks with Open MPI 4.1 (docs/distributed.md).
/// Messages to ranks of other hosts, the messages of an exchange whose larger
/// segments the host's free shared memory would not hold twice over, and all
/// messages where `host_memory` is false, are MPI messages.
class MpiCommunicator final : public Communicator {
 public:
  /// Duplicates `comm` (collective over it); BackendError when MPI fails.
  /// Every rank passes the same `host_memory` (else InvalidArgument on every
  /// rank). `segment_limit`: the most a rank's shared segment may take
  /// (bytes; 0: 1 GiB; ranks of one host given different ones take the
  /// least).
  explicit MpiCommunicator(MPI_Comm comm, bool host_memory = true, std::size_t segment_limit = 0) {
    check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    host_rank_.assign(std::size_t(size_), -1);
    // every rank must take the same way (one copying through memory while
    // another waits for messages would wait for ever)
    int ways[2] = {host_memory ? 1 : 0, host_memory ? -1 : 0};
    check(MPI_Allreduce(MPI_IN_PLACE, ways, 2, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
    if (ways[0] != -ways[1]) {
      MPI_Comm_free(&comm_);
      throw InvalidArgument("MpiCommunicator: host_memory differs between ranks");
    }
    if (!host_memory || size_ == 1) return;
    check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host_), "MPI_Comm_split_type");
    int on_host = 1;
    MPI_Comm_size(host_, &on_host);
    if (on_host == 1) {
      MPI_Comm_free(&host_);
      return;
    }
    // which rank of comm_ is which rank of host_ (-1: another host)
    MPI_Group all, host;
    MPI_Comm_group(comm_, &all);
    MPI_Comm_group(host_, &host);
    std::vector<int> ranks(std::size_t(size_), 0);
    for (int p = 0; p < size_; ++p) ranks[std::size_t(p)] = p;
    check(MPI_Group_translate_ranks(all, size_, ranks.data(), host, host_rank_.data()), "MPI_Group_translate_ranks");
    for (int& h : host_rank_)
      if (h == MPI_UNDEFINED) h = -1;
    MPI_Group_free(&all);
    MPI_Group_free(&host);
    // The most a segment may take; the ranks of a host given different ones
    // take the least, so that every rank decides alike whether an exchange fits.
    unsigned long long limit = segment_limit > 0 ? segment_limit : kMaxSegment;
    check(MPI_Allreduce(MPI_IN_PLACE, &limit, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, host_), "MPI_Allreduce");
    limit_ = std::size_t(limit);
  }
  /// Collective where the window is shared (MPI_Win_free): every rank of the
  /// host destroys its communicator, in the same order as the others. While
  /// an exception unwinds (a rank that has failed alone, on its way to
  /// MPI_Abort), it frees nothing, so as not to wait for the other ranks.
  ~MpiCommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized || std::uncaught_exceptions() > 0) return;
    free_window();
    if (host_ != MPI_COMM_NULL) MPI_Comm_free(&host_);
    MPI_Comm_free(&comm_);
  }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }  ///< this rank in the communicator
  int size() const override { return size_; }  ///< the number of ranks
  /// Whether messages to the ranks of this host go through shared memory.
  bool shares_host_memory() const { return host_ != MPI_COMM_NULL; }
  /// Where a rank's exchanges spent their time, summed since construction.
  struct ExchangeTimes {
    std::size_t exchanges = 0;  ///< calls of exchange()
    std::size_t through_memory = 0;  ///< of them, those whose messages within the host went through shared memory
    double waiting = 0;  ///< for the other ranks of the host: to arrive, and to have written their messages
    double copying = 0;  ///< copying messages into and out of the shared segments
    double messages = 0;  ///< waiting for MPI messages (to other hosts, or all without shared memory)
  };
  /// This rank's exchanges and where their time went, since construction.
  const ExchangeTimes& exchange_times() const { return times_; }
  void exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives) override {
    std::vector<MPI_Request> req;
    // MPI messages: to other hosts first, then (where the exchange does not
    // go through the host's segments) to this host's ranks too
    auto post = [&](bool host) {
      for (const Transfer& t : receives)
        if (on_host(t.peer) == host) {
          req.push_back(MPI_REQUEST_NULL);
          check(MPI_Irecv(t.data, count(t), MPI_BYTE, t.peer, kTag, comm_, &req.back()), "MPI_Irecv");
        }
      for (const Transfer& t : sends)
        if (on_host(t.peer) == host) {
          req.push_back(MPI_REQUEST_NULL);
          check(MPI_Isend(t.data, count(t), MPI_BYTE, t.peer, kTag, comm_, &req.back()), "MPI_Isend");
        }
    };
    post(false);
    if (host_ != MPI_COMM_NULL) {
      if (exchange_on_host(sends, receives)) ++times_.through_memory;
      else post(true);
    }
    const double t = MPI_Wtime();
    check(MPI_Waitall(int(req.size()), req.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    times_.messages += MPI_Wtime() - t;
    ++times_.exchanges;
  }
  void sum(double* values, std::size_t n) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values, int(n), MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
  }
  /// Element-wise maximum over all ranks, in place (MPI_Allreduce).
  void max(double* values, std::size_t n) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values, int(n), MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  }

 private:
  static constexpr int kTag = 7401;
  static constexpr std::size_t kMaxSegment = std::size_t(1) << 30;
  // Threads of a rank that copy messages through shared memory. Four ranks
  // of one H200 host, 3D 511³: the exchange took 1.6 ms a solve with four
  // threads and pieces of 128 kB, 7.0 ms with eight and 64 kB.
  static constexpr int kCopyThreads = 4;
  // Each half of a segment begins with its table: the number of messages,
  // then each message's receiver (a rank of comm_), offset and length; the
  // messages follow, each at a multiple of kAlign.
  static constexpr std::size_t kAlign = 64;
  static std::size_t aligned(std::size_t b) { return (b + kAlign - 1) / kAlign * kAlign; }
  // The bytes of a segment's table of `messages` messages (where its first message begins).
  static std::size_t table_bytes(std::size_t messages) { return aligned(sizeof(std::uint64_t) * (1 + 3 * messages)); }

  bool on_host(int peer) const { return host_ != MPI_COMM_NULL && host_rank_.at(std::size_t(peer)) >= 0; }

  // This rank's messages to the host's ranks as its segment holds them: the
  // table (receiver, offset, length of each), then each distinct message
  // once (one buffer sent to several ranks, as a rank's rows of a reduced
  // system to every other rank, is copied in once and read by each).
  struct SegmentLayout {
    std::vector<std::uint64_t> table;  // the count, then receiver, offset, length of each message
    /// A distinct message and where it goes in the half-segment.
    struct Piece {
      std::size_t offset;  ///< bytes from the half-segment's start
      const void* data;    ///< the message
      std::size_t bytes;   ///< its length
    };
    std::vector<Piece> distinct;  // each distinct message and where it goes
    std::size_t bytes = 0;        // the half-segment's bytes that it takes
  };
  SegmentLayout segment_layout(const std::vector<Transfer>& sends) const {
    SegmentLayout l;
    std::size_t messages = 0;
    for (const Transfer& t : sends) messages += on_host(t.peer) ? 1 : 0;
    l.table.push_back(messages);
    l.bytes = table_bytes(messages);
    for (const Transfer& t : sends) {
      if (!on_host(t.peer)) continue;
      auto same = std::find_if(l.distinct.begin(), l.distinct.end(), [&](const SegmentLayout::Piece& d) {
        return d.data == t.data && d.bytes == t.bytes;
      });
      std::size_t offset = l.bytes;
      if (same == l.distinct.end()) {
        l.distinct.push_back({offset, t.data, t.bytes});
        l.bytes += aligned(t.bytes);
      } else {
        offset = same->offset;
      }
      l.table.insert(l.table.end(), {std::uint64_t(t.peer), std::uint64_t(offset), std::uint64_t(t.bytes)});
    }
    return l;
  }
  // The half of this rank's segment that its next exchange writes.
  char* my_half() const {
    return segments_[std::size_t(host_rank_[std::size_t(rank_)])] + std::size_t(half_) * half_bytes_;
  }
  void write_segment(const SegmentLayout& l) {
    char* base = my_half();
    std::memcpy(base, l.table.data(), l.table.size() * sizeof(std::uint64_t));
    std::vector<MessageCopy> copies;
    for (const auto& d : l.distinct) copies.push_back({base + d.offset, d.data, d.bytes});
    copy_messages(copies, kCopyThreads);
  }
  // A segment's size for `bytes` a half: a power of two, 1 MiB or more.
  static std::size_t segment_size(std::size_t bytes) {
    std::size_t size = std::size_t(1) << 20;
    while (size < 2 * bytes) size *= 2;
    return size;
  }
  int ranks_on_host() const {
    int n = 1;
    MPI_Comm_size(host_, &n);
    return n;
  }
  // Free bytes where MPI places shared windows on Linux (Open MPI's
  // osc_sm_backing_directory, else /dev/shm); unbounded where that is unknown.
  static std::size_t free_shared_memory() {
#if __has_include(<sys/statvfs.h>)
    const char* dir = std::getenv("OMPI_MCA_osc_sm_backing_directory");
    struct statvfs fs;
    if (statvfs(dir && *dir ? dir : "/dev/shm", &fs) == 0) return std::size_t(fs.f_bavail) * std::size_t(fs.f_frsize);
#endif
    return std::size_t(-1);
  }

  // The messages between ranks of this host through the segments; false
  // (the same on every rank of the host, nothing read) where they do not
  // fit and go as MPI messages.
  //
  // Each segment has two halves, used by turns: a sender writes an
  // exchange's messages into the half its previous exchange did not use,
  // which every receiver finished reading before it entered that previous
  // exchange's step below. So one collective step an exchange suffices: an
  // all-reduce of the bytes each rank's messages need, after each has
  // written those that fit (a rank that arrives early copies while it
  // waits). Where some rank's did not fit, the segments grow (collective,
  // every read of the last exchange done) and every rank writes again,
  // within the limit and where the host's free shared memory holds the
  // larger segments twice over (the host's rank 0 measures it for all: grow()
  // writes its segments, so every other window's pages are counted).
  bool exchange_on_host(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives) {
    const SegmentLayout layout = segment_layout(sends);
    double t = MPI_Wtime();
    if (layout.bytes <= half_bytes_) write_segment(layout);
    lap(t, times_.copying);
    if (window_ != MPI_WIN_NULL) MPI_Win_sync(window_);
    unsigned long long most = layout.bytes;
    check(MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, host_), "MPI_Allreduce");
    lap(t, times_.waiting);
    if (most > half_bytes_) {
      const std::size_t size = segment_size(std::size_t(most));
      if (size > limit_) return false;
      int room = 0;
      if (host_rank_[std::size_t(rank_)] == 0) room = size * std::size_t(ranks_on_host()) <= free_shared_memory() / 2;
      check(MPI_Bcast(&room, 1, MPI_INT, 0, host_), "MPI_Bcast");
      if (!room) return false;
      grow(size);
      lap(t, times_.waiting);
      write_segment(layout);
      lap(t, times_.copying);
      MPI_Win_sync(window_);
      check(MPI_Barrier(host_), "MPI_Barrier");
      lap(t, times_.waiting);
    }
    MPI_Win_sync(window_);
    const std::size_t written = std::size_t(half_) * half_bytes_;  // the half this exchange reads
    half_ ^= 1;  // (before a receive without its send throws: the ranks keep taking the same halves)
    // the k-th receive from a peer matches the k-th message of that peer to this rank
    std::vector<MessageCopy> copies;
    std::vector<std::size_t> next(std::size_t(size_), 0);
    for (const Transfer& r : receives) {
      if (!on_host(r.peer)) continue;
      const char* from = segments_[std::size_t(host_rank_[std::size_t(r.peer)])] + written;
      const auto* its = reinterpret_cast<const std::uint64_t*>(from);
      std::size_t& k = next[std::size_t(r.peer)];
      while (k < its[0] && its[1 + 3 * k] != std::uint64_t(rank_)) ++k;
      if (k == its[0] || its[3 + 3 * k] != r.bytes)
        throw BackendError("MPI communicator: rank " + std::to_string(rank_) + " expects " + std::to_string(r.bytes) +
                           " bytes from rank " + std::to_string(r.peer) + " that it did not send");
      copies.push_back({r.data, from + its[2 + 3 * k], r.bytes});
      ++k;
    }
    copy_messages(copies, kCopyThreads);
    lap(t, times_.copying);
    return true;
  }
  // adds the time since t to `to`, and sets t to now
  static void lap(double& t, double& to) {
    const double now = MPI_Wtime();
    to += now - t;
    t = now;
  }
  // A window of `size` bytes a rank, two halves (collective over host_):
  // the old one's messages have all been read.
  void grow(std::size_t size) {
    free_window();
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");  // each segment in its owner's memory
    void* base = nullptr;
    const int code = MPI_Win_allocate_shared(MPI_Aint(size), 1, info, host_, &base, &window_);
    MPI_Info_free(&info);
    check(code, "MPI_Win_allocate_shared");
    MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
    const int on_host = ranks_on_host();
    segments_.assign(std::size_t(on_host), nullptr);
    for (int h = 0; h < on_host; ++h) {
      MPI_Aint length = 0;
      int unit = 1;
      check(MPI_Win_shared_query(window_, h, &length, &unit, &segments_[std::size_t(h)]), "MPI_Win_shared_query");
    }
    // written once by its owner: its pages are taken now (and counted by the
    // next free_shared_memory), placed in the owner's memory
    std::memset(segments_[std::size_t(host_rank_[std::size_t(rank_)])], 0, size);
    half_bytes_ = size / 2;
    half_ = 0;
  }
  void free_window() {
    if (window_ == MPI_WIN_NULL) return;
    MPI_Win_unlock_all(window_);
    MPI_Win_free(&window_);
    half_bytes_ = 0;
  }
  static int count(const Transfer& t) {
    if (t.bytes > std::size_t(INT_MAX))
      throw InvalidArgument("MPI message of " + std::to_string(t.bytes) + " bytes (a row of the first dimension "
                            "must stay below 2 GiB)");
    return int(t.bytes);
  }
  static void check(int code, const char* what) {
    if (code != MPI_SUCCESS) throw BackendError(std::string(what) + " failed (MPI error " + std::to_string(code) + ")");
  }
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm host_ = MPI_COMM_NULL;  // the ranks of this host, where messages go through shared memory
  std::vector<int> host_rank_;     // [rank of comm_]: its rank in host_, -1 on another host
  MPI_Win window_ = MPI_WIN_NULL;
  std::vector<char*> segments_;    // [rank of host_]: its segment, in this process
  std::size_t half_bytes_ = 0;     // bytes of each half of a segment
  int half_ = 0;                   // the half this rank's next exchange writes
  std::size_t limit_ = 0;          // the most a segment (both halves) may grow to
  ExchangeTimes times_;
  int rank_ = 0, size_ = 1;
};

/// A distributed plan over the ranks of `comm` (collective).
template <class T>
DistributedPlan<T> mpi_plan(MPI_Comm comm, const Problem<T>& problem, const Options& options = {}) {
  return DistributedPlan<T>(std::make_shared<MpiCommunicator>(comm), problem, options);
}

}  // namespace pscr
