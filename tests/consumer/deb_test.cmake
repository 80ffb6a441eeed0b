# SPDX-License-Identifier: MIT
# Run by the package_deb test (cmake -P; tests/package.cmake): makes the Debian packages as
# `cmake --build <build> --target package` does (cpack on the build's CPackConfig.cmake, which
# builds <build>/packaging), checks their names, versions, dependencies and contents with
# dpkg-deb, unpacks them into a fresh root (dpkg -x: no root rights, nothing installed on the
# machine), checks the shared libraries' exports, then builds and runs consumers against it:
# find_package (shared library), pkg-config with the static library, the tools, and with MPI
# find_package(clforge COMPONENTS mpi) under mpirun. lintian, where installed, must report no
# error. Where `--target docs` built the HTML reference, clforge-doc carries it.
#   -DBUILD_DIR -DWORK_DIR -DCPACK -DVERSION -DABI -DCONSUMER_SOURCE -DCXX -DPKG_CONFIG
#   [-DMPI_CONSUMER_SOURCE -DMPIEXEC] [-DLINTIAN]
cmake_minimum_required(VERSION 3.20)  # the policies of the project (IN_LIST)
include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)
function(expect text pattern what)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: no match for '${pattern}' in:\n${text}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR}/packages ${WORK_DIR}/root ${WORK_DIR}/consumer ${WORK_DIR}/mpi)
file(MAKE_DIRECTORY ${WORK_DIR})
run(${CPACK} --config ${BUILD_DIR}/CPackConfig.cmake -B ${WORK_DIR}/packages)

# ---- the packages: names, versions, dependencies, contents ----------------------------------
set(core libclforge${ABI})
set(packages ${core} libclforge-dev clforge-tools)
if(MPI_CONSUMER_SOURCE)
  list(APPEND packages libclforge-mpi${ABI} libclforge-mpi-dev clforge-mpi-tools)
endif()
if(EXISTS ${BUILD_DIR}/docs/html/index.html)   # built by --target docs
  list(APPEND packages clforge-doc)
