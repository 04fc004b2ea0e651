#include "opencl_executor.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "host_staging.hpp"
#include "level_tables.hpp"
#include "line_coefficients.hpp"
#include "null_space_projection.hpp"
#include "program_options.hpp"
#include "runtime.hpp"
#include "sine_transform.hpp"
#include "solve_flags.hpp"
#include "transformed_solve.hpp"
#include "transpose.hpp"
#include "tridiagonal_solver.hpp"

namespace pscr {
namespace kernels {
extern const char* const pscr_cl;
}
namespace {

using ocl::LocalBytes;
using ocl::Mem;
using planner::PlanData;

using ocl::kDenseGroup;
using ocl::kDenseSide;
using ocl::kDenseTileColumns;
using ocl::kRhsRows;
using ocl::kRhsTileRows;
using ocl::pow2_fit;
using ocl::round_up;

// One plan on one device. As a rank's device of a distributed plan (shares
// given) it computes, at each level of dimension 1, only the rank's share of
// the modes (distributed/slab_device.hpp), level by level as the rank calls it.
template <class T> class OpenCLExecutor final : public Executor<T>, public distributed::SlabDevice<T> {
 public:
  // count_only: stops after summing the allocations (device_bytes()).
  OpenCLExecutor(const PlanData<T>& pd, const Options& o, const std::vector<distributed::LevelShare>* shares = nullptr,
                 bool count_only = false)
      : pd_(pd), D_(pd.problem.dims()), shares_(shares) {
    cl_command_queue user_queue = static_cast<cl_command_queue>(o.opencl_queue);
    const ocl::Device dev = ocl::options_device(o);
    if (std::is_same_v<real_t<T>, double> && !dev.fp64)
      throw BackendError("device " + dev.name + " lacks cl_khr_fp64: double precision is not available on it");
    // a dense dimension 1 is one level whose modes the ranks share (dense_level)
    if (shares && !pd.dims.empty() && pd.dims[0].method != planner::DimensionMethod::reduction &&
        pd.dims[0].method != planner::DimensionMethod::dense)
      throw InvalidArgument(std::string("a solve split over devices or ranks by rows of dimension 1 splits the levels "
                                        "of its reduction, and dimension 1 is taken by ") +
                            planner::method_name(pd.dims[0].method) +
                            " (uniform: transforms)" +
                            ": split by batches (DeviceSplit::batches), or use the reference backend on the ranks");
    const auto resolved = ocl::resolve_parameters(dev, pd.problem, o);
    p_ = resolved.parameters;
    source_ = resolved.source;
    validate(p_, "kernel parameters (" + source_ + ")");
    // the plan's radix, whether it came from these parameters or from
    // Options::radix (the dimensions it lays out: dense dimensions are one
    // level of their own)
    const int q = pd.transformed ? p_.radix : pd.reduction_radix(p_.radix);
    p_.radix = q;
    // the leading dimensions taken by dense products, as the plan took them
    // (a periodic dimension is one); the program has the products where any
    // dimension or the periodic lines take them
    p_.dense_top = pd.dense_count();
    // the transforms' work-group and exchange, as the longest column needs them
    if (pd.transformed) {
      const auto shape = ocl::sine_shape(dev, std::size_t(p_.sine_group), p_.sine_halves != 0,
                                         ocl::TransformedSolve<T>::longest_fft(pd), sizeof(real_t<T>));
      p_.sine_group = int(shape.group);
      p_.sine_halves = shape.halves ? 1 : 0;
    }
    const bool products = p_.dense_top > 0 || pd.periodic_lines();
    // before anything is compiled or allocated
    const std::string why = ocl::TridiagonalSolver::limits(dev, p_, leaf_n(), sizeof(T));
    if (!why.empty()) throw InvalidArgument("kernel parameters (" + source_ + "): " + why);
    const std::string opts = ocl::program_options(
        dev, p_, {q, std::is_same_v<real_t<T>, double>, is_complex_v<T>, pd.excess_form, products});
    rt_ = user_queue ? std::make_unique<ocl::Runtime>(user_queue, kernels::pscr_cl, opts, o.profile, o.program_cache)
                     : std::make_unique<ocl::Runtime>(dev, kernels::pscr_cl, opts, o.profile, o.program_cache);
    rt_->set_cost_units(sizeof(T), is_complex_v<T> ? 4.0 : 1.0);
    if (products)
      for (const char* k : {"dense_to_modes", "dense_from_modes", "eigenbasis_to_modes", "eigenbasis_from_modes"})
        if (rt_->max_group(k) < kDenseGroup)
          throw InvalidArgument("kernel parameters (" + source_ + "): dense products need work-groups of " +
                                std::to_string(kDenseGroup) + " work-items for " + k + ", and " + dev.name +
                                " allows " + std::to_string(rt_->max_group(k)));
    if (pd.transformed && std::min(rt_->max_group("sine_transform"), rt_->max_group("fourier_transform")) <
                              std::size_t(p_.sine_group))
      throw InvalidArgument("kernel parameters (" + source_ + "): sine_group = " + std::to_string(p_.sine_group) +
                            " work-items, and " + dev.name + " allows " +
                            std::to_string(rt_->max_group("sine_transform")) + " for sine_transform");
    shift_capacity_ = shares ? 1 : o.shifts;
    counted_bytes_ = check_device_memory();
    if (count_only) return;
    upload_plan();
    cost_ = rt_->dry_run([&] { solve_dim(0, x_.get(), 1, sigma0_.get(), pinned0_.get()); });
  }

  // Host arrays: through the page-locked staging (host_staging.hpp), the
  // copies of a batch overlapping the neighbouring solves.
  double solve_in_place(T* x, std::size_t count) const override {
    HostSolveResult r;
    solve_host(x, x, count, r);  // x was checked: no bad input; the caller scans the solutions
    return r.stats.transfer_seconds;
  }
  bool solve_host(const T* f, T* u, std::size_t count, HostSolveResult& result) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t N = pd_.problem.unknowns();
    cl_mem buffers[ocl::kMaxBatchBuffers] = {x_.get()};
    const int nbuffers = count > 1 ? batch_buffers(buffers) : 1;
    flags_.clear();
    const ocl::HostSolveReport r = staging_.solve(
        *rt_, buffers, nbuffers, f, u, N * sizeof(T), count, sizeof(T), &ocl::first_nonfinite_bytes<T>,
        [&](cl_mem x) {
          solve_dim(0, x, 1, sigma0_.get(), pinned0_.get());
          // a transformed plan's last transform flags non-finite values as it writes them
          if (!pd_.transformed) flags_.scan(x, 0, N);
        });
    const std::array<int, 2> flags = flags_.read();  // waits for the plan's queue
    rt_->finish();
    result.bad_input = r.bad_input;
    result.nonfinite_output = flags[0] != 0;
    SolveStats& st = result.stats;
    st.copy_in_seconds = r.copy_in_seconds;
    st.copy_out_seconds = r.copy_out_seconds;
    st.transfer_seconds = r.copy_in_seconds + r.copy_out_seconds;
    st.solve_seconds = r.solve_seconds;
    st.staging_bytes = r.staging_bytes;
    st.staging = r.staging;
    if (r.bad_input == ocl::HostSolveReport::npos) flags_.raise({0, flags[1]}, false, line_shifts());
    return true;
  }

