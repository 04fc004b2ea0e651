// The tolerances with which the planner decides what a problem is (pure
// Neumann? singular? how many digits will a solve keep?), each scaled with
// the working precision T of the solve, never a fixed number: a float
// factor rounded from an exact one has row sums of about ε_float of its
// entries, which a double-precision threshold would call regular
// (docs/accuracy.md, "Decisions in the working precision").
#pragma once
#include <cmath>
#include <limits>

#include "pscr/scalar.hpp"

namespace pscr::planner {

// Unit roundoff of the working precision of T (float for complex<float>).
template <class T> double working_eps() { return double(std::numeric_limits<real_t<T>>::epsilon()); }

// A row of A_d whose sum is at most this fraction of the sum of its
// entries' magnitudes has a zero row sum: 8 ε (9.5e-7 in single, 1.8e-15 in
// double precision). Entries rounded to T from a zero-row-sum factor leave
// sums below ε/2 of that magnitude, a diagonal assembled from two terms in T
// one ε more; 8 ε leaves a margin of four. A larger row sum is the data's:
// the row sums of the excess representation are formed exactly from the
// entries, so a Robin term of a few dozen units of roundoff is solved as
// the regular operator it is (taking it for zero answered a float Robin
// term of 42 ε with a solution that was 100 % wrong).
inline constexpr double kZeroRowSumUlps = 8;
template <class T> double zero_row_sum_tolerance() { return kZeroRowSumUlps * working_eps<T>(); }

// An eigenvalue sum σ of the leading pencils (plus c) and an eigenvalue ν of
// the last one cancel to working precision when |σ + ν| is at most this
// multiple of ε(|σ| + |ν|): the shifted system (A_D + σ M_D) is then singular
// in T whatever the data (its shift is not even represented to that
// accuracy), and the operator it belongs to is refused.
inline constexpr double kCancellationUlps = 16;

// The estimated relative forward error of a plan (PlanInfo::predicted_error)
// above which fewer than half the digits of T are left: sqrt(ε).
template <class T> double half_digits_error() { return std::sqrt(working_eps<T>()); }

}  // namespace pscr::planner
