#!/usr/bin/env bash
# Backends see plan data, not the Plan façade's internals: no file under
# src/distributed/ includes plan_impl.hpp (issue 41; src/opencl/ joins once
# device_solve.cpp takes what it needs from plan data too).
set -euo pipefail
src="$1"
if found="$(grep -ln 'plan_impl\.hpp' "$src"/src/distributed/*)"; then
  echo "includes plan_impl.hpp:"; echo "$found"; exit 1
fi
echo "layering check passed"
