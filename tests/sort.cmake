# SPDX-License-Identifier: MIT
# large_sort sorts 2^31 + 3 bytes: two 2 GiB buffers on the device. PoCL's largest allocation is
# a quarter of its global memory, which POCL_MEMORY_LIMIT (GiB) raises; other OpenCL drivers
# ignore the variable. It runs alone (memory).
if(TARGET large_sort)
  set_tests_properties(large_sort PROPERTIES
    ENVIRONMENT "${CLFORGE_TEST_ENV};POCL_MEMORY_LIMIT=12" TIMEOUT 1800
    RESOURCE_LOCK large_memory RUN_SERIAL TRUE)
endif()
