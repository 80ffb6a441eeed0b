# SPDX-License-Identifier: MIT
# The tuner tests start other processes (tuner_probe) to see what a new process finds on disk
# and to tune two at once.
add_executable(tuner_probe ${CMAKE_CURRENT_SOURCE_DIR}/tuner_probe.cpp)
target_link_libraries(tuner_probe PRIVATE clforge::clforge)
target_include_directories(tuner_probe PRIVATE ${PROJECT_SOURCE_DIR}/lib)
target_compile_definitions(test_tuner PRIVATE CLFORGE_TUNER_PROBE="$<TARGET_FILE:tuner_probe>")
add_dependencies(test_tuner tuner_probe)
