// Lanes of doubles and the host-thread loop shared by the eigensolvers of the
// planner (internal). The sweeps of twisted_eigen.cpp and pencil_roots.cpp run
// several independent recurrences side by side, so that the divisions
// pipeline instead of waiting on each other; clones for wider vector units are
// picked at load time (not under ThreadSanitizer, whose run time starts after
// the clone resolvers).
#pragma once

#pragma GCC diagnostic ignored "-Wpsabi"  // vector arguments of internal inline helpers only
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define PSCR_LANE_CLONES __attribute__((target_clones("default", "avx2", "avx512f")))
#else
#define PSCR_LANE_CLONES
#endif

namespace pscr::planner {
namespace lanes {

// Eight lanes of doubles (GCC/Clang vector extension; one AVX-512 register,
// two AVX2 or four SSE2 ones). Explicit vectors, because the compilers unroll
// short lane loops into scalar code at -O3 instead of vectorising them.
using Vec = double __attribute__((vector_size(64)));
using VecU = double __attribute__((vector_size(64), aligned(8)));  // unaligned access to arrays
constexpr int kVec = 8;
inline Vec splat(double v) { return Vec{} + v; }
inline Vec load(const double* p) { return *reinterpret_cast<const VecU*>(p); }
inline void store(double* p, Vec v) { *reinterpret_cast<VecU*>(p) = v; }
inline Vec vabs(Vec v) { return v < 0 ? -v : v; }
// real pivots below pivmin in magnitude are replaced by −pivmin (dstebz's
// safeguard: the replaced pivot counts as negative)
inline Vec guard_real(Vec v, double pivmin) { return vabs(v) < pivmin ? splat(-pivmin) : v; }

}  // namespace lanes

// f(0 .. n−1) over the host threads (one thread when called inside a
// parallel region: the planner runs small pencils side by side and large
// ones one after another).
template <class F> void parallel_for(int n, bool parallel, const F& f) {
#pragma omp parallel for schedule(dynamic, 1) if (parallel && n > 1)
  for (int i = 0; i < n; ++i) f(i);
}

}  // namespace pscr::planner
