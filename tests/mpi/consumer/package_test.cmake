# SPDX-License-Identifier: MIT
# Run by the mpi_package_consumer test (cmake -P): install into a scratch prefix, move it, then
# build the consumer with find_package(clforge COMPONENTS mpi) and run it under mpirun -np 2.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
include(${CMAKE_CURRENT_LIST_DIR}/../../consumer/run.cmake)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
file(RENAME ${prefix} ${WORK_DIR}/moved-prefix)
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/moved-prefix -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${MPIEXEC} -np 2 --oversubscribe ${WORK_DIR}/build/mpi_consumer)

# The package left MPI's settings to the consumer: MPI_CXX_SKIP_MPICXX is what FindMPI itself
# defaults to (off), not a value clforge wrote into the consumer's cache.
file(STRINGS ${WORK_DIR}/build/CMakeCache.txt skip REGEX "^MPI_CXX_SKIP_MPICXX:")
if(skip MATCHES "=(ON|TRUE|1)$")
  message(FATAL_ERROR "the consumer's cache has ${skip}: written by clforge's package config")
endif()

# pkg-config: clforge-mpi.pc, plain flags and -Werror (mpi.hpp keeps MPI's C++ bindings out).
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} ${WORK_DIR}/moved-prefix/${LIBDIR}/pkgconfig)
  execute_process(COMMAND ${PKG_CONFIG} --cflags clforge-mpi OUTPUT_VARIABLE cflags
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND ${PKG_CONFIG} --libs --static clforge-mpi OUTPUT_VARIABLE libs
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  message(STATUS "pkg-config clforge-mpi: ${cflags} ${libs}")
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  separate_arguments(libs UNIX_COMMAND "${libs}")
  run(${CXX} -std=c++17 -Wall -Wextra -Werror ${cflags} ${CONSUMER_SOURCE}/main.cpp
      -o ${WORK_DIR}/mpi_consumer_pkg_config ${libs})
  run(${MPIEXEC} -np 2 --oversubscribe ${WORK_DIR}/mpi_consumer_pkg_config)
endif()

# The installed clforge-mpi-bench finds the installed libraries (install RPATH $ORIGIN/../lib).
set(bench ${WORK_DIR}/moved-prefix/bin/clforge-mpi-bench)
if(EXISTS ${bench})
  execute_process(COMMAND readelf -d ${bench} OUTPUT_VARIABLE dynamic)
  if(NOT dynamic MATCHES "R(UN)?PATH[^\n]*[$]ORIGIN/[.][.]/${LIBDIR}")
    message(FATAL_ERROR "clforge-mpi-bench has no install RPATH $ORIGIN/../${LIBDIR}:\n${dynamic}")
  endif()
  run(${bench} --version)
endif()
