# Checks the JSON of `simlod-compare --builder both`: for each filter of FILTERS, every view's
# and every mean's PSNR and SSIM of the incremental builder (column "<filter>-incremental")
# equal the bulk builder's (column "<filter>") to the last digit written.
#
#   cmake -DJSON=<file> -DFILTERS=random,average -P same_scores.cmake
cmake_minimum_required(VERSION 3.24)

file(READ "${JSON}" json)
string(REPLACE "," ";" filters "${FILTERS}")
string(JSON views LENGTH "${json}" views)
math(EXPR last_view "${views} - 1")
set(checked 0)

# Fails unless the scores at the JSON path `ARGN` (ending in the column) are the same for both.
function(check_same what filter)
  string(JSON bulk GET "${json}" ${ARGN} "${filter}")
  string(JSON incremental GET "${json}" ${ARGN} "${filter}-incremental")
  if(NOT bulk STREQUAL incremental)
    message(FATAL_ERROR "${filter}, ${what}: bulk ${bulk}, incremental ${incremental}")
  endif()
endfunction()

foreach(filter IN LISTS filters)
  foreach(i RANGE ${last_view})
    string(JSON kind GET "${json}" views ${i} kind)
    string(JSON index GET "${json}" views ${i} index)
    check_same("${kind} ${index}" "${filter}" views ${i} scores)
    math(EXPR checked "${checked} + 1")
  endforeach()
  foreach(kind closeup zoomedout)
    check_same("mean ${kind}" "${filter}" means ${kind})
    math(EXPR checked "${checked} + 1")
  endforeach()
endforeach()
message(STATUS "${checked} scores: the incremental builder's equal the bulk builder's")
