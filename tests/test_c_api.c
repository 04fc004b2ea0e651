/* The C API from C99: 2D Poisson in double and float and a complex symmetric
 * problem against residuals computed here, a batch in place, and each error
 * path returning its status with a message. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pscr/pscr.h"

static int failures = 0, passed = 0;
static void check(const char* what, int ok) {
  if (ok) ++passed;
  else {
    ++failures;
    printf("FAIL %s (last error: %s)\n", what, pscr_last_error());
  }
}

/* y = (A1⊗M2 + M1⊗A2 + c M1⊗M2) x for tridiagonal factors given as arrays (double). */
static void tri_apply(size_t n, const double* d, const double* o, const double* x, size_t stride, double* y) {
  for (size_t i = 0; i < n; ++i) {
    double v = d[i] * x[i * stride];
    if (i > 0) v += o[i - 1] * x[(i - 1) * stride];
    if (i + 1 < n) v += o[i] * x[(i + 1) * stride];
    y[i * stride] = v;
  }
}
static double residual2d(size_t n1, size_t n2, const double* a1d, const double* a1o, const double* m1d,
                         const double* m1o, const double* a2d, const double* a2o, const double* m2d,
                         const double* m2o, double c, const double* u, const double* f) {
  const size_t N = n1 * n2;
  double* t = malloc(N * sizeof(double));
  double* s = malloc(N * sizeof(double));
  double* y = calloc(N, sizeof(double));
  /* A1⊗M2: M2 along index 2 then A1 along index 1; likewise the other terms */
  const double* first[3] = {a1d, m1d, m1d}, *firsto[3] = {a1o, m1o, m1o};
  const double* second[3] = {m2d, a2d, m2d}, *secondo[3] = {m2o, a2o, m2o};
  const double scale[3] = {1, 1, c};
  for (int term = 0; term < 3; ++term) {
    for (size_t i = 0; i < n1; ++i) tri_apply(n2, second[term], secondo[term], u + i * n2, 1, t + i * n2);
    for (size_t j = 0; j < n2; ++j) tri_apply(n1, first[term], firsto[term], t + j, n2, s + j);
    for (size_t k = 0; k < N; ++k) y[k] += scale[term] * s[k];
  }
  double num = 0, den = 0;
  for (size_t k = 0; k < N; ++k) {
    num += (f[k] - y[k]) * (f[k] - y[k]);
    den += f[k] * f[k];
  }
  free(t);
  free(s);
  free(y);
  return sqrt(num / den);
}

