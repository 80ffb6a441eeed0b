// SPDX-License-Identifier: MIT
// clforge::event: a finished-or-pending command, with profiling times.
#pragma once

#include <cstdint>
#include <vector>

#include "clforge/detail/opencl.hpp"

namespace clforge {

/// A command on a queue: wait for it, read its profiling times. Empty events (from empty
/// operations) are complete.
class CLFORGE_API event {
 public:
  event() = default;
  /// Wraps a CLHPP event.
  explicit event(cl::Event handle) : handle_(std::move(handle)) {}

  /// Blocks until the command has finished (no-op for an empty event).
  void wait() const;
  /// Device time from start to end of the command, in nanoseconds (waits for it first).
  std::uint64_t elapsed_ns() const;
  /// elapsed_ns() in milliseconds.
  double elapsed_ms() const { return static_cast<double>(elapsed_ns()) * 1e-6; }
  /// Device time from the start of this command to the end of `last` (both on one queue).
  std::uint64_t elapsed_ns_until(const event& last) const;

  /// The CLHPP event.
  const cl::Event& cl() const { return handle_; }
  /// False for an empty event.
  explicit operator bool() const { return handle_() != nullptr; }

 private:
  cl::Event handle_;
};

/// Waits for every event in `events`.
CLFORGE_API void wait_all(const std::vector<event>& events);

}  // namespace clforge
