# SPDX-License-Identifier: MIT
# The release_run_demo_builds_the_demo test (cmake -P -DSCRIPT=tools/run-demo.sh): every build
# command of the README's demo script names its targets, and they are the demo's (building every
# test and benchmark to run one demo took minutes).
file(STRINGS ${SCRIPT} builds REGEX "^[^#]*cmake --build")
if(NOT builds)
  message(FATAL_ERROR "${SCRIPT} builds nothing")
endif()
foreach(line IN LISTS builds)
  if(NOT line MATCHES "--target clforge-info clforge-demo$")
    message(FATAL_ERROR "${SCRIPT}: '${line}' builds more than clforge-info and clforge-demo")
  endif()
endforeach()
message(STATUS "${SCRIPT}: ${builds}")
