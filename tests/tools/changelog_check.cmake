# SPDX-License-Identifier: MIT
# Run by the release_changelog test (cmake -P -DCHANGELOG=... -DPROJECT_VERSION=...):
# CHANGELOG.md starts with an "Unreleased" section and has a dated section for this version.
file(STRINGS ${CHANGELOG} headings REGEX "^## " ENCODING UTF-8)
list(GET headings 0 first)
if(NOT first STREQUAL "## Unreleased")
  message(FATAL_ERROR "CHANGELOG.md: the first section is '${first}', not '## Unreleased'")
endif()
string(REPLACE "." "\\." version_pattern ${PROJECT_VERSION})
set(found "")
foreach(heading IN LISTS headings)
  if(heading MATCHES "^## ${version_pattern} — [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]$")
    set(found "${heading}")
  endif()
endforeach()
if(NOT found)
  message(FATAL_ERROR "CHANGELOG.md has no section '## ${PROJECT_VERSION} — YYYY-MM-DD'")
endif()
message(STATUS "CHANGELOG.md: ${found}")