endif()
set(debs "")
foreach(package IN LISTS packages)
  file(GLOB deb ${WORK_DIR}/packages/${package}_${VERSION}_*.deb)
  if(NOT deb)
    file(GLOB made ${WORK_DIR}/packages/*.deb)
    message(FATAL_ERROR "no ${package}_${VERSION}_*.deb among: ${made}")
  endif()
  list(APPEND debs ${deb})
  capture(control dpkg-deb -I ${deb})
  capture(files dpkg-deb -c ${deb})
  message(STATUS "${deb}:\n${control}")
  expect("${control}" "Package: ${package}\n" "${package}")
  expect("${control}" "Version: ${VERSION}\n" "${package}")
  expect("${files}" "usr/share/doc/${package}/copyright" "${package}")
  set(${package}_control "${control}")
  set(${package}_files "${files}")
endforeach()
set(same "(= ${VERSION})")
string(REPLACE "(" "\\(" same_re "${same}")
string(REPLACE ")" "\\)" same_re "${same_re}")
string(REPLACE "." "\\." same_re "${same_re}")
expect("${${core}_control}" "Depends:[^\n]*ocl-icd-libopencl1" "${core}")
# dpkg-shlibdeps names libstdc++6 where the compiler's libstdc++ is Debian's (a compiler under
# another prefix, with its own libstdc++, gives no package to depend on).
execute_process(COMMAND ${CXX} -print-file-name=libstdc++.so OUTPUT_VARIABLE stdcxx
                OUTPUT_STRIP_TRAILING_WHITESPACE)
get_filename_component(stdcxx "${stdcxx}" REALPATH)
execute_process(COMMAND dpkg -S "${stdcxx}" RESULT_VARIABLE stdcxx_not_packaged OUTPUT_QUIET
                ERROR_QUIET)
if(stdcxx_not_packaged EQUAL 0)
  expect("${${core}_control}" "Depends:[^\n]*libstdc\\+\\+6" "${core}")
endif()
expect("${${core}_files}" "usr/lib/[^ ]*/libclforge\\.so\\.${ABI}\\.[0-9]+\n" "${core}")
expect("${${core}_files}" "usr/lib/[^ ]*/libclforge\\.so\\.${ABI} -> " "${core}")
expect("${libclforge-dev_control}" "Depends:[^\n]*${core} ${same_re}" "libclforge-dev")
expect("${libclforge-dev_control}" "Depends:[^\n]*opencl-clhpp-headers" "libclforge-dev")
foreach(file "usr/include/clforge/clforge\\.hpp" "usr/include/clforge/version\\.hpp"
             "usr/lib/[^ ]*/libclforge\\.a" "usr/lib/[^ ]*/libclforge\\.so -> "
             "usr/lib/[^ ]*/cmake/clforge/clforgeConfig\\.cmake"
             "usr/lib/[^ ]*/pkgconfig/clforge\\.pc")
  expect("${libclforge-dev_files}" "${file}" "libclforge-dev")
endforeach()
if(libclforge-dev_files MATCHES "clforge/mpi")
  message(FATAL_ERROR "libclforge-dev carries the MPI layer's headers")
endif()
expect("${clforge-tools_control}" "Depends:[^\n]*${core} ${same_re}" "clforge-tools")
foreach(tool clforge-info clforge-tune clforge-demo clforge-bench)
  expect("${clforge-tools_files}" "usr/bin/${tool}\n" "clforge-tools")
endforeach()
if(MPI_CONSUMER_SOURCE)
  set(mpi libclforge-mpi${ABI})
  expect("${${mpi}_control}" "Depends:[^\n]*libopenmpi3" "${mpi}")
  expect("${${mpi}_control}" "Depends:[^\n]*${core} ${same_re}" "${mpi}")
  expect("${${mpi}_files}" "usr/lib/[^ ]*/libclforge_mpi\\.so\\.${ABI} -> " "${mpi}")
  expect("${libclforge-mpi-dev_control}" "Depends:[^\n]*${mpi} ${same_re}" "libclforge-mpi-dev")
  expect("${libclforge-mpi-dev_control}" "Depends:[^\n]*libclforge-dev ${same_re}"
         "libclforge-mpi-dev")
  foreach(file "usr/include/clforge/mpi\\.hpp" "usr/include/clforge/mpi/c_api\\.hpp"
               "usr/include/clforge/mpi/export\\.hpp" "usr/lib/[^ ]*/libclforge_mpi\\.a"
               "usr/lib/[^ ]*/cmake/clforge/clforgeMpiTargets\\.cmake"
               "usr/lib/[^ ]*/pkgconfig/clforge-mpi\\.pc")
    expect("${libclforge-mpi-dev_files}" "${file}" "libclforge-mpi-dev")
  endforeach()
  expect("${clforge-mpi-tools_files}" "usr/bin/clforge-mpi-bench\n" "clforge-mpi-tools")
endif()
if("clforge-doc" IN_LIST packages)
  expect("${clforge-doc_files}" "usr/share/doc/clforge-doc/html/index\\.html\n" "clforge-doc")
  expect("${clforge-doc_control}" "Architecture: all\n" "clforge-doc")
endif()

# ---- unpacked into a fresh root ---------------------------------------------------------------
foreach(deb IN LISTS debs)
  run(dpkg -x ${deb} ${WORK_DIR}/root)
endforeach()
file(GLOB libraries ${WORK_DIR}/root/usr/lib/*/libclforge.so.${ABI})
list(GET libraries 0 library)
get_filename_component(libdir ${library} DIRECTORY)
# The unpacked libraries first; what the environment had after (an OpenCL loader outside the
# standard directories).
if(DEFINED ENV{LD_LIBRARY_PATH} AND NOT "$ENV{LD_LIBRARY_PATH}" STREQUAL "")
  set(ENV{LD_LIBRARY_PATH} "${libdir}:$ENV{LD_LIBRARY_PATH}")
else()
  set(ENV{LD_LIBRARY_PATH} "${libdir}")
endif()
# Only clforge:: symbols leave the shared libraries (typeinfo and vtables of clforge's classes).
file(GLOB shared_libraries ${libdir}/libclforge*.so.${ABI})
foreach(so IN LISTS shared_libraries)
  capture(symbols sh -c "nm -D --defined-only '${so}' | c++filt | cut -d' ' -f3-")
  string(REGEX REPLACE "\n$" "" symbols "${symbols}")
  string(REPLACE "\n" ";" symbols "${symbols}")
  list(LENGTH symbols count)
  foreach(symbol IN LISTS symbols)
    if(NOT symbol MATCHES "^((typeinfo|typeinfo name|vtable) for )?clforge::")
      message(FATAL_ERROR "${so} exports ${symbol}")
    endif()
  endforeach()
  message(STATUS "${so}: ${count} exported symbols, all clforge::")
endforeach()
capture(version ${WORK_DIR}/root/usr/bin/clforge-info --version)
expect("${version}" "^clforge-info ${VERSION}\n$" "clforge-info --version")
run(${WORK_DIR}/root/usr/bin/clforge-info)

# find_package(clforge) against the unpacked root: the shared library.
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/consumer/build -DCLFORGE_CONSUMER_MODE=package
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/root/usr -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer/build)
capture(needed readelf -d ${WORK_DIR}/consumer/build/consumer)
expect("${needed}" "NEEDED[^\n]*libclforge\\.so\\.${ABI}" "the find_package consumer")
run(${WORK_DIR}/consumer/build/consumer)
# pkg-config with the static library of libclforge-dev.
set(ENV{PKG_CONFIG_PATH} ${libdir}/pkgconfig)
capture(cflags ${PKG_CONFIG} --cflags clforge)
capture(libs ${PKG_CONFIG} --libs --static clforge)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
separate_arguments(libs UNIX_COMMAND "${libs}")
list(FILTER libs EXCLUDE REGEX "^-lclforge$")
run(${CXX} -std=c++17 ${cflags} ${CONSUMER_SOURCE}/main.cpp -o ${WORK_DIR}/consumer/static
    ${libdir}/libclforge.a ${libs})
capture(needed readelf -d ${WORK_DIR}/consumer/static)
if(needed MATCHES "libclforge")
  message(FATAL_ERROR "the static consumer loads libclforge:\n${needed}")
endif()
run(${WORK_DIR}/consumer/static)

if(MPI_CONSUMER_SOURCE)
  run(${CMAKE_COMMAND} -S ${MPI_CONSUMER_SOURCE} -B ${WORK_DIR}/mpi/build
      -DCMAKE_PREFIX_PATH=${WORK_DIR}/root/usr -DCMAKE_BUILD_TYPE=Release)
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/mpi/build)
  run(${MPIEXEC} -np 2 --oversubscribe -x LD_LIBRARY_PATH ${WORK_DIR}/mpi/build/mpi_consumer)
  capture(version ${WORK_DIR}/root/usr/bin/clforge-mpi-bench --version)
  expect("${version}" "^clforge-mpi-bench ${VERSION}\n$" "clforge-mpi-bench --version")
endif()

if(LINTIAN)
  execute_process(COMMAND ${LINTIAN} --no-tag-display-limit ${debs}
                  OUTPUT_VARIABLE report ERROR_VARIABLE report_err)
  message(STATUS "lintian:\n${report}${report_err}")
  if(report MATCHES "(^|\n)E: ")
    message(FATAL_ERROR "lintian reports errors (above)")
  endif()
endif()
message(STATUS "packages checked: ${packages}")
