// The C API (include/pscr/pscr.h): plans held in a variant over the four
// scalar types; every exception becomes a status and a per-thread message.
#include "pscr/pscr.h"

#include <complex>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <variant>

#include "pscr/opencl.hpp"
#include "pscr/pscr.hpp"
#include "size_product.hpp"

struct pscr_plan {
  std::variant<pscr::Plan<float>, pscr::Plan<double>, pscr::Plan<std::complex<float>>,
               pscr::Plan<std::complex<double>>>
      plan;
  pscr_dtype dtype;
  std::size_t unknowns;
};

namespace {

thread_local std::string last_error;

template <class P> struct plan_scalar;
template <class T> struct plan_scalar<pscr::Plan<T>> { using type = T; };

// The status of each pscr::Error class (most derived first).
pscr_status status_of(const pscr::Error& e) {
  if (dynamic_cast<const pscr::KernelBuildError*>(&e)) return PSCR_KERNEL_BUILD_ERROR;
  if (dynamic_cast<const pscr::BackendError*>(&e)) return PSCR_BACKEND_ERROR;
  if (dynamic_cast<const pscr::SizeMismatch*>(&e)) return PSCR_SIZE_MISMATCH;
  if (dynamic_cast<const pscr::InvalidArgument*>(&e)) return PSCR_INVALID_ARGUMENT;
  if (dynamic_cast<const pscr::NonFiniteInput*>(&e)) return PSCR_NON_FINITE_INPUT;
  if (dynamic_cast<const pscr::SingularPencil*>(&e)) return PSCR_SINGULAR_PENCIL;
  if (dynamic_cast<const pscr::NumericalBreakdown*>(&e)) return PSCR_NUMERICAL_BREAKDOWN;
  if (dynamic_cast<const pscr::AllocationTooLarge*>(&e)) return PSCR_ALLOCATION_TOO_LARGE;
  if (dynamic_cast<const pscr::FileFormatError*>(&e)) return PSCR_FILE_FORMAT_ERROR;
  return PSCR_UNKNOWN_ERROR;
}

// Runs f; an exception becomes its status and the thread's last message.
template <class F> pscr_status guarded(F&& f) {
  last_error.clear();
  try {
    f();
    return PSCR_OK;
  } catch (const pscr::Error& e) {
    last_error = e.what();
    return status_of(e);
  } catch (const std::bad_alloc& e) {
    last_error = std::string("out of host memory (") + e.what() + ")";
    return PSCR_ALLOCATION_TOO_LARGE;
  } catch (const std::exception& e) {
    last_error = e.what();
    return PSCR_UNKNOWN_ERROR;
  } catch (...) {
    last_error = "unknown error";
    return PSCR_UNKNOWN_ERROR;
  }
}

template <class T>
pscr::Plan<T> make_plan(int dims, const size_t* n, const int* periodic, const void* const* a_diag,
                        const void* const* a_off, const void* const* m_diag, const void* const* m_off, const void* c,
                        const pscr::Options& o) {
  std::vector<pscr::Factor<T>> fs;
  for (int d = 0; d < dims; ++d) {
    if (n[d] < 1) throw pscr::InvalidArgument("pscr_plan_create: n[" + std::to_string(d) + "] = 0");
    pscr::size_product({n[d], sizeof(T)}, ("pscr_plan_create: n[" + std::to_string(d) + "] × bytes per scalar").c_str());
    if (!a_diag[d] || !m_diag[d] || (n[d] > 1 && (!a_off[d] || !m_off[d])))
      throw pscr::InvalidArgument("pscr_plan_create: null factor array for dimension " + std::to_string(d + 1));
    auto vec = [&](const void* p, std::size_t len) {
      const T* t = static_cast<const T*>(p);
      return std::vector<T>(t, t + len);
    };
    const bool cyclic = periodic && periodic[d];
    if (cyclic && n[d] < 3)
      throw pscr::InvalidArgument("pscr_plan_create_periodic: periodic dimension " + std::to_string(d + 1) +
                                  " of size n = " + std::to_string(n[d]) + " (needs n >= 3)");
    const std::size_t offs = cyclic ? n[d] : n[d] - 1;  // a cyclic factor's corner is off[n-1]
    pscr::Factor<T> f;
    f.A = pscr::Tridiagonal<T>(vec(a_diag[d], n[d]), vec(a_off[d], offs));
    f.M = pscr::Tridiagonal<T>(vec(m_diag[d], n[d]), vec(m_off[d], offs));
    fs.push_back(std::move(f));
  }
  return pscr::Plan<T>(pscr::Problem<T>(std::move(fs), *static_cast<const T*>(c)), o);
}

}  // namespace

