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
if(IRM_BUILD_TESTS)
  irm_require_pkg(IRM_CHECK check check)
endif()

find_path(IRM_UTHASH_INCLUDE_DIR uthash.h)
if(NOT IRM_UTHASH_INCLUDE_DIR)
  message(FATAL_ERROR "uthash.h not found: install the Debian package 'uthash-dev' (apt-get install -y uthash-dev)")
endif()

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
