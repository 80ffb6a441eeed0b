// SPDX-License-Identifier: MIT
// The public face of the program cache's directory choice (clforge-info prints it).
#include "clforge/program.hpp"
#include "program_cache.hpp"

namespace clforge {

std::string program_cache_directory() {
  return detail::resolve_cache_directory();
}

}  // namespace clforge
