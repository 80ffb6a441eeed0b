// SPDX-License-Identifier: MIT
// Private to lib/mpi: MPI return codes as clforge::error.
#pragma once

#include <string>

#include "clforge/error.hpp"
#include "clforge/mpi/c_api.hpp"

namespace clforge::mpi::detail {

[[noreturn]] inline void throw_mpi_error(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  throw error(std::string("clforge::mpi: ") + call + " failed: " + std::string(text, length) +
              " (" + std::to_string(code) + ")");
}
inline void check_mpi(int code, const char* call) {
  if (code != MPI_SUCCESS) throw_mpi_error(call, code);
}

}  // namespace clforge::mpi::detail
