# SPDX-License-Identifier: MIT
# clforge::mpi::distributed_field (tests/mpi/test_mpi_field.cpp) under mpirun on 1 to 4 ranks,
# in the environment of tests/mpi.cmake; the one-rank run compiles the kernels into the test
# cache first.
if(TARGET clforge_mpi)
  clforge_add_mpi_program(test_mpi_field mpi_field)
endif()
