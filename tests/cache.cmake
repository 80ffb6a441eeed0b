# SPDX-License-Identifier: MIT
# The program-cache tests start a second process (cache_probe) to see what it finds on disk.
add_executable(cache_probe ${CMAKE_CURRENT_SOURCE_DIR}/cache_probe.cpp)
target_link_libraries(cache_probe PRIVATE clforge::clforge)
target_compile_definitions(test_program_cache PRIVATE
  CLFORGE_CACHE_PROBE="$<TARGET_FILE:cache_probe>")
add_dependencies(test_program_cache cache_probe)
