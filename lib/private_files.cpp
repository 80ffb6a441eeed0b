// SPDX-License-Identifier: MIT
#include "private_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <thread>

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

file_claim::file_claim(const std::string& path, int wait_seconds) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(wait_seconds);
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    bool locked = false;
    for (int pause_ms = 1;; pause_ms = std::min(2 * pause_ms, 50)) {
      if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
        locked = true;
        break;
      }
      if ((errno != EWOULDBLOCK && errno != EINTR) || std::chrono::steady_clock::now() > give_up)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    }
    if (!locked) {
      ::close(fd);
      return;
    }
    // The holder before us removed the file it held: ours is that file only if the path still
    // names it; otherwise lock the one there now.
    struct stat held {};
    struct stat named {};
    if (::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &named) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev) {
      // A file a killed process left keeps its old time: remove_stale_temporaries would take
      // it from under us and let another process claim a new one.
      ::futimens(fd, nullptr);
      fd_ = fd;
      path_ = path;
      return;
    }
    ::close(fd);
  }
}

file_claim::~file_claim() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // before the lock goes: a waiter then sees the file has gone
  ::close(fd_);
}

}  // namespace clforge::detail
