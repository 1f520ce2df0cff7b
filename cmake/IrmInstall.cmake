# cmake --install: headers, libirm, irm.pc and a CMake package (find_package(irm)).
include(CMakePackageConfigHelpers)

install(DIRECTORY include/irm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(TARGETS irm EXPORT irmTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS irm_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(EXPORT irmTargets NAMESPACE irm:: FILE irmTargets.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/irm)
configure_package_config_file(cmake/irmConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/irmConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/irm
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/irmConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/irmConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/irmConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/irm)

# irm.pc names its prefix relative to its own folder (${pcfiledir}): ../..
# for lib/pkgconfig, ../../.. for lib/<multiarch>/pkgconfig.
file(RELATIVE_PATH IRM_PC_PREFIX_FROM_PCDIR
     ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" IRM_PC_PREFIX_FROM_PCDIR "${IRM_PC_PREFIX_FROM_PCDIR}")
file(RELATIVE_PATH IRM_PC_LIBDIR_FROM_PREFIX
     ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_LIBDIR})
file(RELATIVE_PATH IRM_PC_INCLUDEDIR_FROM_PREFIX
     ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_INCLUDEDIR})
configure_file(cmake/irm.pc.in ${CMAKE_CURRENT_BINARY_DIR}/irm.pc @ONLY)
configure_file(cmake/irm-runtime.pc.in ${CMAKE_CURRENT_BINARY_DIR}/irm-runtime.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/irm.pc ${CMAKE_CURRENT_BINARY_DIR}/irm-runtime.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The Python package (ctypes only) in <prefix>/share/irm/python: usable with
# PYTHONPATH there, or installed with pip from there (pyproject.toml,
# setup.py). irm/_install_paths.py gives the libdir and the prefix relative
# to the package's folder (python/irm/_lib.py, python/setup.py read it).
set(irm_python_dir ${CMAKE_INSTALL_DATADIR}/irm/python)
install(DIRECTORY python/irm DESTINATION ${irm_python_dir}
        PATTERN __pycache__ EXCLUDE PATTERN _install_paths.py EXCLUDE)
install(FILES python/pyproject.toml python/setup.py DESTINATION ${irm_python_dir})
file(RELATIVE_PATH IRM_PY_LIBDIR_FROM_PACKAGE
     ${CMAKE_INSTALL_FULL_DATADIR}/irm/python/irm ${CMAKE_INSTALL_FULL_LIBDIR})
file(RELATIVE_PATH IRM_PY_PREFIX_FROM_PACKAGE
     ${CMAKE_INSTALL_FULL_DATADIR}/irm/python/irm ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" IRM_PY_PREFIX_FROM_PACKAGE "${IRM_PY_PREFIX_FROM_PACKAGE}")
configure_file(cmake/irm_install_paths.py.in ${CMAKE_CURRENT_BINARY_DIR}/python/_install_paths.py @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/python/_install_paths.py
        DESTINATION ${irm_python_dir}/irm)

# The Node.js package in <prefix>/share/irm/node: its code and its lock
# file, without node_modules (a consumer runs `npm ci` there, which brings
# koffi); node/lib/native.js finds the libirm of the prefix holding it.
install(FILES node/index.js node/package.json node/package-lock.json DESTINATION ${CMAKE_INSTALL_DATADIR}/irm/node)
install(DIRECTORY node/lib DESTINATION ${CMAKE_INSTALL_DATADIR}/irm/node)

# runtime/'s headers, which exported libraries compile against
# (irm_build_export_library finds them from libirm's folder).
install(DIRECTORY runtime/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/irm-runtime FILES_MATCHING PATTERN "*.h")
# the micro-kernels generated code includes, in the same folder (export_library's one -I)
install(DIRECTORY runtime/kernels/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/irm-runtime FILES_MATCHING PATTERN "*.h")
