# SPDX-License-Identifier: MIT
# The tools' command lines (label `tools`): --version from the project's one version, bad
# values refused with exit status 2 and a short message, JSON output that parses. Each test
# runs the tool through tests/tools/expect_run.cmake.
function(clforge_tool_test name exit_status)
  cmake_parse_arguments(PARSE_ARGV 2 arg "JSON" "MATCH;NOT_MATCH" "COMMAND;ENVIRONMENT")
  # COMMAND ... JSON: the JSON flag ends the command (stdout must parse as JSON).
  # The expectations go into a generated script as bracket arguments: regexes with '[' or ';'
  # would not survive a CMake list or the command line.
  set(script "set(EXIT ${exit_status})\nset(COMMAND")
  foreach(word IN LISTS arg_COMMAND)
    string(APPEND script " [==[${word}]==]")
  endforeach()
  string(APPEND script ")\n")
  foreach(key MATCH NOT_MATCH)
    if(DEFINED arg_${key})
      string(APPEND script "set(${key} [==[${arg_${key}}]==])\n")
    endif()
  endforeach()
  if(arg_JSON)
    string(APPEND script "set(STDOUT_JSON ON)\n")
  endif()
  string(APPEND script "include([==[${CMAKE_CURRENT_SOURCE_DIR}/tools/expect_run.cmake]==])\n")
  file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/tool-tests/${name}.cmake CONTENT "${script}")
  add_test(NAME tools_${name}
           COMMAND ${CMAKE_COMMAND} -P ${CMAKE_CURRENT_BINARY_DIR}/tool-tests/${name}.cmake)
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
# clforge-bench and clforge-mpi-bench come from bench/, added after tests/: known by the options.
set(CLFORGE_TOOLS_BUILT "")
if(CLFORGE_BUILD_TOOLS)
  list(APPEND CLFORGE_TOOLS_BUILT clforge-info clforge-tune clforge-demo)
endif()
if(CLFORGE_BUILD_BENCH)
  list(APPEND CLFORGE_TOOLS_BUILT clforge-bench)
  if(TARGET clforge_mpi)
    list(APPEND CLFORGE_TOOLS_BUILT clforge-mpi-bench)
  endif()
endif()
foreach(tool IN LISTS CLFORGE_TOOLS_BUILT)
  clforge_tool_test(${tool}_version 0 COMMAND $<TARGET_FILE:${tool}> --version
                    MATCH "^${tool} ${version_pattern}\n$")
endforeach()

# NaN, infinities, out-of-range and malformed numbers: exit 2 and a short message, before any
# device work. One helper (clforge_cli::finite_number in tools/cli.hpp) checks every floating
# option.
if("clforge-bench" IN_LIST CLFORGE_TOOLS_BUILT)
  foreach(value nan inf -inf -1 0)
    clforge_tool_test(clforge-bench_min_time_${value} 2
                      COMMAND $<TARGET_FILE:clforge-bench> --min-time ${value}
                      MATCH "--min-time: '${value}' is not a finite number")
  endforeach()
  clforge_tool_test(clforge-bench_repetitions_abc 2
                    COMMAND $<TARGET_FILE:clforge-bench> --repetitions abc
                    MATCH "--repetitions: Value abc" NOT_MATCH "[0-9][0-9][0-9][0-9][0-9]")
  clforge_tool_test(clforge-bench_min_log2_above_max 2
                    COMMAND $<TARGET_FILE:clforge-bench> --min-log2 20 --max-log2 10
                    MATCH "--min-log2 20 is above --max-log2 10")
  clforge_tool_test(clforge-bench_bad_filter 2 COMMAND $<TARGET_FILE:clforge-bench> --filter "["
                    MATCH "--filter '\\[' is not a valid regular expression")
  clforge_tool_test(clforge-bench_unknown_benchmark_flag 2
                    COMMAND $<TARGET_FILE:clforge-bench> --benchmark_no_such_flag=1
                    MATCH "unknown option --benchmark_no_such_flag=1")
  # The smoke run CI keeps: --quick end to end, its JSON and Markdown checked.
  add_test(NAME clforge-bench-smoke
           COMMAND ${CMAKE_COMMAND} -DBENCH=$<TARGET_FILE:clforge-bench>
                   -DWORK_DIR=${PROJECT_BINARY_DIR}/bench-smoke
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/bench_smoke.cmake)
  set_tests_properties(clforge-bench-smoke PROPERTIES LABELS tools TIMEOUT 900
                       ENVIRONMENT "${CLFORGE_TEST_ENV}")
