# SPDX-License-Identifier: MIT
# The release_lib_prints_through_the_log_handler test (cmake -P -DSOURCE_DIR=...): nothing in
# lib/ writes to stdout or stderr itself; every diagnostic goes through clforge::set_log_handler's
# handler (lib/log.cpp, the one place that writes to stderr, for the default handler).
file(GLOB_RECURSE sources ${SOURCE_DIR}/lib/*.cpp ${SOURCE_DIR}/lib/*.hpp)
set(found "")
foreach(source IN LISTS sources)
  if(source MATCHES "/lib/log\\.cpp$")
    continue()
  endif()
  file(STRINGS ${source} lines REGEX "std::cerr|std::cout|std::clog|stderr|stdout|[^n]printf\\(|puts\\(")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^ *//")
      list(APPEND found "${source}: ${line}")
    endif()
  endforeach()
endforeach()
if(found)
  string(REPLACE ";" "\n" found "${found}")
  message(FATAL_ERROR "lib/ writes output itself instead of through the log handler:\n${found}")
endif()
list(LENGTH sources count)
message(STATUS "${count} files in lib/: no direct output")
