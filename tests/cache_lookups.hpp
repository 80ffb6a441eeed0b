// SPDX-License-Identifier: MIT
// How many builds a context's program cache has been asked for, however each was served.
#pragma once

#include <cstddef>

#include <clforge/clforge.hpp>

namespace clforge_test {

/// Builds asked of `c`'s program cache: served from memory, loaded from disk or compiled. A
/// call that asks for no build leaves it unchanged.
inline std::size_t cache_lookups(const clforge::context& c) {
  const clforge::cache_stats s = c.program_cache_stats();
  return s.memory_hits + s.disk_hits + s.compiles;
}

}  // namespace clforge_test
