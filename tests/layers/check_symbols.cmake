# The layer rules, proven on the compiled objects: no object of a library
# below the dataflow dialect (the module core, configs, tensors, the pass
# manager) uses a symbol that a dialect library defines (nm).
#
#   cmake -DNM=<nm> -DLOWER=<objects, |-separated> -DDIALECT=<objects, |-separated> -P check_symbols.cmake
#
# -DWHAT=backend checks the compilation driver's symbols the same way (the
# DIALECT objects are then backend/'s, LOWER everything below it).
cmake_policy(VERSION 3.20)
if(NOT WHAT)
  set(WHAT "dataflow dialect")
endif()
string(REPLACE "|" ";" lower "${LOWER}")
string(REPLACE "|" ";" dialect "${DIALECT}")
if(NOT lower OR NOT dialect)
  message(FATAL_ERROR "pass -DLOWER=... and -DDIALECT=... (object files)")
endif()

# Defined external symbols of the dialect's objects.
execute_process(COMMAND ${NM} --defined-only --extern-only --format=posix ${dialect}
                OUTPUT_VARIABLE defined RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "nm failed on the dialect's objects")
endif()
string(REGEX MATCHALL "(^|\n)[A-Za-z_][A-Za-z0-9_]* [TDRB]" defined_lines "${defined}")
set(dialect_symbols "")
foreach(line IN LISTS defined_lines)
  string(REGEX REPLACE "^\n?([A-Za-z0-9_]+) .*" "\\1" sym "${line}")
  list(APPEND dialect_symbols ${sym})
endforeach()
list(LENGTH dialect_symbols n_defined)
if(n_defined EQUAL 0)
  message(FATAL_ERROR "no symbols found in the ${WHAT}'s objects: the check would prove nothing")
endif()

set(problems "")
foreach(obj IN LISTS lower)
  execute_process(COMMAND ${NM} --undefined-only --format=posix ${obj} OUTPUT_VARIABLE undefined)
  string(REGEX MATCHALL "(^|\n)[A-Za-z_][A-Za-z0-9_]* U" undefined_lines "${undefined}")
  foreach(line IN LISTS undefined_lines)
    string(REGEX REPLACE "^\n?([A-Za-z0-9_]+) .*" "\\1" sym "${line}")
    if(sym IN_LIST dialect_symbols)
      get_filename_component(name ${obj} NAME)
      string(APPEND problems "\n  ${name} uses ${sym}, defined by the ${WHAT}")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "a library below the ${WHAT} uses it:${problems}")
endif()
message(STATUS "symbols: no library below the ${WHAT} uses any of its ${n_defined} symbols")
