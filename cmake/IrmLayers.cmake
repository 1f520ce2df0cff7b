# Each library of libirm is its own OBJECT library; lib/CMakeLists.txt links
# them into the one shared libirm. A library's include path holds the public
# headers, its own folder and the internal-header folders it is given with
# SEES: registry/internal (layer 0's one header for the libraries above it)
# and ir/internal (the module core's). So a library that includes another
# library's private header does not compile; tests/layers/check_layers.cmake
# checks the same rules, and those on public headers, in words.
#
#   irm_add_layer(<name> [SEES <folder>...] SOURCES <source>...)
#
# Sources may sit in subfolders of the library's folder (ir/dataflow/text);
# the library's own folder is on the include path, so they reach its private
# headers, and a quoted include finds a header beside its file.
function(irm_add_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SEES;SOURCES")
  add_library(${name} OBJECT ${arg_SOURCES})
  set_target_properties(${name} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_compile_definitions(${name} PRIVATE IRM_BUILDING_LIBRARY _GNU_SOURCE)
  set(sees)
  foreach(folder IN LISTS arg_SEES)
    list(APPEND sees ${PROJECT_SOURCE_DIR}/${folder})
  endforeach()
  target_include_directories(${name}
    PRIVATE ${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR} ${sees} ${IRM_UTHASH_INCLUDE_DIR})
  target_link_libraries(${name} PRIVATE dlpack::dlpack) # irm/tensor.h's <dlpack/dlpack.h>
  irm_target_flags(${name})
  # Calls between irm's own exported functions may bind directly (and
  # inline): nobody interposes single irm symbols.
  target_compile_options(${name} PRIVATE -fno-semantic-interposition)
  # The layer rules run before any library compiles: a broken rule fails
  # the build, naming the file and the rule.
  add_dependencies(${name} irm_layer_check)
  set_property(GLOBAL APPEND PROPERTY IRM_LAYERS ${name})
endfunction()

# The folders of internal headers meant for the libraries above them.
set(IRM_SEES_REGISTRY registry/internal)
set(IRM_SEES_CORE registry/internal ir/internal)

add_custom_target(irm_layer_check
  COMMAND ${CMAKE_COMMAND} -DIRM_SOURCE_DIR=${PROJECT_SOURCE_DIR}
          -P ${PROJECT_SOURCE_DIR}/tests/layers/check_layers.cmake
  COMMENT "Checking the layer rules"
  VERBATIM)