  double solve_device(void* buffer, std::size_t count, bool check, void** event) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    cl_mem buf = static_cast<cl_mem>(buffer);
    const std::size_t N = pd_.problem.unknowns(), bytes = N * sizeof(T);
    const bool neumann = pd_.pure_neumann, report = event == nullptr;
    // pure Neumann, waiting solves: (Σ f_i, Σ |f_i|²) of each right-hand side
    std::vector<T> s(neumann && report ? 2 * count : 0);
    // Reads into s may be pending when an error unwinds: wait for them before s goes away.
    const ocl::FinishOnExit finish_on_exit{report ? rt_->queue() : nullptr};
    if (check) flags_.clear();
    for (std::size_t c = 0; c < count; ++c) {
      // Right-hand side c: the buffer itself (c = 0), a sub-buffer where its
      // offset meets the device's base-address alignment, else a copy in the
      // plan's solution vector (copied back after the solve).
      const std::size_t offset = c * bytes;
      cl_mem x = buf;
      Mem view;
      const bool staged = offset % rt_->device().base_align_bytes != 0;
      if (staged) {
        ocl::check(clEnqueueCopyBuffer(rt_->queue(), buf, x_.get(), offset, 0, bytes, 0, nullptr, nullptr),
                   "clEnqueueCopyBuffer (right-hand side of a batch)");
        x = x_.get();
      } else if (offset > 0) {
        cl_buffer_region region{offset, bytes};
        cl_int st;
        view.reset(clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &st));
        ocl::check(st, "clCreateSubBuffer (right-hand side of a batch)");
        x = view.get();
      }
      if (neumann) {
        // solve the compatible part f - mean(f) (orthogonal projection onto range(A))
        cl_mem t = null_space_.project_rhs(x);
        // read in queue order, before the sums after the solve reuse the scratch
        if (report)
          ocl::check(clEnqueueReadBuffer(rt_->queue(), t, CL_FALSE, 0, 2 * sizeof(T), s.data() + 2 * c, 0, nullptr,
                                         nullptr),
                     "clEnqueueReadBuffer (null-space sums)");
      }
      solve_dim(0, x, 1, sigma0_.get(), pinned0_.get());
      if (neumann) null_space_.remove_weighted_mean(x);  // as Plan::solve returns
      if (staged)
        ocl::check(clEnqueueCopyBuffer(rt_->queue(), x_.get(), buf, 0, offset, bytes, 0, nullptr, nullptr),
                   "clEnqueueCopyBuffer (solution of a batch)");
    }
    if (event) {
      cl_event ev = nullptr;
      ocl::check(clEnqueueMarkerWithWaitList(rt_->queue(), 0, nullptr, &ev), "clEnqueueMarkerWithWaitList");
      *event = ev;
      return 0;
    }
    // One pass over the solutions instead of a silent NaN (a transformed
    // plan's last transform flagged them as it wrote them).
    if (check && !pd_.transformed) flags_.scan(buf, 0, count * N);
    // the flags' read waits for the solve: one wait for the device, not two
    std::array<int, 2> flags{0, 0};
    if (check) flags = flags_.read();
    rt_->finish();
    if (check) flags_.raise(flags, true, line_shifts());
    double incompatible = 0;
    for (std::size_t c = 0; c < s.size() / 2; ++c) {
      const double norm2 = std::real(s[2 * c + 1]);
      if (norm2 > 0) incompatible = std::max(incompatible, std::abs(s[2 * c]) / std::sqrt(double(N) * norm2));
    }
    return incompatible;
  }
  void check_shifts(const std::vector<T>& shifts) const override {
    const std::size_t K = shifts.size();
    const std::string what = "opencl::solve_shifts_async: ";
    if (K == 0) throw InvalidArgument(what + "no shifts");
    if (K > std::size_t(shift_capacity_))
      throw InvalidArgument(what + std::to_string(K) + " shifts, the plan takes at most " +
                            std::to_string(shift_capacity_) + " (Options::shifts)");
    if (pd_.pure_neumann)
      throw InvalidArgument(what + "the plan is pure Neumann: a shift would change the problem's null space");
    if (!pd_.excess_form)
      throw InvalidArgument(what + "the plan's tridiagonal systems are not eliminated in the excess form "
                                   "(PlanInfo::elimination), so larger shifts are not known to keep them regular");
    const double c = double(std::real(pd_.problem.c()));
    for (std::size_t b = 0; b < K; ++b) {
      const double re = double(std::real(shifts[b])), im = double(std::imag(shifts[b]));
      if (!std::isfinite(re) || im != 0 || re < c) {
        std::ostringstream os;
        os << what << "shift " << b << " = " << re;
        if (im != 0) os << (im > 0 ? "+" : "") << im << "i";
        os << " (needs a finite real number >= the plan's c = " << c << ")";
        throw InvalidArgument(os.str());
      }
    }
  }
  // After check_shifts (opencl::solve_shifts_async checks them first).
  void* solve_shifts_device(void* buffer, const std::vector<T>& shifts) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t K = shifts.size();
    if (shifts != uploaded_shifts_) {  // a waiting write, once per new set of shifts
      rt_->write(shifts_.get(), shifts.data(), K * sizeof(T));
      uploaded_shifts_ = shifts;
    }
    solve_dim(0, static_cast<cl_mem>(buffer), int(K), shifts_.get(), shift_flags_.get());
    cl_event ev = nullptr;
    ocl::check(clEnqueueMarkerWithWaitList(rt_->queue(), 0, nullptr, &ev), "clEnqueueMarkerWithWaitList");
    return ev;
  }
  void set_profiling(bool on) override {
    std::lock_guard<std::mutex> lock(mutex_);
    rt_->set_profiling(on);
  }
  std::string check_parameters(const KernelParameters& p) const override {
    try {
      validate(p, "kernel parameters");
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    // cr_local's limit is that of the current program; a program built with
    // other options (newton_raphson) is checked again when it is built.
    return ocl::TridiagonalSolver::limits(rt_->device(), p, leaf_n(), sizeof(T), rt_->max_group("cr_local"));
  }

  void describe(PlanInfo& info) const override {
    info.backend = "opencl: " + rt_->device().name;
    info.device = rt_->device().device_name;
    info.device_bytes = rt_->bytes();
    info.staging_bytes = staging_.planned_bytes(*rt_, pd_.problem.unknowns() * sizeof(T));
    info.parameters = p_;
    info.parameters_source = source_;
    info.line_solver = !tri_ || !tri_->whole_lines() ? "global CR" : tri_->halved_lines() ? "halved lines" : "whole lines";
    info.build_seconds = rt_->build_seconds();
    info.program_cache = rt_->program_cache();
    info.flops = cost_.flops;
    info.bytes = cost_.bytes;
  }
  std::vector<KernelTime> kernel_times() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return rt_->kernel_times();
  }
  void* opencl_context() const override { return rt_->context(); }
  void* opencl_queue() const override { return rt_->queue(); }

  // distributed::SlabDevice: one right-hand side in X, the levels of
  // dimension 1 as the rank calls them.
  void write_rows(std::size_t row, std::size_t count, const T* src) override {
    const std::size_t rb = dims_[0].R * sizeof(T);
    if (count * rb >= ocl::HostStaging::kChunkedBytes &&
        staging_.chunked_copy(*rt_, x_.get(), row * rb, count * rb, const_cast<T*>(src), true))
      return;
    ocl::check(clEnqueueWriteBuffer(rt_->queue(), x_.get(), CL_TRUE, row * rb, count * rb, src, 0, nullptr, nullptr),
               "clEnqueueWriteBuffer (rows of a slab)");
  }
  void read_rows(std::size_t row, std::size_t count, T* dst) const override {
    const std::size_t rb = dims_[0].R * sizeof(T);
    if (count * rb >= ocl::HostStaging::kChunkedBytes &&
        staging_.chunked_copy(*rt_, x_.get(), row * rb, count * rb, dst, false))
      return;
    rt_->read_at(x_.get(), row * rb, dst, count * rb);
  }
  void write_sum(int g, int slot, const T* src) override {
    const std::size_t rb = dims_[0].R * sizeof(T);
    ocl::check(clEnqueueWriteBuffer(rt_->queue(), dims_[0].V.get(), CL_TRUE, (std::size_t(g) * 2 + slot) * rb, rb, src, 0,
                                    nullptr, nullptr),
               "clEnqueueWriteBuffer (partial sums of a shared group)");
  }
  void read_sum(int g, int slot, T* dst) const override {
    const std::size_t rb = dims_[0].R * sizeof(T);
    rt_->read_at(dims_[0].V.get(), (std::size_t(g) * 2 + slot) * rb, dst, rb);
  }
  void compute(int level, bool back) override {
    const DimBufs& db = dims_[0];
    const LevelBufs& lb = db.levels[level - 1];
    if (lb.group_end == lb.group_begin) return;  // no share of this level here
    // a dense level reduces nothing: its back substitution is the whole solve
    if (db.dense) {
      if (back) dense_solve(0, x_.get(), 1, sigma0_.get(), pinned0_.get());
      return;
    }
    if (back) block_products(0, lb, x_.get(), 1, sigma0_.get(), true);
    if (lb.modes > 0) partial_solutions(0, lb, x_.get(), 1, sigma0_.get(), pinned0_.get(), back ? 1 : 0);
    accumulate(db, lb, x_.get(), 1, back ? 1 : 0, D_ == 2 && tri_->whole_lines() ? 1 : 0);
  }
  void update_survivors(int level) override {
    block_products(0, dims_[0].levels[level - 1], x_.get(), 1, sigma0_.get(), false);
  }
  std::string breakdown() override {
    rt_->finish();
    const std::string why = flags_.near_singular(line_shifts());
    flags_.clear();
    return why;
  }
  void clear_breakdown() override { flags_.clear(); }
  bool nonfinite_rows(std::size_t row, std::size_t count) override {
    const std::size_t R = dims_[0].R;
    return flags_.nonfinite(x_.get(), row * R, (row + count) * R);
  }
  void finish() override { rt_->finish(); }

  std::size_t counted_bytes() const { return counted_bytes_; }

 private:
  struct LevelBufs {
    int ngroups = 0, modes = 0, nsurv = 0, max_m = 0;
    // the groups and survivors computed here: all, or a rank's (LevelShare)
    int group_begin = 0, group_end = 0, survivor_begin = 0, survivor_end = 0;
    double sources = 0, source_modes = 0;  // Σ_g |sources_g|, Σ_g |sources_g|·m_g (cost model)
    Mem groups, mode_group, W, lambda, zero_flag, survivors;
    // The top dimension of a 3D plan: the child problems' shifts c + λ of
    // this level, kept per level; with the plan's own c they are the same in
    // every solve and formed once (a launch fewer per level and solve).
    Mem child_sigma, child_pinned;
    mutable bool shifts_of_plan = false;  // they hold those of the plan's c
  };
  struct DimBufs {
    bool dense = false;  // one level, its whole basis applied by dense products (levels[0].W: n × n)
    int n = 0;
    std::size_t R = 0;
    int batch = 1;
    std::vector<LevelBufs> levels;
    Mem Y, V, BL, BR, child_sigma, child_pinned;
  };

  void upload_plan() {
    ocl::Runtime& rt = *rt_;
    const int q = pd_.dims.back().layout.radix;
    for (int d = 0; d < D_; ++d) {
      const auto& f = pd_.problem.factor(d);
      std::vector<T> a(f.A.diag), m(f.M.diag);
      a.insert(a.end(), f.A.off.begin(), f.A.off.end());
      m.insert(m.end(), f.M.off.begin(), f.M.off.end());
      afac_.push_back(rt.upload(a, "factor matrices"));
      mfac_.push_back(rt.upload(m, "factor matrices"));
    }
    const std::vector<T> packed = ocl::packed_rows(pd_.problem.factor(D_ - 1), pd_.excess_form, pd_.excess);
    line_coef_ = rt.upload(packed, "packed last factor");
    // The first buffer that grows with the unknowns (whose bytes fit size_t,
    // Problem checks): a plan past the device fails here, before the level
    // buffers multiply them by batches and groups.
    x_ = rt.alloc(pd_.problem.unknowns() * sizeof(T), "solution vector");
    sigma0_ = rt.upload(std::vector<T>{pd_.problem.c()}, "shift");
    pinned0_ = rt.upload(std::vector<int>{pd_.pure_neumann ? 1 : 0}, "flags");
    flags_ = ocl::SolveFlags<T>(rt, D_);
    if (pd_.pure_neumann) null_space_ = ocl::NullSpaceProjection<T>(rt, pd_.problem);
    if (shift_capacity_ > 1) {
      shifts_ = rt.alloc(std::size_t(shift_capacity_) * sizeof(T), "shifts");
      shift_flags_ = rt.upload(std::vector<int>(std::size_t(shift_capacity_), 0), "flags");
    }
    if (pd_.transformed) return upload_transforms(packed);
    // the top level's batch: the shifted problems one solve takes together
    int batch = shift_capacity_;
    for (int d = 0; d + 1 < D_; ++d) {
      const auto& dp = pd_.dims[d];
      DimBufs db;
      db.n = dp.layout.n;
      db.R = pd_.problem.unknowns();
      for (int e = 0; e <= d; ++e) db.R /= pd_.problem.size(e);
      db.batch = batch;
      int maxmodes = 0, maxgroups = 0;
      db.dense = dp.method == planner::DimensionMethod::dense;
      if (db.dense) {
        db.levels.push_back(dense_level(dp, batch, d == 0 && shares_ ? &(*shares_)[0] : nullptr));
        maxmodes = std::max(db.levels[0].modes, 1);
        maxgroups = 1;  // no sums or boundary terms: V, BL and BR stay small
      }
      for (std::size_t i = 0; i < (db.dense ? 0 : dp.layout.levels.size()); ++i) {
        const auto& lv = dp.layout.levels[i];
        const distributed::LevelShare* share = d == 0 && shares_ ? &(*shares_)[i] : nullptr;
        const auto tables = ocl::level_tables(dp, i, q, share);
        LevelBufs lb;
        lb.modes = tables.modes;
        lb.max_m = tables.max_m;
        lb.sources = tables.sources;
        lb.source_modes = tables.source_modes;
        lb.ngroups = int(lv.groups.size());
        lb.nsurv = int(lv.survivors.size());
        lb.group_end = lb.ngroups;
        lb.survivor_end = lb.nsurv;
        if (share) {
          lb.group_begin = share->group_begin;
          lb.group_end = share->group_end;
          lb.survivor_begin = share->survivor_begin;
          lb.survivor_end = share->survivor_end;
        }
        lb.groups = rt.upload(tables.groups, "group table");
        lb.mode_group = rt.upload(tables.mode_group, "mode table");
        lb.W = rt.upload(tables.W, "eigenvector rows");
        lb.lambda = rt.upload(tables.lambda, "eigenvalues");
        lb.zero_flag = rt.upload(tables.zero, "mode flags");
        lb.survivors = rt.upload(tables.survivors, "survivor rows");
        if (d == 0 && D_ == 3) {
          lb.child_sigma = rt.alloc(std::size_t(std::max(lb.modes, 1)) * batch * sizeof(T), "shift buffer");
          lb.child_pinned = rt.alloc(std::size_t(std::max(lb.modes, 1)) * batch * sizeof(int), "flag buffer");
        }
        maxmodes = std::max(maxmodes, lb.modes);
        maxgroups = std::max(maxgroups, lb.ngroups);
        db.levels.push_back(std::move(lb));
      }
      const std::size_t lanes = std::size_t(maxmodes) * batch;
      db.Y = rt.alloc(db.R * lanes * sizeof(T), "partial-solution buffer");
      db.V = rt.alloc(std::size_t(maxgroups) * 2 * db.R * batch * sizeof(T), "reduction buffer");
      db.BL = rt.alloc(std::size_t(maxgroups) * db.R * batch * sizeof(T), "boundary buffer");
      db.BR = rt.alloc(std::size_t(maxgroups) * db.R * batch * sizeof(T), "boundary buffer");
      db.child_sigma = rt.alloc(lanes * sizeof(T), "shift buffer");
      db.child_pinned = rt.alloc(lanes * sizeof(int), "flag buffer");
      if (d + 2 == D_) {
        tri_ = std::make_unique<ocl::TridiagonalSolver>(rt, p_, leaf_n(), lanes, sizeof(T), line_coef_.get(),
                                                        packed.data(), flags_.buffer(), pd_.pure_neumann);
        // a dense dimension's lines come [row][line]: periodic ones go to
        // their eigenbasis through a buffer of that layout, whole ones are
        // transposed to [line][row] for the line solver
        if (db.dense && (pd_.periodic_lines() || tri_->whole_lines()))
          row_lines_ = rt.alloc(db.R * lanes * sizeof(T), "line buffer");
        if (pd_.periodic_lines()) {
          line_W_ = rt.upload(pd_.line_eigen.coeff, "eigenvector rows");
          line_nu_ = rt.upload(pd_.line_eigen.lambda, "eigenvalues");
        }
      }
      batch = int(lanes);
      dims_.push_back(std::move(db));
    }
  }

  // The one level of a dense dimension: the basis W[j·m + l] (every row
  // kept, in order) of its m modes, the eigenvalues, the null-mode flag and
  // the children's shifts (formed once for the plan's c, as the top
  // dimension's levels). All n modes, or a rank's share [begin, end) of them
  // (the group's back substitution then writes the rank's part of the
  // solution, which the ranks sum: distributed/device_phase.cpp).
  LevelBufs dense_level(const planner::DimensionPlan<T>& dp, int batch, const distributed::LevelShare* share) {
    ocl::Runtime& rt = *rt_;
    const auto& ge = dp.eigen[dp.groups[0][0].eigen];
    const int n = dp.layout.n;
    if (dp.layout.levels.size() != 1 || ge.m != n || int(ge.rows.size()) != n)
      throw std::logic_error("dense dimension: the plan's level is not one group of every row");
    const auto [begin, end] = share ? share->modes.at(0) : std::pair<int, int>{0, n};
    const int m = end - begin;
    LevelBufs lb;
    lb.modes = lb.max_m = m;
    lb.ngroups = 1;
    lb.group_end = m > 0 ? 1 : 0;
    std::vector<T> W(std::size_t(n) * std::max(m, 1));
    for (int j = 0; j < n; ++j)
      for (int l = 0; l < m; ++l) W[std::size_t(j) * m + l] = ge.coeff[std::size_t(j) * n + begin + l];
    std::vector<int> zero(std::size_t(std::max(m, 1)), 0);
    if (dp.zero_mode >= begin && dp.zero_mode < end) zero[std::size_t(dp.zero_mode - begin)] = 1;
    std::vector<T> lambda(ge.lambda.begin() + begin, ge.lambda.begin() + end);
    lambda.resize(zero.size());
    lb.W = rt.upload(W, "eigenvector rows");
    lb.lambda = rt.upload(lambda, "eigenvalues");
    lb.zero_flag = rt.upload(zero, "mode flags");
    lb.child_sigma = rt.alloc(zero.size() * batch * sizeof(T), "shift buffer");
    lb.child_pinned = rt.alloc(zero.size() * batch * sizeof(int), "flag buffer");
    return lb;
  }

  int leaf_n() const { return int(pd_.problem.size(D_ - 1)); }

  // A transformed plan (PlanData::transformed): its lines' solver and the
  // transforms around it (transformed_solve.hpp).
  void upload_transforms(const std::vector<T>& packed) {
    tri_ = std::make_unique<ocl::TridiagonalSolver>(*rt_, p_, leaf_n(), ocl::TransformedSolve<T>::line_count(pd_),
                                                    sizeof(T), line_coef_.get(), packed.data(), flags_.buffer(),
                                                    pd_.pure_neumann);
    transformed_ = std::make_unique<ocl::TransformedSolve<T>>(
        *rt_, pd_, *tri_, ocl::SineShape{std::size_t(p_.sine_group), p_.sine_halves != 0});
  }

  void transpose(cl_mem in, cl_mem out, std::size_t rows, std::size_t cols) const {
    ocl::transpose(*rt_, in, out, rows, cols);
  }

  // What the plan's buffers need of the device, summed before any of them is
  // allocated (a dry pass of upload_plan): the bytes upload_plan() will
  // allocate, or AllocationTooLarge naming the total, the device's memory and
  // the largest buffers when they do not fit.
  std::size_t check_device_memory() {
    auto items = rt_->count_allocations([&] { upload_plan(); });
    afac_.clear();  // the dry pass left tables of null buffers
    mfac_.clear();
    dims_.clear();
    transformed_.reset();
    tri_.reset();
    std::map<std::string, std::size_t> by_name;
    std::size_t total = 0;
    for (const auto& [what, bytes] : items) {
      by_name[what] += bytes;
      total += bytes;
    }
    const ocl::Device& dev = rt_->device();
    if (total <= dev.global_mem) return total;
    std::vector<std::pair<std::size_t, std::string>> largest;
    for (const auto& [what, bytes] : by_name) largest.push_back({bytes, what});
    std::sort(largest.rbegin(), largest.rend());
    std::ostringstream os;
    os << "plan needs " << total << " bytes of device memory on " << dev.name << ", which has " << dev.global_mem
       << " (";
    for (std::size_t i = 0; i < largest.size() && i < 4; ++i)
      os << (i ? ", " : "") << largest[i].second << " " << largest[i].first;
    os << (largest.size() > 4 ? ", …)" : ")");
    throw AllocationTooLarge(os.str());
  }

  // A solve has finished: raise what its tridiagonal kernels recorded.
  void check_flags() const { flags_.raise(flags_.read(), false, line_shifts()); }
  // The shifts of the last dimension's lines, which a near-singular flag names.
  cl_mem line_shifts() const {
    if (pd_.transformed) return transformed_->line_shifts();
    const DimBufs& last = dims_.back();
    return last.dense ? last.levels[0].child_sigma.get() : last.child_sigma.get();
  }

  // Rest-dimension factor buffers for the block products of dimension d.
  void rest_factors(int d, cl_mem& A2, cl_mem& M2, int& n2, cl_mem& A3, cl_mem& M3, int& n3) const {
    A2 = afac_[d + 1].get();
    M2 = mfac_[d + 1].get();
    n2 = int(pd_.problem.size(d + 1));
    if (d + 2 < D_) {
      A3 = afac_[d + 2].get();
      M3 = mfac_[d + 2].get();
      n3 = int(pd_.problem.size(d + 2));
    } else {
      A3 = A2;
      M3 = M2;
      n3 = 0;
    }
  }

  // The weighted sums of the partial solutions of one level (see accumulate
  // in kernels/level.cl): T work-items per sum, as many as the longest group
  // of the level needs for sum_terms terms each.
  void accumulate(const DimBufs& db, const LevelBufs& lb, cl_mem X, int batch, int to_sources, int whole) const {
    const std::size_t cap = std::min({std::size_t(p_.sum_work_group), rt_->max_group("accumulate_tree"),
                                      rt_->max_group("accumulate")}),
                      R = db.R, sums = R * std::size_t(lb.group_end - lb.group_begin);
    const auto& items = rt_->device().max_items;
    const std::size_t terms = (std::size_t(lb.max_m) + p_.sum_terms - 1) / p_.sum_terms;
    std::size_t wb, lanes, wr;
    std::array<std::size_t, 3> global, local;
    if (whole) {  // consecutive work-items on consecutive rows of Y[mode][b][r]
      wr = pow2_fit(sums, std::min({cap, items[0], std::size_t(32)}));
      lanes = pow2_fit(terms, std::min(cap / wr, items[1]));
      wb = pow2_fit(std::size_t(batch), std::min(cap / (wr * lanes), items[2]));
      global = {round_up(sums, wr), lanes, round_up(std::size_t(batch), wb)};
      local = {wr, lanes, wb};
    } else {
      wb = pow2_fit(std::size_t(batch), std::min(cap, items[0]));
      lanes = pow2_fit(terms, std::min(cap / wb, items[1]));
      wr = pow2_fit(sums, std::min(cap / (wb * lanes), items[2]));
      global = {round_up(std::size_t(batch), wb), lanes, round_up(sums, wr)};
      local = {wb, lanes, wr};
    }
    const double RB = double(R) * batch;
    rt_->count(2 * RB * (to_sources ? lb.source_modes : 2.0 * lb.modes),
               RB * (lb.modes + (to_sources ? lb.sources : 2.0 * lb.ngroups)));
    // the sums of groups [group_begin, group_end): work-items from group_begin·R on
    std::array<std::size_t, 3> offset{0, 0, 0};
    offset[whole ? 0 : 2] = std::size_t(lb.group_begin) * R;
    if (lanes == 1)
      rt_->launch_at("accumulate", 3, offset, global, local, db.Y.get(), lb.groups.get(), lb.W.get(), db.V.get(), X, int(R),
                     batch, lb.modes, lb.group_end, to_sources, whole);
    else
      rt_->launch_at("accumulate_tree", 3, offset, global, local, db.Y.get(), lb.groups.get(), lb.W.get(), db.V.get(), X,
                     int(R), batch, lb.modes, lb.group_end, to_sources, whole, LocalBytes{wb * lanes * wr * sizeof(T)});
  }

  // The partial solutions of one level of dimension d for `batch` problems
  // X: right-hand sides from the source rows of X (and the boundary terms
  // BL, BR in back substitution), then the tridiagonal solver or PSCR over
  // dimension d+1. Cost model: a block product B(j,k) applied to one entry
  // reads and combines the 3 (2D) or 9 (3D) neighbours in the rest dimensions.
  void partial_solutions(int d, const LevelBufs& lb, cl_mem X, int batch, cl_mem sigma, cl_mem pinned,
                         int use_boundary) const {
    const ocl::Runtime& rt = *rt_;
    const std::size_t wg = std::size_t(p_.work_group);
    const DimBufs& db = dims_[d];
    const int R = int(db.R);
    const std::size_t B = std::size_t(batch), RR = db.R;
    const bool leaf = d + 2 == D_;
    const bool whole = leaf && tri_->whole_lines();  // Y stored [mode][b][r]
    const double RB = double(RR) * batch;
    // apart: by tiles of modes, then solved (KernelParameters::rhs_apart)
    const bool apart = whole && batch == 1 && p_.rhs_apart;
    const bool fused = leaf && tri_->forms_rhs() && !apart;
    const int lines = lb.modes * batch;
    // the formed right-hand sides are written here unless fused (then the
    // tridiagonal solver counts its one write)
    rt.count(2 * RB * (lb.source_modes + 2.0 * use_boundary * lb.modes),
             RB * ((fused ? 0 : lb.modes) + lb.sources + 2.0 * use_boundary * lb.ngroups));
    if (fused) {
      tri_->form_and_solve({X, lb.groups.get(), lb.mode_group.get(), lb.W.get(), db.BL.get(), db.BR.get(), batch,
                            use_boundary, sigma, lb.lambda.get()},
                           db.Y.get(), lines, db.child_sigma.get());
      return;
    }
    if (apart)
      rt.run("form_rhs_lines_tiles", wg,
             {(RR + kRhsTileRows - 1) / kRhsTileRows, std::size_t((lb.modes + p_.rhs_modes - 1) / p_.rhs_modes)}, X,
             db.Y.get(), lb.groups.get(), lb.mode_group.get(), lb.W.get(), db.BL.get(), db.BR.get(), R, lb.modes,
             use_boundary);
    else if (whole)
      rt.run("form_rhs_lines", wg, {(RR + kRhsRows - 1) / kRhsRows, std::size_t(lb.modes), B}, X, db.Y.get(), lb.groups.get(),
             lb.mode_group.get(), lb.W.get(), db.BL.get(), db.BR.get(), R, batch, lb.modes, use_boundary);
    else {
      // tiles of modes and rows where a wavefront's work-items are lanes of
      // the batch (they share no loads); else a mode per work-item, so that
      // the work-items of a small batch still cover the modes
      if (batch >= 32 && p_.rhs_modes > 1)
        rt.run("form_rhs_tiles", wg,
               {B, std::size_t((lb.modes + p_.rhs_modes - 1) / p_.rhs_modes), (RR + kRhsTileRows - 1) / kRhsTileRows},
               X, db.Y.get(), lb.groups.get(), lb.mode_group.get(), lb.W.get(), db.BL.get(), db.BR.get(), R, batch,
               lb.modes, use_boundary);
      else
        rt.run("form_rhs", wg, {B, std::size_t(lb.modes), (RR + kRhsRows - 1) / kRhsRows}, X, db.Y.get(),
               lb.groups.get(), lb.mode_group.get(), lb.W.get(), db.BL.get(), db.BR.get(), R, batch, lb.modes,
               use_boundary);
    }
    const auto [child_sigma, child_pinned] = child_shifts(db, lb, batch, sigma, pinned);
    if (leaf) tri_->solve(db.Y.get(), lines, child_sigma, child_pinned);
    else solve_dim(d + 1, db.Y.get(), lines, child_sigma, child_pinned);
  }

  // Block products of dimension d: the reduction's update of the survivors
  // [survivor_begin, survivor_end) of a level from V, or the back
  // substitution's boundary terms BL, BR of its groups [group_begin, group_end).
  void block_products(int d, const LevelBufs& lb, cl_mem X, int batch, cl_mem sigma, bool back) const {
    const ocl::Runtime& rt = *rt_;
    const DimBufs& db = dims_[d];
    cl_mem A2, M2, A3, M3;
    int n2, n3;
    rest_factors(d, A2, M2, n2, A3, M3, n3);
    cl_mem Ad = afac_[d].get(), Md = mfac_[d].get();
    const std::size_t wg = std::size_t(p_.work_group), B = std::size_t(batch), RR = db.R;
    const double RB = double(RR) * batch, blk = d + 2 == D_ ? 12 : 36;
    const int R = int(db.R);
    if (back) {
      const std::size_t groups = std::size_t(lb.group_end - lb.group_begin);
      rt.count(RB * groups * 2 * blk, RB * groups * 4);
      if (groups > 0)
        rt.run_at("boundary_terms", wg, {0, 0, std::size_t(lb.group_begin)}, {B, RR, groups}, X, db.BL.get(),
                  db.BR.get(), lb.groups.get(), lb.group_end, Ad, Md, db.n, sigma, R, batch, A2, M2, n2, A3, M3, n3);
      return;
    }
    const std::size_t surv = std::size_t(lb.survivor_end - lb.survivor_begin);
    rt.count(RB * surv * 2 * blk, RB * surv * 4);
    if (surv > 0)
      rt.run_at("update_survivors", wg, {0, 0, std::size_t(lb.survivor_begin)}, {B, RR, surv}, X, db.V.get(),
                lb.survivors.get(), lb.survivor_end, lb.ngroups, Ad, Md, db.n, sigma, R, batch, A2, M2, n2, A3, M3, n3);
  }

  // The children's shifts σ_b + λ_l and null-mode flags of a level, in the
  // dimension's buffers, or in the level's own where it has them (3D,
  // dimension 1: formed when they change, kept for the plan's own c).
  // Returns the buffers of the shifts and flags.
  std::pair<cl_mem, cl_mem> child_shifts(const DimBufs& db, const LevelBufs& lb, int batch, cl_mem sigma,
                                         cl_mem pinned) const {
    const ocl::Runtime& rt = *rt_;
    cl_mem child_sigma = db.child_sigma.get(), child_pinned = db.child_pinned.get();
    const bool own = lb.child_sigma.get() != nullptr;  // a level of its own shifts (3D, top dimension)
    const bool plan_c = own && sigma == sigma0_.get() && pinned == pinned0_.get();
    if (own) {
      child_sigma = lb.child_sigma.get();
      child_pinned = lb.child_pinned.get();
    }
    if (!(plan_c && lb.shifts_of_plan)) {
      rt.run("child_shifts", std::size_t(p_.work_group), {std::size_t(batch), std::size_t(lb.modes)}, sigma,
             lb.lambda.get(), pinned, lb.zero_flag.get(), child_sigma, child_pinned, batch, lb.modes);
      if (own && !rt.dry()) lb.shifts_of_plan = plan_c;  // in queue order before any later use
    }
    return {child_sigma, child_pinned};
  }

  // A dense dimension d (one level): the right-hand sides of its m modes
  // (all n, or a rank's share) by one dense product, the m·batch child
  // problems over dimension d + 1, and the solution (its part from these
  // modes) by another (kernels/dense.cl). Y is laid out [r][l][b], as
  // form_rhs writes it.
  void dense_solve(int d, cl_mem X, int batch, cl_mem sigma, cl_mem pinned) const {
    const ocl::Runtime& rt = *rt_;
    const DimBufs& db = dims_[d];
    const LevelBufs& lb = db.levels[0];
    const std::size_t C = db.R * std::size_t(batch), n = std::size_t(db.n), m = std::size_t(lb.modes);
    if (m == 0) return;  // a rank without modes of it
    constexpr std::size_t kDenseTileOut = ocl::dense_tile_out(is_complex_v<T>);
    auto grid = [&](std::size_t outputs) {
      return std::array<std::size_t, 3>{kDenseSide * ((C + kDenseTileColumns - 1) / kDenseTileColumns),
                                        kDenseSide * ((outputs + kDenseTileOut - 1) / kDenseTileOut), 1};
    };
    const std::array<std::size_t, 3> local{kDenseSide, kDenseSide, 1};
    const double products = double(C) * double(n) * double(m);
    rt.count(2 * products, double(C) * double(n + m));
    rt.launch("dense_to_modes", 2, grid(m), local, X, db.Y.get(), lb.W.get(), db.n, lb.modes, int(C), batch);
    const auto [child_sigma, child_pinned] = child_shifts(db, lb, batch, sigma, pinned);
    if (d + 2 == D_) solve_lines(db.Y.get(), db.R, m * batch, child_sigma, child_pinned);
    else solve_dim(d + 1, db.Y.get(), lb.modes * batch, child_sigma, child_pinned);
    rt.count(2 * products, double(C) * double(n + m));
    rt.launch("dense_from_modes", 2, grid(n), local, db.Y.get(), X, lb.W.get(), db.n, lb.modes, int(C), batch);
  }

  // The lines of the last dimension below a dense dimension, stored
  // Y[row][line] (`rows` rows): periodic ones in their eigenbasis, the
  // others by the line solver (whole lines transposed to [line][row] and back).
  void solve_lines(cl_mem Y, std::size_t rows, std::size_t lines, cl_mem sigma, cl_mem pinned) const {
    if (pd_.periodic_lines()) return eigenbasis_lines(Y, rows, lines, sigma, pinned);
    if (!tri_->whole_lines()) return tri_->solve(Y, int(lines), sigma, pinned);
    transpose(Y, row_lines_.get(), rows, lines);
    tri_->solve(row_lines_.get(), int(lines), sigma, pinned);
    transpose(row_lines_.get(), Y, lines, rows);
  }

  // Cyclic lines Y[row][line] solved in the last pencil's eigenbasis (kernels/dense.cl).
  void eigenbasis_lines(cl_mem Y, std::size_t rows, std::size_t lines, cl_mem sigma, cl_mem pinned) const {
    const ocl::Runtime& rt = *rt_;
    constexpr std::size_t kDenseTileOut = ocl::dense_tile_out(is_complex_v<T>);
    const std::array<std::size_t, 3> global{kDenseSide * ((lines + kDenseTileColumns - 1) / kDenseTileColumns),
                                            kDenseSide * ((rows + kDenseTileOut - 1) / kDenseTileOut), 1},
        local{kDenseSide, kDenseSide, 1};
    const double products = double(lines) * double(rows) * double(rows);
    const int n = int(rows), C = int(lines);
    rt.count(2 * products, 2.0 * double(lines) * double(rows));
    rt.launch("eigenbasis_to_modes", 2, global, local, Y, row_lines_.get(), line_W_.get(), n, C);
    rt.count(0, 2.0 * double(lines) * double(rows));
    rt.run("eigenbasis_divide", std::size_t(p_.work_group), {lines, rows}, row_lines_.get(), line_nu_.get(), sigma,
           pinned, pd_.line_zero_mode, n, C);
    rt.count(2 * products, 2.0 * double(lines) * double(rows));
    rt.launch("eigenbasis_from_modes", 2, global, local, row_lines_.get(), Y, line_W_.get(), n, C);
  }

  // PSCR over dimension d for `batch` independent problems stored [n][R][batch].
  void solve_dim(int d, cl_mem X, int batch, cl_mem sigma, cl_mem pinned) const {
    if (pd_.transformed) {
      // the lines' shifts are the plan's (transforms are planned for one shift and solve)
      if (d != 0 || batch != 1 || sigma != sigma0_.get())
        throw std::logic_error("transformed plan: solved for another shift or batch");
      return transformed_->solve(X, flags_.buffer());
    }
    const DimBufs& db = dims_[d];
    if (db.dense) return dense_solve(d, X, batch, sigma, pinned);
    const int k = int(db.levels.size());
    const int whole = d + 2 == D_ && tri_->whole_lines() ? 1 : 0;
    for (int i = 1; i < k; ++i) {
      const LevelBufs& lb = db.levels[i - 1];
      partial_solutions(d, lb, X, batch, sigma, pinned, 0);
      accumulate(db, lb, X, batch, 0, whole);
      block_products(d, lb, X, batch, sigma, false);
    }
    for (int i = k; i >= 1; --i) {
      const LevelBufs& lb = db.levels[i - 1];
      block_products(d, lb, X, batch, sigma, true);
      partial_solutions(d, lb, X, batch, sigma, pinned, 1);
      accumulate(db, lb, X, batch, 1, whole);
    }
  }

  const PlanData<T>& pd_;
  int D_;
  const std::vector<distributed::LevelShare>* shares_;  // a rank's device: its shares of dimension 1 (else null)
  // One set of device buffers and kernel arguments per plan: solves from
  // several threads take turns (clSetKernelArg is not thread-safe either).
  mutable std::mutex mutex_;
  KernelParameters p_;
  std::string source_;
  std::unique_ptr<ocl::Runtime> rt_;
  std::vector<Mem> afac_, mfac_;  // A_d and M_d as diag|off
  std::vector<DimBufs> dims_;
  std::unique_ptr<ocl::TridiagonalSolver> tri_;
  std::unique_ptr<ocl::TransformedSolve<T>> transformed_;  // a transformed plan's transforms and lines
  Mem row_lines_;  // lines below a dense dimension: [row][line] or [line][row] copies
  Mem line_W_, line_nu_;  // a periodic last dimension: its eigenbasis (PlanData::line_eigen)
  ocl::Cost cost_;  // estimated work of one solve
  Mem x_, sigma0_, pinned0_, line_coef_;
  ocl::SolveFlags<T> flags_;
  int shift_capacity_ = 1;  // Options::shifts: the top level's batch
  std::size_t counted_bytes_ = 0;  // what upload_plan() allocates
  Mem shifts_, shift_flags_;
  mutable std::vector<T> uploaded_shifts_;
  mutable ocl::HostStaging staging_;  // page-locked memory of the host copies
  // Solution vectors beside x_ for batches of host arrays, allocated by the
  // first batch, up to staging_.max_buffers() in all: with three, the copy
  // in of c + 1, the solve of c and the copy out of c − 1 each have their
  // own; with two, the copies share one chunk by chunk; with one, copies and
  // solves take turns. Fewer where the device has no room for them.
  mutable Mem batch_x_[ocl::kMaxBatchBuffers - 1];
  mutable bool batch_x_refused_ = false;
  // The batch's buffers (x_ first, already in buffers[0]); returns how many.
  int batch_buffers(cl_mem (&buffers)[ocl::kMaxBatchBuffers]) const {
    int n = 1;
    for (Mem& x : batch_x_) {
      if (n >= staging_.max_buffers()) break;
      if (!x && !batch_x_refused_) {
        try {
          x = rt_->alloc(pd_.problem.unknowns() * sizeof(T), "batch solution vector");
        } catch (const Error&) {  // no room: batches make do with the buffers they have
          batch_x_refused_ = true;
        }
      }
      if (!x) break;
      buffers[n++] = x.get();
    }
    return n;
  }
  ocl::NullSpaceProjection<T> null_space_;  // pure Neumann
};

}  // namespace

