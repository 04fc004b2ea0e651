#!/usr/bin/env python3
"""2D channel anchor on the GPU machine (CuPy: cuFFT + a Thomas kernel), the 2D form of the
channel solvers' algorithm (../shared/tools/cupy_channel_poisson.py): -div grad u = f on a strip
periodic in x (uniform, nx points, period 2 pi) and graded in y (ny interior points, Dirichlet walls,
largest/smallest cell = --ratio). Second-order finite differences in x, mass-lumped linear elements
in y: A = Ax (x) My + Mx (x) Ay with Mx = hx I, Ax = circulant(2, -1, -1)/hx, divided by hx (the
pencils of pscr-bench --problem channel --dim 2). Solve: one real FFT in x, one tridiagonal system
in y per Fourier mode (Ay + lx My), the inverse FFT; data resident on the GPU.

  python3 cupy_channel_poisson_2d.py [--shape 4096,4095] [--precision double|float] [--ratio 30]
                                     [--reps 10] [--json FILE]

Prints the median solve time (CUDA events) and the forward error max|u - u*|/max|u*| against a
manufactured solution u* (f = A u* in double)."""
import argparse, json, numpy as np, cupy as cp

THOMAS = r'''
#include <cupy/complex.cuh>
template<typename R, typename C>
__device__ void thomas(const R* ad, const R* ao, const R* md, const R* shift, C* x, R* cp_, int nm, int ny) {
  int m = blockDim.x * blockIdx.x + threadIdx.x; if (m >= nm) return;
  R s = shift[m]; R c_prev = 0; C d_prev = C(0);
  for (int j = 0; j < ny; ++j) {                    // x[j*nm + m] is row j of mode m: coalesced over modes
    R a = j > 0 ? ao[j - 1] : R(0), c = j < ny - 1 ? ao[j] : R(0);
    R den = ad[j] + s * md[j] - a * c_prev;
    c_prev = c / den; cp_[j * nm + m] = c_prev;
    C d = (x[j * nm + m] - a * d_prev) / den; x[j * nm + m] = d; d_prev = d;
  }
  for (int j = ny - 2; j >= 0; --j) x[j * nm + m] = x[j * nm + m] - cp_[j * nm + m] * x[(j + 1) * nm + m];
}
extern "C" __global__ void thomas_d(const double* ad, const double* ao, const double* md, const double* sh,
                                    complex<double>* x, double* c, int nm, int ny) { thomas(ad, ao, md, sh, x, c, nm, ny); }
extern "C" __global__ void thomas_f(const float* ad, const float* ao, const float* md, const float* sh,
                                    complex<float>* x, float* c, int nm, int ny) { thomas(ad, ao, md, sh, x, c, nm, ny); }
'''


def graded(n, ratio):
    q = ratio ** (1.0 / n) if ratio != 1 else 1.0
    h = q ** np.arange(n + 1)
    h /= h.sum()
    return h


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--shape', default='4096,4095'); ap.add_argument('--precision', default='double')
    ap.add_argument('--ratio', type=float, default=30.0); ap.add_argument('--reps', type=int, default=10)
    ap.add_argument('--json')
    a = ap.parse_args()
    nx, ny = map(int, a.shape.split(','))
    R = np.float64 if a.precision == 'double' else np.float32
    hx = 2 * np.pi / nx
    h = graded(ny, a.ratio)
    ad = 1 / h[:-1] + 1 / h[1:]; ao = -1 / h[1:-1]; md = (h[:-1] + h[1:]) / 2
    rng = np.random.default_rng(3)
    us = cp.asarray(rng.standard_normal((nx, ny)))  # layout u[x, y]
    adc, aoc, mdc = cp.asarray(ad), cp.asarray(ao), cp.asarray(md)
    Ay = lambda v: v * adc[None, :] + cp.pad(v[:, 1:] * aoc[None, :], ((0, 0), (0, 1))) \
        + cp.pad(v[:, :-1] * aoc[None, :], ((0, 0), (1, 0)))
    My = lambda v: v * mdc[None, :]
    lapx = lambda v: (2 * v - cp.roll(v, 1, 0) - cp.roll(v, -1, 0)) / hx
    f = ((lapx(My(us)) + Ay(us) * hx) / hx).astype(R)  # A u*, divided by hx
    kx = np.arange(nx // 2 + 1)
    lx = (2 - 2 * np.cos(2 * np.pi * kx / nx)) / hx ** 2
    nm = nx // 2 + 1
    shift = cp.asarray(lx.astype(R))
    adg, aog, mdg = (cp.asarray(v.astype(R)) for v in (ad, ao, md))
    mod = cp.RawModule(code=THOMAS, options=('-std=c++17',))
    kern = mod.get_function('thomas_d' if R == np.float64 else 'thomas_f')
    cbuf = cp.empty((ny, nm), R); tpb = 128; blocks = (nm + tpb - 1) // tpb

    def solve():
        g = cp.fft.rfft(f, axis=0)                 # (nx/2+1, ny) complex
        x = cp.ascontiguousarray(g.T)              # rows y, modes contiguous
        kern((blocks,), (tpb,), (adg, aog, mdg, shift, x, cbuf, np.int32(nm), np.int32(ny)))
        return cp.fft.irfft(x.T, n=nx, axis=0)

    u = solve()
    err = float(cp.abs(u.astype(np.float64) - us).max() / cp.abs(us).max())
    s, e, ts = cp.cuda.Event(), cp.cuda.Event(), []
    for _ in range(a.reps):
        s.record(); solve(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    ms = float(np.median(ts))
    print(f"channel 2D (cuFFT x + Thomas y) {nx}x{ny} {a.precision} ratio {a.ratio:g}: median {ms:.3f} ms, "
          f"forward error {err:.1e}", flush=True)
    if a.json:
        with open(a.json, 'a') as fh:
            fh.write(json.dumps({'anchor': 'cupy-channel-2d', 'shape': [nx, ny], 'precision': a.precision,
                                 'ratio': a.ratio, 'median_ms': ms, 'forward_error': err}) + '\n')


if __name__ == '__main__':
    main()
