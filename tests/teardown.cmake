# SPDX-License-Identifier: MIT
# test_teardown runs teardown_probe in many fresh processes (create, use, destroy, exit).
add_executable(teardown_probe ${CMAKE_CURRENT_SOURCE_DIR}/teardown_probe.cpp)
target_link_libraries(teardown_probe PRIVATE clforge::clforge)
if(TARGET test_teardown)
  target_compile_definitions(test_teardown PRIVATE
    CLFORGE_TEARDOWN_PROBE="$<TARGET_FILE:teardown_probe>")
  add_dependencies(test_teardown teardown_probe)
endif()