template <class T> tuning::Resolved opencl_parameters(const Problem<T>& problem, const Options& options) {
  Options first = options;
  if (!options.opencl_queue) first.device = opencl_devices(options)[0];
  return ocl::resolve_parameters(ocl::options_device(first), problem, options);
}

template <class T> int opencl_sine_limit(const Options& options) {
  std::size_t limit = std::size_t(-1);
  if (options.opencl_queue) {
    limit = ocl::max_sine_length(ocl::options_device(options), sizeof(real_t<T>));
  } else {
    const auto devices = opencl_devices(options);
    for (std::size_t i = 0; i < devices.size(); ++i) {
      Options one = options;
      one.devices.clear();
      one.device = devices[i];
      try {
        limit = std::min(limit, ocl::max_sine_length(ocl::options_device(one), sizeof(real_t<T>)));
      } catch (const Error& e) {
        if (devices.size() == 1) throw;
        // named as the plan's executors name a device's errors (multi_device.cpp)
        throw BackendError("device " + std::to_string(i) + " of the plan ('" + devices[i] + "'): " + e.what());
      }
    }
  }
  return int(std::min<std::size_t>(limit, 1 << 20));
}

template <class T>
std::unique_ptr<Executor<T>> make_device_executor(const planner::PlanData<T>& plan, const Options& options) {
  return std::make_unique<OpenCLExecutor<T>>(plan, options);
}

