// The CPUs an MPI rank of pscr-solve-mpi plans and solves on. Open MPI binds
// each rank to one core when it starts two or fewer (a socket beyond), which
// suits ranks of one thread; these ranks compute their eigen data and their
// shares of the levels with OpenMP threads, and on one core the planning
// took 18 times as long as the serial plan's (8191², 16 cores). Unless the
// user asked for a binding (mpirun --bind-to sets
// OMPI_MCA_hwloc_base_binding_policy), each rank takes an even share of its
// host's CPUs, by its place among the ranks of the host.
#pragma once
#include <mpi.h>
#include <omp.h>
#include <sched.h>

#include <cstdlib>
#include <vector>

namespace pscr::solve_files {

// The CPUs this process may run on.
inline std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// Spreads the ranks of each host over its CPUs (see above) and sets the
// OpenMP threads to the CPUs taken unless OMP_NUM_THREADS gives them:
// returns how many CPUs, or 0 where the binding is left as it was (asked
// for, or the CPUs cannot be had).
inline int spread_ranks_over_cores(MPI_Comm world) {
  if (std::getenv("OMPI_MCA_hwloc_base_binding_policy")) return 0;
  MPI_Comm host;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  int place = 0, ranks = 1;
  MPI_Comm_rank(host, &place);
  MPI_Comm_size(host, &ranks);
  MPI_Comm_free(&host);
  cpu_set_t launched;  // restored where the share cannot be had
  if (sched_getaffinity(0, sizeof launched, &launched) != 0) return 0;
  // every CPU asked for: the kernel grants those of the cpuset (the container's, the job's)
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
  if (sched_setaffinity(0, sizeof all, &all) != 0) return 0;
  const std::vector<int> cpus = allowed_cpus();
  if (cpus.empty()) {
    sched_setaffinity(0, sizeof launched, &launched);
    return 0;
  }
  const std::size_t n = cpus.size(), p = std::size_t(place), r = std::size_t(ranks);
  std::size_t begin = p * n / r, end = (p + 1) * n / r;
  if (end == begin) {  // more ranks than CPUs: one each, in turn
    begin = p % n;
    end = begin + 1;
  }
  cpu_set_t mine;
  CPU_ZERO(&mine);
  for (std::size_t i = begin; i < end; ++i) CPU_SET(cpus[i], &mine);
  if (sched_setaffinity(0, sizeof mine, &mine) != 0) {
    sched_setaffinity(0, sizeof launched, &launched);
    return 0;
  }
  if (!std::getenv("OMP_NUM_THREADS")) omp_set_num_threads(int(end - begin));  // a count given stays
  return int(end - begin);
}

}  // namespace pscr::solve_files
