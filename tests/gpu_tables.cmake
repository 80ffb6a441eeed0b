# SPDX-License-Identifier: MIT
# Every kernel variant in CI: the template and array tests run again on the same device (PoCL in
# CI) under the GPU tuning tables whose kernels PoCL can build, so a variant only a GPU table
# picks (vector-lane reductions, look-back scans, onesweep sorts, ...) is tested before a GPU
# user meets it. Label `gpu-tables` (`ctest -LE gpu-tables` leaves them out while iterating).
#   generic   the table of GPUs nobody measured (and the base of kernel_shape::gpu());
#   nvidia    the NVIDIA table with the sort's lane ranking in place of its NVIDIA-only ones
#             (nv_warp and nv_match use inline PTX).
# Every unit test runs under them except these, which test the tables, the tuner, the runtime
# below the templates or the tools, and would only repeat themselves.
set(CLFORGE_GPU_TABLE_EXCLUDED
    test_build_errors test_cache_security test_defects_runtime test_device_selection test_faults
    test_fuzz_regressions test_launcher test_log test_memory_pool_interop test_program_cache
    test_signature
    test_smoke test_tuner test_tuning)
# (CTest's ENVIRONMENT is a list: the ';' between CLFORGE_TUNE's parts is escaped.)
set(CLFORGE_GPU_TABLES generic nvidia)
set(CLFORGE_GPU_TABLE_TUNE_generic "table=generic")
set(CLFORGE_GPU_TABLE_TUNE_nvidia "table=nvidia\\;sort:ranking=lanes")
foreach(source IN LISTS CLFORGE_UNIT_TESTS)
  get_filename_component(name "${source}" NAME_WE)
  if(name IN_LIST CLFORGE_GPU_TABLE_EXCLUDED)
    continue()
  endif()
  foreach(table IN LISTS CLFORGE_GPU_TABLES)
    add_test(NAME ${name}@${table} COMMAND ${name})
    set_tests_properties(${name}@${table} PROPERTIES
      ENVIRONMENT "${CLFORGE_TEST_ENV};CLFORGE_TUNE=${CLFORGE_GPU_TABLE_TUNE_${table}}"
      TIMEOUT 900 LABELS gpu-tables)
  endforeach()
endforeach()
