// The Poisson solve of the reconstruction on the device: PSCR (exact, one
// pass) or the iterative solvers it is compared with.
#include <cmath>

#include "pipeline_impl.hpp"

namespace pscr::hdr {

Solver parse_solver(const std::string& name) {
  for (Solver s : all_solvers())
    if (solver_name(s) == name) return s;
  std::string list;
  for (Solver s : all_solvers()) list += (list.empty() ? "" : ", ") + solver_name(s);
  throw InvalidArgument("unknown solver '" + name + "' (choose one of: " + list + ")");
}

std::string solver_name(Solver s) {
  switch (s) {
    case Solver::pscr: return "pscr";
    case Solver::jacobi: return "jacobi";
    case Solver::gauss_seidel: return "gauss-seidel";
    case Solver::sor: return "sor";
    case Solver::multigrid_v: return "mg-v";
    case Solver::multigrid_w: return "mg-w";
    case Solver::multigrid_f: return "mg-f";
  }
  return "?";
}

std::vector<Solver> all_solvers() {
  return {Solver::pscr, Solver::jacobi, Solver::gauss_seidel, Solver::sor,
          Solver::multigrid_v, Solver::multigrid_w, Solver::multigrid_f};
}

namespace {
constexpr std::size_t kGroup = 256;
}

void Pipeline::Impl::subtract_mean(cl_mem u, const GridSize& g) const {
  reduce(u, g.n(), kSumOp, kIdentity, kSum);
  rt->run("subtract_slot_mean", kGroup, {g.n()}, u, int(g.n()), slots.get(), int(kSum));
}

double Pipeline::Impl::project_rhs(double* incompatible) const {
  reduce(b.get(), N, kSumOp, kIdentity, kSum);
  rt->run("subtract_slot_mean", kGroup, {N}, b.get(), int(N), slots.get(), int(kSum));
  reduce(b.get(), N, kSumOp, kSquare, kRhs2);
  const double norm_c = std::sqrt(read_slot(kRhs2));
  if (incompatible) {
    const double removed = std::fabs(read_slot(kSum)) / std::sqrt(double(N));  // ‖mean 1‖
    const double norm = std::hypot(norm_c, removed);                           // ‖b‖ before
    *incompatible = norm > 0 ? removed / norm : 0;
  }
  return norm_c;
}

void Pipeline::Impl::need_residual() {
  if (!r.get()) r = rt->alloc(N * sizeof(double), "residual");
}

void Pipeline::Impl::need_solver_buffers(Solver s) {
  need_residual();
  if (s == Solver::jacobi && !unew.get()) unew = rt->alloc(N * sizeof(double), "Jacobi iterate");
  const bool multigrid = s == Solver::multigrid_v || s == Solver::multigrid_w || s == Solver::multigrid_f;
  if (!multigrid || !mg.empty()) return;
  // halve until the grid has at most 16 cells; kept only when every level is allocated
  std::vector<GridSize> levels;
  std::vector<ocl::Mem> u, bb, rr;
  for (GridSize g{w, h}; g.n() > 16;) {
    g = {(g.w + 1) / 2, (g.h + 1) / 2};
    levels.push_back(g);
    u.push_back(rt->alloc(g.n() * sizeof(double), "multigrid level"));
    bb.push_back(rt->alloc(g.n() * sizeof(double), "multigrid level"));
    rr.push_back(rt->alloc(g.n() * sizeof(double), "multigrid level"));
  }
  mg = std::move(levels);
  mg_u = std::move(u);
  mg_b = std::move(bb);
  mg_r = std::move(rr);
}

double Pipeline::Impl::residual_norm(cl_mem u, cl_mem bb, const GridSize& g, cl_mem rr) const {
  rt->run("residual", kGroup, {std::size_t(g.w), std::size_t(g.h)}, u, bb, g.w, g.h, rr);
  reduce(rr, g.n(), kSumOp, kSquare, kResidual2);
  return std::sqrt(read_slot(kResidual2));
}

void Pipeline::Impl::smooth(cl_mem u, cl_mem bb, const GridSize& g, int sweeps, double omega) const {
  for (int k = 0; k < sweeps; ++k)
    for (int colour = 0; colour < 2; ++colour)
      rt->run("sor_colour", kGroup, {std::size_t(g.w + 1) / 2, std::size_t(g.h)}, u, bb, g.w, g.h, colour, omega);
}

SolveReport Pipeline::Impl::solve(const SolverControls& c) {
  if (c.tolerance <= 0 || !std::isfinite(c.tolerance))
    throw InvalidArgument("solver tolerance " + std::to_string(c.tolerance) + " (needs a positive number)");
  if (c.max_iterations < 1) throw InvalidArgument("max_iterations must be >= 1");
  if (c.omega < 0 || c.omega >= 2) throw InvalidArgument("omega " + std::to_string(c.omega) + " (needs 0 (auto) or 0 < omega < 2)");
  if (c.pre_smooth < 0 || c.post_smooth < 0 || c.pre_smooth + c.post_smooth < 1)
    throw InvalidArgument("multigrid needs at least one smoothing sweep");
  const auto t0 = clock::now();
  SolveReport rep;
  rep.solver = c.solver;
  if (c.solver != Solver::pscr) {
    rep = solve_iterative(c);
  } else {
    if (plan32) {  // b in float, solved in float, back to double
      rt->run("to_float", kGroup, {N}, b.get(), cl_ulong(N), I32.get());
      rep.incompatible_part = opencl::solve(*plan32, I32.get()).incompatible_part;
      rt->run("to_double", kGroup, {N}, I32.get(), cl_ulong(N), I.get());
    } else {
      ocl::check(clEnqueueCopyBuffer(rt->queue(), b.get(), I.get(), 0, 0, N * sizeof(double), 0, nullptr, nullptr),
                 "clEnqueueCopyBuffer");
      rep.incompatible_part = opencl::solve(*plan, I.get()).incompatible_part;
    }
    rep.iterations = 1;
    rep.converged = true;
  }
  rep.seconds = std::chrono::duration<double>(clock::now() - t0).count();
  return rep;
}

SolveReport Pipeline::Impl::solve_iterative(const SolverControls& c) {
  const auto t0 = clock::now();
  need_solver_buffers(c.solver);
  SolveReport rep;
  rep.solver = c.solver;
  const GridSize g{w, h};
  const double bnorm = project_rhs(&rep.incompatible_part);
  const double zero = 0;
  ocl::check(clEnqueueFillBuffer(rt->queue(), I.get(), &zero, sizeof zero, 0, N * sizeof(double), 0, nullptr, nullptr),
             "clEnqueueFillBuffer");
  if (bnorm == 0) {
    rep.relative_residual = 0;
    rep.converged = true;
    return rep;
  }
  const bool mg = c.solver == Solver::multigrid_v || c.solver == Solver::multigrid_w || c.solver == Solver::multigrid_f;
  double omega = c.omega;
  if (omega == 0) {
    if (c.solver == Solver::jacobi) omega = 0.8;  // plain Jacobi does not damp the checkerboard mode
    else if (c.solver == Solver::sor) omega = 2 / (1 + std::sin(M_PI / std::max(w, h)));
    else omega = 1;
  }
  long next_check = mg ? 1 : 10;
  double rel = 1;
  cl_mem u = I.get(), un = unew.get();
  for (long it = 1; it <= c.max_iterations; ++it) {
    switch (c.solver) {
      case Solver::jacobi:
        rt->run("jacobi", kGroup, {std::size_t(w), std::size_t(h)}, u, b.get(), w, h, omega, un);
        std::swap(u, un);
        break;
      case Solver::gauss_seidel:
      case Solver::sor: smooth(u, b.get(), g, 1, omega); break;
      default: multigrid_cycle(0, c.solver, c.pre_smooth, c.post_smooth); break;
    }
    if (it >= next_check || it == c.max_iterations) {
      rel = residual_norm(u, b.get(), g, r.get()) / bnorm;
      rep.iterations = it;
      const double elapsed = std::chrono::duration<double>(clock::now() - t0).count();
      if (rel <= c.tolerance || elapsed > c.max_seconds) break;
      // checks cost a sync: space them to about a tenth of the work done
      next_check = mg ? it + 1 : it + std::max<long>(10, it / 10);
    }
  }
  if (u != I.get())
    ocl::check(clEnqueueCopyBuffer(rt->queue(), u, I.get(), 0, 0, N * sizeof(double), 0, nullptr, nullptr),
               "clEnqueueCopyBuffer");
  subtract_mean(I.get(), g);
  rep.relative_residual = rel;
  rep.converged = rel <= c.tolerance;
  return rep;
}

// Level l of the hierarchy: the image (I, b, r) or mg[l-1].
void Pipeline::Impl::multigrid_cycle(int level, Solver kind, int pre, int post) {
  const GridSize g = level == 0 ? GridSize{w, h} : mg[level - 1];
  cl_mem u = level == 0 ? I.get() : mg_u[level - 1].get(), bb = level == 0 ? b.get() : mg_b[level - 1].get(),
         rr = level == 0 ? r.get() : mg_r[level - 1].get();
  if (level == int(mg.size())) {  // coarsest: a few cells, solved in one work-item
    rt->run("coarse_solve", 1, {1}, u, bb, g.w, g.h, 60);
    return;
  }
  const GridSize cg = mg[level];
  cl_mem cu = mg_u[level].get(), cb = mg_b[level].get();
  smooth(u, bb, g, pre, 1.0);
  rt->run("residual", kGroup, {std::size_t(g.w), std::size_t(g.h)}, u, bb, g.w, g.h, rr);
  rt->run("restrict_sum", kGroup, {std::size_t(cg.w), std::size_t(cg.h)}, rr, g.w, g.h, cb, cg.w, cg.h);
  const double zero = 0;
  ocl::check(clEnqueueFillBuffer(rt->queue(), cu, &zero, sizeof zero, 0, cg.n() * sizeof(double), 0, nullptr, nullptr),
             "clEnqueueFillBuffer");
  if (kind == Solver::multigrid_f) {
    multigrid_cycle(level + 1, Solver::multigrid_f, pre, post);
    multigrid_cycle(level + 1, Solver::multigrid_v, pre, post);
  } else {
    multigrid_cycle(level + 1, kind, pre, post);
    if (kind == Solver::multigrid_w) multigrid_cycle(level + 1, kind, pre, post);
  }
  rt->run("prolong_add", kGroup, {std::size_t(g.w), std::size_t(g.h)}, cu, cg.w, cg.h, u, g.w, g.h);
  smooth(u, bb, g, post, 1.0);
}

}  // namespace pscr::hdr
