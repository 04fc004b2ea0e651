// Probe (not part of the library): how fast an MpiCommunicator's exchange
// moves a transformed split's reduced rows between the ranks of one host,
// through shared memory and as MPI messages. Every rank sends `bytes` to
// every other rank (the split's all-to-all) from and into page-locked-sized
// host arrays, after a barrier (no skew between the ranks in the figure);
// prints the median time of an exchange and what a rank receives per
// second. Build and run:
//   mpicxx -O2 -std=c++17 -Iinclude scripts/probes/exchange_bandwidth.cpp -Lbuild/lib -lpscr -o build/exchange_bandwidth
//   mpirun -np P build/exchange_bandwidth
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "pscr/mpi.hpp"

using clk = std::chrono::steady_clock;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (std::size_t bytes : {std::size_t(1) << 19, std::size_t(1) << 21})
    for (bool host_memory : {true, false}) {
      pscr::MpiCommunicator comm(MPI_COMM_WORLD, host_memory);
      std::vector<char> out(bytes * std::size_t(size), 1), in(bytes * std::size_t(size), 0);
      std::vector<pscr::Transfer> sends, receives;
      for (int q = 0; q < size; ++q)
        if (q != rank) {
          sends.push_back({q, out.data() + std::size_t(q) * bytes, bytes});
          receives.push_back({q, in.data() + std::size_t(q) * bytes, bytes});
        }
      std::vector<double> t;
      for (int r = 0; r < 40; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const auto s = clk::now();
        comm.exchange(sends, receives);
        double d = std::chrono::duration<double>(clk::now() - s).count();
        MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r >= 5) t.push_back(d);
      }
      std::sort(t.begin(), t.end());
      const double m = t[t.size() / 2];
      if (rank == 0)
        std::printf("%d ranks, %s, %zu kB to each other rank: exchange %.3f ms (slowest rank), %.2f GB/s received a rank\n",
                    size, host_memory ? "shared memory" : "MPI messages", bytes >> 10, m * 1e3,
                    double(bytes) * (size - 1) / m / 1e9);
    }
  MPI_Finalize();
  return 0;
}
