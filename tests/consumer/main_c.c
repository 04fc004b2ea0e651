/* Builds against an installed libpscr from C99 (pkg-config) and solves a
 * small Poisson problem through the C API, checked by its residual. */
#include <pscr/pscr.h>

#include <math.h>
#include <stdio.h>

int main(void) {
  enum { N = 9 };
  double d[N], o[N], m[N], z[N], f[N * N], u[N * N];
  for (int i = 0; i < N; ++i) { d[i] = 2.0; o[i] = -1.0; m[i] = 1.0; z[i] = 0.0; }
  for (int k = 0; k < N * N; ++k) f[k] = 1.0;
  const size_t n[2] = {N, N};
  const void *ad[2] = {d, d}, *ao[2] = {o, o}, *md[2] = {m, m}, *mo[2] = {z, z};
  const double c = 0.0;
  pscr_plan* plan = NULL;
  if (pscr_plan_create(&plan, PSCR_FLOAT64, 2, n, ad, ao, md, mo, &c, NULL) != PSCR_OK ||
      pscr_solve(plan, f, u, 1) != PSCR_OK) {
    fprintf(stderr, "C consumer: %s\n", pscr_last_error());
    return 1;
  }
  /* the 5-point residual 4 u_ij − (neighbours) − f_ij, zero outside the grid */
  double worst = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double r = 4 * u[i * N + j] - f[i * N + j];
      if (i > 0) r -= u[(i - 1) * N + j];
      if (i + 1 < N) r -= u[(i + 1) * N + j];
      if (j > 0) r -= u[i * N + j - 1];
      if (j + 1 < N) r -= u[i * N + j + 1];
      if (fabs(r) > worst) worst = fabs(r);
    }
  pscr_plan_destroy(plan);
  printf("C consumer: residual %.2e, library %s\n", worst, pscr_version_string());
  return worst < 1e-12 ? 0 : 1;
}
