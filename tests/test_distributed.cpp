// Distributed plans over MPI (run with mpirun -np 1 … 4): every rank's slab
// of the solution against the serial plan's rows (the serial plan is checked
// against direct solves elsewhere), for every scalar type, 2D and 3D, uneven
// slabs, more ranks than rows, pure Neumann, radix 2 … 8, batches; OpenCL
// ranks against the serial OpenCL plan; the communication counts; every error
// class of the distributed plan on all ranks.
#include <mpi.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "pscr/mpi.hpp"
#include "pscr/pscr.hpp"

namespace {

int rank_ = 0, size_ = 1, failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "rank %d of %d: FAILED: %s\n", rank_, size_, what.c_str());
  }
}

template <class T> T random_value(std::mt19937& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (pscr::is_complex_v<T>) return T(u(g), u(g));
  else return T(u(g));
}

// A random symmetric (complex symmetric) factor: diagonally dominant A, M > 0.
template <class T> pscr::Factor<T> random_factor(int n, std::mt19937& g) {
  pscr::Factor<T> f;
  std::uniform_real_distribution<double> u(0.2, 1.0);
  for (int i = 0; i < n; ++i) {
    f.A.diag.push_back(T(3.0 + u(g)) + (pscr::is_complex_v<T> ? random_value<T>(g) * T(0.1) : T(0)));
    f.M.diag.push_back(T(2.0 + u(g)));
    if (i + 1 < n) {
      f.A.off.push_back(T(-u(g)));
      f.M.off.push_back(T(0.3 * u(g)));
    }
  }
  return f;
}

template <class T> double tolerance() { return std::is_same_v<pscr::real_t<T>, float> ? 2e-5 : 1e-12; }

