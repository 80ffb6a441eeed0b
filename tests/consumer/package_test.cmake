# SPDX-License-Identifier: MIT
# Run by the package_* tests (cmake -P, see tests/package.cmake). MODE:
#   install       install the build into WORK_DIR/prefix, then move it (relocatable)
#   package       find_package(clforge) from that prefix: configure, build, run the consumer
#   pkg-config    compile the consumer with `pkg-config --cflags --libs clforge` from it, run it
#   fetchcontent  FetchContent on the source tree: configure, build, run
#   subdirectory  add_subdirectory of the source tree, shared library: configure, build, run;
#                 installing the consumer installs nothing of clforge (CLFORGE_INSTALL is off)
#   components    find_package(clforge COMPONENTS <unknown>) from the prefix fails naming it
set(prefix ${WORK_DIR}/moved-prefix)
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)
set(launcher "")
if(LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE ${WORK_DIR}/prefix ${prefix})
  run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
  file(RENAME ${WORK_DIR}/prefix ${prefix})
elseif(MODE STREQUAL "pkg-config")
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  execute_process(COMMAND ${PKG_CONFIG} --cflags clforge OUTPUT_VARIABLE cflags
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND ${PKG_CONFIG} --libs --static clforge OUTPUT_VARIABLE libs
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND ${PKG_CONFIG} --modversion clforge OUTPUT_VARIABLE version
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  message(STATUS "pkg-config: clforge ${version}: ${cflags} ${libs}")
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  separate_arguments(libs UNIX_COMMAND "${libs}")
  file(MAKE_DIRECTORY ${WORK_DIR}/pkg-config)
  run(${CXX} -std=c++17 ${cflags} ${CONSUMER_SOURCE}/main.cpp -o ${WORK_DIR}/pkg-config/consumer
      ${libs})
  run(${WORK_DIR}/pkg-config/consumer)
elseif(MODE STREQUAL "components")
  set(project ${WORK_DIR}/components)
  file(REMOVE_RECURSE ${project})
  file(WRITE ${project}/CMakeLists.txt
       "cmake_minimum_required(VERSION 3.20)\nproject(components LANGUAGES CXX)\n"
       "find_package(clforge CONFIG REQUIRED COMPONENTS mpi no_such_part)\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${project} -B ${project}/build
                          -DCMAKE_PREFIX_PATH=${prefix}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "find_package(clforge COMPONENTS no_such_part) succeeded")
  endif()
  if(NOT "${out}${err}" MATCHES "clforge has no component no_such_part")
    message(FATAL_ERROR "the failure does not name the component:\n${out}${err}")
  endif()
  message(STATUS "find_package(clforge COMPONENTS mpi no_such_part) fails: clforge has no component no_such_part")
else()
  # The subproject builds have no build type (clforge must leave it empty; -O0 also builds
  # fastest).
  set(build ${WORK_DIR}/${MODE})
  file(REMOVE_RECURSE ${build})
  if(MODE STREQUAL "package")
    set(extra -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
  elseif(MODE STREQUAL "subdirectory")
    # Shared: the consumer links only the exported names.
    set(extra -DCLFORGE_SOURCE_DIR=${SOURCE_DIR} -DBUILD_SHARED_LIBS=ON)
  else()
    set(extra -DCLFORGE_SOURCE_DIR=${SOURCE_DIR})
  endif()
  run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${build} -DCLFORGE_CONSUMER_MODE=${MODE}
      ${extra} ${launcher})
  run(${CMAKE_COMMAND} --build ${build} -j 2)
  run(${build}/consumer)
  if(NOT MODE STREQUAL "package")
    # As a subproject clforge installs nothing (nor does clforge::mpi).
    file(REMOVE_RECURSE ${WORK_DIR}/${MODE}-install)
    run(${CMAKE_COMMAND} --install ${build} --prefix ${WORK_DIR}/${MODE}-install)
    file(GLOB_RECURSE installed ${WORK_DIR}/${MODE}-install/*)
    if(installed)
      message(FATAL_ERROR "the consumer's install installed clforge files: ${installed}")
    endif()
  endif()
endif()
