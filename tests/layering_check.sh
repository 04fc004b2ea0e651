#!/usr/bin/env bash
# Backends see plan data, not the Plan façade's internals: no file under
# src/distributed/, src/opencl/ or src/reference/ includes plan_impl.hpp (the
# façade's OpenCL API, src/plan_opencl.cpp, sits beside plan.cpp).
set -euo pipefail
src="$1"
if found="$(grep -ln 'plan_impl\.hpp' "$src"/src/distributed/* "$src"/src/opencl/* "$src"/src/reference/*)"; then
  echo "includes plan_impl.hpp:"; echo "$found"; exit 1
fi
echo "layering check passed"
