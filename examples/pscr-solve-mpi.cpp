// pscr-solve-mpi: pscr-solve on several MPI ranks (a DistributedPlan over
// MPI_COMM_WORLD, docs/distributed.md). Same arguments, files and report as
// pscr-solve, plus the ranks and their messages:
//   mpirun -np P pscr-solve-mpi --A1 a1.npy --M1 m1.npy --A2 a2.npy --M2 m2.npy --rhs f.npy --out u.npy
// Rank 0 reads the right-hand side and sends every rank its slab of rows of
// the first dimension, and gathers and writes the solution; every rank reads
// the factor files. Exit status 2 on bad input (on every rank). Each rank
// plans and solves on its share of its host's CPUs (common/rank_cores.hpp)
// unless mpirun was given a binding.
#include <mpi.h>

#include <climits>
#include <exception>
#include <optional>

#include "common/rank_cores.hpp"
#include "common/solve_files.hpp"
#include "pscr/mpi.hpp"

namespace {

using namespace pscr::solve_files;

int rank_ = 0, size_ = 1;

// pscr-solve-mpi's own options, after the common ones in its usage
constexpr const char* kMpiOptions =
    "  --host-exchange memory|mpi: messages between the ranks of one host through shared\n"
    "                  memory (the default) or as MPI messages\n";

// After a step any rank may fail (reading the factor files): true when all
// succeeded; otherwise the lowest failing rank reports its error and every
// rank gets its exit status.
bool all_ok(std::exception_ptr error, int& status) {
  int first = error ? rank_ : size_;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size_) return true;
  int code = 2;
  if (rank_ == first) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      code = failure("pscr-solve-mpi", e, kMpiOptions);
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, first, MPI_COMM_WORLD);
  status = code;
  return false;
}

int to_int(std::size_t bytes) {
  if (bytes > std::size_t(INT_MAX))
    throw pscr::InvalidArgument("a rank's slab of " + std::to_string(bytes) + " bytes (MPI counts stay below 2 GiB)");
  return int(bytes);
}

// --host-exchange memory (the default: messages between the ranks of a host
// through shared memory) or mpi (MPI's messages).
bool host_exchange_of(const std::map<std::string, std::string>& args) {
  if (!args.count("host-exchange")) return true;
  const std::string& v = args.at("host-exchange");
  if (v != "memory" && v != "mpi") throw Usage("--host-exchange needs memory or mpi, not '" + v + "'");
  return v == "memory";
}

