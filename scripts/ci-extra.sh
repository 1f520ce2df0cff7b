#!/usr/bin/env bash
# The checks CI runs after scripts/test: the house rules (every C file as
# clang-format would write it, scripts/check-format; python/ and node/
# linted, scripts/check-lint), a short libFuzzer smoke run of every harness
# (fuzz/run.sh, 5 s each), the thread stress test, check_threads'
# concurrent runs and the pool's own suite under ThreadSanitizer
# (build-tsan), and valgrind memcheck over the Check suites of runtime/ and
# registry/ (scripts/valgrind.sh on build-test). Installs clang,
# libclang-rt-14-dev, valgrind, clang-format and flake8 when missing. Every part runs even when
# an earlier one fails; the last lines report each, and the exit status is
# non-zero unless all passed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
jobs=$(nproc)

missing=()
for p in clang libclang-rt-14-dev valgrind clang-format flake8; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "irm: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  { $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}"; } || exit 1
fi

result() { [ "$1" -eq 0 ] && echo passed || echo FAILED; }
start=$SECONDS

echo "== irm: format and lint"
scripts/check-format
format=$?
scripts/check-lint
lint=$?

echo "== irm: fuzz smoke runs ($((SECONDS - start)) s in)"
harnesses=$(sed -n '/^set(irm_fuzz_harnesses/,/^)/{/^  /p}' fuzz/harnesses.cmake)
# every harness built first, then the smoke runs one per core
fuzz=0
if ! fuzz/run.sh --build $harnesses; then
  echo "fuzz: the harnesses did not build"
  fuzz=1
fi
smoke() {
  local log
  log=$(mktemp)
  if IRM_FUZZ_PREBUILT=1 fuzz/run.sh "$1" "${IRM_FUZZ_SMOKE_SECONDS:-5}" >"$log" 2>&1; then
    echo "fuzz $1: $(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)"
  else
    tail -40 "$log"
    echo "fuzz $1: FAILED"
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
}
export -f smoke
if [ $fuzz -eq 0 ]; then
  # each run's lines printed together (its log, then one echo)
  printf '%s\n' $harnesses | xargs -P "$jobs" -I{} bash -c 'smoke {}' || fuzz=1
fi

echo "== irm: ThreadSanitizer stress test (build-tsan, $((SECONDS - start)) s in)"
cmake -S . -B build-tsan -DIRM_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIRM_SANITIZE_THREAD=ON \
  -DIRM_BUILD_BENCH=OFF >/dev/null &&
  cmake --build build-tsan -j"$jobs" --target stress_threads check_threads check_threadpool >/dev/null &&
  (cd build-tsan && ctest -R '^(stress_threads|threads_concurrency|threadpool)$' --output-on-failure)
tsan=$?

echo "== irm: valgrind memcheck (build-test, $((SECONDS - start)) s in)"
scripts/valgrind.sh build-test runtime registry
memcheck=$?

echo "irm: format: $(result $format)"
echo "irm: lint: $(result $lint)"
echo "irm: fuzz smoke: $(result $fuzz)"
echo "irm: ThreadSanitizer stress: $(result $tsan)"
echo "irm: valgrind: $(result $memcheck)"
echo "irm: extra checks: $((SECONDS - start)) s"
[ $format -eq 0 ] && [ $lint -eq 0 ] && [ $fuzz -eq 0 ] && [ $tsan -eq 0 ] && [ $memcheck -eq 0 ]
