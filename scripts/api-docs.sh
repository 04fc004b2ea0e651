#!/usr/bin/env bash
# Builds the API reference (Doxygen over include/pscr and python/pscr) into
# build/api-docs/html (or $1/html). Prints every warning; exits non-zero when
# there is any (an undocumented public declaration, a broken doc command), so
# that the api_docs test keeps the reference complete.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build/api-docs}"
command -v doxygen > /dev/null || { echo "api-docs.sh: doxygen not found (bash scripts/install-deps.sh installs it)" >&2; exit 2; }
mkdir -p "$out"
log="$out/warnings.txt"
{ cat docs/api/Doxyfile; echo "OUTPUT_DIRECTORY = $out"; echo "WARN_LOGFILE = $log"; } | doxygen - > /dev/null
if [ -s "$log" ]; then
  cat "$log" >&2
  echo "api-docs.sh: $(grep -c . "$log") warning line(s); see above" >&2
  exit 1
fi
echo "API reference: $out/html/index.html"
