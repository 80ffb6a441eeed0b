# SPDX-License-Identifier: MIT
# `cmake --build build --target uninstall`: removes what the last `cmake --install build` put
# there (install_manifest.txt lists it), then the directories of clforge's own that it left empty
# (include/clforge, lib/cmake/clforge, share/doc/clforge ...). Run as -P with -DMANIFEST=<file>.
if(NOT EXISTS "${MANIFEST}")
  message(FATAL_ERROR "nothing to uninstall: ${MANIFEST} is missing (run cmake --install first)")
endif()
file(STRINGS "${MANIFEST}" files)
set(directories "")
set(removed 0)
foreach(file IN LISTS files)
  if(IS_SYMLINK "${file}" OR EXISTS "${file}")
    file(REMOVE "${file}")
    math(EXPR removed "${removed} + 1")
  endif()
  get_filename_component(dir "${file}" DIRECTORY)
  # The directories below the first one named after clforge, deepest first later.
  while(dir MATCHES "/[^/]*clforge[^/]*(/|$)")
    list(APPEND directories "${dir}")
    get_filename_component(dir "${dir}" DIRECTORY)
  endwhile()
endforeach()
list(REMOVE_DUPLICATES directories)
list(SORT directories ORDER DESCENDING)   # children sort after their parents: deepest first
foreach(dir IN LISTS directories)
  file(GLOB left "${dir}/*")
  if(IS_DIRECTORY "${dir}" AND NOT left)
    file(REMOVE "${dir}")
    file(REMOVE_RECURSE "${dir}")
  endif()
endforeach()
message(STATUS "uninstall: removed ${removed} files listed in ${MANIFEST}")
