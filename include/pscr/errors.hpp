/// @file
/// Exception classes of libpscr. Every failure is one of these, with a message
/// that names the cause; nothing fails silently.
#pragma once
#include "pscr/export.hpp"
#include <stdexcept>
#include <string>

namespace pscr {

struct PSCR_API Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// Arrays whose sizes disagree with the problem or with each other.
struct PSCR_API SizeMismatch : Error { using Error::Error; };
/// Arguments outside their domain (n = 0, radix < 2, non-positive mesh step, ...).
struct PSCR_API InvalidArgument : Error { using Error::Error; };
/// NaN or Inf in a factor matrix, in c or in a right-hand side.
struct PSCR_API NonFiniteInput : Error { using Error::Error; };
/// A factor pencil or the whole operator is singular (other than the supported
/// pure-Neumann case), or a mass matrix cannot be factored.
struct PSCR_API SingularPencil : Error { using Error::Error; };
/// Breakdown during a solve (zero pivot, non-finite result).
struct PSCR_API NumericalBreakdown : Error { using Error::Error; };
/// A buffer larger than the device (or host) allows.
struct PSCR_API AllocationTooLarge : Error { using Error::Error; };
/// An OpenCL call failed; the message names the call and the status code.
struct PSCR_API BackendError : Error { using Error::Error; };
/// An OpenCL program failed to build; the message holds the compiler log.
struct PSCR_API KernelBuildError : BackendError { using BackendError::BackendError; };
/// A file (NumPy array, tuning JSON, image) that cannot be read as expected.
struct PSCR_API FileFormatError : Error { using Error::Error; };

}  // namespace pscr
