// Fused partial-solution kernel of the reference executor (internal): for B
// modes at once, forms the right-hand sides Σ_p w[p][b]·src_p during the
// forward Thomas sweep and accumulates Σ_b v[t][b]·y_b into the outputs
// during the backward sweep, so each pass touches memory once.
#pragma once
#include <array>
#include <cstddef>
#include <vector>

#include "pscr/problem.hpp"
#include "thomas.hpp"

namespace pscr::reference {

// Sized by the group: a radix-q group has up to q − 1 source rows plus the two
// boundary products as sources, and up to q − 1 outputs.
template <int B, class T> struct ModeBatch {
  T sigma[B];                          // shifts σ + λ_l
  std::vector<const T*> src;           // source rows (F_r, and the boundary products bl, br)
  std::vector<std::array<T, B>> wsrc;  // their weights per mode (W[r,l], or −W[s,l], −W[e,l])
  std::vector<sweep_t<T>*> out;        // accumulated outputs (in the sweep's precision)
  std::vector<std::array<T, B>> wout;  // W[r,l] of each output row per mode
};

// y and cp: n·B entries of sweep_t<T> each.
template <int B, class T>
void partial_solution_batch(const LineSystem<T>& sys, const ModeBatch<B, T>& mb, sweep_t<T>* __restrict y,
                            sweep_t<T>* __restrict cp) {
  using S = sweep_t<T>;
  const std::size_t n = sys.n;
  const int ns = int(mb.src.size()), no = int(mb.out.size());
  S r[B];  // excess form: ê/p of the previous row
  for (int b = 0; b < B; ++b) r[b] = S(0);
  // Forward sweep with the right-hand side formed on the fly.
  for (std::size_t i = 0; i < n; ++i) {
    T g[B];
#pragma omp simd
    for (int b = 0; b < B; ++b) g[b] = T(0);
    for (int p = 0; p < ns; ++p) {
      const T v = mb.src[p][i];
#pragma omp simd
      for (int b = 0; b < B; ++b) g[b] += mb.wsrc[p][b] * v;
    }
    S* __restrict yi = y + i * B;
    S* __restrict ci = cp + i * B;
    for (int b = 0; b < B; ++b) {
      const S s = mb.sigma[b], lo = sys.lower(i, s), up = sys.upper(i, s);
      const S cq = i > 0 ? ci[b - B] : S(0), yp = i > 0 ? yi[b - B] : S(0);
      const S inv = sys.pivot_reciprocal(lo, up, sys.diagonal(i, s, lo, up), cq, r[b]);
      ci[b] = up * inv;
      yi[b] = (S(g[b]) - lo * yp) * inv;
    }
  }
  // Backward sweep with the outputs accumulated on the fly.
  for (std::size_t i = n; i-- > 0;) {
    S* __restrict yi = y + i * B;
    if (i + 1 < n) {
      const S* __restrict yn = yi + B;
      const S* __restrict ci = cp + i * B;
#pragma omp simd
      for (int b = 0; b < B; ++b) yi[b] -= ci[b] * yn[b];
    }
    for (int t = 0; t < no; ++t) {
      S s = 0;
      for (int b = 0; b < B; ++b) s += S(mb.wout[t][b]) * yi[b];
      mb.out[t][i] += s;
    }
  }
}

}  // namespace pscr::reference
