// A rank's OpenCL device in a transformed split (transform_slab.hpp).
#include "transform_slab.hpp"

#include <algorithm>
#include <complex>
#include <cstring>

#include "cl_check.hpp"
#include "host_staging.hpp"
#include "line_coefficients.hpp"
#include "plan_buffers.hpp"
#include "program_options.hpp"
#include "runtime.hpp"
#include "sine_transform.hpp"
#include "solve_flags.hpp"
#include "transformed_solve.hpp"

namespace pscr {
namespace kernels {
extern const char* const pscr_cl;
}
namespace {

using ocl::Mem;

template <class T> class TransformSlabDevice final : public distributed::TransformSlab<T> {
 public:
  TransformSlabDevice(const planner::PlanData<T>& pd, const Options& o, const std::vector<RowRange>& slabs,
                      int parts, int rank)
      : pd_(pd), slabs_(slabs), parts_(parts), rank_(rank) {
    const ocl::Device dev = ocl::options_device(o);
    if (std::is_same_v<real_t<T>, double> && !dev.fp64)
      throw BackendError("device " + dev.name + " lacks cl_khr_fp64: double precision is not available on it");
    const auto resolved = ocl::resolve_parameters(dev, pd.problem, o);
    p_ = resolved.parameters;
    source_ = resolved.source;
    validate(p_, "kernel parameters (" + source_ + ")");
    const auto shape = ocl::TransformedSolve<T>::shape(dev, p_, pd);
    p_.sine_group = int(shape.group);
    p_.sine_halves = shape.halves ? 1 : 0;
    p_.dense_top = 0;
    const ocl::ProgramShape program{p_.radix, std::is_same_v<real_t<T>, double>, false, pd.excess_form, false};
    rt_ = std::make_unique<ocl::Runtime>(dev, kernels::pscr_cl, ocl::program_options(dev, p_, program), o.profile,
                                         o.program_cache);
    rt_->set_cost_units(sizeof(T), 1.0);
    const std::string short_group = ocl::sine_group_shortfall(*rt_, shape.group);
    if (!short_group.empty()) throw InvalidArgument("kernel parameters (" + source_ + "): " + short_group);
    // the slab [row][modes of the other dimensions], R values per row
    const int D = pd.problem.dims();
    for (int d = 0; d + 1 < D; ++d) n_.push_back(std::size_t(pd.dims[std::size_t(d)].layout.n));
    R_ = 1;
    for (std::size_t n : n_) R_ *= n;
    n1_ = int(pd.problem.size(D - 1));
    rows_ = slabs_[std::size_t(rank)].size();
    const std::size_t P = slabs_.size(), k = std::size_t(parts_), Q = P * k;
    const std::vector<std::size_t> bounds = distributed::partition_bounds(slabs_.back().end, int(P), parts_);
    own_ = rank * parts_;
    for (std::size_t j = 0; j < k; ++j) {  // the checkpoints of this rank's longest part
      const std::size_t pivots = bounds[std::size_t(own_) + j + 1] - bounds[std::size_t(own_) + j] - 1;
      stride_ = std::max(stride_, (pivots + ocl::kPartitionChunk - 1) / ocl::kPartitionChunk);
    }
    auto allocate = [&] {
      slab_ = rt_->alloc(rows_ * R_ * sizeof(T), "slab");
      ends_ = rt_->alloc(2 * k * R_ * sizeof(T), "reduced right-hand sides");
      all_ends_ = rt_->alloc(2 * Q * R_ * sizeof(T), "reduced right-hand sides");
      reduced_ = rt_->alloc(3 * Q * R_ * sizeof(T), "reduced rows");
      solution_ = rt_->alloc(2 * Q * R_ * sizeof(T), "reduced solution");
      checkpoints_ = rt_->alloc(std::max<std::size_t>(2 * k * stride_, 1) * R_ * sizeof(T), "pivot checkpoints");
      rhs_checkpoints_ = rt_->alloc(std::max<std::size_t>(k * stride_, 1) * R_ * sizeof(T),
                                    "eliminated right-hand side checkpoints");
      bounds_ = rt_->alloc((Q + 1) * sizeof(cl_int), "partition bounds");
    };
    ocl::check_allocations(dev, rt_->count_allocations(allocate));
    allocate();
    flags_ = ocl::SolveFlags<T>(*rt_, 1);
    for (std::size_t d = 0; d < n_.size(); ++d) {
      const auto& dp = pd.dims[d];
      transforms_.push_back(std::make_unique<ocl::SineTransform>(
          *rt_, dp.layout.n, dp.transform_scale, shape, sizeof(real_t<T>), false,
          dp.method == planner::DimensionMethod::fourier_transform));
    }
    // each line's shift: c plus the eigenvalue of its mode in every other dimension
    sigma_ = rt_->upload(ocl::TransformedSolve<T>::line_shift_values(pd, transforms_), "shift buffer");
    factor_ = rt_->upload(ocl::packed_rows(pd.problem.factor(D - 1), pd.excess_form, pd.excess), "packed factor");
    const std::vector<cl_int> first(bounds.begin(), bounds.end());
    rt_->write(bounds_.get(), first.data(), first.size() * sizeof(cl_int));
    // every part's reduced row, and this rank's parts' pivot checkpoints
    eliminate_launch(0, int(Q), false);
    rt_->finish();
    // the eliminations' rows on the host, two areas in turn (eliminate()),
    // and the rows gathered by messages
    for (auto& area : pinned_rows_)
      area = ocl::PinnedHost(rt_->context(), rt_->queue(), 2 * k * R_ * sizeof(T), "reduced right-hand sides");
    pinned_gathered_ =
        ocl::PinnedHost(rt_->context(), rt_->queue(), (Q + 1) * R_ * sizeof(T), "reduced right-hand sides");
  }

  void write_slab(const T* src) override { copy(const_cast<T*>(src), true); }
  void read_slab(T* dst) override { copy(dst, false); }
  bool nonfinite_slab() override { return flags_.nonfinite(slab_.get(), 0, rows_ * R_); }
  void clear_flags() override { flags_.clear(); }

  int parts() const override { return parts_; }
  T* eliminate() override {
    to_modes(true);
    eliminate_launch(own_, parts_, true);
    T* rows = static_cast<T*>(pinned_rows_[turn_].data());
    turn_ ^= 1;
    rt_->read(ends_.get(), rows, 2 * std::size_t(parts_) * R_ * sizeof(T));
    return rows;
  }

  void substitute(const std::vector<const T*>& rows, int per_rank) override {
    const std::size_t bytes = std::size_t(per_rank) * R_ * sizeof(T);
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (r == std::size_t(rank_) && per_rank == 2 * parts_)  // this rank's, as the device wrote them: not over the bus
        ocl::check(clEnqueueCopyBuffer(rt_->queue(), ends_.get(), all_ends_.get(), 0, r * bytes, bytes, 0, nullptr,
                                       nullptr),
                   "clEnqueueCopyBuffer (reduced right-hand sides)");
      else
        ocl::check(clEnqueueWriteBuffer(rt_->queue(), all_ends_.get(), CL_FALSE, r * bytes, bytes, rows[r], 0,
                                        nullptr, nullptr),
                   "clEnqueueWriteBuffer (reduced right-hand sides)");
    substitute_launch(per_rank, {0, R_});
    to_modes(false);
  }

  void eliminate_ranges(const std::vector<RowRange>& ranges) override {
    ranges_ = ranges;
    to_modes(true);
    range_area_ = static_cast<T*>(pinned_rows_[turn_].data());
    turn_ ^= 1;
    const std::size_t rows = 2 * std::size_t(parts_);
    range_done_.clear();
    for (std::size_t i = 0; i < ranges_.size(); ++i) {
      const RowRange w = ranges_[i];
      eliminate_launch(own_, parts_, true, w);
      // row j of the range's lines, to the range's block
      T* block = range_block(i);
      cl_event done = nullptr;
      for (std::size_t j = 0; j < rows; ++j)
        ocl::check(clEnqueueReadBuffer(rt_->queue(), ends_.get(), CL_FALSE, (j * R_ + w.begin) * sizeof(T),
                                       w.size() * sizeof(T), block + j * w.size(), 0, nullptr,
                                       j + 1 == rows ? &done : nullptr),
                   "clEnqueueReadBuffer (reduced right-hand sides)");
      range_done_.emplace_back(done);
    }
    ocl::check(clFlush(rt_->queue()), "clFlush");
  }
  T* eliminated(std::size_t i) override {
    cl_event e = range_done_[i].get();
    ocl::check(clWaitForEvents(1, &e), "clWaitForEvents (reduced right-hand sides)");
    return range_block(i);
  }
  T* gathered(std::size_t i) override {
    const std::size_t Q = slabs_.size() * std::size_t(parts_);
    return static_cast<T*>(pinned_gathered_.data()) + (Q + 1) * ranges_[i].begin;
  }
  void substitute_range(std::size_t i, const std::vector<const T*>& rows, int per_rank) override {
    const RowRange w = ranges_[i];
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (int j = 0; j < per_rank; ++j)
        ocl::check(clEnqueueWriteBuffer(rt_->queue(), all_ends_.get(), CL_FALSE,
                                        ((r * std::size_t(per_rank) + std::size_t(j)) * R_ + w.begin) * sizeof(T),
                                        w.size() * sizeof(T), rows[r] + std::size_t(j) * w.size(), 0, nullptr,
                                        nullptr),
                   "clEnqueueWriteBuffer (reduced right-hand sides)");
    substitute_launch(per_rank, w);
    ocl::check(clFlush(rt_->queue()), "clFlush");
  }
  void transform_back() override { to_modes(false); }
  void finish() override { rt_->finish(); }
  bool solution_nonfinite() override { return flags_.read()[0] != 0; }
  std::string breakdown() override { return flags_.near_singular(); }
  std::vector<KernelTime> kernel_times() const override { return rt_->kernel_times(); }
  void set_profiling(bool on) override {
    rt_->finish();  // the launches before count as they were enqueued
    rt_->set_profiling(on);
  }

  void describe(PlanInfo& info) const override {
    info.backend = "opencl: " + rt_->device().name;
    info.device = rt_->device().device_name;
    info.device_bytes = rt_->bytes();
    info.parameters = p_;
    info.parameters_source = source_;
    info.line_solver = "partitioned over ranks, " + std::to_string(parts_) + (parts_ == 1 ? " part" : " parts") +
                       " each";
    info.build_seconds = rt_->build_seconds();
    info.program_cache = rt_->program_cache();
  }

 private:
  // The slab to or from the host, through page-locked chunks where it pays.
  void copy(T* host, bool to_device) {
    const std::size_t bytes = rows_ * R_ * sizeof(T);
    if (bytes == 0) return;
    if (bytes >= ocl::HostStaging::kChunkedBytes &&
        staging_.chunked_copy(*rt_, slab_.get(), 0, bytes, host, to_device))
      return;
    if (to_device) rt_->write(slab_.get(), host, bytes);
    else rt_->read(slab_.get(), host, bytes);
  }
  // Every other dimension to its modes (the last, contiguous, first), or
  // back (it last, flagging non-finite values as it writes the solution).
  void to_modes(bool forward) {
    const std::size_t dims = n_.size();
    auto strided = [&](std::size_t d) {  // dimension d of the slab's rows: columns of R / before values
      std::size_t after = 1, before = rows_;
      for (std::size_t e = d + 1; e < dims; ++e) after *= n_[e];
      for (std::size_t e = 0; e < d; ++e) before *= n_[e];
      transforms_[d]->apply(slab_.get(), after, after, before, n_[d] * after, forward);
    };
    const std::size_t last = dims - 1;
    if (forward) {
      transforms_[last]->apply_lines(slab_.get(), rows_ * R_ / n_[last], n_[last], true);
      for (std::size_t d = last; d-- > 0;) strided(d);
    } else {
      for (std::size_t d = 0; d < last; ++d) strided(d);
      transforms_[last]->apply_lines(slab_.get(), rows_ * R_ / n_[last], n_[last], false, flags_.buffer());
    }
  }
  int x0() const { return int(slabs_[std::size_t(rank_)].begin); }
  // partition_eliminate on parts [first, first + count): the set-up of their
  // reduced rows (and this rank's parts' checkpoints), or the elimination of
  // this slab's data.
  // lines: the range of lines (all R by default).
  void eliminate_launch(int first, int count, bool solve, RowRange lines = {}) {
    if (lines.end == 0) lines = {0, R_};
    const double share = double(lines.size()) / double(R_);
    // traffic: the slab read, every PARTITION_CHUNK-th eliminated right-hand side written
    const double chunk = double(ocl::kPartitionChunk);
    if (solve) rt_->count(12.0 * double(rows_ * R_) * share, (1.0 + 1.0 / chunk) * double(rows_ * R_) * share);
    rt_->run_at("partition_eliminate", 256, {lines.begin, 0, 0}, {lines.size(), std::size_t(count)}, slab_.get(), x0(),
                bounds_.get(), first, count, own_, parts_, n1_, int(R_), factor_.get(), sigma_.get(), ends_.get(),
                reduced_.get(), checkpoints_.get(), rhs_checkpoints_.get(), int(stride_), solve ? 1 : 0,
                flags_.buffer(), int(lines.end));
  }
  // The reduced system and this slab's back substitution on a range of
  // lines, from every rank's rows in all_ends_.
  void substitute_launch(int per_rank, RowRange lines) {
    const std::size_t Q = slabs_.size() * std::size_t(parts_);
    const double share = double(lines.size()) / double(R_);
    rt_->count(8.0 * double(Q * R_) * share, 7.0 * double(Q * R_) * share);
    rt_->run_at("partition_reduced", 256, {lines.begin, 0, 0}, {lines.size()}, reduced_.get(), all_ends_.get(), int(Q),
                int(R_), parts_, per_rank, solution_.get(), flags_.buffer(), int(lines.end), sigma_.get());
    // the slab read and written, three checkpoints a chunk read
    rt_->count(24.0 * double(rows_ * R_) * share,
               (2.0 + 3.0 / double(ocl::kPartitionChunk)) * double(rows_ * R_) * share);
    rt_->run_at("partition_back", 256, {lines.begin, 0, 0}, {lines.size(), std::size_t(parts_)}, slab_.get(), x0(),
                bounds_.get(), own_, parts_, n1_, int(R_), factor_.get(), sigma_.get(), solution_.get(),
                checkpoints_.get(), rhs_checkpoints_.get(), int(stride_), int(lines.end));
  }

  planner::PlanData<T> pd_;
  std::vector<RowRange> slabs_;
  int parts_, rank_, own_ = 0;  // own_: this rank's first part
  int turn_ = 0;                 // the area of pinned_rows_ the next eliminate() fills
  KernelParameters p_;
  std::string source_;
  std::unique_ptr<ocl::Runtime> rt_;
  std::vector<std::size_t> n_;  // the other dimensions' sizes, in order
  std::size_t R_ = 1, rows_ = 0, stride_ = 0;  // stride_: checkpoints per part
  int n1_ = 0;
  Mem slab_, ends_, all_ends_, reduced_, solution_, checkpoints_, rhs_checkpoints_, bounds_, sigma_, factor_;
  ocl::SolveFlags<T> flags_;
  std::vector<std::unique_ptr<ocl::SineTransform>> transforms_;
  ocl::PinnedHost pinned_rows_[2], pinned_gathered_;
  // eliminate_ranges: the ranges of lines, the area of pinned_rows_ their
  // rows go to, and when each range's rows are there
  std::vector<RowRange> ranges_;
  T* range_area_ = nullptr;
  std::vector<ocl::Event> range_done_;
  // range i's rows in range_area_: 2·parts rows of its lines, after those
  // of the ranges before it
  T* range_block(std::size_t i) const { return range_area_ + 2 * std::size_t(parts_) * ranges_[i].begin; }
  ocl::HostStaging staging_;
};

}  // namespace

template <class T>
std::unique_ptr<distributed::TransformSlab<T>> make_transform_slab(const planner::PlanData<T>& pd,
                                                                   const Options& options,
                                                                   const std::vector<RowRange>& slabs, int parts,
                                                                   int rank) {
  if constexpr (is_complex_v<T>) {
    throw std::logic_error("transformed split: complex scalars");
  } else {
    return std::make_unique<TransformSlabDevice<T>>(pd, options, slabs, parts, rank);
  }
}

#define PSCR_TRANSFORM_SLAB(T)                                                                               \
  template std::unique_ptr<distributed::TransformSlab<T>> make_transform_slab(const planner::PlanData<T>&, \
                                                                              const Options&,              \
                                                                              const std::vector<RowRange>&, int, \
                                                                              int);
PSCR_TRANSFORM_SLAB(float)
PSCR_TRANSFORM_SLAB(double)
PSCR_TRANSFORM_SLAB(std::complex<float>)
PSCR_TRANSFORM_SLAB(std::complex<double>)
#undef PSCR_TRANSFORM_SLAB

}  // namespace pscr
