// SPDX-License-Identifier: MIT
// The files the library keeps for the user (the program cache's entries, the stored tuning
// results): the directory, private to the user; whole-file writes through a temporary file
// renamed into place, so readers see a whole file or none; the removal of the temporaries a
// killed process left behind; and claims that make the processes of the user take turns.
// Runtime layer: lib/tuning uses it too.
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

/// A turn at something every process of the user may do at once (build one program into the
/// cache, rewrite the tuned results): an flock on the lock file `path`, which the holder removes
/// when done. Best effort: where no lock file can be made, or the holder keeps it longer than
/// `wait_seconds`, the claim is not held (held() is false) and the caller goes ahead without it.
class file_claim {
 public:
  file_claim(const std::string& path, int wait_seconds);
  ~file_claim();
  file_claim(const file_claim&) = delete;
  file_claim& operator=(const file_claim&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace clforge::detail
