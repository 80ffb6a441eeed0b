# SPDX-License-Identifier: MIT
# The tools' command lines (label `tools`): --version from the project's one version, bad
# values refused with exit status 2 and a short message, JSON output that parses. Each test
# runs the tool through tests/tools/expect_run.cmake.
function(clforge_tool_test name exit_status)
  cmake_parse_arguments(PARSE_ARGV 2 arg "JSON" "MATCH;NOT_MATCH" "COMMAND;ENVIRONMENT")
  set(extra "")
  if(DEFINED arg_MATCH)
    list(APPEND extra "-DMATCH=${arg_MATCH}")
  endif()
  if(DEFINED arg_NOT_MATCH)
    list(APPEND extra "-DNOT_MATCH=${arg_NOT_MATCH}")
  endif()
  if(arg_JSON)
    list(APPEND extra -DSTDOUT_JSON=ON)
  endif()
  string(REPLACE ";" "@@" command "${arg_COMMAND}")  # a list would not survive add_test
  add_test(NAME tools_${name}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command}" -DEXIT=${exit_status} ${extra}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/expect_run.cmake)
  set_tests_properties(tools_${name} PROPERTIES LABELS tools TIMEOUT 300
                       ENVIRONMENT "${CLFORGE_TEST_ENV};${arg_ENVIRONMENT}")
endfunction()

# CHANGELOG.md has this version's section and "Unreleased" on top.
add_test(NAME release_changelog
         COMMAND ${CMAKE_COMMAND} -DCHANGELOG=${PROJECT_SOURCE_DIR}/CHANGELOG.md
                 -DPROJECT_VERSION=${PROJECT_VERSION}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/changelog_check.cmake)
set_tests_properties(release_changelog PROPERTIES LABELS tools TIMEOUT 60)

# --version: "<tool> <the project's version>", exit 0.
string(REPLACE "." "\\." version_pattern "${PROJECT_VERSION}")
foreach(tool clforge-info clforge-tune clforge-demo clforge-bench clforge-mpi-bench)
  if(TARGET ${tool})
    clforge_tool_test(${tool}_version 0 COMMAND $<TARGET_FILE:${tool}> --version
                      MATCH "^${tool} ${version_pattern}\n$")
  endif()
endforeach()