int main(void) {
  enum { N1 = 37, N2 = 29 };
  double a1d[N1], a1o[N1], m1d[N1], m1o[N1], a2d[N2], a2o[N2], m2d[N2], m2o[N2];
  for (int i = 0; i < N1; ++i) { a1d[i] = 2.5 + 0.01 * i; a1o[i] = -1.0; m1d[i] = 1.0 + 0.002 * i; m1o[i] = 0.1; }
  for (int i = 0; i < N2; ++i) { a2d[i] = 3.0 - 0.01 * i; a2o[i] = -1.2; m2d[i] = 0.8; m2o[i] = 0.05; }
  const size_t n[2] = {N1, N2};
  const void* ad[2] = {a1d, a2d};
  const void* ao[2] = {a1o, a2o};
  const void* md[2] = {m1d, m2d};
  const void* mo[2] = {m1o, m2o};
  const double c = 0.3;
  pscr_options o;
  pscr_options_default(&o);
  check("default radix automatic (0)", o.radix == 0 && o.backend == PSCR_BACKEND_REFERENCE);

  /* double, two right-hand sides, the second solved in place */
  pscr_plan* plan = NULL;
  check("create double", pscr_plan_create(&plan, PSCR_FLOAT64, 2, n, ad, ao, md, mo, &c, &o) == PSCR_OK && plan);
  check("unknowns", pscr_plan_unknowns(plan) == (size_t)N1 * N2 && pscr_plan_dtype(plan) == PSCR_FLOAT64);
  const size_t N = (size_t)N1 * N2;
  double* f = malloc(2 * N * sizeof(double));
  double* u = malloc(2 * N * sizeof(double));
  for (size_t k = 0; k < 2 * N; ++k) f[k] = sin(0.37 * (double)k) + 0.1;
  memcpy(u + N, f + N, N * sizeof(double));
  check("solve double", pscr_solve(plan, f, u, 1) == PSCR_OK);
  check("solve double in place", pscr_solve(plan, u + N, u + N, 1) == PSCR_OK);
  const double r0 = residual2d(N1, N2, a1d, a1o, m1d, m1o, a2d, a2o, m2d, m2o, c, u, f);
  const double r1 = residual2d(N1, N2, a1d, a1o, m1d, m1o, a2d, a2o, m2d, m2o, c, u + N, f + N);
  printf("double residuals %.2e %.2e\n", r0, r1);
  check("double residual", r0 < 1e-13 && r1 < 1e-13);

  /* errors: NaN right-hand side, null arrays, bad radix, bad dims, bad dtype */
  f[5] = NAN;
  check("NaN refused", pscr_solve(plan, f, u, 1) == PSCR_NON_FINITE_INPUT && strstr(pscr_last_error(), "non-finite"));
  check("null array refused", pscr_solve(plan, NULL, u, 1) == PSCR_INVALID_ARGUMENT);
  check("message cleared by a good call", pscr_solve(plan, u, u, 1) == PSCR_OK && pscr_last_error()[0] == 0);
  /* count × unknowns (× 8 bytes) past size_t: refused, not wrapped into a short copy (it crashed) */
  check("batch of entries past size_t refused", pscr_solve(plan, f, u, SIZE_MAX / N + 2) == PSCR_ALLOCATION_TOO_LARGE &&
                                                    strstr(pscr_last_error(), "overflows size_t"));
  check("batch of bytes past size_t refused",
        pscr_solve(plan, f, u, SIZE_MAX / (N * sizeof(double)) + 1) == PSCR_ALLOCATION_TOO_LARGE &&
            strstr(pscr_last_error(), "overflows size_t"));
  /* an empty batch solves nothing, null arrays allowed */
  u[0] = 12345.0;
  check("empty batch", pscr_solve(plan, f, u, 0) == PSCR_OK && pscr_last_error()[0] == 0 && u[0] == 12345.0);
  check("empty batch of null arrays", pscr_solve(plan, NULL, NULL, 0) == PSCR_OK && pscr_last_error()[0] == 0);
  /* a null plan, reported by every call */
  check("null plan: solve", pscr_solve(NULL, f, u, 1) == PSCR_INVALID_ARGUMENT && strstr(pscr_last_error(), "null plan"));
  check("null plan: dtype", pscr_plan_dtype(NULL) == PSCR_DTYPE_INVALID && strstr(pscr_last_error(), "null plan"));
  check("null plan: unknowns", pscr_plan_unknowns(NULL) == 0 && strstr(pscr_last_error(), "null plan"));
  check("getter clears the message", pscr_plan_dtype(plan) == PSCR_FLOAT64 && pscr_last_error()[0] == 0);
  check("predicted error of a definite plan", pscr_plan_predicted_error(plan) > 0 &&
                                                  pscr_plan_predicted_error(plan) < 1e-10 &&
                                                  strcmp(pscr_plan_warning(plan), "") == 0);
  check("null plan: predicted error", pscr_plan_predicted_error(NULL) == -1 && strstr(pscr_last_error(), "null plan"));
  check("null plan: warning", pscr_plan_warning(NULL) == NULL && strstr(pscr_last_error(), "null plan"));
  pscr_plan_destroy(plan);
  pscr_plan* bad = NULL;
  o.radix = 1;
  check("radix 1 refused", pscr_plan_create(&bad, PSCR_FLOAT64, 2, n, ad, ao, md, mo, &c, &o) == PSCR_INVALID_ARGUMENT &&
                               bad == NULL && strstr(pscr_last_error(), "radix"));
  o.radix = 4;
  check("dims 4 refused", pscr_plan_create(&bad, PSCR_FLOAT64, 4, n, ad, ao, md, mo, &c, &o) == PSCR_INVALID_ARGUMENT);
  check("dtype 9 refused", pscr_plan_create(&bad, (pscr_dtype)9, 2, n, ad, ao, md, mo, &c, &o) == PSCR_INVALID_ARGUMENT);
  /* more rows than any host holds: the copy of the factors cannot be allocated */
  const size_t huge[2] = {(size_t)1 << 50, N2};
  check("host memory exhausted", pscr_plan_create(&bad, PSCR_FLOAT64, 2, huge, ad, ao, md, mo, &c, &o) ==
                                     PSCR_ALLOCATION_TOO_LARGE && bad == NULL && strstr(pscr_last_error(), "memory"));
  /* rows whose bytes overflow size_t */
  const size_t past[2] = {SIZE_MAX / 4, N2};
  check("rows past size_t refused", pscr_plan_create(&bad, PSCR_FLOAT64, 2, past, ad, ao, md, mo, &c, &o) ==
                                        PSCR_ALLOCATION_TOO_LARGE && bad == NULL &&
                                        strstr(pscr_last_error(), "overflows size_t"));
  /* a singular operator: c = −(λ_min of both pencils) is not generally hit, so use the pure-Neumann-free
     singular case of a zero mass matrix */
  double zero[N1];
  for (int i = 0; i < N1; ++i) zero[i] = 0.0;
  const void* mdz[2] = {zero, m2d};
  const void* moz[2] = {zero, m2o};
  check("singular mass refused", pscr_plan_create(&bad, PSCR_FLOAT64, 2, n, ad, ao, mdz, moz, &c, &o) != PSCR_OK &&
                                     pscr_last_error()[0] != 0);

  /* float and complex double: the same operator, residuals in double */
  float a1df[N1], a1of[N1], m1df[N1], m1of[N1], a2df[N2], a2of[N2], m2df[N2], m2of[N2];
  for (int i = 0; i < N1; ++i) { a1df[i] = (float)a1d[i]; a1of[i] = (float)a1o[i]; m1df[i] = (float)m1d[i]; m1of[i] = (float)m1o[i]; }
  for (int i = 0; i < N2; ++i) { a2df[i] = (float)a2d[i]; a2of[i] = (float)a2o[i]; m2df[i] = (float)m2d[i]; m2of[i] = (float)m2o[i]; }
  const void* adf[2] = {a1df, a2df};
  const void* aof[2] = {a1of, a2of};
  const void* mdf[2] = {m1df, m2df};
  const void* mof[2] = {m1of, m2of};
  const float cf = 0.3f;
  pscr_plan* pf = NULL;
  check("create float", pscr_plan_create(&pf, PSCR_FLOAT32, 2, n, adf, aof, mdf, mof, &cf, NULL) == PSCR_OK);
  float* ff = malloc(N * sizeof(float));
  float* uf = malloc(N * sizeof(float));
  double* ud = malloc(N * sizeof(double));
  double* fd = malloc(N * sizeof(double));
  for (size_t k = 0; k < N; ++k) { ff[k] = (float)(sin(0.37 * (double)k) + 0.1); fd[k] = ff[k]; }
  check("solve float", pscr_solve(pf, ff, uf, 1) == PSCR_OK);
  for (size_t k = 0; k < N; ++k) ud[k] = uf[k];
  double a1dd[N1], a1od[N1], m1dd[N1], m1od[N1], a2dd[N2], a2od[N2], m2dd[N2], m2od[N2];
  for (int i = 0; i < N1; ++i) { a1dd[i] = a1df[i]; a1od[i] = a1of[i]; m1dd[i] = m1df[i]; m1od[i] = m1of[i]; }
  for (int i = 0; i < N2; ++i) { a2dd[i] = a2df[i]; a2od[i] = a2of[i]; m2dd[i] = m2df[i]; m2od[i] = m2of[i]; }
  const double rf = residual2d(N1, N2, a1dd, a1od, m1dd, m1od, a2dd, a2od, m2dd, m2od, (double)cf, ud, fd);
  printf("float residual %.2e\n", rf);
  check("float residual", rf < 1e-5);
  pscr_plan_destroy(pf);
  /* an indefinite float operator 1e-3 from singular (Laplacians, c just above minus their smallest
     eigenvalues): condition 1e4, fewer than half the digits of float kept, and the plan says so */
  {
    float ld1[N1], lo1[N1], id1[N1], io1[N1], ld2[N2], lo2[N2], id2[N2], io2[N2];
    for (int i = 0; i < N1; ++i) { ld1[i] = 2; lo1[i] = -1; id1[i] = 1; io1[i] = 0; }
    for (int i = 0; i < N2; ++i) { ld2[i] = 2; lo2[i] = -1; id2[i] = 1; io2[i] = 0; }
    const double pi = 3.14159265358979323846;
    const double s1 = sin(pi / (2.0 * (N1 + 1))), s2 = sin(pi / (2.0 * (N2 + 1)));
    const float cw = (float)(-4 * s1 * s1 - 4 * s2 * s2 + 1e-3);
    const void* ldv[2] = {ld1, ld2};
    const void* lov[2] = {lo1, lo2};
    const void* idv[2] = {id1, id2};
    const void* iov[2] = {io1, io2};
    pscr_plan* pw = NULL;
    check("create near-singular float", pscr_plan_create(&pw, PSCR_FLOAT32, 2, n, ldv, lov, idv, iov, &cw, NULL) == PSCR_OK);
    printf("near-singular float: predicted error %.2e, warning: %s\n", pscr_plan_predicted_error(pw), pscr_plan_warning(pw));
    check("its warning", pscr_plan_predicted_error(pw) > 3.4e-4 && strstr(pscr_plan_warning(pw), "refine") != NULL);
    pscr_plan_destroy(pw);
  }

  double complex a1dc[N1], a1oc[N1], m1dc[N1], m1oc[N1], a2dc[N2], a2oc[N2], m2dc[N2], m2oc[N2];
  for (int i = 0; i < N1; ++i) { a1dc[i] = a1d[i]; a1oc[i] = a1o[i]; m1dc[i] = m1d[i]; m1oc[i] = m1o[i]; }
  for (int i = 0; i < N2; ++i) { a2dc[i] = a2d[i]; a2oc[i] = a2o[i]; m2dc[i] = m2d[i]; m2oc[i] = m2o[i]; }
  a1dc[0] += -0.7 * I;  /* absorbing-type boundary: complex symmetric */
  a2dc[N2 - 1] += -0.5 * I;
  const void* adc[2] = {a1dc, a2dc};
  const void* aoc[2] = {a1oc, a2oc};
  const void* mdc[2] = {m1dc, m2dc};
  const void* moc[2] = {m1oc, m2oc};
  const double complex cc = -0.3 + 0.1 * I;
  pscr_plan* pc = NULL;
  check("create complex128", pscr_plan_create(&pc, PSCR_COMPLEX128, 2, n, adc, aoc, mdc, moc, &cc, NULL) == PSCR_OK);
  double complex* fc = malloc(N * sizeof(double complex));
  double complex* uc = malloc(N * sizeof(double complex));
  for (size_t k = 0; k < N; ++k) fc[k] = sin(0.37 * (double)k) + 0.2 * I * cos(0.11 * (double)k);
  check("solve complex128", pscr_solve(pc, fc, uc, 1) == PSCR_OK);
  /* residual: apply the complex operator term by term (real and imaginary parts of u are not separable) */
  double num = 0, den = 0;
  for (size_t i = 0; i < N1; ++i)
    for (size_t j = 0; j < N2; ++j) {
      double complex y = 0;
      for (int di = -1; di <= 1; ++di)
        for (int dj = -1; dj <= 1; ++dj) {
          const long ii = (long)i + di, jj = (long)j + dj;
          if (ii < 0 || ii >= N1 || jj < 0 || jj >= N2) continue;
          const double complex A1 = di == 0 ? a1dc[i] : a1oc[di < 0 ? ii : (long)i];
          const double complex M1 = di == 0 ? m1dc[i] : m1oc[di < 0 ? ii : (long)i];
          const double complex A2 = dj == 0 ? a2dc[j] : a2oc[dj < 0 ? jj : (long)j];
          const double complex M2 = dj == 0 ? m2dc[j] : m2oc[dj < 0 ? jj : (long)j];
          y += (A1 * M2 + M1 * A2 + cc * M1 * M2) * uc[ii * N2 + jj];
        }
      num += cabs(fc[i * N2 + j] - y) * cabs(fc[i * N2 + j] - y);
      den += cabs(fc[i * N2 + j]) * cabs(fc[i * N2 + j]);
    }
  printf("complex128 residual %.2e\n", sqrt(num / den));
  check("complex128 residual", sqrt(num / den) < 1e-12);
  pscr_plan_destroy(pc);
  {
    /* a doubly periodic 2D problem: the periodic Laplacian (1/h² tridiag{-1, 2, -1}
     * with corners) in both dimensions plus c = 0.5, against a manufactured
     * solution whose right-hand side is formed here stencil by stencil */
    enum { P1 = 8, P2 = 7 };
    const size_t np[2] = {P1, P2};
    const int periodic[2] = {1, 1};
    double pad[2][P1], pao[2][P1], pmd[2][P1], pmo[2][P1];
    for (int d = 0; d < 2; ++d)
      for (int i = 0; i < P1; ++i) { pad[d][i] = 2; pao[d][i] = -1; pmd[d][i] = 1; pmo[d][i] = 0; }
    const void* pa[2] = {pad[0], pad[1]}, *po[2] = {pao[0], pao[1]}, *pm[2] = {pmd[0], pmd[1]},
               *pmo2[2] = {pmo[0], pmo[1]};
    const double pc5 = 0.5;
    double ustar[P1 * P2], fp[P1 * P2], up[P1 * P2];
    for (int i = 0; i < P1; ++i)
      for (int j = 0; j < P2; ++j) ustar[i * P2 + j] = sin(0.7 * i + 0.3 * j) + 0.1 * (i * j % 5);
    for (int i = 0; i < P1; ++i)
      for (int j = 0; j < P2; ++j) {
        const double u0 = ustar[i * P2 + j];
        const double ui = ustar[((i + 1) % P1) * P2 + j] + ustar[((i + P1 - 1) % P1) * P2 + j];
        const double uj = ustar[i * P2 + (j + 1) % P2] + ustar[i * P2 + (j + P2 - 1) % P2];
        fp[i * P2 + j] = (2 * u0 - ui) + (2 * u0 - uj) + pc5 * u0;
      }
    for (int backend = 0; backend < 2; ++backend) {
      pscr_options po5;
      pscr_options_default(&po5);
      po5.backend = backend ? PSCR_BACKEND_OPENCL : PSCR_BACKEND_REFERENCE;
      pscr_plan* pp = NULL;
      check("create periodic", pscr_plan_create_periodic(&pp, PSCR_FLOAT64, 2, np, periodic, pa, po, pm, pmo2, &pc5,
                                                         &po5) == PSCR_OK && pp);
      check("solve periodic", pp && pscr_solve(pp, fp, up, 1) == PSCR_OK);
      double err = 0;
      for (int k = 0; k < P1 * P2; ++k) err = fmax(err, fabs(up[k] - ustar[k]));
      printf("periodic %s: max error %.2e\n", backend ? "opencl" : "reference", err);
      check("periodic error", err < 1e-13);
      pscr_plan_destroy(pp);
    }
    /* a periodic dimension of size 2 is refused with its name */
    const size_t n2p[2] = {2, P2};
    pscr_plan* bad2 = NULL;
    check("periodic n = 2 refused",
          pscr_plan_create_periodic(&bad2, PSCR_FLOAT64, 2, n2p, periodic, pa, po, pm, pmo2, &pc5, NULL) ==
                  PSCR_INVALID_ARGUMENT &&
              strstr(pscr_last_error(), "periodic dimension 1") != NULL);
  }
  /* page-locked memory of an OpenCL plan: the same answer as from malloc'd arrays */
  {
    pscr_options oc;
    pscr_options_default(&oc);
    oc.backend = PSCR_BACKEND_OPENCL;
    pscr_plan* cp = NULL;
    check("create OpenCL", pscr_plan_create(&cp, PSCR_FLOAT64, 2, n, ad, ao, md, mo, &c, &oc) == PSCR_OK && cp);
    void *pf = NULL, *pu = NULL;
    check("pinned alloc", pscr_pinned_alloc(cp, 2, &pf) == PSCR_OK && pscr_pinned_alloc(cp, 2, &pu) == PSCR_OK &&
                              pf && pu && ((double*)pf)[2 * N - 1] == 0.0);
    double* want = malloc(2 * N * sizeof(double));
    double* in = malloc(2 * N * sizeof(double));
    for (size_t k = 0; k < 2 * N; ++k) in[k] = sin(0.21 * (double)k);
    check("solve from malloc'd arrays", pscr_solve(cp, in, want, 2) == PSCR_OK);
    if (pf && pu) {
      memcpy(pf, in, 2 * N * sizeof(double));
      check("solve in page-locked memory",
            pscr_solve(cp, pf, pu, 2) == PSCR_OK && memcmp(pu, want, 2 * N * sizeof(double)) == 0);
    }
    check("pinned free", pscr_pinned_free(pf) == PSCR_OK && pscr_pinned_free(pu) == PSCR_OK &&
                             pscr_pinned_free(NULL) == PSCR_OK);
    check("free of other memory refused", pscr_pinned_free(want) == PSCR_INVALID_ARGUMENT &&
                                              strstr(pscr_last_error(), "pscr_pinned_alloc"));
    void* none = &none;
    check("count 0 refused", pscr_pinned_alloc(cp, 0, &none) == PSCR_INVALID_ARGUMENT && none == NULL);
    pscr_plan* rp = NULL;
    check("create reference", pscr_plan_create(&rp, PSCR_FLOAT64, 2, n, ad, ao, md, mo, &c, NULL) == PSCR_OK && rp);
    check("reference plan refused", pscr_pinned_alloc(rp, 1, &none) == PSCR_INVALID_ARGUMENT && none == NULL &&
                                        strstr(pscr_last_error(), "not OpenCL"));
    pscr_plan_destroy(rp);
    check("null plan refused", pscr_pinned_alloc(NULL, 1, &none) == PSCR_INVALID_ARGUMENT);
    free(want);
    free(in);
    pscr_plan_destroy(cp);
  }
  pscr_plan_destroy(NULL);
  check("version", strlen(pscr_version_string()) > 0);
  free(f); free(u); free(ff); free(uf); free(ud); free(fd); free(fc); free(uc);
  printf("%d passed, %d failed\n", passed, failures);
  return failures ? 1 : 0;
}
