# The layer rules, proven on the compiled objects: no object of a library
# below the dataflow dialect (the module core, configs, tensors, the pass
# manager) uses a symbol that a dialect library defines (nm).
#
#   cmake -DNM=<nm> -DLOWER=<objects, |-separated> -DDIALECT=<objects, |-separated> -P check_symbols.cmake
#
# -DWHAT=backend checks the compilation driver's symbols the same way (the
# DIALECT objects are then backend/'s, LOWER everything below it).
#
# -DUSER=<words> names the checked objects in the failure (default "a
# library below the <WHAT>"), and -DFORBID=<regex> refuses the symbols it
# matches too, whoever defines them (-DFORBID_WHY=<words> says what they
# are): the executors' emitters (backend/aot/, backend/graph/) read only
# the lowered plan, so they use nothing of the dialect and no IR accessor.
cmake_policy(VERSION 3.20)
if(NOT WHAT)
  set(WHAT "dataflow dialect")
endif()
if(NOT USER)
  set(USER "a library below the ${WHAT}")
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
    get_filename_component(name ${obj} NAME)
    if(sym IN_LIST dialect_symbols)
      string(APPEND problems "\n  ${name} uses ${sym}, defined by the ${WHAT}")
    elseif(FORBID AND sym MATCHES "${FORBID}")
      string(APPEND problems "\n  ${name} uses ${sym}, ${FORBID_WHY}")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "${USER} uses what it must not:${problems}")
endif()
list(LENGTH lower n_checked)
message(STATUS "symbols: ${USER} (${n_checked} objects) uses none of the ${WHAT}'s ${n_defined} symbols")
