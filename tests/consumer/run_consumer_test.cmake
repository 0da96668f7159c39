# Installs simlod into a scratch prefix, then configures, builds and runs tests/consumer
# against it. Fails on the first step that fails.
file(REMOVE_RECURSE ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
  set(out "${out}" PARENT_SCOPE)
endfunction()
step(${CMAKE_COMMAND} --install ${SIMLOD_BINARY_DIR} --prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build
     -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
     -DCMAKE_BUILD_TYPE=Release)
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/consumer ${WORK_DIR}/roundtrip.sim)
# A CUDA build links the CUDA runtime: a consumer without the CUDA toolkit gets the copy
# installed with simlod (the toolkit hidden from find_package here).
if(SIMLOD_CUDA)
  step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build-no-toolkit
       -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
       -DCMAKE_BUILD_TYPE=Release -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=TRUE)
  if(NOT out MATCHES "the CUDA runtime installed with simlod")
    message(FATAL_ERROR "the consumer without the CUDA toolkit did not take simlod's runtime")
  endif()
  step(${CMAKE_COMMAND} --build ${WORK_DIR}/build-no-toolkit)
  step(${WORK_DIR}/build-no-toolkit/consumer ${WORK_DIR}/roundtrip2.sim)
endif()
