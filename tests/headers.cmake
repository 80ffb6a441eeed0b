# SPDX-License-Identifier: MIT
# The public headers under strict warnings (label `headers`): tests/headers/use_clforge.cpp
# (clforge.hpp) and use_mpi.cpp (clforge/mpi.hpp, where clforge::mpi is built) compiled with g++
# and clang++, C++17 and C++20, -Werror: a warning in a header breaks any user's -Werror build.
# Compile only (-fsyntax-only instantiates the templates the files use, and links nothing).
set(CLFORGE_HEADER_FLAGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Werror
                         -fsyntax-only)
# The OpenCL headers are the vendor's, not clforge's: -isystem wherever they are not in the
# compiler's own /usr/include or /usr/local/include. A copy under another prefix would otherwise
# be held to clforge's warnings: also one found through CPATH, which CMake lists as implicit but
# the compiler reads as -I (-isystem wins over it); -isystem /usr/include would break
# #include_next.
set(CLFORGE_HEADER_INCLUDES -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_BINARY_DIR}/generated/include)
if(NOT CLFORGE_CLHPP_INCLUDE_DIR MATCHES "^/usr(/local)?/include/?$")
  list(APPEND CLFORGE_HEADER_INCLUDES -isystem ${CLFORGE_CLHPP_INCLUDE_DIR})
endif()
set(CLFORGE_HEADER_MPI_INCLUDES "")
foreach(dir IN LISTS MPI_CXX_INCLUDE_DIRS)
  list(APPEND CLFORGE_HEADER_MPI_INCLUDES -I${dir})
endforeach()

if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(CLFORGE_GXX ${CMAKE_CXX_COMPILER})
else()
  find_program(CLFORGE_GXX NAMES g++ g++-12 g++-13)
endif()
find_program(CLFORGE_CLANGXX NAMES clang++ clang++-14 clang++-15 clang++-16)   # Debian: clang-14

set(CLFORGE_HEADER_COMPILERS "")   # name=program of each compiler found
foreach(compiler gcc clang)
  if(compiler STREQUAL "gcc")
    set(program ${CLFORGE_GXX})
  else()
    set(program ${CLFORGE_CLANGXX})
  endif()
  if(program)
    list(APPEND CLFORGE_HEADER_COMPILERS "${compiler}=${program}")
  else()
    # Not a silent skip: CI must compile with both (tools/install-deps.sh installs them).
    add_test(NAME headers_${compiler}_missing
             COMMAND ${CMAKE_COMMAND} -E echo "no ${compiler} C++ compiler found (Debian: g++, clang-14)")
    set_tests_properties(headers_${compiler}_missing PROPERTIES LABELS headers WILL_FAIL TRUE)
  endif()
endforeach()

foreach(entry IN LISTS CLFORGE_HEADER_COMPILERS)
  string(REGEX REPLACE "=.*" "" compiler "${entry}")
  string(REGEX REPLACE "^[^=]*=" "" program "${entry}")
  foreach(standard 17 20)
    add_test(NAME headers_${compiler}_cxx${standard}_clforge
             COMMAND ${program} -std=c++${standard} ${CLFORGE_HEADER_FLAGS} ${CLFORGE_HEADER_INCLUDES}
                     ${CMAKE_CURRENT_SOURCE_DIR}/headers/use_clforge.cpp)
    set_tests_properties(headers_${compiler}_cxx${standard}_clforge PROPERTIES LABELS headers
                                                                               TIMEOUT 300)
    if(TARGET clforge_mpi)
      add_test(NAME headers_${compiler}_cxx${standard}_mpi
               COMMAND ${program} -std=c++${standard} ${CLFORGE_HEADER_FLAGS}
                       ${CLFORGE_HEADER_INCLUDES} ${CLFORGE_HEADER_MPI_INCLUDES}
                       ${CMAKE_CURRENT_SOURCE_DIR}/headers/use_mpi.cpp)
      set_tests_properties(headers_${compiler}_cxx${standard}_mpi PROPERTIES LABELS headers
                                                                             TIMEOUT 300)
    endif()
  endforeach()
endforeach()

# A CLHPP setting made after clforge's headers comes too late (CLHPP has read its settings):
# the compiler must say so (macro redefined), with both compilers. The README states the rule.
foreach(entry IN LISTS CLFORGE_HEADER_COMPILERS)
  string(REGEX REPLACE "=.*" "" compiler "${entry}")
  string(REGEX REPLACE "^[^=]*=" "" program "${entry}")
  add_test(NAME headers_${compiler}_late_clhpp_settings
           COMMAND ${program} -std=c++17 -fsyntax-only ${CLFORGE_HEADER_INCLUDES}
                   ${CMAKE_CURRENT_SOURCE_DIR}/headers/late_clhpp_settings.cpp)
  set_tests_properties(headers_${compiler}_late_clhpp_settings PROPERTIES LABELS headers
    TIMEOUT 300 PASS_REGULAR_EXPRESSION "CL_HPP_TARGET_OPENCL_VERSION.? (macro )?redefined")
endforeach()

# With the MPI compiler wrapper itself (mpicxx: its own flags, nothing from CMake's MPI package),
# -Wall -Wextra -Werror: clforge/mpi.hpp must keep MPI's C++ bindings out by itself.
if(TARGET clforge_mpi AND MPI_CXX_COMPILER)
  add_test(NAME headers_mpicxx_mpi
           COMMAND ${MPI_CXX_COMPILER} -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only
                   ${CLFORGE_HEADER_INCLUDES} ${CMAKE_CURRENT_SOURCE_DIR}/headers/use_mpi.cpp)
  set_tests_properties(headers_mpicxx_mpi PROPERTIES LABELS headers TIMEOUT 300)
endif()
