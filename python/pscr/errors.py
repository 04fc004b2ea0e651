"""Exception classes of libpscr, one per ``pscr::Error`` class (include/pscr/errors.hpp).

Each also derives from the built-in exception a Python user would catch for the
same fault, so ``except ValueError`` works as well as ``except pscr.SizeMismatch``.
"""

import numpy as np


class Error(Exception):
    """Base of every libpscr failure."""


class SizeMismatch(Error, ValueError):
    """Arrays whose shapes disagree with the problem or with each other."""


class InvalidArgument(Error, ValueError):
    """An argument outside its domain (radix < 2, unknown option, wrong dtype, ...)."""


class NonFiniteInput(Error, ValueError):
    """NaN or Inf in a factor matrix, in c or in a right-hand side."""


class SingularPencil(Error, np.linalg.LinAlgError):
    """A factor pencil or the whole operator is singular (other than pure Neumann)."""


class NumericalBreakdown(Error, ArithmeticError):
    """Breakdown during a solve (zero pivot, non-finite result)."""


class AllocationTooLarge(Error, MemoryError):
    """A buffer larger than the device (or host) allows."""


class BackendError(Error, RuntimeError):
    """An OpenCL call failed; the message names the call and the status code."""


class KernelBuildError(BackendError):
    """An OpenCL program failed to build; the message holds the compiler log."""


class FileFormatError(Error, ValueError):
    """A file that cannot be read as expected."""


class AccuracyWarning(UserWarning):
    """A plan whose estimated error (``info["predicted_error"]``) leaves fewer than
    half the digits of its precision: ``info["warning"]`` says why; ``refine=2`` or
    a wider dtype recovers them."""


__all__ = [
    "Error", "SizeMismatch", "InvalidArgument", "NonFiniteInput", "SingularPencil",
    "NumericalBreakdown", "AllocationTooLarge", "BackendError", "KernelBuildError",
    "FileFormatError", "AccuracyWarning",
]
