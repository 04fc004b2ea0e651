#include "opencl_executor.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <mutex>
#include <sstream>
#include <vector>

#include "../plan_description.hpp"
#include "host_staging.hpp"
#include "plan_buffers.hpp"
#include "program_options.hpp"
#include "reduction_solve.hpp"
#include "row_exchange.hpp"
#include "runtime.hpp"
#include "sine_transform.hpp"
#include "solve_flags.hpp"
#include "tridiagonal_solver.hpp"

namespace pscr {
namespace kernels {
extern const char* const pscr_cl;
}
namespace {

using ocl::Mem;
using planner::PlanData;

using ocl::kDenseGroup;

// One plan on one device: the runtime (program and queue), the plan's
// buffers (plan_buffers.hpp) and the solves over them (reduction_solve.hpp,
// dense_solve.hpp, transformed_solve.hpp), behind one mutex; here the solves
// of host arrays, of device buffers and of shifts. As a rank's device of a
// distributed plan (shares given) it computes, at each level of dimension 1,
// only the rank's share of the modes (distributed/slab_device.hpp), level by
// level as the rank calls it.
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
    // a dense dimension 1 is one level whose modes the ranks share (PlanBuffers::dense_level)
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
      const auto shape = ocl::TransformedSolve<T>::shape(dev, p_, pd);
      p_.sine_group = int(shape.group);
      p_.sine_halves = shape.halves ? 1 : 0;
    }
    const bool products = p_.dense_top > 0 || pd.periodic_lines();
    // before anything is compiled or allocated
    const std::string why = ocl::TridiagonalSolver::limits(dev, p_, leaf_n(), sizeof(T));
    if (!why.empty()) throw InvalidArgument("kernel parameters (" + source_ + "): " + why);
    const ocl::ProgramShape shape{q, std::is_same_v<real_t<T>, double>, is_complex_v<T>, pd.excess_form, products};
    // as the program takes them, where it has dense products; a plan without
    // them keeps the values given (they change nothing). The register cap
    // holds for the whole program, and dense products keep a tile of outputs
    // in registers (2D 2047^2 dense in double: 9.6 ms under a cap of 80).
    if (products) {
      p_.tensor_cores = ocl::dense_tensor_cores(dev, p_, shape) ? 1 : 0;
      p_.register_cap = 0;
    }
    const std::string opts = ocl::program_options(dev, p_, shape);
    rt_ = user_queue ? std::make_unique<ocl::Runtime>(user_queue, kernels::pscr_cl, opts, o.profile, o.program_cache)
                     : std::make_unique<ocl::Runtime>(dev, kernels::pscr_cl, opts, o.profile, o.program_cache);
    rt_->set_cost_units(sizeof(T), is_complex_v<T> ? 4.0 : 1.0);
    const std::size_t product_group = p_.tensor_cores ? ocl::kMmaGroup : kDenseGroup;
    if (products)
      for (const char* k :
           {"dense_to_modes", "dense_to_modes_by_term", "dense_from_modes", "dense_from_modes_by_term",
            "dense_to_lines", "dense_from_lines"})
        if (rt_->max_group(k) < product_group)
          throw InvalidArgument("kernel parameters (" + source_ + "): dense products need work-groups of " +
                                std::to_string(product_group) + " work-items for " + k + ", and " + dev.name +
                                " allows " + std::to_string(rt_->max_group(k)));
    if (pd.transformed) {
      const std::string short_group = ocl::sine_group_shortfall(*rt_, std::size_t(p_.sine_group));
      if (!short_group.empty()) throw InvalidArgument("kernel parameters (" + source_ + "): " + short_group);
    }
    shift_capacity_ = shares ? 1 : o.shifts;
    counted_bytes_ = ocl::check_device_memory(*rt_, pd_, p_, shares_, shift_capacity_);
    if (count_only) return;
    buffers_.upload(*rt_, pd_, p_, shares_, shift_capacity_);
    reduction_ = std::make_unique<ocl::ReductionSolve<T>>(*rt_, pd_, p_, buffers_);
    if (shares) exchange_ = std::make_unique<ocl::RowExchange<T>>(*rt_, buffers_, std::size_t(p_.work_group));
    cost_ = rt_->dry_run([&] { solve_dim(0, buffers_.x.get(), 1, buffers_.sigma0.get(), buffers_.pinned0.get()); });
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
    // The copies run on queues of their own into the plan's vectors, which
    // an asynchronous solve still in flight may be using (a right-hand side
    // staged through buffers_.x): earlier work on the plan's queue first.
    rt_->finish();
    const std::size_t N = pd_.problem.unknowns();
    // a batch takes a second vector, or a third where the caller's
    // page-locked buffers let every copy and solve run at once
    cl_mem buffers[3] = {buffers_.x.get(), count > 1 ? batch_buffer(0) : nullptr, nullptr};
    if (buffers[1] && ocl::HostStaging::pipelines(f, u, N * sizeof(T), count)) buffers[2] = batch_buffer(1);
    buffers_.flags.clear();
    const ocl::HostSolveReport r = staging_.solve(
        *rt_, buffers, buffers[2] ? 3 : buffers[1] ? 2 : 1, f, u, N * sizeof(T), count, sizeof(T), &ocl::first_nonfinite_bytes<T>,
        [&](cl_mem x) {
          solve_dim(0, x, 1, buffers_.sigma0.get(), buffers_.pinned0.get());
          // a transformed plan's last transform flags non-finite values as it
          // writes them, as do the products of a dense top dimension
          if (!solution_flagged()) buffers_.flags.scan(x, 0, N);
        });
    const std::array<int, 2> flags = buffers_.flags.read();  // waits for the plan's queue
    rt_->finish();
    result.bad_input = r.bad_input;
    result.nonfinite_output = flags[0] != 0;
    // f from the caller's page-locked buffers, unscanned: a non-finite
    // solution may come from f
    if (r.input_unscanned && result.nonfinite_output)
      result.bad_input = ocl::parallel_scan(f, count * N * sizeof(T), sizeof(T), &ocl::first_nonfinite_bytes<T>);
    SolveStats& st = result.stats;
    st.copy_in_seconds = r.copy_in_seconds;
    st.copy_out_seconds = r.copy_out_seconds;
    st.transfer_seconds = r.copy_in_seconds + r.copy_out_seconds;
    st.solve_seconds = r.solve_seconds;
    st.staging_bytes = r.staging_bytes;
    st.staging = r.staging;
    if (result.bad_input == ocl::HostSolveReport::npos) buffers_.flags.raise({0, flags[1]}, false);
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
    if (check) buffers_.flags.clear();
    for (std::size_t c = 0; c < count; ++c) {
      // Right-hand side c: the buffer itself (c = 0), a sub-buffer where its
      // offset meets the device's base-address alignment, else a copy in the
      // plan's solution vector (copied back after the solve).
      const std::size_t offset = c * bytes;
      cl_mem x = buf;
      Mem view;
      const bool staged = offset % rt_->device().base_align_bytes != 0;
      if (staged) {
        ocl::check(clEnqueueCopyBuffer(rt_->queue(), buf, buffers_.x.get(), offset, 0, bytes, 0, nullptr, nullptr),
                   "clEnqueueCopyBuffer (right-hand side of a batch)");
        x = buffers_.x.get();
      } else if (offset > 0) {
        cl_buffer_region region{offset, bytes};
        cl_int st;
        view.reset(clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &st));
        ocl::check(st, "clCreateSubBuffer (right-hand side of a batch)");
        x = view.get();
      }
      if (neumann) {
        // solve the compatible part f - mean(f) (orthogonal projection onto range(A))
        cl_mem t = buffers_.null_space.project_rhs(x);
        // read in queue order, before the sums after the solve reuse the scratch
        if (report)
          ocl::check(clEnqueueReadBuffer(rt_->queue(), t, CL_FALSE, 0, 2 * sizeof(T), s.data() + 2 * c, 0, nullptr,
                                         nullptr),
                     "clEnqueueReadBuffer (null-space sums)");
      }
      solve_dim(0, x, 1, buffers_.sigma0.get(), buffers_.pinned0.get());
      if (neumann) buffers_.null_space.remove_weighted_mean(x);  // as Plan::solve returns
      if (staged)
        ocl::check(clEnqueueCopyBuffer(rt_->queue(), buffers_.x.get(), buf, 0, offset, bytes, 0, nullptr, nullptr),
                   "clEnqueueCopyBuffer (solution of a batch)");
    }
    if (event) {
      cl_event ev = nullptr;
      ocl::check(clEnqueueMarkerWithWaitList(rt_->queue(), 0, nullptr, &ev), "clEnqueueMarkerWithWaitList");
      *event = ev;
      return 0;
    }
    // One pass over the solutions instead of a silent NaN (a transformed
    // plan's last transform, or a dense top dimension, flagged them as it
    // wrote them).
    if (check && !solution_flagged()) buffers_.flags.scan(buf, 0, count * N);
    // the flags' read waits for the solve: one wait for the device, not two
    std::array<int, 2> flags{0, 0};
    if (check) flags = buffers_.flags.read();
    rt_->finish();
    if (check) buffers_.flags.raise(flags, true);
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
    if (shift_capacity_ < 2)
      throw InvalidArgument(what + "the plan was made with Options::shifts = " + std::to_string(shift_capacity_) +
                            ", which plans no shifted solves (make it with Options::shifts >= 2; it then takes "
                            "1 ... Options::shifts shifts)");
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
      rt_->write(buffers_.shifts.get(), shifts.data(), K * sizeof(T));
      uploaded_shifts_ = shifts;
    }
    solve_dim(0, static_cast<cl_mem>(buffer), int(K), buffers_.shifts.get(), buffers_.shift_flags.get());
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
    info.device_architecture = ocl::device_architecture(rt_->device());
    info.device_bytes = rt_->bytes();
    info.staging_bytes = staging_.planned_bytes(*rt_, pd_.problem.unknowns() * sizeof(T));
    info.parameters = p_;
    info.parameters_source = source_;
    const ocl::TridiagonalSolver* tri = buffers_.tri.get();
    info.line_solver = line_solver_name(pd_, !tri || !tri->whole_lines() ? "global CR"
                                             : tri->halved_lines()        ? "halved lines"
                                                                          : "whole lines");
    info.build_seconds = rt_->build_seconds();
    info.program_cache = rt_->program_cache();
    info.flops = cost_.flops;
    info.bytes = cost_.bytes;
  }
  std::optional<planner::LineElimination> line_elimination() const override {
    const ocl::TridiagonalSolver* tri = buffers_.tri.get();
    if (!tri || !tri->whole_lines()) return std::nullopt;
    return planner::LineElimination{std::size_t(tri->chunk_rows()), tri->halved_lines()};
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
    const std::size_t rb = buffers_.dims[0].R * sizeof(T);
    if (count * rb >= ocl::HostStaging::kChunkedBytes &&
        staging_.chunked_copy(*rt_, buffers_.x.get(), row * rb, count * rb, const_cast<T*>(src), true))
      return;
    ocl::check(clEnqueueWriteBuffer(rt_->queue(), buffers_.x.get(), CL_TRUE, row * rb, count * rb, src, 0, nullptr, nullptr),
               "clEnqueueWriteBuffer (rows of a slab)");
  }
  void read_rows(std::size_t row, std::size_t count, T* dst) const override {
    const std::size_t rb = buffers_.dims[0].R * sizeof(T);
    if (count * rb >= ocl::HostStaging::kChunkedBytes &&
        staging_.chunked_copy(*rt_, buffers_.x.get(), row * rb, count * rb, dst, false))
      return;
    rt_->read_at(buffers_.x.get(), row * rb, dst, count * rb);
  }
  // the exchanges' rows (row_exchange.hpp)
  const T* gather(const std::vector<distributed::DeviceRow>& rows) override { return exchange_->gather(rows); }
  void wait_gathered() override { exchange_->wait_gathered(); }
  T* scatter_area(std::size_t count) override { return exchange_->scatter_area(count); }
  void scatter(const std::vector<distributed::DeviceRow>& rows) override { exchange_->scatter(rows); }
  void compute(int level, bool back, distributed::GroupPart part) override {
    const ocl::DimBufs& db = buffers_.dims[0];
    const ocl::LevelBufs& lb = db.levels[level - 1];
    // a dense level reduces nothing: its back substitution is the whole solve
    if (db.dense) {
      if (back && part == distributed::GroupPart::edges && lb.group_end > lb.group_begin)
        reduction_->dense().solve(0, buffers_.x.get(), 1, buffers_.sigma0.get(), buffers_.pinned0.get());
      return;
    }
    using distributed::GroupPart;
    if (lb.parts.empty()) {  // no interior: the edges are all the groups
      if (part == GroupPart::edges) compute_groups(lb, back);
    } else if (part == GroupPart::edges) {
      compute_groups(lb.parts[0], back);
      compute_groups(lb.parts[3], back);
    } else {
      compute_groups(lb.parts[part == GroupPart::interior_first ? 1 : 2], back);
    }
  }
  void update_survivors(int level) override {
    reduction_->block_products(0, buffers_.dims[0].levels[level - 1], buffers_.x.get(), 1, buffers_.sigma0.get(), false);
  }
  std::string breakdown() override {
    rt_->finish();
    const std::string why = buffers_.flags.near_singular();
    buffers_.flags.clear();
    return why;
  }
  void clear_breakdown() override { buffers_.flags.clear(); }
  bool nonfinite_rows(std::size_t row, std::size_t count) override {
    const std::size_t R = buffers_.dims[0].R;
    return buffers_.flags.nonfinite(buffers_.x.get(), row * R, (row + count) * R);
  }
  void finish() override { rt_->finish(); }

  std::size_t counted_bytes() const { return counted_bytes_; }

 private:
  // One level's work on the groups of lb: the boundary terms (back
  // substitution), the partial solutions of its modes, their sums.
  void compute_groups(const ocl::LevelBufs& lb, bool back) {
    if (lb.group_end == lb.group_begin) return;  // no share of this level here
    const ocl::DimBufs& db = buffers_.dims[0];
    if (back) reduction_->block_products(0, lb, buffers_.x.get(), 1, buffers_.sigma0.get(), true);
    if (lb.modes > 0)
      reduction_->partial_solutions(0, lb, buffers_.x.get(), 1, buffers_.sigma0.get(), buffers_.pinned0.get(),
                                    back ? 1 : 0);
    reduction_->accumulate(db, lb, buffers_.x.get(), 1, back ? 1 : 0, D_ == 2 && buffers_.tri->whole_lines() ? 1 : 0);
  }
  int leaf_n() const { return int(pd_.problem.size(D_ - 1)); }

  // Whether a solve flags a non-finite solution as it writes it.
  bool solution_flagged() const { return pd_.transformed || (!shares_ && reduction_->flags_solution()); }

  // The plan over dimensions d, d + 1, … (the whole plan from d = 0) for
  // `batch` problems stored [n][R][batch]: a transformed plan's transforms
  // (transformed_solve.hpp), else PSCR (reduction_solve.hpp).
  void solve_dim(int d, cl_mem X, int batch, cl_mem sigma, cl_mem pinned) const {
    if (pd_.transformed) {
      // the lines' shifts are the plan's (transforms are planned for one shift and solve)
      if (d != 0 || batch != 1 || sigma != buffers_.sigma0.get())
        throw std::logic_error("transformed plan: solved for another shift or batch");
      return buffers_.transformed->solve(X, buffers_.flags.buffer());
    }
    reduction_->solve_dim(d, X, batch, sigma, pinned);
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
  ocl::PlanBuffers<T> buffers_;  // the plan's buffers on the device (plan_buffers.hpp)
  std::unique_ptr<ocl::ReductionSolve<T>> reduction_;  // the solve over buffers_
  ocl::Cost cost_;  // estimated work of one solve
  int shift_capacity_ = 1;  // Options::shifts: the top level's batch
  std::size_t counted_bytes_ = 0;  // what buffers_.upload() allocates
  mutable std::vector<T> uploaded_shifts_;
  mutable ocl::HostStaging staging_;  // page-locked memory of the host copies
  std::unique_ptr<ocl::RowExchange<T>> exchange_;  // a rank's exchanges (SlabDevice::gather, scatter)
  // A second solution vector for batches of host arrays (the copies of one
  // right-hand side in one vector, the solve of the next in the other), and
  // a third for the pipeline of the caller's page-locked buffers (a copy in,
  // a solve and a copy out at once), allocated by the first batch that uses
  // them; null when the device has no room for them.
  mutable Mem batch_x_[2];
  mutable bool batch_x_refused_[2] = {false, false};
  cl_mem batch_buffer(int i) const {
    if (!batch_x_[i] && !batch_x_refused_[i]) {
      try {
        batch_x_[i] = rt_->alloc(pd_.problem.unknowns() * sizeof(T), "batch solution vector");
      } catch (const Error&) {  // fewer vectors: copies and solves overlap less
        batch_x_refused_[i] = true;
      }
    }
    return batch_x_[i].get();
  }
};

}  // namespace

template <class T> tuning::Resolved opencl_parameters(const Problem<T>& problem, const Options& options) {
  Options first = options;
  if (!options.opencl_queue) first.device = opencl_devices(options)[0];
  return ocl::resolve_parameters(ocl::options_device(first), problem, options);
}

template <class T> int opencl_sine_limit(const Options& options, const KernelParameters& p) {
  const std::size_t group = std::size_t(p.sine_group);
  std::size_t limit = std::size_t(-1);
  if (options.opencl_queue) {
    limit = ocl::max_sine_length(ocl::options_device(options), group, sizeof(real_t<T>));
  } else {
    const auto devices = opencl_devices(options);
    for (std::size_t i = 0; i < devices.size(); ++i) {
      Options one = options;
      one.devices.clear();
      one.device = devices[i];
      try {
        limit = std::min(limit, ocl::max_sine_length(ocl::options_device(one), group, sizeof(real_t<T>)));
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

template int opencl_sine_limit<float>(const Options&, const KernelParameters&);
template int opencl_sine_limit<double>(const Options&, const KernelParameters&);
template int opencl_sine_limit<std::complex<float>>(const Options&, const KernelParameters&);
template int opencl_sine_limit<std::complex<double>>(const Options&, const KernelParameters&);
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
