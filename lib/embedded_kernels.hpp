// SPDX-License-Identifier: MIT
// The table generated at build time from kernels/*.cl (cmake/embed_kernels.cmake); every file
// but common.cl has common.cl in front.
#pragma once

#include <cstddef>
#include <string_view>

namespace clforge::detail {
struct embedded_file {
  std::string_view name;  // file name without ".cl"
  const char* text;
  std::size_t size;
};
extern const embedded_file embedded_kernels[];
extern const std::size_t embedded_kernel_count;
}  // namespace clforge::detail
