#!/usr/bin/env bash
# Sets up, builds and runs the main demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
./build/bin/pscr-demo "$@"
