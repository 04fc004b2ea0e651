/** @file
 * libpscr C API (C99): opaque plans over the four scalar types, status codes
 * instead of exceptions, and the message of the last failure on this thread.
 * Complex arrays are interleaved (re, im) pairs, as C99 complex and Fortran
 * COMPLEX store them. Layout of right-hand sides and solutions as in C++:
 * u[(i1*n2 + i2)*n3 + i3], the last index contiguous. */
#ifndef PSCR_PSCR_H
#define PSCR_PSCR_H

#include <stddef.h>

/** PSCR_C_API marks a function exported from the shared library. */
#if defined(_WIN32)
#define PSCR_C_API
#else
#define PSCR_C_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque plan: pscr_plan_create makes it, pscr_plan_destroy frees it. */
typedef struct pscr_plan pscr_plan;

/** PSCR_DTYPE_INVALID: what pscr_plan_dtype returns for a NULL plan. */
typedef enum {
  PSCR_DTYPE_INVALID = -1,
  PSCR_FLOAT32 = 0,
  PSCR_FLOAT64 = 1,
  PSCR_COMPLEX64 = 2,
  PSCR_COMPLEX128 = 3
} pscr_dtype;

/** One per pscr::Error class. */
typedef enum {
  PSCR_OK = 0,
  PSCR_SIZE_MISMATCH = 1,
  PSCR_INVALID_ARGUMENT = 2,
  PSCR_NON_FINITE_INPUT = 3,
  PSCR_SINGULAR_PENCIL = 4,
  PSCR_NUMERICAL_BREAKDOWN = 5,
  PSCR_ALLOCATION_TOO_LARGE = 6, /**< also: the host's memory ran out */
  PSCR_BACKEND_ERROR = 7,
  PSCR_KERNEL_BUILD_ERROR = 8,
  PSCR_FILE_FORMAT_ERROR = 9,
  PSCR_UNKNOWN_ERROR = 10
} pscr_status;

/** Which executor runs a plan (pscr::Backend). */
typedef enum { PSCR_BACKEND_REFERENCE = 0, PSCR_BACKEND_OPENCL = 1 } pscr_backend;

/** Options of a plan (those of pscr::Options that C needs); pscr_options_default fills them. */
typedef struct {
  pscr_backend backend; /**< default reference */
  int radix;            /**< 0 (default): automatic; else q >= 2 (OpenCL: at most 64, pscr::kMaxOpenCLRadix) */
  int threads;          /**< reference executor; 0 = all cores; at most 1024 */
  const char* device;   /**< OpenCL device selector, or NULL */
  int refine;           /**< steps of iterative refinement, default 0 */
} pscr_options;

/** The defaults (those of pscr::Options). */
PSCR_C_API void pscr_options_default(pscr_options* options);

/** Plans A = Σ_d (A_d in slot d, M elsewhere) + c·M⊗…⊗M for dims = 2 or 3.
 * For each dimension d: n[d] rows, a_diag[d] and m_diag[d] of n[d] scalars,
 * a_off[d] and m_off[d] of n[d] − 1 scalars, all of `dtype`; c is one scalar
 * of `dtype`. options may be NULL (defaults). On success *plan is set. */
PSCR_C_API pscr_status pscr_plan_create(pscr_plan** plan, pscr_dtype dtype, int dims, const size_t* n,
                                        const void* const* a_diag, const void* const* a_off,
                                        const void* const* m_diag, const void* const* m_off, const void* c,
                                        const pscr_options* options);

/** As pscr_plan_create, with periodic dimensions: where periodic[d] != 0,
 * dimension d is cyclic and a_off[d] and m_off[d] hold n[d] scalars, the last
 * joining row n[d] − 1 to row 0 (n[d] >= 3); elsewhere n[d] − 1 as before.
 * periodic may be NULL (no periodic dimension). */
PSCR_C_API pscr_status pscr_plan_create_periodic(pscr_plan** plan, pscr_dtype dtype, int dims, const size_t* n,
                                                 const int* periodic, const void* const* a_diag,
                                                 const void* const* a_off, const void* const* m_diag,
                                                 const void* const* m_off, const void* c,
                                                 const pscr_options* options);

/** Solves `count` right-hand sides stored one after another; u == f allowed.
 * An empty batch (count = 0) is valid and solves nothing: PSCR_OK, and f and u
 * may then be NULL. A batch whose bytes (count × unknowns × scalar size)
 * overflow size_t is refused with PSCR_ALLOCATION_TOO_LARGE. */
PSCR_C_API pscr_status pscr_solve(const pscr_plan* plan, const void* f, void* u, size_t count);

/** Page-locked host memory for `count` right-hand sides (or solutions) of an
 * OpenCL plan, zeroed, into *memory (pscr::opencl::pinned_buffer): pscr_solve
 * with f and u both in such memory copies them to and from the devices
 * directly, without the staging's host-side copy (docs/host-arrays.md).
 * PSCR_INVALID_ARGUMENT for a NULL plan or memory, count = 0, or a plan not
 * on OpenCL or split by rows; *memory is then NULL. Free it with
 * pscr_pinned_free, after the solves that use it have returned. */
PSCR_C_API pscr_status pscr_pinned_alloc(const pscr_plan* plan, size_t count, void** memory);
/** Frees memory from pscr_pinned_alloc; NULL is allowed; another pointer is
 * refused (PSCR_INVALID_ARGUMENT) and left alone. */
PSCR_C_API pscr_status pscr_pinned_free(void* memory);

/** @{ */
/** The number of unknowns of one right-hand side, and the plan's scalar type.
 * A NULL plan gives 0 and PSCR_DTYPE_INVALID, values no plan has, and sets
 * pscr_last_error() as a failing call does. */
PSCR_C_API size_t pscr_plan_unknowns(const pscr_plan* plan);
PSCR_C_API pscr_dtype pscr_plan_dtype(const pscr_plan* plan);
/** @} */

/** @{ */
/** The plan's estimated relative error of a solve (pscr::PlanInfo::
 * predicted_error) and its accuracy warning: "" when the estimate keeps at
 * least half the digits of the plan's precision, else what was estimated and
 * what recovers the digits (options.refine). The string lives as long as the
 * plan. A NULL plan gives -1 and NULL, and sets pscr_last_error(). */
PSCR_C_API double pscr_plan_predicted_error(const pscr_plan* plan);
PSCR_C_API const char* pscr_plan_warning(const pscr_plan* plan);
/** @} */

/** Frees the plan; NULL is allowed. */
PSCR_C_API void pscr_plan_destroy(pscr_plan* plan);

/** The message of the last failing call on this thread ("" if none). */
PSCR_C_API const char* pscr_last_error(void);

/** The library's version string. */
PSCR_C_API const char* pscr_version_string(void);

#ifdef __cplusplus
}
#endif

#endif /* PSCR_PSCR_H */