template <class T>
int run(const std::map<std::string, std::string>& args, const std::vector<std::size_t>& shape, pscr::npy::DType dtype,
        const std::vector<unsigned char>& rhs_bytes) {
  std::size_t batch = 1;
  std::optional<pscr::Problem<T>> problem;
  std::optional<pscr::Options> o;
  int repeat = 0;
  bool host_memory = true;
  int status = 0;
  std::exception_ptr error;
  try {
    problem.emplace(load_problem<T>(args, shape, dtype, batch));
    o.emplace(load_options(args));
    repeat = repeat_of(args);
    host_memory = host_exchange_of(args);
  } catch (...) {
    error = std::current_exception();
  }
  if (!all_ok(error, status)) return status;
  // the ranks solve as often as each other (a rank solving more would wait for the others for ever)
  int most = repeat, least = repeat;
  MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (most != least)
    error = std::make_exception_ptr(Usage("--repeat differs between ranks (" + std::to_string(least) + " to " +
                                          std::to_string(most) + ")"));
  if (!all_ok(error, status)) return status;
  const auto comm = std::make_shared<pscr::MpiCommunicator>(MPI_COMM_WORLD, host_memory);
  pscr::DistributedPlan<T> plan(comm, *problem, *o);
  const std::size_t N = problem->unknowns(), R = N / problem->size(0), L = plan.local_unknowns();
  std::vector<int> counts(size_), offsets(size_);
  for (int p = 0; p < size_; ++p) {
    const pscr::RowRange r = pscr::slab_rows(problem->size(0), size_, p);
    counts[p] = to_int(r.size() * R * sizeof(T));
    offsets[p] = to_int(r.begin * R * sizeof(T));
  }
  std::vector<T> f(L * batch), u(L * batch);
  const T* all = reinterpret_cast<const T*>(rhs_bytes.data());
  for (std::size_t b = 0; b < batch; ++b)
    MPI_Scatterv(rank_ == 0 ? all + b * N : nullptr, counts.data(), offsets.data(), MPI_BYTE, f.data() + b * L,
                 counts[rank_], MPI_BYTE, 0, MPI_COMM_WORLD);
  const pscr::SolveStats st = plan.solve_batch(f.data(), u.data(), batch);
  // repeated solves: the slowest rank's wall time, levels and exchanges
  std::vector<double> again[4];
  const pscr::MpiCommunicator::ExchangeTimes before = comm->exchange_times();
  for (int r = repeat; r > 0; --r) {
    const pscr::SolveStats s = plan.solve_batch(f.data(), u.data(), batch);
    double t[4] = {s.seconds, s.device_seconds, s.exchange_wait_seconds, s.exchange_seconds};
    MPI_Allreduce(MPI_IN_PLACE, t, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < 4; ++i) again[i].push_back(t[i]);
  }
  // the repeated solves' exchanges, per solve, the slowest rank's
  const pscr::MpiCommunicator::ExchangeTimes& after = comm->exchange_times();
  double parts[5] = {double(after.exchanges - before.exchanges), double(after.through_memory - before.through_memory),
                     after.waiting - before.waiting, after.copying - before.copying, after.messages - before.messages};
  for (double& v : parts) v /= std::max(repeat, 1);
  MPI_Allreduce(MPI_IN_PLACE, parts, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  std::vector<T> whole(rank_ == 0 ? N * batch : 0);
  for (std::size_t b = 0; b < batch; ++b)
    MPI_Gatherv(u.data() + b * L, counts[rank_], MPI_BYTE, rank_ == 0 ? whole.data() + b * N : nullptr,
                counts.data(), offsets.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  double sent[2] = {double(plan.info().messages_per_solve), double(plan.info().bytes_per_solve)};
  MPI_Reduce(rank_ == 0 ? MPI_IN_PLACE : sent, sent, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  // the slowest rank's parts of the init time
  const pscr::DistributedInfo& di = plan.info();
  double init[4] = {di.plan.init_seconds, di.plan.eigen_seconds, di.setup_seconds, di.agreement_seconds};
  MPI_Reduce(rank_ == 0 ? MPI_IN_PLACE : init, init, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank_ != 0) return 0;
  pscr::npy::save(args.at("out"), shape, whole.data());
  const pscr::PlanInfo& info = plan.info().plan;
  report(*problem, batch, info, st, solved_residual(*problem, info.pure_neumann, all, whole.data(), batch),
         o->radix);
  std::printf("ranks: %d, messages per solve: %.0f, bytes per solve: %.0f (all ranks), between ranks of a host: %s\n",
              size_, sent[0], sent[1],
              size_ == 1 ? "none (one rank)" : comm->shares_host_memory() ? "shared memory" : "MPI messages");
  if (!again[0].empty())
    std::printf("repeated solves: %zu, median of the slowest rank: %.6f s, levels on the devices %.6f s (waiting "
                "for the device at exchanges %.6f s, exchanging %.6f s)\n",
                again[0].size(), median_of(again[0]), median_of(again[1]), median_of(again[2]), median_of(again[3]));
  if (repeat > 0 && size_ > 1)
    std::printf("exchanges per repeated solve%s: %.0f, %.0f of them through shared memory; their time (slowest rank, "
                "mean): waiting for the host's other ranks %.6f s, copying through shared memory %.6f s, waiting for "
                "MPI messages %.6f s\n",
                batch > 1 ? (" (a batch of " + std::to_string(batch) + ")").c_str() : "", parts[0], parts[1], parts[2],
                parts[3], parts[4]);
  std::printf("init time by part (slowest rank): %.6f s, planning %.6f s, set-up %.6f s, agreement between ranks %.6f s"
              " (threads per rank: %d)\n", init[0], init[1], init[2], init[3], omp_get_max_threads());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  spread_ranks_over_cores(MPI_COMM_WORLD);
  int status = 0;
  try {
    bool help = false;
    std::map<std::string, std::string> args;
    try {
      args = parse_args(argc, argv, help, {"host-exchange"});
    } catch (const std::exception& e) {
      status = rank_ == 0 ? failure("pscr-solve-mpi", e, kMpiOptions) : 2;
    }
    if (status == 0 && help) {
      if (rank_ == 0)
        std::cout << "usage: mpirun -np P pscr-solve-mpi " << kOptions << kMpiOptions
                  << "  --refine K > 0 is refused over MPI ranks: distributed plans do not refine yet "
                     "(docs/distributed.md); pscr-solve refines\n";
    } else if (status == 0) {
      // Rank 0 reads the right-hand side; every rank learns its dtype and shape.
      pscr::npy::Array rhs;
      unsigned long long head[3] = {0, 0, 0};  // read, dtype, number of axes
      if (rank_ == 0) {
        try {
          rhs = pscr::npy::load(args.at("rhs"));
          head[0] = 1;
          head[1] = (unsigned long long)rhs.dtype;
          head[2] = rhs.shape.size();
        } catch (const std::exception& e) {
          status = failure("pscr-solve-mpi", e, kMpiOptions);
        }
      }
      MPI_Bcast(head, 3, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
      MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (head[0] == 1) {
        std::vector<unsigned long long> axes(head[2]);
        for (std::size_t a = 0; rank_ == 0 && a < axes.size(); ++a) axes[a] = rhs.shape[a];
        MPI_Bcast(axes.data(), int(axes.size()), MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        const std::vector<std::size_t> shape(axes.begin(), axes.end());
        const auto dtype = pscr::npy::DType(head[1]);
        switch (dtype) {
          case pscr::npy::DType::float32: status = run<float>(args, shape, dtype, rhs.bytes); break;
          case pscr::npy::DType::float64: status = run<double>(args, shape, dtype, rhs.bytes); break;
          case pscr::npy::DType::complex64: status = run<std::complex<float>>(args, shape, dtype, rhs.bytes); break;
          case pscr::npy::DType::complex128:
            status = run<std::complex<double>>(args, shape, dtype, rhs.bytes);
            break;
        }
      }
    }
  } catch (const std::exception& e) {
    // Errors of the distributed plan are raised on every rank alike; rank 0 reports.
    status = rank_ == 0 ? failure("pscr-solve-mpi", e, kMpiOptions) : (dynamic_cast<const pscr::Error*>(&e) ? 2 : 1);
  }
  MPI_Finalize();
  return status;
}
