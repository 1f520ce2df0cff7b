#!/usr/bin/env bash
# scripts/valgrind.sh [BUILD_DIR [FOLDER...]]: valgrind memcheck over the
# Check suites of a plain build (default build-test; configured and built
# when missing): every suite, or those whose source is under
# tests/FOLDER/ for one of the FOLDERs (CI passes runtime and registry: the
# code users embed and the libffi dispatch, where an uninitialised value
# is what memcheck finds and ASan cannot).
# Check's fork mode stays on and valgrind follows the children, so each test
# runs in a fresh process as in ctest. A suite fails on any invalid read or
# write, use of uninitialised memory, or definitely / indirectly lost block.
# Suites that install the counting test allocator
# (tests/support/check_alloc_util.h) are skipped: it hands out pointers
# offset past a header and reads the header of every pointer it frees,
# foreign ones included, so memcheck would report its own bookkeeping, and
# its failure sweeps rerun each operation hundreds of times, too slow under
# valgrind. The ASan build checks those suites. Test cases too slow under
# valgrind (a million-deep JSON chain: minutes; check_threads' 8 x 20 concurrent
# runs, which the ThreadSanitizer build checks) are left out by name
# (slow_cases, suite:case); the rest of their suite runs case by case
# (CK_RUN_CASE). Deep-program tests run at a hundredth of their depth
# (IRM_TEST_DEPTH_DIVISOR, read by test_depth() in
# tests/support/check_util.h). A suite's source is tests/<folder>/<suite>.c,
# the folders mirroring the libraries. Logs go to
# BUILD_DIR/valgrind/<suite>.log; the last line reports the result.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-build-test}
shift $(($# > 0 ? 1 : 0))
folders=("$@")
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DIRM_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
fi
cmake --build "$build" -j"$(nproc)" >/dev/null || exit 1
logs=$build/valgrind
rm -rf "$logs" && mkdir -p "$logs"

slow_cases=" check_json:depth check_threads:concurrency "

# source_of NAME: the source of suite NAME (tests/<folder>/NAME.c); nothing
# when there is none (a suite left over in the build folder).
source_of() {
  find tests -path tests/support -prune -o -name "$1.c" -print | head -n 1
}

suites=()
for exe in "$build"/tests/check_*; do
  name=$(basename "$exe")
  [ -x "$exe" ] && [ -f "$exe" ] || continue
  src=$(source_of "$name")
  [ -n "$src" ] || continue
  if [ ${#folders[@]} -gt 0 ]; then
    wanted=0
    for f in "${folders[@]}"; do [[ $src == tests/$f/* ]] && wanted=1; done
    [ $wanted -eq 1 ] || continue
  fi
  grep -q install_counting_allocator "$src" || suites+=("$exe")
done

# memcheck ARGS...: runs ARGS under valgrind as the header says. The shell
# and the C compiler the code generation suites start (export_library, the
# kernel tests) run natively: they are not ours, and under memcheck cc is
# both slow and refused.
memcheck() {
  IRM_TEST_DEPTH_DIVISOR=100 CK_DEFAULT_TIMEOUT=600 timeout 900 valgrind -q --trace-children=yes \
    --trace-children-skip='*/sh,*/bash,*/dash,*/cc,*/gcc,*/gcc-[0-9]*,*/cc1,*/as,*/ld,*/collect2,*/x86_64-linux-gnu-*' \
    --leak-check=full \
    --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
    --error-exitcode=99 "$@"
}

# run_one EXE: the suite under memcheck (case by case when one of its
# cases is in slow_cases); prints "name ok|FAILED".
run_one() {
  local exe=$1 name log status=0 tcase began=$SECONDS
  name=$(basename "$exe")
  log=$logs/$name.log
  : >"$log"
  if [[ $slow_cases == *" $name:"* ]]; then
    for tcase in $(grep -o 'tcase_create("[a-z_0-9]*")' "$(source_of "$name")" | cut -d'"' -f2); do
      [[ $slow_cases == *" $name:$tcase "* ]] && continue
      (cd "$(dirname "$exe")" && CK_RUN_CASE=$tcase memcheck "./$name") >>"$log" 2>&1 || status=1
    done
  else
    (cd "$(dirname "$exe")" && memcheck "./$name") >>"$log" 2>&1 || status=1
  fi
  if [ $status -eq 0 ] && ! grep -qE 'Invalid (read|write)|definitely lost: [1-9]|indirectly lost: [1-9]' "$log"; then
    echo "$name ok, $((SECONDS - began)) s"
  else
    echo "$name FAILED (see $log), $((SECONDS - began)) s"
  fi
}
export -f run_one memcheck source_of
export logs slow_cases

start=$SECONDS
results=$(printf '%s\n' "${suites[@]}" | xargs -P"$(nproc)" -I{} bash -c 'run_one {}')
echo "$results" | grep FAILED
[ -z "${IRM_VALGRIND_TIMES:-}" ] || echo "$results" | sort -t, -k2 -n -r
failed=$(echo "$results" | grep -c FAILED)
echo "irm: valgrind memcheck: ${#suites[@]} suites, $failed failed, $((SECONDS - start)) s"
[ "$failed" -eq 0 ]
