# SPDX-License-Identifier: MIT
# clforge::mpi::op (tests/mpi/test_mpi_op.cpp) under mpirun on 1 to 4 ranks, in the environment of
# tests/mpi.cmake; the one-rank run compiles the kernels into the test cache first.
if(TARGET clforge_mpi)
  add_executable(test_mpi_op ${CMAKE_CURRENT_SOURCE_DIR}/mpi/test_mpi_op.cpp)
  target_link_libraries(test_mpi_op PRIVATE clforge::mpi)
  foreach(ranks 1 2 3 4)
    clforge_add_mpi_test(mpi_op_np${ranks} test_mpi_op ${ranks} 300)
  endforeach()
  set_tests_properties(mpi_op_np1 PROPERTIES FIXTURES_SETUP clforge_mpi_op_kernels)
  set_tests_properties(mpi_op_np2 mpi_op_np3 mpi_op_np4
                       PROPERTIES FIXTURES_REQUIRED clforge_mpi_op_kernels)
endif()
