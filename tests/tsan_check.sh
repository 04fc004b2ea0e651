#!/usr/bin/env bash
# Builds the library and test_threads with ThreadSanitizer (drivers and
# clients off, which also checks that configuration) and runs the concurrent
# reference-backend solves. OpenMP teams are kept to one thread: libgomp's
# barriers are invisible to ThreadSanitizer, so its reports there would be
# false; the threads that race here are the test's own.
set -euo pipefail
build="$1"; src="$2"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPSCR_BUILD_EXAMPLES=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" >/dev/null
cmake --build "$build" --target test_threads -j "$(nproc)" >/dev/null
OMP_NUM_THREADS=1 PSCR_TEST_REFERENCE_ONLY=1 TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
  "$build/bin/test_threads" --run_test=reference_backend
echo "tsan check passed"
