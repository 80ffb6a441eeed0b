// SPDX-License-Identifier: MIT
// Linked into reliability_probe (a shared library listed before libc, so its write() interposes
// libc's): when CLFORGE_TEST_ENOSPC_DIR is set, every write() to a file inside that directory
// fails with ENOSPC, exactly as on a full disk; all other writes go through. Without the
// variable it changes nothing. Used only by tests; the library never sees it.
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
bool inside_failing_directory(int fd) {
  const char* dir = std::getenv("CLFORGE_TEST_ENOSPC_DIR");
  if (!dir || !*dir) return false;
  char link[64], target[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = ::readlink(link, target, sizeof target - 1);
  if (n <= 0) return false;
  target[n] = '\0';
  const std::size_t len = std::strlen(dir);
  return std::strncmp(target, dir, len) == 0 && target[len] == '/';
}
}  // namespace

extern "C" ssize_t write(int fd, const void* data, size_t size) {
  using write_fn = ssize_t (*)(int, const void*, size_t);
  static write_fn real = reinterpret_cast<write_fn>(::dlsym(RTLD_NEXT, "write"));
  if (inside_failing_directory(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return real(fd, data, size);
}
