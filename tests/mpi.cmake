# SPDX-License-Identifier: MIT
# clforge::mpi tests (tests/mpi/): each program runs under mpirun on 1 to 4 ranks, oversubscribed
# (the ranks share the machine's cores and its PoCL device). Label `mpi`; one MPI test at a time
# (RESOURCE_LOCK), beside the rest of the suite.
if(TARGET clforge_mpi)
  foreach(program test_mpi test_mpi_disagree)
    add_executable(${program} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/${program}.cpp)
    target_link_libraries(${program} PRIVATE clforge::mpi)
  endforeach()
  # Open MPI refuses to start as root (CI containers) without the two ALLOW variables. PoCL gets
  # one thread per rank: 4 ranks each starting a thread per core thrash 2 cores.
  set(CLFORGE_MPI_TEST_ENV
      "${CLFORGE_TEST_ENV};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
      "POCL_MAX_PTHREAD_COUNT=1;POCL_CPU_MAX_CU_NUM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
  function(clforge_add_mpi_test name program ranks timeout)
    add_test(NAME ${name}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} --oversubscribe
                     ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${program}> ${MPIEXEC_POSTFLAGS} ${ARGN})
    set_tests_properties(${name} PROPERTIES LABELS mpi ENVIRONMENT "${CLFORGE_MPI_TEST_ENV}"
                                            TIMEOUT ${timeout} RESOURCE_LOCK clforge_mpi)
  endfunction()
  # Ranks on one machine exchange through a shared-memory window; ranks on several nodes send
  # messages. CI has one machine, so test <name> runs `program` on `ranks` ranks with messages
  # chosen (the tests' --messages) after the fixture that compiled its kernels.
  function(clforge_add_mpi_messages_test name program ranks fixture)
    clforge_add_mpi_test(${name} ${program} ${ranks} 300 --messages)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED ${fixture})
  endfunction()
  # The test program tests/mpi/<program>.cpp as tests <name>_np1 to <name>_np4; the one-rank run
  # compiles the kernels into the test cache first (fixture clforge_<name>_kernels).
  function(clforge_add_mpi_program program name)
    add_executable(${program} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/${program}.cpp)
    target_link_libraries(${program} PRIVATE clforge::mpi)
    foreach(ranks 1 2 3 4)
      clforge_add_mpi_test(${name}_np${ranks} ${program} ${ranks} 300)
    endforeach()
    set_tests_properties(${name}_np1 PROPERTIES FIXTURES_SETUP clforge_${name}_kernels)
    set_tests_properties(${name}_np2 ${name}_np3 ${name}_np4
                         PROPERTIES FIXTURES_REQUIRED clforge_${name}_kernels)
  endfunction()
  foreach(ranks 1 2 3 4)
    clforge_add_mpi_test(mpi_np${ranks} test_mpi ${ranks} 300)
  endforeach()
  # Ranks that disagree must all fail within seconds; the timeout is the guard against a hang.
  foreach(ranks 2 3)
    clforge_add_mpi_test(mpi_disagree_np${ranks} test_mpi_disagree ${ranks} 60)
  endforeach()
  # One rank compiles the kernels into the test cache first: several ranks starting cold would
  # each compile every kernel at once on the same cores (minutes instead of seconds).
  clforge_add_mpi_messages_test(mpi_messages_np3 test_mpi 3 clforge_mpi_kernels)
  set_tests_properties(mpi_np1 PROPERTIES FIXTURES_SETUP clforge_mpi_kernels)
  set_tests_properties(mpi_np2 mpi_np3 mpi_np4 mpi_disagree_np2 mpi_disagree_np3
                       PROPERTIES FIXTURES_REQUIRED clforge_mpi_kernels)
endif()

# Sort and histogram across ranks (tests/mpi/test_mpi_sort.cpp), -np 1 to 4, after mpi_np1 has
# filled the kernel cache.
if(TARGET clforge_mpi)
  add_executable(test_mpi_sort ${CMAKE_CURRENT_SOURCE_DIR}/mpi/test_mpi_sort.cpp)
  target_link_libraries(test_mpi_sort PRIVATE clforge::mpi)
  foreach(ranks 1 2 3 4)
    clforge_add_mpi_test(mpi_sort_np${ranks} test_mpi_sort ${ranks} 300)
    set_tests_properties(mpi_sort_np${ranks} PROPERTIES FIXTURES_REQUIRED clforge_mpi_kernels)
  endforeach()
  clforge_add_mpi_messages_test(mpi_sort_messages_np3 test_mpi_sort 3 clforge_mpi_kernels)
endif()

# Package test for clforge::mpi: install, then a downstream project finds the mpi component and
# runs a distributed sum (its own work directory, beside tests/package.cmake's); the same with
# pkg-config (clforge-mpi.pc) under -Werror.
if(TARGET clforge_mpi)
  find_program(CLFORGE_PKG_CONFIG pkg-config)   # Debian: pkg-config
  add_test(NAME mpi_package_consumer
    COMMAND ${CMAKE_COMMAND}
      -DBUILD_DIR=${PROJECT_BINARY_DIR}
      -DCONSUMER_SOURCE=${CMAKE_CURRENT_SOURCE_DIR}/mpi/consumer
      -DWORK_DIR=${PROJECT_BINARY_DIR}/mpi-package-test
      -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DPKG_CONFIG=${CLFORGE_PKG_CONFIG}
      -DLIBDIR=${CMAKE_INSTALL_LIBDIR} -DCXX=${CMAKE_CXX_COMPILER}
      -P ${CMAKE_CURRENT_SOURCE_DIR}/mpi/consumer/package_test.cmake)
  set_tests_properties(mpi_package_consumer PROPERTIES LABELS mpi ENVIRONMENT "${CLFORGE_MPI_TEST_ENV}"
                                                       TIMEOUT 600
                                                       RESOURCE_LOCK "clforge_mpi;clforge_install_manifest")
endif()

# How the exchanges move data (tests/mpi/test_mpi_transport.cpp): exchanges pending at once,
# sub-communicators, ranks on different transports, MPI_Finalize with windows cached; -np 1
# compiles the kernels into the test cache first, -np 2 to 4 test the transports.
if(TARGET clforge_mpi)
  clforge_add_mpi_program(test_mpi_transport mpi_transport)
  # A few seconds a run: a hang (MPI_Finalize with windows left, ranks on different transports)
  # fails within a minute.
  set_tests_properties(mpi_transport_np1 mpi_transport_np2 mpi_transport_np3 mpi_transport_np4
                       PROPERTIES TIMEOUT 60)
endif()
