# SPDX-License-Identifier: MIT
# Run by the mpi_package_consumer test (cmake -P): install into a scratch prefix, move it, then
# build the consumer with find_package(clforge COMPONENTS mpi) and run it under mpirun -np 2.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
file(RENAME ${prefix} ${WORK_DIR}/moved-prefix)
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/moved-prefix -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${MPIEXEC} -np 2 --oversubscribe ${WORK_DIR}/build/mpi_consumer)
