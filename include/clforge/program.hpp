// SPDX-License-Identifier: MIT
// Built programs and their kernels. Kernel objects are created once per program and reused, so
// the per-call path neither re-creates cl::Kernel objects nor hashes anything.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "clforge/detail/opencl.hpp"

namespace clforge {

namespace detail {
struct kernel_state {
  cl::Kernel handle;
  std::string name;
  cl_uint num_args = 0;
  std::size_t work_group_size = 0;     // CL_KERNEL_WORK_GROUP_SIZE on the context's device
  std::size_t preferred_multiple = 1;  // CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
  bool device_is_cpu = false;          // automatic local sizes differ on CPUs
  // Arguments are set and the kernel enqueued under this lock: a cl_kernel's argument state is
  // shared, so two threads launching the same cached kernel must not interleave.
  std::mutex launch_mutex;
};
struct program_state;
}  // namespace detail

/// The longest kernel name program::kernel and context::build accept. Drivers put the name into
/// file names and symbols (PoCL writes `<name>.so` and aborted the process on names of 253
/// characters, past the file-name limit).
constexpr std::size_t max_kernel_name_length = 200;
/// The longest name a template (elementwise, reduction, scan) accepts: it leaves room for the
/// suffixes templates add to name their kernels.
constexpr std::size_t max_template_name_length = 128;

/// A kernel of a built program. Cheap to copy (a shared handle).
class CLFORGE_API kernel {
 public:
  kernel() = default;
  /// Wraps an existing CLHPP kernel (interop); `device` is the one it will run on.
  kernel(const cl::Kernel& handle, const cl::Device& device);

  /// The kernel function's name.
  const std::string& name() const { return state_->name; }
  /// Number of kernel arguments.
  cl_uint num_args() const { return state_->num_args; }
  /// CL_KERNEL_WORK_GROUP_SIZE on the context's device.
  std::size_t work_group_size() const { return state_->work_group_size; }
  /// CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE.
  std::size_t preferred_multiple() const { return state_->preferred_multiple; }
  /// The CLHPP kernel.
  const cl::Kernel& cl() const { return state_->handle; }
  /// False for an empty handle.
  explicit operator bool() const { return state_ != nullptr; }

  /// The shared state the launcher uses (implementation detail).
  detail::kernel_state& state() const { return *state_; }

 private:
  std::shared_ptr<detail::kernel_state> state_;
};

/// A built program. Obtain one from context::build (cached) or wrap a CLHPP program.
class CLFORGE_API program {
 public:
  program() = default;
  /// Wraps the library's program state (used by context::build).
  explicit program(std::shared_ptr<detail::program_state> state) : state_(std::move(state)) {}
  /// Wraps an already built CLHPP program (interop).
  program(const cl::Program& built, const cl::Device& device);

  /// The kernel called `name`; created on first use and cached with the program.
  clforge::kernel get_kernel(const std::string& name) const;
  /// Alias of get_kernel, the shorter spelling the examples use.
  clforge::kernel kernel(const std::string& name) const { return get_kernel(name); }

  /// The CLHPP program.
  const cl::Program& cl() const;
  /// Source the program was built from (empty for wrapped programs).
  const std::string& source() const;
  /// Build options the program was built with.
  const std::string& options() const;
  /// False for an empty handle.
  explicit operator bool() const { return state_ != nullptr; }

 private:
  std::shared_ptr<detail::program_state> state_;
};

/// The directory the program cache keeps built programs in, from CLFORGE_CACHE,
/// CLFORGE_CACHE_DIR, XDG_CACHE_HOME and HOME (see the README); empty when the disk cache is off.
CLFORGE_API std::string program_cache_directory();

/// Counters of the program cache, per context. Read them in tests instead of timing.
struct cache_stats {
  /// Builds served from memory.
  std::size_t memory_hits = 0;
  /// Builds loaded from the disk cache.
  std::size_t disk_hits = 0;
  /// Builds that ran the compiler.
  std::size_t compiles = 0;
  /// Entries written to the disk cache.
  std::size_t disk_writes = 0;
  /// Disk entries found but refused (bad checksum, wrong key, truncated, failed to load):
  /// each was rebuilt from source and replaced.
  std::size_t disk_rejects = 0;
};

}  // namespace clforge
