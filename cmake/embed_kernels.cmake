# SPDX-License-Identifier: MIT
# Run as a script: cmake -DOUTPUT=<file.cpp> -DINPUTS="a.cl;b.cl" -P embed_kernels.cmake
# Writes a C++ source holding each file as a byte array, so the installed library never reads a
# kernel file at run time. The build re-runs it whenever one of the inputs changes.
# kernels/common.cl (the device code kernels share) is put in front of every other file: this is
# the one place that does it. It is kept whole (an include guard) where a program pastes
# several files together.
set(common_hex "")
foreach(input IN LISTS INPUTS)
  get_filename_component(name "${input}" NAME_WE)
  if(name STREQUAL "common")
    file(READ "${input}" common_hex HEX)
    # a line break between common.cl and the file it leads
    string(APPEND common_hex "0a")
  endif()
endforeach()
set(body "// Generated from kernels/*.cl by cmake/embed_kernels.cmake. Do not edit.\n")
string(APPEND body "#include \"embedded_kernels.hpp\"\n\nnamespace clforge::detail {\n")
set(table "")
set(index 0)
foreach(input IN LISTS INPUTS)
  get_filename_component(name "${input}" NAME_WE)
  file(READ "${input}" hex HEX)
  if(NOT name STREQUAL "common")
    set(hex "${common_hex}${hex}")
  endif()
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  string(REGEX REPLACE "(([^,]*,){16})" "\\1\n  " bytes "${bytes}")
  string(APPEND body "static const char kernel_${index}[] = {\n  ${bytes}'\\0'};\n")
  string(APPEND table "  {\"${name}\", kernel_${index}, ${size}},\n")
  math(EXPR index "${index} + 1")
endforeach()
if(index EQUAL 0)
  string(APPEND table "  {\"\", \"\", 0},\n")
endif()
string(APPEND body "const embedded_file embedded_kernels[] = {\n${table}};\n")
string(APPEND body "const std::size_t embedded_kernel_count = ${index};\n}  // namespace clforge::detail\n")
file(WRITE "${OUTPUT}" "${body}")
