# Fails when a source file of libirm reaches past its library (cmake -P; the
# build runs it before compiling, and ctest runs it with planted violations).
#
# The libraries, lowest first (registry -> ir core -> configs, tensors ->
# dataflow dialect; the pass manager sits on the core and never sees a
# dialect; the dialect's passes sit on both):
#
#   library          may include the public headers of
#   registry         registry
#   ir               registry, core
#   ir/tensor        registry, core, tensor
#   ir/config        registry, core, config
#   ir/dataflow      registry, core, tensor, config, dataflow
#   passes           registry, core, tensor, config, pass
#   passes/dataflow  registry, core, tensor, config, dataflow, pass
#   backend          registry, core, tensor, config, dataflow, pass, backend
#   lib              registry
#
# Of runtime/ (which stands alone), backend includes runtime/include's
# headers, and ir/dataflow and backend include runtime/kernels' (the math
# the evaluator and the C generator share).
#
# backend (layer 3, the compilation driver) sees everything below it;
# nothing below sees it.
#
# A quoted (private) include must be a header of the file's own library (its
# folder or a subfolder that is not another library), irm_internal.h (layer
# 0's one header for the libraries above it) or, above the core,
# ir_internal.h (the module core's). No file outside a dataflow library names
# anything under a dataflow folder.
#
#   cmake -DIRM_SOURCE_DIR=<repo> [-DIRM_PLANT=<file>|<line>[;...]] -P check_layers.cmake
#
# IRM_PLANT adds include lines to files (paths relative to the repo), so a
# test can show that each rule catches its violation.
cmake_policy(VERSION 3.20)
if(NOT IRM_SOURCE_DIR)
  message(FATAL_ERROR "pass -DIRM_SOURCE_DIR=<the irm source folder>")
endif()

# Groups of public headers (paths under include/irm, without .h).
foreach(h alloc c_api container error function journal json kind object plugin structural version)
  set(group_of_${h} registry)
endforeach()
set(group_of_module core)
set(group_of_tensor tensor)
set(group_of_target config)
set(group_of_config config)
foreach(h pass pass_config pass_context pass_instrument pass_registry pass_reproducer pipeline)
  set(group_of_${h} pass)
