// SPDX-License-Identifier: MIT
#include "private_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>

namespace clforge::detail {

bool make_directories(const std::string& path) {
  for (std::size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/') continue;
    const std::string part = path.substr(0, pos);
    const mode_t mode = pos == path.size() ? 0700 : 0755;
    if (::mkdir(part.c_str(), mode) != 0 && errno != EEXIST) return false;
  }
  return true;
}

bool write_file_atomically(const std::string& path, const std::string& bytes,
                           write_failure& failure) {
  static std::atomic<unsigned> counter{0};
  const std::string temp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0;
  std::size_t done = 0;
  while (ok && done < bytes.size()) {
    const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put <= 0)
      ok = false;
    else
      done += static_cast<std::size_t>(put);
  }
  failure = {errno, false};
  if (fd >= 0 && ::close(fd) != 0) ok = false, failure = {errno, false};
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) ok = false, failure = {errno, true};
  if (!ok) ::unlink(temp.c_str());
  return ok;
}

void remove_stale_temporaries(const std::string& dir,
                              const std::function<bool(const std::string&)>& is_temporary,
                              std::time_t max_age_seconds) {
  DIR* listing = ::opendir(dir.c_str());
  if (!listing) return;
  const std::time_t now = std::time(nullptr);
  while (const dirent* e = ::readdir(listing)) {
    const std::string name = e->d_name;
    if (!is_temporary(name)) continue;
    const std::string path = dir + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
        now - st.st_mtime > max_age_seconds)
      ::unlink(path.c_str());
  }
  ::closedir(listing);
}

}  // namespace clforge::detail
