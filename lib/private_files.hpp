// SPDX-License-Identifier: MIT
// The files the library keeps for the user (the program cache's entries, the stored tuning
// results): the directory, private to the user; whole-file writes through a temporary file
// renamed into place, so readers see a whole file or none; and the removal of the temporaries a
// killed process left behind. Runtime layer: lib/tuning uses it too.
#pragma once

#include <ctime>
#include <functional>
#include <string>

namespace clforge::detail {

/// Creates `path` and missing parents, the last component private to the user (0700). False
/// with errno set where one cannot be made.
bool make_directories(const std::string& path);

/// Why write_file_atomically failed: the errno of the step that failed, and whether that was
/// the rename (the temporary file was written whole).
struct write_failure {
  int error_number = 0;
  bool at_rename = false;
};

/// Writes `bytes` to `path` whole: to `path`.tmp.<pid>.<n> (new, 0600, not through a link), then
/// renamed onto `path`. False where a step failed, said in `failure`; the temporary file is
/// then removed and `path` untouched.
bool write_file_atomically(const std::string& path, const std::string& bytes,
                           write_failure& failure);

/// Deletes the regular files of this user in `dir` whose names `is_temporary` accepts and that
/// are older than `max_age_seconds` (younger ones may be another writer's).
void remove_stale_temporaries(const std::string& dir,
                              const std::function<bool(const std::string&)>& is_temporary,
                              std::time_t max_age_seconds);

}  // namespace clforge::detail