// The distributed solve of `count` right-hand sides against the serial plan.
template <class T>
void against_serial(const std::string& name, const pscr::Problem<T>& p, pscr::Options o, std::size_t count = 1) {
  o.threads = 1;
  std::mt19937 g(42);  // the same right-hand sides on every rank
  const std::size_t N = p.unknowns();
  std::vector<T> f(N * count), serial(N * count);
  for (auto& v : f) v = random_value<T>(g);
  pscr::Plan<T> plan(p, o);
  const auto serial_stats = plan.solve_batch(f.data(), serial.data(), count);
  auto dist = pscr::mpi_plan(MPI_COMM_WORLD, p, o);
  // the same plan: the radix (the automatic one may move) and what it expects of the shifts
  check(dist.info().plan.radix == plan.info().radix, name + ": the radix of the serial plan");
  check(dist.info().plan.shift_amplification == plan.info().shift_amplification,
        name + ": the shift amplification of the serial plan");
  check(dist.info().plan.elimination_growth == plan.info().elimination_growth,
        name + ": the lines' elimination growth of the serial plan (" +
            std::to_string(dist.info().plan.elimination_growth) + " against " +
            std::to_string(plan.info().elimination_growth) + ")");
  const pscr::RowRange rows = dist.rows();
  const std::size_t R = N / p.size(0), L = dist.local_unknowns();
  check(L == rows.size() * R, name + ": local_unknowns");
  std::vector<T> fl(L * count), ul(L * count);
  for (std::size_t c = 0; c < count; ++c)
    std::copy(f.begin() + c * N + rows.begin * R, f.begin() + c * N + rows.end * R, fl.begin() + c * L);
  const auto st = dist.solve_batch(fl.data(), ul.data(), count);
  double scale = 0, diff = 0;
  bool identical = true;
  for (std::size_t c = 0; c < count; ++c)
    for (std::size_t i = 0; i < L; ++i) {
      const T a = ul[c * L + i], b = serial[c * N + rows.begin * R + i];
      diff = std::max(diff, double(std::abs(a - b)));
      identical = identical && a == b;
    }
  for (auto& v : serial) scale = std::max(scale, double(std::abs(v)));
  double worst[2] = {diff / scale, st.incompatible_part - 0};
  MPI_Allreduce(MPI_IN_PLACE, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  char msg[256];
  std::snprintf(msg, sizeof msg, "%s: max |u - u_serial| / max |u_serial| = %.2e (tolerance %.0e)", name.c_str(),
                worst[0], tolerance<T>());
  check(worst[0] <= tolerance<T>(), msg);
  if (size_ == 1) check(identical, name + ": one rank must give the reference backend's result bit for bit");
  if (plan.info().pure_neumann)
    check(std::abs(serial_stats.incompatible_part - worst[1]) <= 1e-9 * serial_stats.incompatible_part,
          name + ": the incompatible part agrees with the serial plan's");
  if (rank_ == 0) std::printf("%-44s %s\n", name.c_str(), msg + name.size() + 2);
}

template <class E, class F> void expect_error(const std::string& name, F&& body) {
  bool thrown = false;
  try {
    body();
  } catch (const E& e) {
    thrown = true;
  } catch (const std::exception& e) {
    check(false, name + ": wrong exception: " + e.what());
    return;
  }
  check(thrown, name + ": no error");
}

void errors() {
  using P = pscr::Problem<double>;
  std::mt19937 g(7);
  const P p = P::make2d(random_factor<double>(13, g), random_factor<double>(9, g), 0.5);
  // An OpenCL device that one rank cannot have: refused on every rank.
  pscr::Options cl;
  cl.backend = pscr::Backend::opencl;
  cl.radix = 4;  // not resolved on the device (the selector fails there first)
  cl.devices = {"0:0", "no-such-device"};
  if (size_ > 1)
    expect_error<pscr::BackendError>("a rank's device missing", [&] { pscr::mpi_plan(MPI_COMM_WORLD, p, cl); });
  pscr::Options refine;
  refine.refine = 1;
  expect_error<pscr::InvalidArgument>("refine", [&] { pscr::mpi_plan(MPI_COMM_WORLD, p, refine); });
  pscr::Options threads;
  threads.threads = 1000000;
  expect_error<pscr::InvalidArgument>("threads", [&] { pscr::mpi_plan(MPI_COMM_WORLD, p, threads); });
  expect_error<pscr::InvalidArgument>("slab_rows", [] { pscr::slab_rows(10, 2, 2); });
  expect_error<pscr::InvalidArgument>("null communicator", [&] { pscr::DistributedPlan<double>(nullptr, p); });
  // A problem that differs on one rank: refused on every rank (with one rank there is nothing to differ).
  if (size_ > 1) {
    const P q = P::make2d(p.factor(0), p.factor(1), rank_ == size_ - 1 ? 0.25 : 0.5);
    expect_error<pscr::InvalidArgument>("problems differ", [&] { pscr::mpi_plan(MPI_COMM_WORLD, q); });
    pscr::Options radix;
    radix.radix = rank_ == 0 ? 4 : 3;
    expect_error<pscr::InvalidArgument>("options differ", [&] { pscr::mpi_plan(MPI_COMM_WORLD, p, radix); });
  }
  // A NaN in one rank's slab: every rank throws, none hangs.
  auto plan = pscr::mpi_plan(MPI_COMM_WORLD, p);
  std::vector<double> f(plan.local_unknowns(), 1.0), u(f.size());
  if (rank_ == size_ - 1 && !f.empty()) f.back() = std::nan("");
  // every rank names the index in the whole array, as a serial plan does, and the rank holding it
  const auto expect_nan_named = [&](const std::string& what, std::size_t index, const std::function<void()>& solve) {
    bool named = false;
    expect_error<pscr::NonFiniteInput>(what, [&] {
      try {
        solve();
      } catch (const pscr::NonFiniteInput& e) {
        named = std::string(e.what()).find("at index " + std::to_string(index) + " (on rank " +
                                           std::to_string(size_ - 1) + ")") != std::string::npos;
        throw;
      }
    });
    check(named, what + ": every rank names the NaN's index in the whole array and the rank holding it");
  };
  expect_nan_named("non-finite rhs on the last rank", p.unknowns() - 1, [&] { plan.solve(f.data(), u.data()); });
  // The plan still works after the error.
  std::fill(f.begin(), f.end(), 1.0);
  plan.solve(f.data(), u.data());
  // A batch whose bytes overflow size_t: refused on every rank (the whole
  // problem's size decides, so ranks without rows agree), none hangs; an
  // empty batch solves nothing, null arrays allowed.
  expect_error<pscr::AllocationTooLarge>("batch past size_t", [&] {
    plan.solve_batch(f.data(), u.data(), std::numeric_limits<std::size_t>::max() / p.unknowns() + 2);
  });
  try {
    plan.solve_batch(nullptr, nullptr, 0);
  } catch (const std::exception& e) {
    check(false, std::string("empty batch: ") + e.what());
  }
  // A radix past what the OpenCL kernels hold: refused on every rank before planning.
  pscr::Options wide_radix;
  wide_radix.backend = pscr::Backend::opencl;
  wide_radix.radix = pscr::kMaxOpenCLRadix + 1;
  expect_error<pscr::InvalidArgument>("OpenCL radix past its bound", [&] { pscr::mpi_plan(MPI_COMM_WORLD, p, wide_radix); });
  // The same on OpenCL ranks, whose devices scan their slabs; the error
  // names the rank and index that hold the NaN.
  pscr::Options on_cl;
  on_cl.backend = pscr::Backend::opencl;
  auto cl_plan = pscr::mpi_plan(MPI_COMM_WORLD, p, on_cl);
  std::vector<double> fc(cl_plan.local_unknowns(), 1.0), w(fc.size());
  const std::size_t last_begin = pscr::slab_rows(p.size(0), size_, size_ - 1).begin * (p.unknowns() / p.size(0));
  if (rank_ == size_ - 1 && fc.size() > 3) fc[3] = std::nan("");
  expect_nan_named("non-finite rhs on the last OpenCL rank", last_begin + 3, [&] { cl_plan.solve(fc.data(), w.data()); });
  std::fill(fc.begin(), fc.end(), 1.0);
  cl_plan.solve(fc.data(), w.data());
  double worst = 0;
  for (double v : w) worst = std::max(worst, std::abs(v));
  check(std::isfinite(worst) && worst > 0, "an OpenCL plan solves after a refused right-hand side");
  // A problem too large for the devices (each OpenCL rank holds the whole
  // array, docs/distributed.md): refused on every rank as AllocationTooLarge
  // before any buffer is allocated, the rank's own message naming the
  // solution vector's bytes. n^2 doubles of 2^20 - 1 rows exceed any device
  // (8.8 TB); the Toeplitz eigen data stay small.
  {
    const int n = (1 << 20) - 1;
    const auto huge = pscr::poisson2d(pscr::graded_mesh(n + 2, 1.0, 1.0), pscr::graded_mesh(n + 2, 1.0, 1.0));
    const std::string bytes = std::to_string(std::size_t(n) * std::size_t(n) * sizeof(double));
    bool named = false;
    expect_error<pscr::AllocationTooLarge>("a problem too large for the devices", [&] {
      try {
        pscr::mpi_plan(MPI_COMM_WORLD, huge, on_cl);
      } catch (const pscr::AllocationTooLarge& e) {
        named = std::string(e.what()).find(bytes) != std::string::npos;
        if (!named && rank_ == 0) std::fprintf(stderr, "too large: %s\n", e.what());
        throw;
      }
    });
    check(named, "a problem too large for the devices: the bytes named on every rank");
  }
  // A singular operator: refused at planning on every rank.
  const P s = P::make2d(pscr::laplacian_factor(8, 1.0, pscr::Boundary::Dirichlet, pscr::Boundary::Dirichlet),
                        pscr::laplacian_factor(8, 1.0, pscr::Boundary::Dirichlet, pscr::Boundary::Dirichlet),
                        -2 * 2 * (1 - std::cos(M_PI / 9)));
  expect_error<pscr::SingularPencil>("singular operator", [&] { pscr::mpi_plan(MPI_COMM_WORLD, s); });
}

void traffic() {
  std::mt19937 g(3);
  const auto p = pscr::Problem<double>::make2d(random_factor<double>(255, g), random_factor<double>(31, g), 0.0);
  auto plan = pscr::mpi_plan(MPI_COMM_WORLD, p);
  const auto& info = plan.info();
  double m[2] = {double(info.messages_per_solve), double(info.bytes_per_solve)};
  MPI_Allreduce(MPI_IN_PLACE, m, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  std::size_t levels_sum = 0;
  for (auto& l : info.levels) levels_sum += l.messages;
  check(levels_sum == info.messages_per_solve, "traffic: the levels add up to the total");
  if (size_ == 1) check(m[0] == 0, "traffic: one rank sends nothing");
  else check(m[0] > 0 && m[1] == m[0] * 31 * sizeof(double), "traffic: rows of 31 doubles are sent");
  check(info.ranks == size_ && info.rank == rank_, "traffic: ranks");
  if (rank_ == 0)
    std::printf("traffic 255 x 31 on %d ranks: %.0f messages, %.0f bytes per solve (all ranks)\n", size_, m[0], m[1]);
}

// The communicator alone, both ways of moving messages between the ranks of
// one host (shared memory, MPI messages): rounds of random messages, several
// to one peer (matched in order), empty ones, to itself, larger from round to
// round (the shared segments grow, some ranks' messages fitting where
// others' do not) and then smaller again (the segments' halves taken by
// turns), one buffer sent to every rank (copied into a segment once); every
// byte checked; segments limited to 1 MiB, where the rounds past it go as
// MPI messages. A receive that no send matches is an error on the receiving
// rank.
void communicator() {
  constexpr int kRounds = 10;
  // shared memory; shared memory whose segments hold at most 1 MiB (the
  // rounds past it go as MPI messages), also where only rank 0 says so (the
  // host's ranks take the least); MPI messages
  for (int way_index = 0; way_index < 4; ++way_index) {
    const bool host_memory = way_index < 3;
    const bool limited = way_index == 1 || way_index == 2;
    const std::size_t segment_limit = way_index == 1 || (way_index == 2 && rank_ == 0) ? std::size_t(1) << 20 : 0;
    pscr::MpiCommunicator comm(MPI_COMM_WORLD, host_memory, segment_limit);
    const std::string way = !host_memory       ? "MPI messages"
                            : way_index == 2   ? "shared memory of 1 MiB on rank 0"
                            : limited          ? "shared memory of 1 MiB"
                                               : "shared memory";
    check(comm.shares_host_memory() == (host_memory && size_ > 1), way + ": shares_host_memory");
    // k = -1: the buffer a rank sends to every rank
    const auto byte = [](int from, int to, int k, std::size_t i) {
      if (k < 0) to = 0;
      return static_cast<unsigned char>(from * 131 + to * 31 + k * 7 + i * 13 + i / 251);
    };
    for (int round = 0; round < kRounds; ++round) {
      std::mt19937 g(100 + round);  // the same pattern on every rank
      // 2 kB ... 2 MB, then up to 64 kB
      const std::size_t longest = round < 6 ? std::size_t(2000) << (2 * round) : std::size_t(64) << 10;
      std::vector<std::vector<std::size_t>> lengths(std::size_t(size_ * size_));  // [from * size + to]
      for (auto& l : lengths) {
        const int messages = round == 5 ? 1 + int(g() % 3) : int(g() % 4);  // round 5: a longest to each
        for (int k = 0; k < messages; ++k) l.push_back(k == 1 ? 0 : round == 5 && k == 0 ? longest : g() % longest);
      }
      // from round 6 on, each rank's last message to every rank is one buffer
      const std::size_t common_length = round >= 6 ? 1 + g() % longest : 0;
      std::vector<unsigned char> common(common_length);
      for (std::size_t i = 0; i < common_length; ++i) common[i] = byte(rank_, 0, -1, i);
      std::vector<std::vector<unsigned char>> out, in;
      std::vector<pscr::Transfer> sends, receives;
      std::vector<std::array<int, 3>> expected;  // from, to, k of each receive
      for (int to = 0; to < size_; ++to) {
        const auto& l = lengths[std::size_t(rank_ * size_ + to)];
        for (std::size_t k = 0; k < l.size(); ++k) {
          out.emplace_back(l[k]);
          for (std::size_t i = 0; i < l[k]; ++i) out.back()[i] = byte(rank_, to, int(k), i);
        }
      }
      for (int from = 0; from < size_; ++from) {
        const auto& l = lengths[std::size_t(from * size_ + rank_)];
        for (std::size_t k = 0; k < l.size(); ++k) {
          in.emplace_back(l[k], 0);
          expected.push_back({from, rank_, int(k)});
        }
        if (common_length > 0) {
          in.emplace_back(common_length, 0);
          expected.push_back({from, rank_, -1});
        }
      }
      std::size_t o = 0, r = 0;
      for (int to = 0; to < size_; ++to) {
        for (std::size_t len : lengths[std::size_t(rank_ * size_ + to)]) sends.push_back({to, out[o++].data(), len});
        if (common_length > 0) sends.push_back({to, common.data(), common_length});
      }
      for (int from = 0; from < size_; ++from) {
        for (std::size_t len : lengths[std::size_t(from * size_ + rank_)]) receives.push_back({from, in[r++].data(), len});
        if (common_length > 0) receives.push_back({from, in[r++].data(), common_length});
      }
      comm.exchange(sends, receives);
      bool same = true;
      for (std::size_t m = 0; m < in.size(); ++m)
        for (std::size_t i = 0; i < in[m].size(); ++i)
          same = same && in[m][i] == byte(expected[m][0], expected[m][1], expected[m][2], i);
      check(same, way + ": round " + std::to_string(round) + " delivers every message");
    }
    double v[2] = {double(rank_), 1.0};
    comm.sum(v, 2);
    check(v[0] == size_ * (size_ - 1) / 2.0 && v[1] == size_, way + ": sum");
    // every round through shared memory, or (segments of 1 MiB) only the rounds that fit
    const auto& times = comm.exchange_times();
    const bool shares = host_memory && size_ > 1;
    check(times.exchanges == kRounds && (shares ? (limited ? times.through_memory > 0 && times.through_memory < kRounds
                                                                 : times.through_memory == kRounds)
                                          : times.through_memory == 0),
          way + ": exchanges through shared memory " + std::to_string(times.through_memory) + " of " +
              std::to_string(times.exchanges));
    if (host_memory && !limited && size_ > 1) {
      // rank 0 expects 8 bytes from rank 1, which sends nothing
      std::vector<unsigned char> buffer(8);
      std::vector<pscr::Transfer> none, wrong;
      if (rank_ == 0) wrong.push_back({1, buffer.data(), buffer.size()});
      expect_error<pscr::BackendError>(way + ": a receive without its send", [&] {
        comm.exchange(none, wrong);
        if (rank_ != 0) throw pscr::BackendError("only rank 0 sees it");
      });
    }
  }
  // ranks that ask for different ways: refused on every rank, none waits
  if (size_ > 1)
    expect_error<pscr::InvalidArgument>("host_memory differs between ranks",
                                        [&] { pscr::MpiCommunicator c(MPI_COMM_WORLD, rank_ == 0); });
  if (rank_ == 0) std::printf("communicator: random exchanges on %d ranks, shared memory and MPI messages\n", size_);
}

// Plans over both ways of moving messages within a host give the same
// answer, bit for bit: the reduction on the reference backend and on OpenCL
// ranks, and a transformed split (uniform dimensions 2 and 3).
void exchanges_agree() {
  std::mt19937 g(11);
  const auto lap = [](int n) {
    return pscr::laplacian_factor(n, 1.0, pscr::Boundary::Dirichlet, pscr::Boundary::Dirichlet);
  };
  pscr::Options ref, cl;
  ref.threads = cl.threads = 1;
  cl.backend = pscr::Backend::opencl;
  const auto p2 = pscr::Problem<double>::make2d(random_factor<double>(90, g), random_factor<double>(13, g), 0.2);
  const auto p3 = pscr::Problem<double>::make3d(random_factor<double>(23, g), lap(15), lap(7), 0.0);
  struct Case { std::string name; const pscr::Problem<double>* p; pscr::Options o; };
  for (const Case& c : {Case{"reference 2D 90 x 13", &p2, ref}, Case{"OpenCL 2D 90 x 13", &p2, cl},
                        Case{"OpenCL 3D 23 x 15 x 7, transformed split", &p3, cl}}) {
    std::vector<double> u[2];
    std::string method;
    for (bool host_memory : {true, false}) {
      pscr::DistributedPlan<double> plan(std::make_shared<pscr::MpiCommunicator>(MPI_COMM_WORLD, host_memory), *c.p,
                                         c.o);
      std::mt19937 h(5);
      std::vector<double> f(plan.local_unknowns() * 2);
      for (auto& v : f) v = random_value<double>(h);
      u[host_memory].resize(f.size());
      plan.solve_batch(f.data(), u[host_memory].data(), 2);
      method = plan.info().plan.dimension_methods.empty() ? "" : plan.info().plan.dimension_methods[0];
    }
    check(u[0] == u[1], c.name + ": shared memory and MPI messages give the same solution, bit for bit");
    if (c.p == &p3 && size_ > 1) check(method.find("partitioned") != std::string::npos, c.name + ": " + method);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  try {
    std::mt19937 g(1);
    using Z = std::complex<double>;
    using C = std::complex<float>;
    pscr::Options o;
    against_serial("2D double 37 x 23", pscr::Problem<double>::make2d(random_factor<double>(37, g),
                                                                       random_factor<double>(23, g), 0.3), o);
    against_serial("2D double 63 x 17, batch 3", pscr::Problem<double>::make2d(random_factor<double>(63, g),
                                                                                random_factor<double>(17, g), 0.0),
                   o, 3);
    against_serial("2D float 50 x 20", pscr::Problem<float>::make2d(random_factor<float>(50, g),
                                                                     random_factor<float>(20, g), 0.1f), o);
    against_serial("2D complex double 41 x 15", pscr::Problem<Z>::make2d(random_factor<Z>(41, g),
                                                                          random_factor<Z>(15, g), Z(0.2, 0.1)), o);
    against_serial("2D complex float 30 x 12", pscr::Problem<C>::make2d(random_factor<C>(30, g),
                                                                         random_factor<C>(12, g), C(0.1f, 0)), o);
    against_serial("3D double 21 x 9 x 7", pscr::Problem<double>::make3d(random_factor<double>(21, g),
                                                                          random_factor<double>(9, g),
                                                                          random_factor<double>(7, g), 0.0), o);
    against_serial("3D complex double 11 x 6 x 5",
                   pscr::Problem<Z>::make3d(random_factor<Z>(11, g), random_factor<Z>(6, g), random_factor<Z>(5, g),
                                            Z(0, 0.2)), o);
    against_serial("2D double 2 x 9 (ranks without rows)",
                   pscr::Problem<double>::make2d(random_factor<double>(2, g), random_factor<double>(9, g), 0.0), o);
    // three levels of radix 16 whose groups cross the uneven slab edges
    // (1001 rows: 501/500, 334/334/333, 251/250/250/250)
    against_serial("2D double 1001 x 6, three levels", pscr::Problem<double>::make2d(random_factor<double>(1001, g),
                                                                                      random_factor<double>(6, g), 0.1),
                   o);
    // a graded mesh's diagonal mass: the twisted method, its top pencil
    // (601 rows) shared between the ranks
    against_serial("2D Poisson, graded 601 x 5",
                   pscr::poisson2d(pscr::graded_mesh(603, 1.0, 1.003), pscr::graded_mesh(7, 1.0, 1.0)), o);
    against_serial("2D double 1 x 9", pscr::Problem<double>::make2d(random_factor<double>(1, g),
                                                                     random_factor<double>(9, g), 0.0), o);
    for (int q : {2, 3, 5, 8}) {
      pscr::Options r;
      r.radix = q;
      against_serial("2D double 70 x 11, radix " + std::to_string(q),
                     pscr::Problem<double>::make2d(random_factor<double>(70, g), random_factor<double>(11, g), 0.0),
                     r);
    }
    against_serial("2D Helmholtz 48 x 33",
                   pscr::helmholtz2d(pscr::graded_mesh(48, 1.0, 1.02), pscr::graded_mesh(33, 1.0, 1.0), 12.0), o);
    {
      // indefinite, with an exactly singular shifted system at radix 16
      // (docs/accuracy.md section 8): the automatic radix moves on every rank alike
      const double l15 = 2 - 2 * std::cos(M_PI / 16), l4 = 2 - 2 * std::cos(M_PI / 5);
      const auto shifted = pscr::Problem<double>::make2d(
          pscr::laplacian_factor(40, 1.0, pscr::Boundary::Dirichlet, pscr::Boundary::Dirichlet),
          pscr::laplacian_factor(4, 1.0, pscr::Boundary::Dirichlet, pscr::Boundary::Dirichlet), -(l15 + l4));
      against_serial("2D indefinite 40 x 4, radix moved", shifted, o);
      pscr::Options on_device;
      on_device.backend = pscr::Backend::opencl;
      against_serial("OpenCL 2D indefinite 40 x 4, radix moved", shifted, on_device);
    }
    const auto neumann = pscr::poisson_neumann_factor(pscr::graded_mesh(45, 1.0, 1.01));
    against_serial("2D pure Neumann 45 x 45", pscr::Problem<double>::make2d(neumann, neumann, 0.0), o, 2);
    against_serial("3D pure Neumann 13^3",
                   pscr::Problem<double>::make3d(pscr::poisson_neumann_factor(pscr::graded_mesh(13, 1.0, 1.0)),
                                                 pscr::poisson_neumann_factor(pscr::graded_mesh(13, 1.0, 1.0)),
                                                 pscr::poisson_neumann_factor(pscr::graded_mesh(13, 1.0, 1.0)), 0.0),
                   o);
    // OpenCL ranks (CI: PoCL, every rank on its one device) against the
    // serial OpenCL plan.
    pscr::Options cl;
    cl.backend = pscr::Backend::opencl;
    against_serial("OpenCL 2D double 37 x 23", pscr::Problem<double>::make2d(random_factor<double>(37, g),
                                                                              random_factor<double>(23, g), 0.3),
                   cl);
    against_serial("OpenCL 2D double 70 x 11, batch 2",
                   pscr::Problem<double>::make2d(random_factor<double>(70, g), random_factor<double>(11, g), 0.0), cl,
                   2);
    pscr::Options cl3 = cl;
    cl3.radix = 3;
    against_serial("OpenCL 2D double 70 x 11, radix 3",
                   pscr::Problem<double>::make2d(random_factor<double>(70, g), random_factor<double>(11, g), 0.0), cl3);
    against_serial("OpenCL 2D double 2 x 9 (ranks without rows)",
                   pscr::Problem<double>::make2d(random_factor<double>(2, g), random_factor<double>(9, g), 0.0), cl);
    against_serial("OpenCL 2D double 1001 x 6, three levels",
                   pscr::Problem<double>::make2d(random_factor<double>(1001, g), random_factor<double>(6, g), 0.1), cl);
    against_serial("OpenCL 3D double 21 x 9 x 7", pscr::Problem<double>::make3d(random_factor<double>(21, g),
                                                                                 random_factor<double>(9, g),
                                                                                 random_factor<double>(7, g), 0.0),
                   cl);
    against_serial("OpenCL 2D Helmholtz 48 x 33",
                   pscr::helmholtz2d(pscr::graded_mesh(48, 1.0, 1.02), pscr::graded_mesh(33, 1.0, 1.0), 12.0), cl);
    against_serial("OpenCL 2D pure Neumann 45 x 45", pscr::Problem<double>::make2d(neumann, neumann, 0.0), cl);
    communicator();
    exchanges_agree();
    traffic();
    errors();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: unexpected exception: %s\n", rank_, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int total = failures;
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) std::printf("%s: %d failures on %d ranks\n", total ? "FAILED" : "passed", total, size_);
  MPI_Finalize();
  return total ? 1 : 0;
}
