# SPDX-License-Identifier: MIT
# test_defects_runtime runs clforge-info with no OpenCL platform (where the tools are built).
if(TARGET test_defects_runtime AND TARGET clforge-info)
  target_compile_definitions(test_defects_runtime PRIVATE
    CLFORGE_INFO_TOOL="$<TARGET_FILE:clforge-info>")
  add_dependencies(test_defects_runtime clforge-info)
endif()
