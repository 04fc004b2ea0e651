// libpscr OpenCL kernels, common part: scalar type, arithmetic, division.
// Arrays are laid out [row][rest][batch] with the batch (independent
// problems) fastest, so that consecutive work-items touch consecutive addresses.
// Compile-time definitions: SCALAR_DOUBLE or not, SCALAR_COMPLEX or not,
// NEWTON_RAPHSON or not, KEPT (q+1: eigenvector rows kept per group),
// NSRC (q-1). One rest dimension is passed as n3 = 0.
#ifdef SCALAR_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
#define NR_ITERATIONS 4
#define PIVOT_LIMIT 1.4901161193847656e-8  // sqrt(DBL_EPSILON)
#else
typedef float real;
typedef float2 real2;
#define NR_ITERATIONS 3
#define PIVOT_LIMIT 3.4526698e-4f  // sqrt(FLT_EPSILON)
#endif

// 1/x. Newton–Raphson: |x| = m·2^e with m in [1/2, 1), initial guess
// 48/17 − 32/17·m (error ≤ 1/17), each iteration squares the error.
#ifdef NEWTON_RAPHSON
inline real recip_real(real x) {
  if (x == (real)0 || isinf(x) || isnan(x)) return (real)1 / x;  // keep IEEE results for breakdowns
  int e;
  const real m = frexp(fabs(x), &e);
  real y = (real)(48.0 / 17.0) - (real)(32.0 / 17.0) * m;
  for (int k = 0; k < NR_ITERATIONS; ++k) y = y + y * ((real)1 - m * y);
  return copysign(ldexp(y, -e), x);
}
#else
inline real recip_real(real x) { return (real)1 / x; }
#endif

#ifdef SCALAR_COMPLEX
typedef real2 scalar;
inline scalar smul(scalar a, scalar b) { return (scalar)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
inline scalar srecip(scalar b) {
  const real r = recip_real(b.x * b.x + b.y * b.y);
  return (scalar)(b.x * r, -b.y * r);
}
#define ZERO ((scalar)(0, 0))
#define FROM_REAL(v) ((scalar)((v), 0))
// The size of a pivot and of its terms for the pivot watch: |re| + |im|,
// within √2 of the modulus, as the reference backend measures it. length()
// (a hypot safe from overflow) took a third of a complex solve on the H100.
inline real abs1(scalar a) { return fabs(a.x) + fabs(a.y); }
#else
typedef real scalar;
#define smul(a, b) ((a) * (b))
#define srecip(b) recip_real(b)
#define ZERO ((scalar)0)
#define FROM_REAL(v) ((scalar)(v))
#define abs1(a) fabs(a)
#endif
#define sdiv(a, b) smul((a), srecip(b))
// A NaN or an infinity (either part of a complex scalar).
#ifdef SCALAR_COMPLEX
#define NONFINITE(v) (!isfinite((v).x) || !isfinite((v).y))
#else
#define NONFINITE(v) (!isfinite(v))
#endif

// s += v with the running compensation c (Kahan): the error of a long sum
// stays O(ε) instead of growing with its length.
#define KAHAN_ADD(s, c, v)          \
  do {                              \
    const scalar y_ = (v) - (c);    \
    const scalar t_ = (s) + y_;     \
    (c) = (t_ - (s)) - y_;          \
    (s) = t_;                       \
  } while (0)
