# SPDX-License-Identifier: MIT
# CLHPP coexistence: tests/clhpp/coexistence.cpp compiled with CLHPP included before and after
# clforge, exceptions on and off, and CLHPP targets 1.2 and 2.0 (the library uses its own
# settings inside lib/). Compile-only: a failure here is a build failure.
foreach(order clhpp_first clforge_first)
  foreach(exceptions on off)
    set(target clhpp_coexistence_${order}_exceptions_${exceptions})
    add_library(${target} OBJECT ${CMAKE_CURRENT_SOURCE_DIR}/clhpp/coexistence.cpp)
    # Only clforge itself: not the library's own CLHPP settings (link_libraries above).
    set_property(TARGET ${target} PROPERTY LINK_LIBRARIES clforge::clforge)
    if(order STREQUAL "clhpp_first")
      target_compile_definitions(${target} PRIVATE COEXIST_CLHPP_FIRST COEXIST_TARGET=120)
    else()
      target_compile_definitions(${target} PRIVATE COEXIST_TARGET=200)
    endif()
    if(exceptions STREQUAL "on")
      target_compile_definitions(${target} PRIVATE COEXIST_EXCEPTIONS)
    endif()
  endforeach()
endforeach()
