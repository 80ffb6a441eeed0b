# SPDX-License-Identifier: MIT
# Debian packages: `cmake --build build --target package` writes them to build/packages/.
#
#   libclforge0.2       the shared library (SONAME libclforge.so.0.2)       component runtime
#   libclforge-dev      headers, static library, CMake and pkg-config files  component dev
#   clforge-tools       clforge-info, clforge-tune, clforge-bench, -demo     component tools
#   libclforge-mpi0.2   clforge::mpi's shared library                        component mpi_runtime
#   libclforge-mpi-dev  its headers, static library, CMake and pkg-config     component mpi_dev
#   clforge-mpi-tools   clforge-mpi-bench                                    component mpi_tools
#   clforge-doc         the HTML API reference, where it was built           component doc
#
# The packages need the shared and the static library, installed under /usr. They are made from
# a build of their own, <build>/packaging (shared, prefix /usr, no tests), configured by the
# `package` target itself when it first runs (cmake/CPackProjectConfig.cmake.in) and built by
# CPack; that build also archives the static libraries from the shared ones' objects. So
# `--target package` works from any configure (static, the default, or shared) and the packages
# do not depend on how the main build was configured. Configured with
# -DCLFORGE_PACKAGING_BUILD=ON (what the packaging build is), a build packages itself.

# The static archives beside the shared libraries, from the same objects (position independent,
# hidden visibility with the API exported: what a static link needs too). Installed with the
# -dev components; the CMake package describes the shared libraries.
if(BUILD_SHARED_LIBS)
  add_library(clforge_static STATIC $<TARGET_OBJECTS:clforge>)
  set_target_properties(clforge_static PROPERTIES OUTPUT_NAME clforge)
  install(TARGETS clforge_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
  if(TARGET clforge_mpi)
    add_library(clforge_mpi_static STATIC $<TARGET_OBJECTS:clforge_mpi>)
    set_target_properties(clforge_mpi_static PROPERTIES OUTPUT_NAME clforge_mpi)
    install(TARGETS clforge_mpi_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
            COMPONENT mpi_dev)
  endif()
endif()

set(CLFORGE_DEB_VERSION ${PROJECT_VERSION})
set(CLFORGE_DEB_ABI ${CLFORGE_SOVERSION})   # 0.2: in the library packages' names
set(CLFORGE_DEB_PACKAGES runtime libclforge${CLFORGE_DEB_ABI} dev libclforge-dev
                         tools clforge-tools doc clforge-doc)
if(CLFORGE_MPI)
  list(APPEND CLFORGE_DEB_PACKAGES mpi_runtime libclforge-mpi${CLFORGE_DEB_ABI}
                                   mpi_dev libclforge-mpi-dev mpi_tools clforge-mpi-tools)
endif()

# Each package's Debian copyright file (the MIT license) and changelog (one entry for this
# release; CHANGELOG.md of the source lists the changes); only in the packaging build, where
# nothing else is installed under share/doc.
if(CLFORGE_PACKAGING_BUILD)
  string(TIMESTAMP CLFORGE_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)  # SOURCE_DATE_EPOCH if set
  configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/changelog.in ${PROJECT_BINARY_DIR}/changelog
                 @ONLY)
  set(changelog ${PROJECT_BINARY_DIR}/changelog.gz)
  add_custom_command(OUTPUT ${changelog}
    COMMAND sh -c "gzip -9 -n -c '${PROJECT_BINARY_DIR}/changelog' > '${changelog}'"
    DEPENDS ${PROJECT_BINARY_DIR}/changelog VERBATIM)
  add_custom_target(clforge_deb_changelog ALL DEPENDS ${changelog})
  set(pairs ${CLFORGE_DEB_PACKAGES})
  while(pairs)
    list(POP_FRONT pairs component package)
    install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package}
            RENAME copyright COMPONENT ${component})
    install(FILES ${changelog} DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package}
            COMPONENT ${component})
  endwhile()
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME clforge)
set(CPACK_PACKAGE_VENDOR "The clforge authors")
set(CPACK_PACKAGE_VERSION ${CLFORGE_DEB_VERSION})
set(CLFORGE_PACKAGE_MAINTAINER "The clforge authors <clforge@packages.invalid>" CACHE STRING
    "Maintainer field of the Debian packages")
set(CPACK_PACKAGE_CONTACT "${CLFORGE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)   # <package>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# dpkg-shlibdeps names the system libraries each package's programs and libraries load (libc6,
# libstdc++6, ocl-icd-libopencl1, libopenmpi3 ...); the dependencies between clforge's own
# packages are named below, with their version.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_STRIP_FILES ON)   # Debian ships stripped binaries
# The shared-library packages run ldconfig through dpkg's trigger (what Debian asks for), so
# CPack's own postinst/postrm that call ldconfig are replaced by ones that do nothing.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/cmake/debian/triggers
    ${PROJECT_SOURCE_DIR}/cmake/debian/postinst ${PROJECT_SOURCE_DIR}/cmake/debian/postrm)
set(CPACK_DEBIAN_MPI_RUNTIME_PACKAGE_CONTROL_EXTRA ${CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA})

