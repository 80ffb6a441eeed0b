#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The sanitizer and fuzzing job; CI runs it after the main suite (.ci/run).
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer build of the test suite (build-asan),
#         run on PoCL: every test except the `large` and `package` ones (which build
#         separate, uninstrumented consumers against this build's library or the source) and
#         the `gpu-tables` reruns (the same code under other tuning tables, run by the main job).
#   tsan  ThreadSanitizer build of tests/test_concurrency.cpp (build-tsan), run on PoCL.
#   fuzz  The libFuzzer targets in fuzz/ (build-fuzz, clang-14), each for CLFORGE_FUZZ_SECONDS
#         seconds (default 30) from the seed corpus in fuzz/corpus/<target> (copied first, so
#         the source tree is never written). A finding is saved in build-fuzz/findings/.
# Usage: tools/run-sanitizers.sh [asan] [tsan] [fuzz]     (no argument: all three)
# Suppressions (each explained in its file) are in tests/sanitizers/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(asan tsan fuzz)
jobs=${CLFORGE_SANITIZER_JOBS:-$(nproc)}
fuzz_seconds=${CLFORGE_FUZZ_SECONDS:-30}
failed=()

# clang-14 and its runtimes (libFuzzer) are only needed here, not for the library.
bash tools/install-deps.sh clang-14 libclang-rt-14-dev

common=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLFORGE_BUILD_BENCH=OFF -DCLFORGE_BUILD_TOOLS=OFF)
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$root/tests/sanitizers/ubsan.supp"
# use_tls=0: thread-local storage is not a root of the leak scan. With it on, the scan at exit
# sometimes faulted inside LeakSanitizer (ScanRangeForPointers reading a near-null address:
# "Tracer caught signal 11 ... LeakSanitizer has encountered a fatal error") after every test of
# test_op had passed; the ranges it takes from the driver's threads' dynamic TLS (PoCL and LLVM
# come in through dlopen) are the suspects. Without TLS roots the scan reports more, never less:
# a block kept only by a thread_local pointer becomes a leak, and the suite has none.
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0:use_tls=0"

# Builds quietly into <dir>/build.log; shows its end and fails when the build fails.
build() {
  local dir=$1
  shift
  if ! cmake --build "$dir" -j "$jobs" "$@" >"$dir/build.log" 2>&1; then
    tail -n 60 "$dir/build.log"
    return 1
  fi
}

stage_asan() {
  local flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
  cmake -S . -B build-asan "${common[@]}" -DCMAKE_CXX_FLAGS="$flags -O1 -g" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" >/dev/null || return 1
  build build-asan || return 1
  # detect_leaks: on, with the driver's own leaks suppressed (lsan.supp). The MPI tests (label
  # mpi) run in the main suite only: Open MPI's own allocations (ompi_op_base_op_select,
  # ompi_datatype_create and its plugins) are reported as leaks after MPI_Finalize.
  (cd build-asan &&
    ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1" \
      ctest --output-on-failure -j 2 -LE 'large|package|mpi|gpu-tables')
}

stage_tsan() {
  cmake -S . -B build-tsan "${common[@]}" -DCMAKE_CXX_FLAGS="-fsanitize=thread -O1 -g" \
    -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
    >/dev/null || return 1
  build build-tsan --target test_concurrency || return 1
  (cd build-tsan &&
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/sanitizers/tsan.supp" \
      CLFORGE_CACHE_DIR="$PWD/test-cache" ./bin/test_concurrency)
}

stage_fuzz() {
  local flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
  CXX=clang++-14 cmake -S . -B build-fuzz -DCLFORGE_BUILD_TESTS=OFF -DCLFORGE_BUILD_FUZZ=ON \
    "${common[@]}" -DCMAKE_CXX_FLAGS="$flags -O1 -g" >/dev/null || return 1
  build build-fuzz || return 1
  mkdir -p build-fuzz/findings
  local status=0
  for corpus in fuzz/corpus/*/; do
    local target
    target=$(basename "$corpus")
    rm -rf "build-fuzz/corpus/$target"
    mkdir -p "build-fuzz/corpus/$target"
    cp "$corpus"* "build-fuzz/corpus/$target/"
    echo "fuzz: $target for ${fuzz_seconds} s"
    if ! ASAN_OPTIONS="detect_leaks=1" "build-fuzz/bin/$target" -max_total_time="$fuzz_seconds" \
      -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="build-fuzz/findings/$target-" "build-fuzz/corpus/$target" \
      >"build-fuzz/$target.log" 2>&1; then
      echo "fuzz: $target FOUND A PROBLEM:"
      tail -n 40 "build-fuzz/$target.log"
      status=1
    fi
    grep -E "stat::number_of_executed_units|stat::new_units_added" "build-fuzz/$target.log" |
      sed "s/^/fuzz: $target /" || true
  done
  return $status
}

# Stages run as `if stage_x`, where `set -e` does not apply: each checks its own steps.
for stage in "${stages[@]}"; do
  start=$SECONDS
  echo "=== run-sanitizers: $stage"
  if "stage_$stage"; then
    echo "=== run-sanitizers: $stage passed in $((SECONDS - start)) s"
  else
    echo "=== run-sanitizers: $stage FAILED after $((SECONDS - start)) s"
    failed+=("$stage")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "run-sanitizers: failed: ${failed[*]}"
  exit 1
fi
echo "run-sanitizers: all passed"
