// Internal state behind the shared handles of context.hpp and program.hpp.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "clforge/context.hpp"
#include "program_cache.hpp"

namespace clforge::detail {

struct program_state {
  cl::Program handle;
  cl::Device device;
  std::string source;
  std::string options;
  std::mutex kernels_mutex;
  std::map<std::string, clforge::kernel, std::less<>> kernels;
};

struct context_state {
  context_state(cl::Context context, cl::Device device);

  cl::Context handle;
  cl::Device device;
  device_info info;
  std::shared_ptr<memory_pool> pool;
  program_cache cache;
  // Last member: destroyed first, while the pool and the program cache still exist.
  std::mutex attachments_mutex;
  std::map<std::string, std::shared_ptr<void>, std::less<>> attachments;
};

}  // namespace clforge::detail
