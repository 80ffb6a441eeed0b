# SPDX-License-Identifier: MIT
# Consumer tests: a tiny downstream program (tests/consumer) is built and run through each way
# of taking clforge in. One install prefix serves find_package and pkg-config (fixture
# clforge_installed); FetchContent and add_subdirectory build the library again from the source
# tree (label `package`: `ctest -L package` runs only these).
set(CLFORGE_PACKAGE_TEST_ARGS
    -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DCONSUMER_SOURCE=${CMAKE_CURRENT_SOURCE_DIR}/consumer -DWORK_DIR=${PROJECT_BINARY_DIR}/package-test
    -DLIBDIR=${CMAKE_INSTALL_LIBDIR} -DCXX=${CMAKE_CXX_COMPILER}
    -DLAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER})
find_program(CLFORGE_PKG_CONFIG pkg-config)   # Debian: pkg-config
foreach(mode install package pkg-config fetchcontent subdirectory components)
  if(mode STREQUAL "pkg-config" AND NOT CLFORGE_PKG_CONFIG)
    message(WARNING "pkg-config not found: the package_pkg-config test is left out")
    continue()
  endif()
  add_test(NAME package_${mode}
    COMMAND ${CMAKE_COMMAND} ${CLFORGE_PACKAGE_TEST_ARGS} -DMODE=${mode}
            -DPKG_CONFIG=${CLFORGE_PKG_CONFIG} -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/package_test.cmake)
  set_tests_properties(package_${mode} PROPERTIES ENVIRONMENT "${CLFORGE_TEST_ENV}" TIMEOUT 900
                       LABELS package)
endforeach()
set_tests_properties(package_install PROPERTIES FIXTURES_SETUP clforge_installed)
set_tests_properties(package_package package_components PROPERTIES FIXTURES_REQUIRED
                                                               clforge_installed)
if(TEST package_pkg-config)
  set_tests_properties(package_pkg-config PROPERTIES FIXTURES_REQUIRED clforge_installed)
endif()

# The version file's rule (README, "Versions"): single versions and ranges, before and after 1.0.
if(CLFORGE_INSTALL)
  add_test(NAME package_version_rule
    COMMAND ${CMAKE_COMMAND} -DTEMPLATE=${PROJECT_SOURCE_DIR}/cmake/clforgeConfigVersion.cmake.in
            -DBUILT=${PROJECT_BINARY_DIR}/clforgeConfigVersion.cmake
            -DPROJECT_VERSION=${PROJECT_VERSION} -DWORK_DIR=${PROJECT_BINARY_DIR}/version-rule-test
            -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/version_rule.cmake)
  set_tests_properties(package_version_rule PROPERTIES LABELS package TIMEOUT 60)
endif()
