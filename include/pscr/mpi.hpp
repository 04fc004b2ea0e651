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

#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "pscr/distributed.hpp"
#include "pscr/errors.hpp"

namespace pscr {

/// A Communicator over a duplicate of an MPI communicator (so the plan's
/// messages never meet the caller's).
class MpiCommunicator final : public Communicator {
 public:
  /// Duplicates `comm` (collective over it); BackendError when MPI fails.
  explicit MpiCommunicator(MPI_Comm comm) {
    check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiCommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }  ///< this rank in the communicator
  int size() const override { return size_; }  ///< the number of ranks
  void exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives) override {
    std::vector<MPI_Request> req(sends.size() + receives.size(), MPI_REQUEST_NULL);
    std::size_t r = 0;
    for (const Transfer& t : receives)
      check(MPI_Irecv(t.data, count(t), MPI_BYTE, t.peer, kTag, comm_, &req[r++]), "MPI_Irecv");
    for (const Transfer& t : sends)
      check(MPI_Isend(t.data, count(t), MPI_BYTE, t.peer, kTag, comm_, &req[r++]), "MPI_Isend");
    check(MPI_Waitall(int(req.size()), req.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
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
  int rank_ = 0, size_ = 1;
};

/// A distributed plan over the ranks of `comm` (collective).
template <class T>
DistributedPlan<T> mpi_plan(MPI_Comm comm, const Problem<T>& problem, const Options& options = {}) {
  return DistributedPlan<T>(std::make_shared<MpiCommunicator>(comm), problem, options);
}

}  // namespace pscr
