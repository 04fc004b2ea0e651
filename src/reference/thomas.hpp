// Thomas solves of (A + σM) y = g, coefficients generated from the factor
// pencil and σ, never stored per system (internal).
#pragma once
#include <cstddef>
#include <vector>

#include "pscr/problem.hpp"

namespace pscr::reference {

// B systems at once, interleaved: y[i*B + b] is entry i of system b with shift
// sigma[b]. Interleaving hides the division latency of the recurrence.
template <int B, class T> void thomas_batch(const Factor<T>& f, const T* sigma, T* y, T* cp) {
  const std::size_t n = f.size();
  const T* Ad = f.A.diag.data();
  const T* Md = f.M.diag.data();
  const T* Ao = f.A.off.data();
  const T* Mo = f.M.off.data();
  T s[B];
  for (int b = 0; b < B; ++b) s[b] = sigma[b];
  for (int b = 0; b < B; ++b) {
    const T inv = T(1) / (Ad[0] + s[b] * Md[0]);
    cp[b] = n > 1 ? (Ao[0] + s[b] * Mo[0]) * inv : T(0);
    y[b] *= inv;
  }
  for (std::size_t i = 1; i < n; ++i) {
    const T ad = Ad[i], md = Md[i], alo = Ao[i - 1], mlo = Mo[i - 1];
    const T aup = i + 1 < n ? Ao[i] : T(0), mup = i + 1 < n ? Mo[i] : T(0);
    T* yi = y + i * B;
    const T* yp = yi - B;
    T* ci = cp + i * B;
    const T* cq = ci - B;
    for (int b = 0; b < B; ++b) {
      const T lo = alo + s[b] * mlo;
      const T inv = T(1) / (ad + s[b] * md - lo * cq[b]);
      ci[b] = (aup + s[b] * mup) * inv;
      yi[b] = (yi[b] - lo * yp[b]) * inv;
    }
  }
  for (std::size_t i = n - 1; i-- > 0;) {
    T* yi = y + i * B;
    const T* yn = yi + B;
    const T* ci = cp + i * B;
    for (int b = 0; b < B; ++b) yi[b] -= ci[b] * yn[b];
  }
}

// One system; `pinned` solves the singular pure-Neumann system A y = g
// (σ = 0, constant null space) in the least-squares sense: g loses its mean,
// then y[n-1] = 0 and the leading (n-1) system is solved.
template <class T> void thomas_single(const Factor<T>& f, T sigma, bool pinned, T* y, T* cp) {
  const std::size_t n = f.size();
  if (!pinned) {
    thomas_batch<1>(f, &sigma, y, cp);
    return;
  }
  T mean = 0;
  for (std::size_t i = 0; i < n; ++i) mean += y[i];
  mean /= T(static_cast<real_t<T>>(n));
  for (std::size_t i = 0; i < n; ++i) y[i] -= mean;
  y[n - 1] = 0;
  if (n == 1) return;
  Factor<T> lead{Tridiagonal<T>(std::vector<T>(f.A.diag.begin(), f.A.diag.end() - 1),
                                std::vector<T>(f.A.off.begin(), f.A.off.end() - 1)),
                 Tridiagonal<T>(std::vector<T>(f.M.diag.begin(), f.M.diag.end() - 1),
                                std::vector<T>(f.M.off.begin(), f.M.off.end() - 1))};
  thomas_batch<1>(lead, &sigma, y, cp);
}

}  // namespace pscr::reference
