# SPDX-License-Identifier: MIT
# Fault, cache-security and concurrent-build tests run child processes (reliability_probe):
# each starts with a fresh "disk cache off, said once" flag and can take limits (another uid, an
# injected full disk or failed build) that the test process must not take on itself.
if(TARGET test_faults)
  # fault_inject: a write() that fails with ENOSPC inside $CLFORGE_TEST_ENOSPC_DIR (a full disk),
  # and builds that fail without a diagnostic ($CLFORGE_TEST_FAILED_BUILDS).
  add_library(fault_inject SHARED ${CMAKE_CURRENT_SOURCE_DIR}/fault_inject.cpp)
  target_link_libraries(fault_inject PRIVATE ${CMAKE_DL_LIBS})
  target_compile_definitions(fault_inject PRIVATE CL_TARGET_OPENCL_VERSION=300)
  add_executable(reliability_probe ${CMAKE_CURRENT_SOURCE_DIR}/reliability_probe.cpp)
  # Linked with --no-as-needed: against a shared libclforge the probe itself calls no write(),
  # and --as-needed would drop fault_inject, leaving libc's write() in place.
  target_link_libraries(reliability_probe PRIVATE clforge::clforge fault_inject)
  target_link_options(reliability_probe PRIVATE LINKER:--no-as-needed)
  foreach(t test_faults test_cache_security test_concurrent_builds)
    if(TARGET ${t})
      target_compile_definitions(${t} PRIVATE
        CLFORGE_RELIABILITY_PROBE="$<TARGET_FILE:reliability_probe>")
      add_dependencies(${t} reliability_probe)
    endif()
  endforeach()
endif()
