#include "tridiagonal_solver.hpp"

#include <sstream>

namespace pscr::ocl {

TridiagonalSolver::TridiagonalSolver(Runtime& rt, const KernelParameters& p, int n, std::size_t max_lines,
                                     std::size_t scalar_bytes, cl_mem A, cl_mem M, bool may_pin)
    : rt_(rt), p_(p), scalar_bytes_(scalar_bytes), A_(A), M_(M), may_pin_(may_pin) {
  rows_.push_back(n);
  while (rows_.back() > p.local_size) rows_.push_back(rows_.back() / 2);
  const Device& dev = rt.device();
  const std::size_t items = std::size_t(p.local_lines) << p.pcr_steps;
  const std::size_t local = 6 * std::size_t(rows_.back()) * p.local_lines * scalar_bytes;
  std::ostringstream os;
  if (items > dev.max_work_group)
    os << "local_lines * 2^pcr_steps = " << items << " work-items exceeds the work-group limit " << dev.max_work_group
       << " of " << dev.name;
  else if (local > dev.local_mem)
    os << "local_size " << p.local_size << " with local_lines " << p.local_lines << " needs " << local
       << " bytes of local memory; " << dev.name << " has " << dev.local_mem;
  else if (std::size_t(p.cr_work_group) > dev.max_work_group || std::size_t(p.work_group) > dev.max_work_group ||
           std::size_t(p.sum_work_group) > dev.max_work_group)
    os << "a work-group size in (" << to_string(p) << ") exceeds the limit " << dev.max_work_group << " of "
       << dev.name;
  if (!os.str().empty()) throw InvalidArgument("kernel parameters: " + os.str());
  std::size_t total = 0;
  for (std::size_t k = 1; k < rows_.size(); ++k) total += planes(k) * std::size_t(rows_[k]) * max_lines;
  levels_ = rt.alloc(total * scalar_bytes, "CR levels of the tridiagonal solver");
}

void TridiagonalSolver::solve(cl_mem Y, int lines, cl_mem sigma, cl_mem pinned) const {
  const std::size_t L = std::size_t(lines), wg = std::size_t(p_.cr_work_group);
  if (may_pin_) rt_.run("center_pinned", p_.work_group, {L}, Y, rows_[0], lines, pinned);
  // Level k lives in Y (k = 0) or in levels_ at offsets[k]; see `mode` in
  // kernels/tridiagonal.cl for what is stored.
  std::vector<cl_ulong> offsets(rows_.size(), 0);
  for (std::size_t k = 2; k < rows_.size(); ++k) offsets[k] = offsets[k - 1] + planes(k - 1) * cl_ulong(rows_[k - 1]) * L;
  auto buf = [&](std::size_t k) { return k == 0 ? Y : levels_.m; };
  auto mode = [](std::size_t k) { return k == 0 ? 1 : k == 1 ? 2 : 0; };
  const int n0 = rows_[0];
  for (std::size_t k = 0; k + 1 < rows_.size(); ++k)
    rt_.run("cr_reduce", wg, {L, std::size_t(rows_[k + 1])}, buf(k), offsets[k], rows_[k], mode(k), buf(k + 1),
            offsets[k + 1], mode(k + 1), lines, A_, M_, n0, sigma, pinned);
  const std::size_t K = rows_.size() - 1, lanes = std::size_t(p_.local_lines), T = std::size_t(1) << p_.pcr_steps;
  rt_.launch("cr_local", 2, {round_up(L, lanes), T, 1}, {lanes, T, 1}, buf(K), offsets[K], rows_[K],
             mode(K), lines, A_, M_, n0, sigma, pinned, LocalBytes{6 * std::size_t(rows_[K]) * lanes * scalar_bytes_});
  for (std::size_t k = K; k-- > 0;)
    rt_.run("cr_back", wg, {L, std::size_t(rows_[k] + 1) / 2}, buf(k), offsets[k], rows_[k], mode(k), buf(k + 1),
            offsets[k + 1], mode(k + 1), lines, A_, M_, n0, sigma, pinned);
}

}  // namespace pscr::ocl
