# Runs the example programs in steps and checks each step's exit code and output, so that a
# test of bad input can require both "exit code 1" and the error text (ctest's WILL_FAIL and
# FAIL_REGULAR_EXPRESSION cannot check both at once).
#
#   cmake -DCONVERT=<exe> -DINFO=<exe> -DRENDER=<exe> -DDEMO=<exe> -DCOMPARE=<exe>
#         -DPREVIEW=<exe> -DGROUND=<exe> -DVISIBILITY=<exe> -DWORK_DIR=<dir>
#         -DSTEPS=<n> -DSTEP1=<step> ...
#         [-DNEEDS_DATA=ON] -P run_tool.cmake
#
# A step is a '|'-separated list: the program ("convert", "info", "render", "demo", "compare"
# "preview", "ground" or "visibility"; anything else runs as named), its arguments, and checks:
#   RC=<code>        expected exit code (default 0)
#   OUT=<regex>      stdout must match          ERR=<regex>    stderr must match
#   EXISTS=<path>    must exist afterwards      ABSENT=<path>  must not exist afterwards
# "<DATA>" is replaced by $ENV{SIMLOD_TEST_DATA}, "<WORK>" by WORK_DIR (emptied first) and
# "<SRC>" by this script's folder. With NEEDS_DATA and no SIMLOD_TEST_DATA the test prints
# SIMLOD_TEST_SKIPPED (the test's SKIP_REGULAR_EXPRESSION) and stops.
cmake_minimum_required(VERSION 3.24)

if(NEEDS_DATA AND "$ENV{SIMLOD_TEST_DATA}" STREQUAL "")
  message("SIMLOD_TEST_SKIPPED: SIMLOD_TEST_DATA is not set; point it at the test data folder")
  return()
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

foreach(i RANGE 1 ${STEPS})
  string(REPLACE "|" ";" step "${STEP${i}}")
  string(REPLACE "<DATA>" "$ENV{SIMLOD_TEST_DATA}" step "${step}")
  string(REPLACE "<WORK>" "${WORK_DIR}" step "${step}")
  string(REPLACE "<SRC>" "${CMAKE_CURRENT_LIST_DIR}" step "${step}")
  set(cmd "")
  set(want_rc 0)
  set(out_re "")
  set(err_re "")
  set(exists "")
  set(absent "")
  foreach(item IN LISTS step)
    if(item MATCHES "^RC=(.*)$")
      set(want_rc "${CMAKE_MATCH_1}")
    elseif(item MATCHES "^OUT=(.*)$")
      list(APPEND out_re "${CMAKE_MATCH_1}")
    elseif(item MATCHES "^ERR=(.*)$")
      list(APPEND err_re "${CMAKE_MATCH_1}")
    elseif(item MATCHES "^EXISTS=(.*)$")
      list(APPEND exists "${CMAKE_MATCH_1}")
    elseif(item MATCHES "^ABSENT=(.*)$")
      list(APPEND absent "${CMAKE_MATCH_1}")
    elseif(cmd STREQUAL "" AND item STREQUAL "convert")
      list(APPEND cmd "${CONVERT}")
    elseif(cmd STREQUAL "" AND item STREQUAL "info")
      list(APPEND cmd "${INFO}")
    elseif(cmd STREQUAL "" AND item STREQUAL "render")
      list(APPEND cmd "${RENDER}")
    elseif(cmd STREQUAL "" AND item STREQUAL "demo")
      list(APPEND cmd "${DEMO}")
    elseif(cmd STREQUAL "" AND item STREQUAL "compare")
      list(APPEND cmd "${COMPARE}")
    elseif(cmd STREQUAL "" AND item STREQUAL "preview")
      list(APPEND cmd "${PREVIEW}")
    elseif(cmd STREQUAL "" AND item STREQUAL "ground")
      list(APPEND cmd "${GROUND}")
    elseif(cmd STREQUAL "" AND item STREQUAL "visibility")
      list(APPEND cmd "${VISIBILITY}")
    else()
      list(APPEND cmd "${item}")
    endif()
  endforeach()

  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  list(JOIN cmd " " shown)
  message("step ${i}: ${shown}\n-- exit code ${rc}\n-- stdout:\n${out}-- stderr:\n${err}")

  if(NOT rc STREQUAL want_rc)
    message(FATAL_ERROR "step ${i}: exit code ${rc}, expected ${want_rc}")
  endif()
  foreach(re IN LISTS out_re)
    if(NOT out MATCHES "${re}")
      message(FATAL_ERROR "step ${i}: stdout does not match '${re}'")
    endif()
  endforeach()
  foreach(re IN LISTS err_re)
    if(NOT err MATCHES "${re}")
      message(FATAL_ERROR "step ${i}: stderr does not match '${re}'")
    endif()
  endforeach()
  foreach(path IN LISTS exists)
    if(NOT EXISTS "${path}")
      message(FATAL_ERROR "step ${i}: '${path}' does not exist")
    endif()
  endforeach()
  foreach(path IN LISTS absent)
    if(EXISTS "${path}")
      message(FATAL_ERROR "step ${i}: '${path}' exists but should not")
    endif()
  endforeach()
endforeach()
