# Each layer of libirm is its own OBJECT library; lib/CMakeLists.txt links
# them into the one shared libirm. A layer's include path holds the public
# headers, its own folder, and — for every layer — registry/internal, the
# one folder of layer 0's internals meant for the others. So an upper layer
# that includes another layer's private header does not compile
# (tests/layers/check_layers.cmake says the same in words).
#
#   irm_add_layer(<name> <source>...)   in the layer's own CMakeLists.txt
set(IRM_LAYER_SHARED_INCLUDE ${PROJECT_SOURCE_DIR}/registry/internal)

function(irm_add_layer name)
  add_library(${name} OBJECT ${ARGN})
  set_target_properties(${name} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_compile_definitions(${name} PRIVATE IRM_BUILDING_LIBRARY _GNU_SOURCE)
  target_include_directories(${name}
    PRIVATE ${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}
            ${IRM_LAYER_SHARED_INCLUDE} ${IRM_UTHASH_INCLUDE_DIR})
  irm_target_flags(${name})
  # Calls between irm's own exported functions may bind directly (and
  # inline): nobody interposes single irm symbols.
  target_compile_options(${name} PRIVATE -fno-semantic-interposition)
  set_property(GLOBAL APPEND PROPERTY IRM_LAYERS ${name})
endfunction()
