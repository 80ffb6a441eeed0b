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
# Every `cmake --install` of this build rewrites its install_manifest.txt: one at a time.
set_tests_properties(package_install PROPERTIES FIXTURES_SETUP clforge_installed
                                                RESOURCE_LOCK clforge_install_manifest)
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

# The Debian packages (cmake/packaging.cmake): made by cpack from this build, checked with
# dpkg-deb (and lintian where installed), unpacked into a fresh root with dpkg -x, and consumers
# built and run against them (tests/consumer/deb_test.cmake). Makes the packaging build the first
# time (a full build of the shared libraries and the tools: long on 2 cores).
find_program(CLFORGE_DPKG_DEB dpkg-deb)
find_program(CLFORGE_LINTIAN lintian)   # Debian: lintian (optional)
if(CLFORGE_INSTALL AND CLFORGE_DPKG_DEB AND CLFORGE_PKG_CONFIG)
  set(mpi_args "")
  if(TARGET clforge_mpi)
    set(mpi_args -DMPI_CONSUMER_SOURCE=${CMAKE_CURRENT_SOURCE_DIR}/mpi/consumer
                 -DMPIEXEC=${MPIEXEC_EXECUTABLE})
  endif()
  add_test(NAME package_deb
    COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DWORK_DIR=${PROJECT_BINARY_DIR}/deb-test
            -DCPACK=${CMAKE_CPACK_COMMAND} -DVERSION=${PROJECT_VERSION} -DABI=${CLFORGE_SOVERSION}
            -DCONSUMER_SOURCE=${CMAKE_CURRENT_SOURCE_DIR}/consumer -DCXX=${CMAKE_CXX_COMPILER}
            -DPKG_CONFIG=${CLFORGE_PKG_CONFIG} -DLINTIAN=${CLFORGE_LINTIAN} ${mpi_args}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/deb_test.cmake)
  set_tests_properties(package_deb PROPERTIES LABELS package TIMEOUT 3600
    # MAKEFLAGS: CPack builds the packaging build with make, serially unless told.
    ENVIRONMENT "${CLFORGE_TEST_ENV};MAKEFLAGS=-j2;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;POCL_MAX_PTHREAD_COUNT=1"
    RESOURCE_LOCK clforge_mpi)
elseif(CLFORGE_INSTALL)
  message(WARNING "dpkg-deb or pkg-config not found: the package_deb test is left out")
endif()

# `cmake --build build --target uninstall` (cmake/uninstall.cmake) removes every file
# `cmake --install` put in a fresh prefix.
add_test(NAME package_uninstall
  COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR}
          -DPREFIX=${PROJECT_BINARY_DIR}/uninstall-test/prefix
          -DUNINSTALL=${PROJECT_SOURCE_DIR}/cmake/uninstall.cmake
          -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/uninstall_test.cmake)
set_tests_properties(package_uninstall PROPERTIES LABELS package TIMEOUT 600
                     RESOURCE_LOCK clforge_install_manifest)
