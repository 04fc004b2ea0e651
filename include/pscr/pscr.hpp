/// @file
/// libpscr: fast direct solver for separable block tridiagonal systems by the
/// radix-q partial solution variant of cyclic reduction (PSCR).
#pragma once
#include "pscr/builders.hpp"
#include "pscr/errors.hpp"
#include "pscr/options.hpp"
#include "pscr/parameters.hpp"
#include "pscr/plan.hpp"
#include "pscr/tuning.hpp"
#include "pscr/problem.hpp"
#include "pscr/scalar.hpp"
#include "pscr/tridiagonal.hpp"
#include "pscr/version.hpp"
