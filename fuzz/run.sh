#!/usr/bin/env bash
# fuzz/run.sh NAME SECONDS [libFuzzer options...]: builds the fuzz build
# (build-fuzz: clang, ASan+UBSan, libFuzzer) if needed and runs harness
# fuzz_NAME for SECONDS seconds on a scratch copy of fuzz/corpus/NAME (new
# inputs land in build-fuzz/corpus/NAME; crashes in build-fuzz/crashes/NAME).
# Exit status non-zero when the harness crashed or broke a property.
# fuzz/run.sh --build NAME...: only builds those harnesses, so that runs
# started at once afterwards (IRM_FUZZ_PREBUILT=1) run no make in one tree.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_only=0
if [ "${1:-}" = --build ]; then
  build_only=1
  shift
elif [ $# -lt 2 ]; then
  echo "usage: fuzz/run.sh NAME SECONDS [libFuzzer options] | fuzz/run.sh --build NAME..." >&2
  exit 2
fi
build=${IRM_FUZZ_BUILD:-$root/build-fuzz}
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=${CC:-clang} cmake -S "$root" -B "$build" -DIRM_FUZZ=ON -DIRM_WERROR=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIRM_BUILD_TESTS=OFF -DIRM_BUILD_BENCH=OFF \
    -DIRM_BUILD_EXAMPLES=OFF >/dev/null
fi
if [ $build_only -eq 1 ]; then
  exec cmake --build "$build" -j"$(nproc)" --target $(printf 'fuzz_%s ' "$@") >/dev/null
fi
name=$1 seconds=$2
shift 2
[ "${IRM_FUZZ_PREBUILT:-0}" = 1 ] || cmake --build "$build" -j2 --target "fuzz_$name" >/dev/null
corpus=$build/corpus/$name crashes=$build/crashes/$name
mkdir -p "$corpus" "$crashes"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# -malloc_limit_mb: one allocation beyond it is a crash, so a program that
# makes irm ask for unbounded memory (a 4 TB tensor) is found, not swapped.
"$build/fuzz/fuzz_$name" -max_total_time="$seconds" -max_len=512 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
  -print_final_stats=1 -artifact_prefix="$crashes/" "$@" "$corpus" "$root/fuzz/corpus/$name"
