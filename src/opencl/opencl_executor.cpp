#include "opencl_executor.hpp"

#include <chrono>
#include <complex>
#include <sstream>
#include <vector>

#include "device.hpp"

namespace pscr {
namespace kernels {
extern const char* const pscr_cl;
}
namespace {

using planner::PlanData;

struct Mem {
  cl_mem m = nullptr;
  Mem() = default;
  Mem(const Mem&) = delete;
  Mem& operator=(const Mem&) = delete;
  Mem(Mem&& o) noexcept : m(o.m) { o.m = nullptr; }
  Mem& operator=(Mem&& o) noexcept {
    std::swap(m, o.m);
    return *this;
  }
  ~Mem() { if (m) clReleaseMemObject(m); }
};

template <class T> class OpenCLExecutor final : public Executor<T> {
 public:
  OpenCLExecutor(const PlanData<T>& pd, const std::string& selector) : pd_(pd), D_(pd.problem.dims()) {
    dev_ = ocl::select_device(selector);
    if (std::is_same_v<real_t<T>, double> && !dev_.fp64)
      throw BackendError("device " + dev_.name + " lacks cl_khr_fp64: double precision is not available on it");
    cl_int st;
    ctx_ = clCreateContext(nullptr, 1, &dev_.device, nullptr, nullptr, &st);
    ocl::check(st, "clCreateContext");
    queue_ = clCreateCommandQueue(ctx_, dev_.device, 0, &st);
    ocl::check(st, "clCreateCommandQueue");
    const int q = pd.dims.empty() ? 4 : pd.dims[0].layout.radix;
    std::ostringstream opts;
    opts << "-cl-std=CL1.2 -DKEPT=" << q + 1 << " -DNSRC=" << q - 1;
    if (std::is_same_v<real_t<T>, double>) opts << " -DSCALAR_DOUBLE";
    if (is_complex_v<T>) opts << " -DSCALAR_COMPLEX";
    prog_ = ocl::build_program(ctx_, dev_, kernels::pscr_cl, opts.str());
    for (const char* name : {"form_rhs", "thomas", "accumulate", "update_survivors", "boundary_terms", "child_shifts"}) {
      kernels_.push_back(clCreateKernel(prog_, name, &st));
      ocl::check(st, (std::string("clCreateKernel ") + name).c_str());
    }
    upload_plan();
  }
  ~OpenCLExecutor() override {
    for (auto k : kernels_) clReleaseKernel(k);
    dims_.clear();
    factors_.clear();
    afac_.clear();
    mfac_.clear();
    x_ = Mem();
    sigma0_ = Mem();
    pinned0_ = Mem();
    if (prog_) clReleaseProgram(prog_);
    if (queue_) clReleaseCommandQueue(queue_);
    if (ctx_) clReleaseContext(ctx_);
  }

  double solve_in_place(T* x, std::size_t count) const override {
    const std::size_t N = pd_.problem.unknowns();
    double transfer = 0;
    using clk = std::chrono::steady_clock;
    for (std::size_t c = 0; c < count; ++c) {
      auto t0 = clk::now();
      ocl::check(clEnqueueWriteBuffer(queue_, x_.m, CL_TRUE, 0, N * sizeof(T), x + c * N, 0, nullptr, nullptr),
                 "clEnqueueWriteBuffer");
      transfer += std::chrono::duration<double>(clk::now() - t0).count();
      solve_dim(0, x_.m, 1, sigma0_.m, pinned0_.m);
      ocl::check(clFinish(queue_), "clFinish");
      t0 = clk::now();
      ocl::check(clEnqueueReadBuffer(queue_, x_.m, CL_TRUE, 0, N * sizeof(T), x + c * N, 0, nullptr, nullptr),
                 "clEnqueueReadBuffer");
      transfer += std::chrono::duration<double>(clk::now() - t0).count();
    }
    return transfer;
  }
  std::size_t device_bytes() const override { return bytes_; }
  std::string name() const override { return "opencl: " + dev_.name; }

 private:
  struct LevelBufs {
    int ngroups = 0, modes = 0, nsurv = 0;
    Mem groups, mode_group, W, lambda, zero_flag, survivors;
  };
  struct DimBufs {
    int n = 0;
    std::size_t R = 0;
    int batch = 1;
    std::vector<LevelBufs> levels;
    Mem Y, V, BL, BR, child_sigma, child_pinned, CP;
  };

  Mem alloc(std::size_t bytes, const char* what) {
    bytes = std::max<std::size_t>(bytes, 16);
    if (bytes > dev_.max_alloc) {
      std::ostringstream os;
      os << what << " needs " << bytes << " bytes but the largest allocation on " << dev_.name << " is " << dev_.max_alloc;
      throw AllocationTooLarge(os.str());
    }
    bytes_ += bytes;
    if (bytes_ > dev_.global_mem) {
      std::ostringstream os;
      os << "plan needs at least " << bytes_ << " bytes of device memory; " << dev_.name << " has " << dev_.global_mem;
      throw AllocationTooLarge(os.str());
    }
    cl_int st;
    Mem m;
    m.m = clCreateBuffer(ctx_, CL_MEM_READ_WRITE, bytes, nullptr, &st);
    ocl::check(st, "clCreateBuffer");
    return m;
  }
  template <class V> Mem upload(const std::vector<V>& v, const char* what) {
    Mem m = alloc(v.size() * sizeof(V), what);
    if (!v.empty())
      ocl::check(clEnqueueWriteBuffer(queue_, m.m, CL_TRUE, 0, v.size() * sizeof(V), v.data(), 0, nullptr, nullptr),
                 "clEnqueueWriteBuffer");
    return m;
  }

  void upload_plan() {
    const int q = pd_.dims[0].layout.radix;
    for (int d = 0; d < D_; ++d) {
      const auto& f = pd_.problem.factor(d);
      std::vector<T> packed(f.A.diag);
      packed.insert(packed.end(), f.A.off.begin(), f.A.off.end());
      packed.insert(packed.end(), f.M.diag.begin(), f.M.diag.end());
      packed.insert(packed.end(), f.M.off.begin(), f.M.off.end());
      factors_.push_back(upload(packed, "factor matrices"));
      afac_.push_back(upload(std::vector<T>(packed.begin(), packed.begin() + (2 * f.size() - 1)), "factor matrices"));
      mfac_.push_back(upload(std::vector<T>(packed.begin() + (2 * f.size() - 1), packed.end()), "factor matrices"));
    }
    x_ = alloc(pd_.problem.unknowns() * sizeof(T), "solution vector");
    sigma0_ = upload(std::vector<T>{pd_.problem.c()}, "shift");
    pinned0_ = upload(std::vector<int>{pd_.pure_neumann ? 1 : 0}, "flags");
    int batch = 1;
    for (int d = 0; d + 1 < D_; ++d) {
      const auto& dp = pd_.dims[d];
      DimBufs db;
      db.n = dp.layout.n;
      db.R = pd_.problem.unknowns();
      for (int e = 0; e <= d; ++e) db.R /= pd_.problem.size(e);
      db.batch = batch;
      int maxmodes = 0, maxgroups = 0;
      for (std::size_t i = 0; i < dp.layout.levels.size(); ++i) {
        const auto& lv = dp.layout.levels[i];
        LevelBufs lb;
        std::vector<int> groups, mode_group, zero, surv(lv.survivors);
        std::vector<T> W, lambda;
        for (std::size_t g = 0; g < lv.groups.size(); ++g) {
          const auto& G = lv.groups[g];
          const auto& ref = dp.groups[i][g];
          const auto& ge = dp.eigen[ref.eigen];
          groups.insert(groups.end(), {G.start, G.end, int(G.sources.size()), lb.modes, ge.m});
          for (int p = 0; p < q - 1; ++p) groups.push_back(p < int(G.sources.size()) ? G.sources[p] : 0);
          for (int p = 0; p < q - 1; ++p) groups.push_back(p < int(G.sources.size()) ? ref.source_pos[p] : 0);
          groups.insert(groups.end(), {ref.start_pos, ref.end_pos});
          const bool top = i + 1 == dp.layout.levels.size();
          for (int l = 0; l < ge.m; ++l) {
            mode_group.push_back(int(g));
            lambda.push_back(ge.lambda[l]);
            zero.push_back(top && l == dp.zero_mode ? 1 : 0);
            for (int t = 0; t < q + 1; ++t)
              W.push_back(t < int(ge.rows.size()) ? ge.coeff[std::size_t(t) * ge.m + l] : T(0));
          }
          lb.modes += ge.m;
        }
        lb.ngroups = int(lv.groups.size());
        lb.nsurv = int(lv.survivors.size());
        lb.groups = upload(groups, "group table");
        lb.mode_group = upload(mode_group, "mode table");
        lb.W = upload(W, "eigenvector rows");
        lb.lambda = upload(lambda, "eigenvalues");
        lb.zero_flag = upload(zero, "mode flags");
        lb.survivors = upload(surv, "survivor rows");
        maxmodes = std::max(maxmodes, lb.modes);
        maxgroups = std::max(maxgroups, lb.ngroups);
        db.levels.push_back(std::move(lb));
      }
      const std::size_t lanes = std::size_t(maxmodes) * batch;
      db.Y = alloc(db.R * lanes * sizeof(T), "partial-solution buffer");
      db.V = alloc(std::size_t(maxgroups) * 2 * db.R * batch * sizeof(T), "reduction buffer");
      db.BL = alloc(std::size_t(maxgroups) * db.R * batch * sizeof(T), "boundary buffer");
      db.BR = alloc(std::size_t(maxgroups) * db.R * batch * sizeof(T), "boundary buffer");
      db.child_sigma = alloc(lanes * sizeof(T), "shift buffer");
      db.child_pinned = alloc(lanes * sizeof(int), "flag buffer");
      if (d + 2 == D_) db.CP = alloc(db.R * lanes * sizeof(T), "Thomas buffer");
      batch = int(lanes);
      dims_.push_back(std::move(db));
    }
  }

  template <class... A> void run(int k, std::initializer_list<std::size_t> global, const A&... args) const {
    cl_kernel kern = kernels_[k];
    cl_uint idx = 0;
    (ocl::check(clSetKernelArg(kern, idx++, sizeof(A), &args), "clSetKernelArg"), ...);
    // Work-group sizes are powers of two (at most 64 items), globals rounded up
    // to them: few distinct shapes, so compilers that specialise per shape
    // (PoCL) build few variants. Kernels check their bounds.
    std::size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1};
    int dim = 0;
    std::size_t budget = 64;
    for (auto v : global) {
      const std::size_t want = std::max<std::size_t>(v, 1);
      std::size_t w = 1;
      while (w < want && w * 2 <= budget) w *= 2;
      budget /= w;
      l[dim] = w;
      g[dim] = (want + w - 1) / w * w;
      ++dim;
    }
    ocl::check(clEnqueueNDRangeKernel(queue_, kern, cl_uint(dim), nullptr, g, l, 0, nullptr, nullptr),
               "clEnqueueNDRangeKernel");
  }
  enum { FORM_RHS, THOMAS, ACCUMULATE, UPDATE, BOUNDARY, SHIFTS };