template <class T>
std::unique_ptr<distributed::SlabDevice<T>> make_slab_device(const planner::PlanData<T>& plan, const Options& options,
                                                             const std::vector<distributed::LevelShare>& shares) {
  return std::make_unique<OpenCLExecutor<T>>(plan, options, &shares);
}

template <class T> std::size_t count_device_bytes(const planner::PlanData<T>& plan, const Options& options) {
  return OpenCLExecutor<T>(plan, options, nullptr, true).counted_bytes();
}

template int opencl_sine_limit<float>(const Options&);
template int opencl_sine_limit<double>(const Options&);
template int opencl_sine_limit<std::complex<float>>(const Options&);
template int opencl_sine_limit<std::complex<double>>(const Options&);
template tuning::Resolved opencl_parameters(const Problem<float>&, const Options&);
template tuning::Resolved opencl_parameters(const Problem<double>&, const Options&);
template tuning::Resolved opencl_parameters(const Problem<std::complex<float>>&, const Options&);
template tuning::Resolved opencl_parameters(const Problem<std::complex<double>>&, const Options&);
template std::unique_ptr<Executor<float>> make_device_executor(const planner::PlanData<float>&, const Options&);
template std::unique_ptr<Executor<double>> make_device_executor(const planner::PlanData<double>&, const Options&);
template std::unique_ptr<Executor<std::complex<float>>> make_device_executor(
    const planner::PlanData<std::complex<float>>&, const Options&);
template std::unique_ptr<Executor<std::complex<double>>> make_device_executor(
    const planner::PlanData<std::complex<double>>&, const Options&);
template std::size_t count_device_bytes(const planner::PlanData<float>&, const Options&);
template std::size_t count_device_bytes(const planner::PlanData<double>&, const Options&);
template std::size_t count_device_bytes(const planner::PlanData<std::complex<float>>&, const Options&);
template std::size_t count_device_bytes(const planner::PlanData<std::complex<double>>&, const Options&);
#define PSCR_SLAB_DEVICE(T)                                                                                     \
  template std::unique_ptr<distributed::SlabDevice<T>> make_slab_device(const planner::PlanData<T>&, const Options&, \
                                                                        const std::vector<distributed::LevelShare>&);
PSCR_SLAB_DEVICE(float)
PSCR_SLAB_DEVICE(double)
PSCR_SLAB_DEVICE(std::complex<float>)
PSCR_SLAB_DEVICE(std::complex<double>)
#undef PSCR_SLAB_DEVICE

}  // namespace pscr
