// SPDX-License-Identifier: MIT
// Internal state behind the shared handles of context.hpp and program.hpp.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

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

/// The state behind a context handle (never null for a non-empty handle).
inline context_state& state_of(const context& ctx) {
  return *const_cast<context_state*>(static_cast<const context_state*>(ctx.identity()));
}

}  // namespace clforge::detail
