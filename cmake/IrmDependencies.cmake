# Every dependency is a Debian package; a missing one stops configure with
# the package to install.
find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found: install the Debian package 'pkg-config' (apt-get install -y pkg-config)")
endif()

function(irm_require_pkg prefix module debian_package)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
  if(NOT ${prefix}_FOUND)
    message(FATAL_ERROR "${module} not found: install the Debian package '${debian_package}' (apt-get install -y ${debian_package})")
  endif()
endfunction()

irm_require_pkg(IRM_FFI libffi libffi-dev)
irm_require_pkg(IRM_JANSSON jansson libjansson-dev)
# The tuning database (backend/tune/, docs/tuning.md).
irm_require_pkg(IRM_SQLITE sqlite3 libsqlite3-dev)
if(IRM_BUILD_TESTS)
  irm_require_pkg(IRM_CHECK check check)
endif()

# irm/tensor.h (a public header) includes <dlpack/dlpack.h>: Debian's
# libdlpack-dev, header only, ships a CMake package (dlpack::dlpack) and no
# pkg-config file. libirm links dlpack::dlpack PUBLIC, so the installed CMake
# package needs it too (cmake/irmConfig.cmake.in); irm.pc names its include
# folder (cmake/irm.pc.in).
find_package(dlpack CONFIG QUIET)
if(NOT dlpack_FOUND OR NOT TARGET dlpack::dlpack)
  message(FATAL_ERROR "dlpack not found: install the Debian package 'libdlpack-dev' (apt-get install -y libdlpack-dev)")
endif()
get_target_property(IRM_DLPACK_INCLUDE_DIR dlpack::dlpack INTERFACE_INCLUDE_DIRECTORIES)
list(GET IRM_DLPACK_INCLUDE_DIR 0 IRM_DLPACK_INCLUDE_DIR)
if(NOT EXISTS "${IRM_DLPACK_INCLUDE_DIR}/dlpack/dlpack.h")
  message(FATAL_ERROR "dlpack::dlpack names no dlpack/dlpack.h (${IRM_DLPACK_INCLUDE_DIR}): install the Debian package 'libdlpack-dev'")
endif()

find_path(IRM_UTHASH_INCLUDE_DIR uthash.h)
if(NOT IRM_UTHASH_INCLUDE_DIR)
  message(FATAL_ERROR "uthash.h not found: install the Debian package 'uthash-dev' (apt-get install -y uthash-dev)")
endif()

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