endif()
if("clforge-tune" IN_LIST CLFORGE_TOOLS_BUILT)
  foreach(value nan inf 0.5)
    clforge_tool_test(clforge-tune_budget_${value} 2
                      COMMAND $<TARGET_FILE:clforge-tune> --template saxpy -b ${value}
                      MATCH "--budget: '${value}' is not a finite number")
  endforeach()
  # An unwritable --json fails at once, before the search (which prints "budget").
  clforge_tool_test(clforge-tune_json_unwritable 1
                    COMMAND $<TARGET_FILE:clforge-tune> --template saxpy
                            --json /nonexistent-directory/tune.json
                    MATCH "--json /nonexistent-directory/tune.json: cannot write there"
                    NOT_MATCH "budget")
endif()
if("clforge-info" IN_LIST CLFORGE_TOOLS_BUILT)
  clforge_tool_test(clforge-info_json 0 COMMAND $<TARGET_FILE:clforge-info> --json JSON
                    MATCH "\"devices\": \\[\n +{")
  # No OpenCL platform at all (no ICD registered): still JSON, with an empty list and the error.
  file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/no-icd-vendors)
  clforge_tool_test(clforge-info_json_without_platform 1
                    COMMAND $<TARGET_FILE:clforge-info> --json JSON
                    MATCH "\"devices\": \\[\\].*\"error\": \"no OpenCL platform found"
                    ENVIRONMENT "OCL_ICD_VENDORS=${PROJECT_BINARY_DIR}/no-icd-vendors")
endif()
if("clforge-mpi-bench" IN_LIST CLFORGE_TOOLS_BUILT)
  # Read before MPI_Init: no mpirun needed for these.
  clforge_tool_test(clforge-mpi-bench_help 0 COMMAND $<TARGET_FILE:clforge-mpi-bench> --help
                    MATCH "--log2")
  clforge_tool_test(clforge-mpi-bench_log2_abc 2
                    COMMAND $<TARGET_FILE:clforge-mpi-bench> --log2 abc MATCH "--log2: Value abc")
  clforge_tool_test(clforge-mpi-bench_log2_zero 2
                    COMMAND $<TARGET_FILE:clforge-mpi-bench> --log2 0 MATCH "--log2: Value 0")
  clforge_tool_test(clforge-mpi-bench_job_unknown 2
                    COMMAND $<TARGET_FILE:clforge-mpi-bench> --job stencils MATCH "--job: stencils")
  clforge_tool_test(clforge-mpi-bench_stencil_side_zero 2
                    COMMAND $<TARGET_FILE:clforge-mpi-bench> --stencil-side 0
                    MATCH "--stencil-side: Value 0")
endif()
# bench/plot.py without matplotlib (python3 -S: no site packages) names the Debian package.
find_program(CLFORGE_PYTHON3 python3)
if(CLFORGE_PYTHON3)
  clforge_tool_test(plot_without_matplotlib 1
                    COMMAND ${CLFORGE_PYTHON3} -S ${PROJECT_SOURCE_DIR}/bench/plot.py
                            ${PROJECT_SOURCE_DIR}/tests/tools/plot_input.json
                            ${PROJECT_BINARY_DIR}/plot-test.png
                    MATCH "apt-get install python3-matplotlib" NOT_MATCH "Traceback")
endif()

# tools/run-demo.sh builds only what the demo needs.
add_test(NAME release_run_demo_builds_the_demo
         COMMAND ${CMAKE_COMMAND} -DSCRIPT=${PROJECT_SOURCE_DIR}/tools/run-demo.sh
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/run_demo_check.cmake)
set_tests_properties(release_run_demo_builds_the_demo PROPERTIES LABELS tools TIMEOUT 60)

# The library prints nothing itself: every diagnostic goes through the log handler.
add_test(NAME release_lib_prints_through_the_log_handler
         COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/tools/lib_output_check.cmake)
set_tests_properties(release_lib_prints_through_the_log_handler PROPERTIES LABELS tools
                                                                          TIMEOUT 60)