set(core "libclforge${CLFORGE_DEB_ABI} (= ${CLFORGE_DEB_VERSION})")
set(mpi "libclforge-mpi${CLFORGE_DEB_ABI} (= ${CLFORGE_DEB_VERSION})")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libclforge${CLFORGE_DEB_ABI})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "run-time code generation for OpenCL in C++ (library)
clforge generates, compiles and caches OpenCL kernels at run time from
one-line snippets (elementwise, reduction and scan kernels in the style of
PyOpenCL), with sort, histogram, polygon masks, array expressions, random
numbers and an autotuner, on any vendor's GPU or CPU.

This package contains the shared library.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libclforge-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "${core}, ocl-icd-opencl-dev | opencl-dev, opencl-c-headers, opencl-clhpp-headers")
set(CPACK_COMPONENT_DEV_DESCRIPTION "run-time code generation for OpenCL in C++ (development files)
clforge generates, compiles and caches OpenCL kernels at run time from
one-line snippets.

This package contains the headers, the static library, the CMake package
(find_package(clforge)) and clforge.pc for pkg-config.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME clforge-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${core}")
set(CPACK_DEBIAN_TOOLS_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION "run-time code generation for OpenCL in C++ (tools)
clforge-info lists the OpenCL devices and the one clforge chooses;
clforge-tune searches kernel policies on a device and stores the fastest;
clforge-bench measures clforge against hand-written kernels and peers;
clforge-demo draws a polygon mask.")

set(CPACK_DEBIAN_DOC_PACKAGE_NAME clforge-doc)
set(CPACK_DEBIAN_DOC_PACKAGE_SECTION doc)
set(CPACK_DEBIAN_DOC_PACKAGE_ARCHITECTURE all)
set(CPACK_COMPONENT_DOC_DESCRIPTION "run-time code generation for OpenCL in C++ (API reference)
The HTML API reference of clforge, generated by Doxygen.")

set(CPACK_DEBIAN_MPI_RUNTIME_PACKAGE_NAME libclforge-mpi${CLFORGE_DEB_ABI})
set(CPACK_DEBIAN_MPI_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_MPI_RUNTIME_PACKAGE_DEPENDS "${core}")
set(CPACK_COMPONENT_MPI_RUNTIME_DESCRIPTION "clforge across MPI ranks (library)
clforge::mpi splits arrays over MPI ranks, one OpenCL device per rank, and
runs reductions, scans, stream compaction and polygon masks across them.

This package contains the shared library.")

set(CPACK_DEBIAN_MPI_DEV_PACKAGE_NAME libclforge-mpi-dev)
set(CPACK_DEBIAN_MPI_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_MPI_DEV_PACKAGE_DEPENDS
    "${mpi}, libclforge-dev (= ${CLFORGE_DEB_VERSION}), libopenmpi-dev | mpi-default-dev")
set(CPACK_COMPONENT_MPI_DEV_DESCRIPTION "clforge across MPI ranks (development files)
clforge::mpi splits arrays over MPI ranks, one OpenCL device per rank.

This package contains the headers, the static library, the CMake component
(find_package(clforge COMPONENTS mpi)) and clforge-mpi.pc.")

set(CPACK_DEBIAN_MPI_TOOLS_PACKAGE_NAME clforge-mpi-tools)
set(CPACK_DEBIAN_MPI_TOOLS_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_MPI_TOOLS_PACKAGE_DEPENDS "${mpi}, ${core}")
set(CPACK_DEBIAN_MPI_TOOLS_PACKAGE_RECOMMENDS "openmpi-bin | mpi-default-bin")
set(CPACK_COMPONENT_MPI_TOOLS_DESCRIPTION "clforge across MPI ranks (tools)
clforge-mpi-bench measures the distributed sum and scan of clforge::mpi
under mpirun.")

set(CPACK_COMPONENTS_ALL runtime dev tools)
if(CLFORGE_MPI)
  list(APPEND CPACK_COMPONENTS_ALL mpi_runtime mpi_dev mpi_tools)
endif()

if(CLFORGE_PACKAGING_BUILD)
  if(NOT BUILD_SHARED_LIBS)
    message(FATAL_ERROR "CLFORGE_PACKAGING_BUILD needs BUILD_SHARED_LIBS=ON")
  endif()
  set(CLFORGE_PACKAGING_DIR ${PROJECT_BINARY_DIR})
  # The HTML reference, where a build made it (the main build passes its docs/html): packaged
  # as clforge-doc when it is there when the packages are made.
  set(CLFORGE_DOCS_HTML_DIR ${PROJECT_BINARY_DIR}/docs/html CACHE PATH
      "HTML API reference for the clforge-doc package")
  install(DIRECTORY ${CLFORGE_DOCS_HTML_DIR}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/clforge-doc/html
          COMPONENT doc OPTIONAL)
else()
  set(CLFORGE_PACKAGING_DIR ${PROJECT_BINARY_DIR}/packaging)
  set(CLFORGE_DOCS_HTML_DIR ${PROJECT_BINARY_DIR}/docs/html)
  find_package(benchmark QUIET)
  set(CLFORGE_PACKAGING_BENCH OFF)
  if(benchmark_FOUND)
    set(CLFORGE_PACKAGING_BENCH ON)
  endif()
endif()
set(CPACK_INSTALL_CMAKE_PROJECTS "${CLFORGE_PACKAGING_DIR};clforge;ALL;/")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CLFORGE_PACKAGING_DIR}/lib)
configure_file(${PROJECT_SOURCE_DIR}/cmake/CPackProjectConfig.cmake.in
               ${PROJECT_BINARY_DIR}/CPackProjectConfig.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/CPackProjectConfig.cmake)
include(CPack)
