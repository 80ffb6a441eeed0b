# SPDX-License-Identifier: MIT
# clforge::mpi::distributed_field (tests/mpi/test_mpi_field.cpp) under mpirun on 1 to 4 ranks,
# in the environment of tests/mpi.cmake; the one-rank run compiles the kernels into the test
# cache first.
if(TARGET clforge_mpi)
  clforge_add_mpi_program(test_mpi_field mpi_field)
  clforge_add_mpi_messages_test(mpi_field_messages_np2 test_mpi_field 2 clforge_mpi_field_kernels)
  clforge_add_mpi_messages_test(mpi_field_messages_np3 test_mpi_field 3 clforge_mpi_field_kernels)
endif()
