# SPDX-License-Identifier: MIT
# Runs one command and checks its exit status and output (the tools_* tests: tests/tools.cmake
# generates a script per test that sets these and includes this file):
#   COMMAND (a list), EXIT (the status), MATCH (a regex the output must match), NOT_MATCH (one
#   it must not match), STDOUT_JSON (stdout must parse as JSON)
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 300)
string(REPLACE ";" " " shown "${COMMAND}")
message(STATUS "$ ${shown}\n-> ${rc}\nstdout: ${out}\nstderr: ${err}")
if(NOT rc STREQUAL EXIT)
  message(FATAL_ERROR "exit status ${rc}, expected ${EXIT}")
endif()
if(DEFINED MATCH AND NOT "${out}${err}" MATCHES "${MATCH}")
  message(FATAL_ERROR "the output does not match '${MATCH}'")
endif()
if(DEFINED NOT_MATCH AND "${out}${err}" MATCHES "${NOT_MATCH}")
  message(FATAL_ERROR "the output matches '${NOT_MATCH}'")
endif()
if(STDOUT_JSON)
  string(JSON type ERROR_VARIABLE json_error TYPE "${out}")
  if(json_error)
    message(FATAL_ERROR "stdout is not JSON: ${json_error}")
  endif()
endif()