extern "C" {

void pscr_options_default(pscr_options* options) {
  if (!options) return;
  const pscr::Options o;
  options->backend = PSCR_BACKEND_REFERENCE;
  options->radix = o.radix;
  options->threads = o.threads;
  options->device = nullptr;
  options->refine = o.refine;
}

pscr_status pscr_plan_create(pscr_plan** plan, pscr_dtype dtype, int dims, const size_t* n, const void* const* a_diag,
                             const void* const* a_off, const void* const* m_diag, const void* const* m_off,
                             const void* c, const pscr_options* options) {
  return pscr_plan_create_periodic(plan, dtype, dims, n, nullptr, a_diag, a_off, m_diag, m_off, c, options);
}

pscr_status pscr_plan_create_periodic(pscr_plan** plan, pscr_dtype dtype, int dims, const size_t* n,
                                      const int* periodic, const void* const* a_diag, const void* const* a_off,
                                      const void* const* m_diag, const void* const* m_off, const void* c,
                                      const pscr_options* options) {
  return guarded([&] {
    if (!plan) throw pscr::InvalidArgument("pscr_plan_create: null plan pointer");
    *plan = nullptr;
    if (dims != 2 && dims != 3) throw pscr::InvalidArgument("pscr_plan_create: dims = " + std::to_string(dims) + " (2 or 3)");
    if (!n || !a_diag || !a_off || !m_diag || !m_off || !c) throw pscr::InvalidArgument("pscr_plan_create: null argument");
    pscr::Options o;
    if (options) {
      if (options->backend != PSCR_BACKEND_REFERENCE && options->backend != PSCR_BACKEND_OPENCL)
        throw pscr::InvalidArgument("pscr_plan_create: unknown backend " + std::to_string(int(options->backend)));
      o.backend = options->backend == PSCR_BACKEND_OPENCL ? pscr::Backend::opencl : pscr::Backend::reference;
      o.radix = options->radix;
      o.threads = options->threads;
      if (options->device) o.device = options->device;
      o.refine = options->refine;
    }
    auto make = [&](auto tag) {
      using T = decltype(tag);
      auto p = make_plan<T>(dims, n, periodic, a_diag, a_off, m_diag, m_off, c, o);
      const std::size_t N = p.problem().unknowns();
      return new pscr_plan{std::move(p), dtype, N};
    };
    switch (dtype) {
      case PSCR_FLOAT32: *plan = make(float{}); break;
      case PSCR_FLOAT64: *plan = make(double{}); break;
      case PSCR_COMPLEX64: *plan = make(std::complex<float>{}); break;
      case PSCR_COMPLEX128: *plan = make(std::complex<double>{}); break;
      default: throw pscr::InvalidArgument("pscr_plan_create: unknown dtype " + std::to_string(int(dtype)));
    }
  });
}

pscr_status pscr_solve(const pscr_plan* plan, const void* f, void* u, size_t count) {
  return guarded([&] {
    if (!plan) throw pscr::InvalidArgument("pscr_solve: null plan");
    std::visit(
        [&](const auto& p) {
          using T = typename plan_scalar<std::decay_t<decltype(p)>>::type;
          p.solve_batch(static_cast<const T*>(f), static_cast<T*>(u), count);
        },
        plan->plan);
  });
}

namespace {
// The buffers pscr_pinned_alloc handed out, by their first byte.
std::mutex pinned_mutex;
std::map<void*, pscr::opencl::PinnedBuffer>& pinned_buffers() {
  static std::map<void*, pscr::opencl::PinnedBuffer> m;
  return m;
}
}  // namespace

pscr_status pscr_pinned_alloc(const pscr_plan* plan, size_t count, void** memory) {
  if (memory) *memory = nullptr;
  return guarded([&] {
    if (!plan) throw pscr::InvalidArgument("pscr_pinned_alloc: null plan");
    if (!memory) throw pscr::InvalidArgument("pscr_pinned_alloc: null memory");
    pscr::opencl::PinnedBuffer buf = std::visit(
        [&](const auto& p) { return pscr::opencl::pinned_buffer(p, pscr::size_product({count, plan->unknowns}, "pscr_pinned_alloc")); },
        plan->plan);
    void* first = buf.data();
    const std::lock_guard<std::mutex> lock(pinned_mutex);
    pinned_buffers().emplace(first, std::move(buf));
    *memory = first;
  });
}

pscr_status pscr_pinned_free(void* memory) {
  return guarded([&] {
    if (!memory) return;
    const std::lock_guard<std::mutex> lock(pinned_mutex);
    if (pinned_buffers().erase(memory) == 0)
      throw pscr::InvalidArgument("pscr_pinned_free: not memory from pscr_pinned_alloc");
  });
}

// A null plan is reported as by the other calls (the thread's last error), with a value no plan has.
size_t pscr_plan_unknowns(const pscr_plan* plan) {
  size_t unknowns = 0;
  guarded([&] {
    if (!plan) throw pscr::InvalidArgument("pscr_plan_unknowns: null plan");
    unknowns = plan->unknowns;
  });
  return unknowns;
}
pscr_dtype pscr_plan_dtype(const pscr_plan* plan) {
  pscr_dtype dtype = PSCR_DTYPE_INVALID;
  guarded([&] {
    if (!plan) throw pscr::InvalidArgument("pscr_plan_dtype: null plan");
    dtype = plan->dtype;
  });
  return dtype;
}
double pscr_plan_predicted_error(const pscr_plan* plan) {
  double error = -1;
  guarded([&] {
    if (!plan) throw pscr::InvalidArgument("pscr_plan_predicted_error: null plan");
    error = std::visit([](auto& p) { return p.info().predicted_error; }, plan->plan);
  });
  return error;
}
const char* pscr_plan_warning(const pscr_plan* plan) {
  const char* warning = nullptr;
  guarded([&] {
    if (!plan) throw pscr::InvalidArgument("pscr_plan_warning: null plan");
    warning = std::visit([](auto& p) { return p.info().warning.c_str(); }, plan->plan);
  });
  return warning;
}
void pscr_plan_destroy(pscr_plan* plan) { delete plan; }
const char* pscr_last_error(void) { return last_error.c_str(); }
const char* pscr_version_string(void) { return pscr::version(); }

}  // extern "C"
