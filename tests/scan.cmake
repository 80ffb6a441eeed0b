# SPDX-License-Identifier: MIT
# large_scan allocates a 2.1 GiB buffer: PoCL's largest allocation is a quarter of its global
# memory, which POCL_MEMORY_LIMIT (GiB) raises. Other OpenCL drivers ignore the variable.
if(TARGET large_scan)
  set_tests_properties(large_scan PROPERTIES
    ENVIRONMENT "${CLFORGE_TEST_ENV};POCL_MEMORY_LIMIT=12" TIMEOUT 1800)
endif()
