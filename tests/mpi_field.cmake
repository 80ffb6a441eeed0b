# SPDX-License-Identifier: MIT
# clforge::mpi::distributed_field (tests/mpi/test_mpi_field.cpp) under mpirun on 1 to 4 ranks,
# in the environment of tests/mpi.cmake; the one-rank run compiles the kernels into the test
# cache first.
if(TARGET clforge_mpi)
  add_executable(test_mpi_field ${CMAKE_CURRENT_SOURCE_DIR}/mpi/test_mpi_field.cpp)
  target_link_libraries(test_mpi_field PRIVATE clforge::mpi)
  foreach(ranks 1 2 3 4)
    clforge_add_mpi_test(mpi_field_np${ranks} test_mpi_field ${ranks} 300)
  endforeach()
  set_tests_properties(mpi_field_np1 PROPERTIES FIXTURES_SETUP clforge_mpi_field_kernels)
  set_tests_properties(mpi_field_np2 mpi_field_np3 mpi_field_np4
                       PROPERTIES FIXTURES_REQUIRED clforge_mpi_field_kernels)
endif()
