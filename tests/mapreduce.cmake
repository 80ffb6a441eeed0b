# SPDX-License-Identifier: MIT
# large_reduction needs more than 2 GiB of device memory: raise PoCL's limit (in GiB) for that
# test only. (Where the device still cannot allocate 2^31 + bytes at once, the test spreads the
# elements over two buffers.)
if(TARGET large_reduction)
  set_tests_properties(large_reduction PROPERTIES
    ENVIRONMENT "${CLFORGE_TEST_ENV};POCL_MEMORY_LIMIT=10")
endif()
