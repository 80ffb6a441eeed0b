// SPDX-License-Identifier: MIT
// Linked into reliability_probe (a shared library listed before libc and the OpenCL loader, so
// its functions interpose theirs). Without the variables below it changes nothing. Used only by
// tests; the library never sees them.
//  - CLFORGE_TEST_ENOSPC_DIR=<dir>: every write() to a file inside that directory fails with
//    ENOSPC, exactly as on a full disk; all other writes go through.
//  - CLFORGE_TEST_FAILED_BUILDS=<n>: the first n clBuildProgram calls of the process build and
//    then report CL_BUILD_PROGRAM_FAILURE, as PoCL's shared kernel cache did for valid programs
//    when another process wrote the same program at the same moment (a log naming no line).
#include <dlfcn.h>
#include <unistd.h>

#include <CL/cl.h>

#include <atomic>

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

extern "C" cl_int clBuildProgram(cl_program program, cl_uint num_devices,
                                 const cl_device_id* devices, const char* options,
                                 void(CL_CALLBACK* notify)(cl_program, void*), void* user_data) {
  using build_fn = cl_int (*)(cl_program, cl_uint, const cl_device_id*, const char*,
                              void(CL_CALLBACK*)(cl_program, void*), void*);
  static build_fn real = reinterpret_cast<build_fn>(::dlsym(RTLD_NEXT, "clBuildProgram"));
  static std::atomic<int> calls{0};
  const cl_int code = real(program, num_devices, devices, options, notify, user_data);
  const char* failures = std::getenv("CLFORGE_TEST_FAILED_BUILDS");
  if (code == CL_SUCCESS && failures && calls.fetch_add(1) < std::atoi(failures))
    return CL_BUILD_PROGRAM_FAILURE;
  return code;
}