endforeach()
set(group_of_build backend)
set(group_of_runtime backend)
set(group_of_build_cache backend)
set(group_of_param_dict backend)
set(group_of_tune_db backend)
set(group_of_tune_measure backend)
file(GLOB dataflow_headers RELATIVE ${IRM_SOURCE_DIR}/include/irm ${IRM_SOURCE_DIR}/include/irm/dataflow/*.h)
foreach(h IN LISTS dataflow_headers)
  string(REGEX REPLACE "\\.h$" "" h ${h})
  set(group_of_${h} dataflow)
endforeach()

set(libraries registry ir ir/tensor ir/config ir/dataflow passes passes/dataflow backend lib)
set(sees_registry registry)
set(sees_ir registry core)
set(sees_ir/tensor registry core tensor)
set(sees_ir/config registry core config)
set(sees_ir/dataflow registry core tensor config dataflow)
set(sees_passes registry core tensor config pass)
set(sees_passes/dataflow registry core tensor config dataflow pass)
set(sees_backend registry core tensor config dataflow pass backend)
set(sees_lib registry)
# Internal-header folders each library has on its include path.
set(internal_registry registry/internal)
foreach(lib ir ir/tensor ir/config ir/dataflow passes passes/dataflow backend)
  set(internal_${lib} registry/internal ir/internal)
endforeach()
set(internal_lib registry/internal)

# The library a folder (relative to the repo) belongs to: the longest
# library path that is the folder or one of its parents.
function(library_of folder out)
  set(best "")
  foreach(lib IN LISTS libraries)
    string(LENGTH "${lib}" n)
    string(LENGTH "${best}" nb)
    if((folder STREQUAL lib OR folder MATCHES "^${lib}/") AND n GREATER nb)
      set(best ${lib})
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

set(problems "")
foreach(lib IN LISTS libraries)
  file(GLOB_RECURSE sources RELATIVE ${IRM_SOURCE_DIR} ${IRM_SOURCE_DIR}/${lib}/*.c ${IRM_SOURCE_DIR}/${lib}/*.h)
  foreach(rel IN LISTS sources)
    get_filename_component(folder ${rel} DIRECTORY)
    library_of(${folder} owner)
    if(NOT owner STREQUAL lib)
      continue() # a sub-library's file: checked under its own library
    endif()
    file(STRINGS ${IRM_SOURCE_DIR}/${rel} includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
    foreach(plant IN LISTS IRM_PLANT)
      if(plant MATCHES "^([^|]+)\\|(.*)$" AND CMAKE_MATCH_1 STREQUAL rel)
        list(APPEND includes "${CMAKE_MATCH_2}")
      endif()
    endforeach()
    foreach(line IN LISTS includes)
      if(line MATCHES "#[ \t]*include[ \t]*[\"<]irm/([a-z_/]+)\\.h[\">]")
        set(h ${CMAKE_MATCH_1})
        if(NOT DEFINED group_of_${h})
          string(APPEND problems "\n  ${rel}: includes irm/${h}.h, which is no public header")
        elseif(NOT "${group_of_${h}}" IN_LIST sees_${lib})
          list(JOIN sees_${lib} ", " seen)
          string(APPEND problems "\n  ${rel} (${lib}): includes irm/${h}.h of the ${group_of_${h}} headers; "
                 "${lib} sees only the ${seen} headers")
        endif()
      elseif(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
        set(h ${CMAKE_MATCH_1})
        if(NOT lib MATCHES "dataflow" AND h MATCHES "(^|/)dataflow/")
          string(APPEND problems "\n  ${rel} (${lib}): includes \"${h}\", under a dataflow folder")
          continue()
        endif()
        # Where the compiler would find it: beside the file, in the
        # library's own folder, or in an internal folder it sees.
        set(found "")
        foreach(dir IN ITEMS ${folder} ${lib} ${internal_${lib}})
          if(NOT found AND EXISTS ${IRM_SOURCE_DIR}/${dir}/${h})
            file(REAL_PATH ${IRM_SOURCE_DIR}/${dir}/${h} abs)
            file(RELATIVE_PATH found ${IRM_SOURCE_DIR} ${abs})
          endif()
        endforeach()
        if(found)
          # Of another library's internal folder, only its one header
          # crosses (irm_internal.h, ir_internal.h): the rest of the folder
          # is what that header is built from.
          get_filename_component(found_folder ${found} DIRECTORY)
          get_filename_component(found_name ${found} NAME)
          library_of(${found_folder} found_lib)
          if(NOT found_lib STREQUAL lib AND NOT (found_folder IN_LIST internal_${lib}
                                                 AND found_name MATCHES "^(irm|ir)_internal\\.h$"))
            set(found "")
          endif()
        endif()
        # runtime/'s public headers (runtime/include) stand alone; the
        # backend (the AOT code generator, the loader) uses them.
        if(NOT found AND lib STREQUAL "backend" AND EXISTS ${IRM_SOURCE_DIR}/runtime/include/${h})
          set(found runtime/include/${h})
        endif()
        # runtime/kernels' headers (shared math, static inline, standalone):
        # the dialect's evaluator and the backend's generator both use them.
        if(NOT found AND (lib STREQUAL "ir/dataflow" OR lib STREQUAL "backend")
           AND EXISTS ${IRM_SOURCE_DIR}/runtime/kernels/${h})
          set(found runtime/kernels/${h})
        endif()
        if(NOT found)
          if(lib STREQUAL "registry")
            set(crossing "registry is the lowest library and sees no other's private headers")
          elseif(lib STREQUAL "lib")
            set(crossing "of other libraries' private headers, only irm_internal.h crosses")
          else()
            set(crossing "of other libraries' private headers, only irm_internal.h and ir_internal.h cross")
          endif()
          string(APPEND problems "\n  ${rel} (${lib}): includes \"${h}\", which is no header of ${lib} (${crossing})")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()

# runtime/ stands alone: no irm header, and quoted includes only of its own
# headers (generated code compiles against it without libirm).
file(GLOB_RECURSE runtime_sources RELATIVE ${IRM_SOURCE_DIR} ${IRM_SOURCE_DIR}/runtime/*.c ${IRM_SOURCE_DIR}/runtime/*.h)
foreach(rel IN LISTS runtime_sources)
  file(STRINGS ${IRM_SOURCE_DIR}/${rel} includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
  foreach(plant IN LISTS IRM_PLANT)
    if(plant MATCHES "^([^|]+)\\|(.*)$" AND CMAKE_MATCH_1 STREQUAL rel)
      list(APPEND includes "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  foreach(line IN LISTS includes)
    if(line MATCHES "#[ \t]*include[ \t]*[\"<]irm/([a-z_/]+)\\.h[\">]")
      string(APPEND problems "\n  ${rel} (runtime): includes irm/${CMAKE_MATCH_1}.h; runtime/ stands alone and "
             "includes no irm header")
    elseif(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"" AND NOT EXISTS ${IRM_SOURCE_DIR}/runtime/include/${CMAKE_MATCH_1}
           AND NOT EXISTS ${IRM_SOURCE_DIR}/runtime/kernels/${CMAKE_MATCH_1})
      string(APPEND problems "\n  ${rel} (runtime): includes \"${CMAKE_MATCH_1}\", which is no header of runtime/")
    endif()
  endforeach()
endforeach()

if(problems)
  message(FATAL_ERROR "layering broken:${problems}")
endif()
message(STATUS "layers: every include stays within its library")
