// The rows a rank of a distributed plan exchanges with the others, moved
// between its device and page-locked host memory in one copy each way
// (internal; docs/distributed.md): a launch gathers the rows to send (rows of
// X or partial sums of the reduction buffer) into the plan's exchange buffer
// and one read brings them to the host; one write and one launch put the
// rows that arrived in place (kernels/level.cl: gather_rows, scatter_rows).
// The interface is distributed::SlabDevice's, which the executor forwards.
#pragma once
#include <cstddef>
#include <vector>

#include "../distributed/slab_device.hpp"
#include "plan_buffers.hpp"
#include "runtime.hpp"

namespace pscr::ocl {

template <class T> class RowExchange {
 public:
  // b: the plan's buffers (exchange, exchange_offsets, x, the sums of
  // dimension 1), work_group: the launches' work-group budget.
  RowExchange(const Runtime& rt, const PlanBuffers<T>& b, std::size_t work_group)
      : rt_(rt), b_(b), work_group_(work_group) {}
  const T* gather(const std::vector<distributed::DeviceRow>& rows);
  void wait_gathered();
  T* scatter_area(std::size_t count);
  void scatter(const std::vector<distributed::DeviceRow>& rows);

 private:
  // Page-locked memory for `rows` rows (allocated at the first use, of the
  // most rows any exchange of the plan moves); their bytes.
  std::size_t area(std::size_t rows, PinnedHost& host, const char* what);
  // The rows' offsets in scalars, their top bit set for rows of the sums,
  // written (not waited for: `host` stays unchanged until the next exchange
  // of its direction, which follows a wait).
  void offsets(const std::vector<distributed::DeviceRow>& rows, std::vector<cl_ulong>& host, cl_mem dst) const;
  void launch(const char* kernel, std::size_t rows, cl_mem offs) const;

  const Runtime& rt_;
  const PlanBuffers<T>& b_;
  std::size_t work_group_;
  PinnedHost gathered_, scattering_;
  std::vector<cl_ulong> gather_offsets_, scatter_offsets_;
  Event gathering_, scattered_;  // the last gather's read, the last scatter's write
};

}  // namespace pscr::ocl
