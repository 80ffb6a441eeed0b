// SPDX-License-Identifier: MIT
// clforge::context: one device, its OpenCL context, program cache and memory pool.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "clforge/device.hpp"
#include "clforge/memory_pool.hpp"
#include "clforge/program.hpp"

namespace clforge {

namespace detail {
struct context_state;
struct context_access;
}  // namespace detail

/// A shared handle: copies refer to the same OpenCL context, cache and pool. Thread-safe.
class CLFORGE_API context {
 public:
  /// An empty handle; assign a real context before use.
  context() = default;
  /// The device CLFORGE_DEVICE selects (see choose_device for the grammar).
  static context create_default();
  /// The device `spec` selects, e.g. "gpu", "pocl", "0:1".
  static context create(std::string_view spec);
  /// A new OpenCL context on `device`.
  explicit context(const cl::Device& device);
  /// Wraps an existing OpenCL context (interop); `device` must belong to it.
  context(const cl::Context& existing, const cl::Device& device);
  /// Wraps raw handles (interop); both are retained, the caller keeps its own references.
  static context wrap(cl_context existing, cl_device_id device);

  /// The CLHPP context.
  const cl::Context& cl() const;
  /// The device everything runs on.
  const cl::Device& device() const;
  /// The raw handle, e.g. to pass to code that uses the C API.
  cl_context get() const { return cl()(); }
  /// What the device is and can do.
  const device_info& info() const;

  /// Builds `source` with `options`, through the program cache: memory, then disk, then the
  /// compiler. A failed build throws clforge::error with the build log and the source lines
  /// around each reported error.
  program build(const std::string& source, const std::string& options = "") const;

  /// Counters of this context's program cache.
  cache_stats program_cache_stats() const;
  /// The pool arrays of this context allocate from.
  memory_pool& pool() const;

  /// A value unique to this context, for caches keyed by context in the layers above.
  const void* identity() const { return state_.get(); }
  /// False for an empty handle.
  explicit operator bool() const { return state_ != nullptr; }

  /// A per-context object of a layer above (e.g. the array-expression kernel cache): created
  /// by `make` on the first call with `key`, kept by the context and released with it (before
  /// its program cache and pool). Objects kept here must not hold a `context` handle (that
  /// would keep the context alive forever); see detail::weak_context.
  std::shared_ptr<void> attachment(const std::string& key,
                                   const std::function<std::shared_ptr<void>()>& make) const;

 private:
  friend struct detail::context_access;
  explicit context(std::shared_ptr<detail::context_state> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::context_state> state_;
};

namespace detail {
/// A handle to `ctx` that does not keep it alive, for objects kept in ctx.attachment(): valid
/// exactly as long as the context, which owns them.
CLFORGE_API context weak_context(const context& ctx);

/// The object cached under (`store`, `key`) in `ctx` (an attachment keyed by `store`), made by
/// `make` on first use, outside the cache's lock: two threads may both build, one result is
/// kept. The context owns it and releases it with itself, so what `make` returns must not hold
/// a `context` handle (build it with weak_context).
CLFORGE_API std::shared_ptr<void> per_context(const context& ctx, const std::string& store,
                                              const std::string& key,
                                              const std::function<std::shared_ptr<void>()>& make);
}  // namespace detail

}  // namespace clforge
