# Fails when a source file reaches past its layer (cmake -P, run by ctest).
#
# Layers, lowest first: registry (0), ir (1), passes (2), lib (links them);
# tools and everything outside libirm sit on top. A file may include
#   - quoted private headers of its own folder only, plus irm_internal.h
#     (layer 0's one header meant for the layers above it; layer 0 itself
#     also sees the rest of registry/internal);
#   - public headers (irm/...) of its own layer or a lower one.
# The build enforces the first rule through include paths too; this check
# says in words which file broke which rule.
#
#   cmake -DIRM_SOURCE_DIR=<repo> -P check_layers.cmake
if(NOT IRM_SOURCE_DIR)
  message(FATAL_ERROR "pass -DIRM_SOURCE_DIR=<the irm source folder>")
endif()

# The layer of each public header; irm.h includes every layer.
set(public_layer_version 0)
foreach(h alloc c_api container error function journal json kind object plugin structural version)
  set(public_layer_${h} 0)
endforeach()
foreach(h config target module tensor ir_type expr op ir_text evaluate)
  set(public_layer_${h} 1)
endforeach()
set(public_layer_pass 2)
set(public_layer_ir_passes 2)
set(public_layer_irm 99)

set(folders registry registry/internal ir passes lib)
set(layer_registry 0)
set(layer_registry/internal 0)
set(layer_ir 1)
set(layer_passes 2)
set(layer_lib 2)

set(problems "")
foreach(folder IN LISTS folders)
  file(GLOB sources ${IRM_SOURCE_DIR}/${folder}/*.c ${IRM_SOURCE_DIR}/${folder}/*.h)
  foreach(src IN LISTS sources)
    file(STRINGS ${src} includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
    file(RELATIVE_PATH rel ${IRM_SOURCE_DIR} ${src})
    foreach(line IN LISTS includes)
      if(line MATCHES "#[ \t]*include[ \t]*[\"<]irm/([a-z_]+)\\.h[\">]")
        set(h ${CMAKE_MATCH_1})
        if(NOT DEFINED public_layer_${h})
          string(APPEND problems "\n  ${rel}: includes irm/${h}.h, which is no public header")
        elseif(public_layer_${h} GREATER layer_${folder})
          string(APPEND problems
            "\n  ${rel} (layer ${layer_${folder}}): includes irm/${h}.h of layer ${public_layer_${h}}")
        endif()
      elseif(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
        set(h ${CMAKE_MATCH_1})
        if(h STREQUAL "irm_internal.h")
          continue()
        endif()
        get_filename_component(dir ${src} DIRECTORY)
        # Layer 0 sees its own folder and registry/internal.
        set(own_internal "")
        if(folder STREQUAL "registry")
          set(own_internal ${dir}/internal/${h})
        endif()
        if(NOT EXISTS ${dir}/${h} AND NOT (own_internal AND EXISTS ${own_internal}))
          string(APPEND problems
            "\n  ${rel}: includes \"${h}\", a private header of another folder (only irm_internal.h crosses layers)")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()

if(problems)
  message(FATAL_ERROR "layering broken:${problems}")
endif()
message(STATUS "layers: every include stays within its layer")
