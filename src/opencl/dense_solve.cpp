#include "dense_solve.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include <array>
#include <complex>

#include "program_options.hpp"
#include "reduction_solve.hpp"
#include "transpose.hpp"

namespace pscr::ocl {

namespace {
// The work-groups of a dense product (kernels/dense.cl) of `columns` columns
// and `outputs` outputs per column: DENSE_SIDE² work-items each, or MMA_GROUP
// on the tensor cores.
template <class T> std::array<std::size_t, 3> product_grid(bool mma, std::size_t columns, std::size_t outputs) {
  const auto tiles = [](std::size_t n, std::size_t tile) { return (n + tile - 1) / tile; };
  if (mma) return {kMmaGroup * tiles(outputs, kMmaTile) * tiles(columns, kMmaTile), 1, 1};
  return {kDenseSide * tiles(outputs, dense_tile_out(is_complex_v<T>)) * tiles(columns, kDenseTileColumns), kDenseSide, 1};
}
std::array<std::size_t, 3> product_group(bool mma) {
  return mma ? std::array<std::size_t, 3>{kMmaGroup, 1, 1} : std::array<std::size_t, 3>{kDenseSide, kDenseSide, 1};
}
}  // namespace

template <class T>
DenseSolve<T>::DenseSolve(const Runtime& rt, const planner::PlanData<T>& pd, const KernelParameters& p,
                          const PlanBuffers<T>& b, const ReductionSolve<T>& children)
    : rt_(rt), pd_(pd), p_(p), b_(b), children_(children), D_(pd.problem.dims()) {}

// The right-hand sides of the level's m modes (all n, or a rank's share) by
// one dense product, the m·batch child problems over dimension d + 1, and the
// solution (its part from these modes) by another. Y is laid out [r][l][b],
// as form_rhs writes it.
template <class T> void DenseSolve<T>::solve(int d, cl_mem X, int batch, cl_mem sigma, cl_mem pinned) const {
  const DimBufs& db = b_.dims[d];
  const LevelBufs& lb = db.levels[0];
  const std::size_t C = db.R * std::size_t(batch), n = std::size_t(db.n), m = std::size_t(lb.modes);
  if (m == 0) return;  // a rank without modes of it
  // kernels/dense.cl addresses a tile's entries by 32-bit offsets from its
  // first: within 64 columns of Y[r][l][b] they span at most (64 + batch)·m
  if (C > std::size_t(INT32_MAX) || (db.R > 1 && (64 + std::size_t(batch)) * m > std::size_t(UINT32_MAX)))
    throw std::logic_error("dense products: " + std::to_string(C) + " columns of " + std::to_string(m) +
                           " modes exceed the kernels' 32-bit offsets");
  const bool mma = p_.tensor_cores != 0;
  const bool as_lines = dense_modes_as_lines(d, D_, batch, pd_.periodic_lines(), b_.tri->whole_lines());
  // Y read and written along its columns where they run 8 or more in a row,
  // else along its modes (kernels/dense.cl)
  const bool by_column = batch >= 8;
  const double products = double(C) * double(n) * double(m);
  rt_.count(2 * products, double(C) * double(n + m));
  if (as_lines)
    rt_.launch("dense_to_lines", 2, product_grid<T>(mma, C, m), product_group(mma), X, db.Y.get(), lb.W.get(), db.n,
               lb.modes, int(C));
  else
    rt_.launch(by_column ? "dense_to_modes" : "dense_to_modes_by_term", 2, product_grid<T>(mma, C, m),
               product_group(mma), X, db.Y.get(), lb.W.get(), db.n, lb.modes, int(C), batch);
  const auto [child_sigma, child_pinned] = children_.child_shifts(db, lb, batch, sigma, pinned);
  if (as_lines) b_.tri->solve(db.Y.get(), int(m), child_sigma, child_pinned);
  else if (d + 2 == D_) solve_lines(db.Y.get(), db.R, m * batch, child_sigma, child_pinned);
  else children_.solve_dim(d + 1, db.Y.get(), lb.modes * batch, child_sigma, child_pinned);
  rt_.count(2 * products, double(C) * double(n + m));
  // the top dimension's products write the solution: they flag a non-finite
  // value as they write it (ReductionSolve::flags_solution)
  const int watch = d == 0 ? 1 : 0;
  if (as_lines)
    rt_.launch("dense_from_lines", 2, product_grid<T>(mma, C, n), product_group(mma), db.Y.get(), X, lb.W.get(), db.n,
               lb.modes, int(C), b_.flags.buffer(), watch);
  else
    rt_.launch(by_column ? "dense_from_modes" : "dense_from_modes_by_term", 2, product_grid<T>(mma, C, n),
               product_group(mma), db.Y.get(), X, lb.W.get(), db.n, lb.modes, int(C), batch, b_.flags.buffer(),
               watch);
}

// The lines of the last dimension below a dense dimension, stored
// Y[row][line] (`rows` rows): periodic ones in their eigenbasis, the
// others by the line solver (whole lines in place, halved ones transposed
// to [line][row] and back).
template <class T>
void DenseSolve<T>::solve_lines(cl_mem Y, std::size_t rows, std::size_t lines, cl_mem sigma, cl_mem pinned) const {
  if (pd_.periodic_lines()) return eigenbasis_lines(Y, rows, lines, sigma, pinned);
  if (!b_.tri->whole_lines()) return b_.tri->solve(Y, int(lines), sigma, pinned);
  if (b_.tri->lines_across()) return b_.tri->solve_across(Y, int(lines), sigma, pinned);
  transpose(rt_, Y, b_.row_lines.get(), rows, lines);
  b_.tri->solve(b_.row_lines.get(), int(lines), sigma, pinned);
  transpose(rt_, b_.row_lines.get(), Y, lines, rows);
}

// Cyclic lines Y[row][line] solved in the last pencil's eigenbasis (kernels/dense.cl).
template <class T>
void DenseSolve<T>::eigenbasis_lines(cl_mem Y, std::size_t rows, std::size_t lines, cl_mem sigma, cl_mem pinned) const {
  const bool mma = p_.tensor_cores != 0;
  const std::array<std::size_t, 3> global = product_grid<T>(mma, lines, rows);
  const double products = double(lines) * double(rows) * double(rows);
  const int n = int(rows), C = int(lines);
  rt_.count(2 * products, 2.0 * double(lines) * double(rows));
  rt_.launch("dense_to_lines", 2, global, product_group(mma), Y, b_.row_lines.get(), b_.line_W.get(), n, n, C);
  rt_.count(0, 2.0 * double(lines) * double(rows));
  rt_.run("eigenbasis_divide", std::size_t(p_.work_group), {lines, rows}, b_.row_lines.get(), b_.line_nu.get(), sigma,
          pinned, pd_.line_zero_mode, n, C);
  rt_.count(2 * products, 2.0 * double(lines) * double(rows));
  rt_.launch("dense_from_lines", 2, global, product_group(mma), b_.row_lines.get(), Y, b_.line_W.get(), n, n, C,
             b_.flags.buffer(), 0);
}

template class DenseSolve<float>;
template class DenseSolve<double>;
template class DenseSolve<std::complex<float>>;
template class DenseSolve<std::complex<double>>;

}  // namespace pscr::ocl
