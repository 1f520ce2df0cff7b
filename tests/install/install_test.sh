#!/bin/sh
# Installs the build tree to a temporary prefix, moves the installed tree
# (it must be relocatable), builds README.md's first program against it
# with pkg-config and with find_package(irm), runs both, and runs the
# installed irm program. No LD_LIBRARY_PATH anywhere: programs find libirm
# through their run path. The prefix lives under the build dir and is
# removed at the end.
#
# usage: install_test.sh SOURCE_DIR BUILD_DIR CMAKE CC LIBDIR "CFLAGS" PYTHON
#   LIBDIR: CMAKE_INSTALL_LIBDIR (lib, or lib/<multiarch>)
#   CFLAGS: extra compile and link flags (the sanitizer flags of the build)
set -eu
src=$1 build=$2 cmake=$3 cc=$4 libdir=$5 cflags=$6 python=$7
work=$build/install-test
trap 'rm -rf "$work"' EXIT
rm -rf "$work"
mkdir -p "$work"
unset LD_LIBRARY_PATH DESTDIR PKG_CONFIG_LIBDIR
log=$work/log

step() { # step WHAT COMMAND...: runs COMMAND, showing its output if it fails
  what=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    echo "install test: $what failed: $*" >&2
    cat "$log" >&2
    exit 1
  fi
}

expect() { # expect WHAT TEXT: the last step's output contains TEXT
  grep -qF -- "$2" "$log" && return
  echo "install test: $1 printed no '$2':" >&2
  cat "$log" >&2
  exit 1
}

step "cmake --install" "$cmake" --install "$build" --prefix "$work/staged"
mv "$work/staged" "$work/prefix"
prefix=$work/prefix

"$python" "$src/tests/readme/snippets.py" program "$src/README.md" register-call >"$work/demo.c"
answer='demo.Add(40, 2) = 42'

# pkg-config, with the README's command.
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
# shellcheck disable=SC2046,SC2086 # word splitting of the flags is wanted
step "pkg-config build" "$cc" $cflags "$work/demo.c" $(pkg-config --cflags --libs irm) \
  -Wl,-rpath,"$(pkg-config --variable=libdir irm)" -o "$work/demo-pc"
step "pkg-config program" "$work/demo-pc"
expect "the pkg-config program" "$answer"

# find_package(irm) + irm::irm, with the README's CMake lines.
mkdir "$work/consumer"
cp "$work/demo.c" "$work/consumer/demo.c"
cat >"$work/consumer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(irm_consumer C)
find_package(irm REQUIRED)
add_executable(demo demo.c)
target_link_libraries(demo PRIVATE irm::irm)
CMAKE
step "find_package configure" "$cmake" -S "$work/consumer" -B "$work/consumer/build" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" \
  -DCMAKE_EXE_LINKER_FLAGS="$cflags"
step "find_package build" "$cmake" --build "$work/consumer/build"
step "find_package program" "$work/consumer/build/demo"
expect "the find_package program" "$answer"

# Every program must load the libirm of the moved prefix, not the build's.
for program in "$work/demo-pc" "$work/consumer/build/demo" "$prefix/bin/irm"; do
  step "ldd $program" ldd "$program"
  expect "ldd $program" "=> $prefix/"
done

step "installed irm --version" "$prefix/bin/irm" --version
step "installed irm" "$prefix/bin/irm"
expect "the installed irm" "global functions"
# The Python package finds the libirm of its own prefix (share/irm/python ->
# lib). Not in a sanitizer build: Python would need the ASan runtime preloaded.
case "$cflags" in
*sanitize=address*) ;;
*)
  step "installed Python package" env -u IRM_LIBRARY PYTHONPATH="$prefix/share/irm/python" "$python" -c \
    "import irm; print('python sees', irm.get_global_func('ffi.ArraySize')(irm.get_global_func('ffi.Array')(1, 2)), 'items from', irm._lib.LIB._name)"
  expect "the installed Python package" "python sees 2 items from $prefix/"
  ;;
esac
echo "install test: pkg-config and find_package(irm) builds, the installed irm and the Python package all work from a moved prefix"