  // Rest-dimension factor buffers for the block products of dimension d.
  void rest_factors(int d, cl_mem& A2, cl_mem& M2, int& n2, cl_mem& A3, cl_mem& M3, int& n3) const {
    A2 = sub(d + 1, false);
    M2 = sub(d + 1, true);
    n2 = int(pd_.problem.size(d + 1));
    if (d + 2 < D_) {
      A3 = sub(d + 2, false);
      M3 = sub(d + 2, true);
      n3 = int(pd_.problem.size(d + 2));
    } else {
      A3 = A2;
      M3 = M2;
      n3 = 0;
    }
  }
  cl_mem sub(int d, bool mass) const { return mass ? mfac_[d].m : afac_[d].m; }

  // PSCR over dimension d for `batch` independent problems stored [n][R][batch].
  void solve_dim(int d, cl_mem X, int batch, cl_mem sigma, cl_mem pinned) const {
    const DimBufs& db = dims_[d];
    const int n = db.n, k = int(db.levels.size());
    const int R = int(db.R);
    cl_mem A2, M2, A3, M3;
    int n2, n3;
    rest_factors(d, A2, M2, n2, A3, M3, n3);
    cl_mem Fd = factors_[d].m;
    const bool leaf = d + 2 == D_;
    auto children = [&](const LevelBufs& lb) {
      const int lines = lb.modes * batch;
      run(SHIFTS, {std::size_t(batch), std::size_t(lb.modes)}, sigma, lb.lambda.m, pinned, lb.zero_flag.m,
          db.child_sigma.m, db.child_pinned.m, batch, lb.modes);
      if (leaf) {
        cl_mem Al = sub(D_ - 1, false), Ml = sub(D_ - 1, true);
        const int nl = int(pd_.problem.size(D_ - 1));
        run(THOMAS, {std::size_t(lines)}, db.Y.m, db.CP.m, Al, Ml, nl, db.child_sigma.m, db.child_pinned.m, lines);
      } else {
        solve_dim(d + 1, db.Y.m, lines, db.child_sigma.m, db.child_pinned.m);
      }
    };
    const cl_mem none = db.BL.m;
    for (int i = 1; i < k; ++i) {
      const LevelBufs& lb = db.levels[i - 1];
      run(FORM_RHS, {std::size_t(batch), std::size_t(lb.modes), std::size_t(R)}, X, db.Y.m, lb.groups.m,
          lb.mode_group.m, lb.W.m, none, none, R, batch, lb.modes, 0);
      children(lb);
      run(ACCUMULATE, {std::size_t(batch), std::size_t(R), std::size_t(lb.ngroups * 2)}, db.Y.m, lb.groups.m, lb.W.m,
          db.V.m, X, R, batch, lb.modes, lb.ngroups, 0);
      if (lb.nsurv > 0)
        run(UPDATE, {std::size_t(batch), std::size_t(R), std::size_t(lb.nsurv)}, X, db.V.m, lb.survivors.m, lb.nsurv,
            lb.ngroups, Fd, n, sigma, R, batch, A2, M2, n2, A3, M3, n3);
    }
    const int q = pd_.dims[0].layout.radix;
    for (int i = k; i >= 1; --i) {
      const LevelBufs& lb = db.levels[i - 1];
      run(BOUNDARY, {std::size_t(batch), std::size_t(R), std::size_t(lb.ngroups)}, X, db.BL.m, db.BR.m, lb.groups.m,
          lb.ngroups, Fd, n, sigma, R, batch, A2, M2, n2, A3, M3, n3);
      run(FORM_RHS, {std::size_t(batch), std::size_t(lb.modes), std::size_t(R)}, X, db.Y.m, lb.groups.m,
          lb.mode_group.m, lb.W.m, db.BL.m, db.BR.m, R, batch, lb.modes, 1);
      children(lb);
      run(ACCUMULATE, {std::size_t(batch), std::size_t(R), std::size_t(lb.ngroups * (q - 1))}, db.Y.m, lb.groups.m,
          lb.W.m, db.V.m, X, R, batch, lb.modes, lb.ngroups, 1);
    }
  }

  const PlanData<T>& pd_;
  int D_;
  ocl::Device dev_;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program prog_ = nullptr;
  std::vector<cl_kernel> kernels_;
  std::vector<Mem> factors_;
  std::vector<DimBufs> dims_;
  std::vector<Mem> afac_, mfac_;  // A_d and M_d as diag|off
  Mem x_, sigma0_, pinned0_;
  std::size_t bytes_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<Executor<T>> make_opencl_executor(const planner::PlanData<T>& plan, const std::string& device) {
  return std::make_unique<OpenCLExecutor<T>>(plan, device);
}

template std::unique_ptr<Executor<float>> make_opencl_executor(const planner::PlanData<float>&, const std::string&);
template std::unique_ptr<Executor<double>> make_opencl_executor(const planner::PlanData<double>&, const std::string&);
template std::unique_ptr<Executor<std::complex<float>>> make_opencl_executor(
    const planner::PlanData<std::complex<float>>&, const std::string&);
template std::unique_ptr<Executor<std::complex<double>>> make_opencl_executor(
    const planner::PlanData<std::complex<double>>&, const std::string&);

}  // namespace pscr
