# SPDX-License-Identifier: MIT
# clforge::mpi::op (tests/mpi/test_mpi_op.cpp) under mpirun on 1 to 4 ranks, in the environment of
# tests/mpi.cmake; the one-rank run compiles the kernels into the test cache first.
if(TARGET clforge_mpi)
  clforge_add_mpi_program(test_mpi_op mpi_op)
  clforge_add_mpi_messages_test(mpi_op_messages_np3 test_mpi_op 3 clforge_mpi_op_kernels)
endif()

# The airfoil-like example on 1, 2 and 4 ranks, a small mesh: every iteration's residual and the
# final state must agree with the serial reference (the example's exit code).
if(TARGET clforge-example-airfoil-like-mpi)
  foreach(ranks 1 2 4)
    add_test(NAME airfoil_like_mpi_np${ranks}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} --oversubscribe
                     ${MPIEXEC_PREFLAGS} $<TARGET_FILE:clforge-example-airfoil-like-mpi>
                     ${MPIEXEC_POSTFLAGS} 24 8 6)
    set_tests_properties(airfoil_like_mpi_np${ranks} PROPERTIES LABELS mpi
                         ENVIRONMENT "${CLFORGE_MPI_TEST_ENV}" TIMEOUT 300 RESOURCE_LOCK clforge_mpi
                         SKIP_RETURN_CODE 77)
  endforeach()
  set_tests_properties(airfoil_like_mpi_np1 PROPERTIES FIXTURES_SETUP clforge_mpi_airfoil_kernels)
  set_tests_properties(airfoil_like_mpi_np2 airfoil_like_mpi_np4
                       PROPERTIES FIXTURES_REQUIRED clforge_mpi_airfoil_kernels)
endif()
