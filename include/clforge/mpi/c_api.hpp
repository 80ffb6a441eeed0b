// SPDX-License-Identifier: MIT
// <mpi.h> for clforge::mpi, which uses MPI's C API only. MPI's C++ bindings (Open MPI's and
// MPICH's, deprecated since MPI-2.2) are kept out while <mpi.h> is read here: with them, g++
// -Wall -Wextra -Werror fails inside Open MPI's own header. The two switches are defined only
// around the include and removed again, so nothing leaks into the including file; a program that
// wants the bindings includes <mpi.h> itself before clforge/mpi.hpp.
#pragma once

#if !defined(OMPI_SKIP_MPICXX)
#define OMPI_SKIP_MPICXX 1
#define CLFORGE_MPI_DEFINED_OMPI_SKIP_MPICXX
#endif
#if !defined(MPICH_SKIP_MPICXX)
#define MPICH_SKIP_MPICXX 1
#define CLFORGE_MPI_DEFINED_MPICH_SKIP_MPICXX
#endif

#include <mpi.h>

#if defined(CLFORGE_MPI_DEFINED_OMPI_SKIP_MPICXX)
#undef OMPI_SKIP_MPICXX
#undef CLFORGE_MPI_DEFINED_OMPI_SKIP_MPICXX
#endif
#if defined(CLFORGE_MPI_DEFINED_MPICH_SKIP_MPICXX)
#undef MPICH_SKIP_MPICXX
#undef CLFORGE_MPI_DEFINED_MPICH_SKIP_MPICXX
#endif

#include "clforge/mpi/export.hpp"
