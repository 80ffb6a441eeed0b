# SPDX-License-Identifier: MIT
# The large tests take gigabytes of host and device memory: each runs alone (RUN_SERIAL), never
# beside another test under `ctest -j`, so the memory PoCL reports to it is the machine's.
foreach(source IN LISTS CLFORGE_LARGE_TESTS)
  get_filename_component(name "${source}" NAME_WE)
  set_tests_properties(${name} PROPERTIES RUN_SERIAL TRUE)
endforeach()
