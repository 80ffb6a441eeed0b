// SPDX-License-Identifier: MIT
// clforge::queue and the launcher: typed kernel arguments, NDRange, automatic local size.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "clforge/context.hpp"
#include "clforge/error.hpp"
#include "clforge/event.hpp"
#include "clforge/program.hpp"

namespace clforge {

namespace detail {
struct queue_state;
[[noreturn]] CLFORGE_API void throw_range_overflow(const std::array<std::size_t, 3>& global);
}  // namespace detail

/// A 1-, 2- or 3-D launch range. A launch runs exactly `global` work-items. Without a local
/// size the launcher uses its preferred work-group shape where that divides the global size and
/// otherwise lets the driver choose one that does. A fixed local size must divide the global
/// size, unless the range is padded: `ndrange::padded(n)` rounds the global size up to a
/// multiple of the local size, for kernels that guard with the true size they receive as an
/// argument.
struct ndrange {
  /// Number of dimensions, 1 to 3.
  std::size_t dims = 1;
  /// Global size per dimension (the true size; rounded up at launch).
  std::array<std::size_t, 3> global{1, 1, 1};
  /// Local size per dimension; 0: chosen automatically.
  std::array<std::size_t, 3> local{0, 0, 0};
  /// Global offset per dimension.
  std::array<std::size_t, 3> offset{0, 0, 0};
  /// Round the global size up to a multiple of the local size (see padded()).
  bool pad = false;
  /// False: the launch returns an empty event (see without_event()).
  bool event = true;

  /// A 1-D range of x work-items.
  explicit ndrange(std::size_t x) : dims(1), global{x, 1, 1} {}
  /// A 2-D range of x by y work-items.
  ndrange(std::size_t x, std::size_t y) : dims(2), global{x, y, 1} {}
  /// A 3-D range.
  ndrange(std::size_t x, std::size_t y, std::size_t z) : dims(3), global{x, y, z} {}

  /// A range whose global size may be rounded up to a multiple of the local size (automatic or
  /// fixed): the kernel then runs extra work-items and must guard against them.
  static ndrange padded(std::size_t x) { return ndrange(x).with_padding(); }
  /// padded() in 2-D.
  static ndrange padded(std::size_t x, std::size_t y) { return ndrange(x, y).with_padding(); }
  /// padded() in 3-D.
  static ndrange padded(std::size_t x, std::size_t y, std::size_t z) {
    return ndrange(x, y, z).with_padding();
  }
  /// Marks this range as padded (see padded()).
  ndrange& with_padding() {
    pad = true;
    return *this;
  }

  /// Fixes the local size; it must divide the global size unless the range is padded.
  ndrange& with_local(std::size_t x, std::size_t y = 1, std::size_t z = 1) {
    local = {x, y, z};
    return *this;
  }
  /// The launch returns an empty event: for launches nobody waits on by event (creating one
  /// costs host time).
  ndrange& without_event() {
    event = false;
    return *this;
  }
  /// Sets the global offset.
  ndrange& with_offset(std::size_t x, std::size_t y = 0, std::size_t z = 0) {
    offset = {x, y, z};
    return *this;
  }
  /// The number of work-items; throws clforge::error when it does not fit in size_t.
  std::size_t total() const {
    std::size_t items = 1;
    for (std::size_t d = 0; d < 3; ++d) {
      if (global[d] != 0 && items > static_cast<std::size_t>(-1) / global[d])
        detail::throw_range_overflow(global);
      items *= global[d];
    }
    return items;
  }
};

/// Local (work-group shared) memory argument of `count` elements of T.
template <class T>
struct local {
  /// `count` elements of T.
  explicit local(std::size_t elements) : count(elements) {}
  /// Number of elements.
  std::size_t count;
};

namespace detail {
/// How a C++ value becomes a kernel argument. Scalars and trivially copyable structs are
/// passed by value; clforge::array, cl::Buffer and local<T> have specialisations.
template <class T, class Enable = void>
struct kernel_arg {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>,
                "clforge: kernel arguments are scalars, trivially copyable structs, "
                "clforge::array, cl::Buffer or clforge::local<T>");
  static_assert(!std::is_same_v<T, bool>,
                "clforge: OpenCL has no bool kernel argument; pass an int");
  static cl_int set(cl_kernel k, cl_uint index, const T& value) {
    return clSetKernelArg(k, index, sizeof(T), &value);
  }
};
template <>
struct kernel_arg<cl::Buffer> {
  static cl_int set(cl_kernel k, cl_uint index, const cl::Buffer& b) {
    cl_mem mem = b();
    return clSetKernelArg(k, index, sizeof(cl_mem), &mem);
  }
};
template <class T>
struct kernel_arg<local<T>> {
  static cl_int set(cl_kernel k, cl_uint index, const local<T>& l) {
    return clSetKernelArg(k, index, l.count * sizeof(T), nullptr);
  }
};

/// The OpenCL context a launch argument's memory lives in, where clforge knows it without asking
/// the driver (clforge::array specialises this); nullptr: not checked.
/// Raw bytes of a by-value argument whose type is known only at run time.
struct argument_bytes {
  const void* data;
  std::size_t size;
};
template <>
struct kernel_arg<argument_bytes> {
  static cl_int set(cl_kernel k, cl_uint index, const argument_bytes& b) {
    return clSetKernelArg(k, index, b.size, b.data);
  }
};

/// How queue::launch sets one of its arguments: one kernel argument each, except for types
/// that stand for several (a snippet kernel's bound arguments, detail::argument_list).
template <class T, class Enable = void>
struct launch_argument {
  static std::size_t count(const T&) { return 1; }
  static cl_int set(cl_kernel k, cl_uint& index, const T& value) {
    return kernel_arg<T>::set(k, index++, value);
  }
};

/// A run of buffers, one kernel argument each (e.g. one per array a kernel permutes).
template <>
struct launch_argument<std::vector<cl::Buffer>> {
  static std::size_t count(const std::vector<cl::Buffer>& list) { return list.size(); }
  static cl_int set(cl_kernel k, cl_uint& index, const std::vector<cl::Buffer>& list) {
    for (const cl::Buffer& b : list)
      if (cl_int code = kernel_arg<cl::Buffer>::set(k, index++, b); code != CL_SUCCESS) return code;
    return CL_SUCCESS;
  }
};

template <class T, class Enable = void>
struct argument_context {
  static cl_context of(const T&) { return nullptr; }
};
[[noreturn]] CLFORGE_API void throw_other_context_error(const kernel_state& k, cl_uint index);

/// Checks the range and fills in a local size when none is given: the preferred shape where it
/// divides the global size, else 0 (the driver chooses). A padded range has its global size
/// rounded up to the local size instead; any other fixed local size must divide it.
CLFORGE_API void resolve_ndrange(const kernel_state& k, ndrange& range);
[[noreturn]] CLFORGE_API void throw_arg_count_error(const kernel_state& k, std::size_t given);
[[noreturn]] CLFORGE_API void throw_set_arg_error(const kernel_state& k, cl_uint index,
                                                  cl_int code);
/// Enqueues with the arguments already set. Translates errors into clforge::error.
/// want_event false: no event is created and an empty one returned. (Events cost host time per
/// launch; internal launches whose event nobody reads, such as a reduction's first stage or a
/// call whose result is read back with a blocking read, skip it.)
CLFORGE_API event enqueue_kernel(const cl::CommandQueue& queue, kernel_state& k,
                                 const ndrange& range, bool want_event = true);
}  // namespace detail

/// An in-order command queue with profiling enabled. Copies share it; the last copy, when
/// destroyed, waits for the commands enqueued on it (clFinish). At exit() or a return from main,
/// every queue still alive is finished before static objects (the driver's among them) go.
class CLFORGE_API queue {
 public:
  /// A new in-order queue with profiling on the context's device.
  explicit queue(const context& ctx);
  /// Wraps an existing CLHPP queue (interop); it must belong to `ctx`'s context and device.
  queue(const context& ctx, const cl::CommandQueue& existing);
  /// Wraps a raw handle (interop); it is retained.
  static queue wrap(const context& ctx, cl_command_queue existing);

  /// The context of the queue.
  const context& ctx() const { return ctx_; }
  /// The CLHPP command queue.
  const cl::CommandQueue& cl() const { return handle_; }
  /// The raw handle (not retained).
  cl_command_queue get() const { return handle_(); }
  /// Whether the queue runs commands out of order (only a wrapped queue can). Templates that
  /// enqueue dependent commands, or reuse pooled temporaries, put barriers between them then.
  bool out_of_order() const { return out_of_order_; }

  /// Sets `args` on `k` in order and enqueues it over `range`. The argument count is checked
  /// against the kernel; a local size is chosen when the range has none. A range of zero
  /// work-items enqueues nothing and returns an empty event.
  template <class... Args>
  event launch(const kernel& k, ndrange range, const Args&... args) const {
    detail::kernel_state& state = k.state();
    const std::size_t given = (std::size_t(0) + ... + detail::launch_argument<Args>::count(args));
    if (given != state.num_args) detail::throw_arg_count_error(state, given);
    const bool nothing_to_do = range.total() == 0;
    detail::resolve_ndrange(state, range);  // checks the local size even then
    if (nothing_to_do) return {};           // zero work-items: valid, nothing is enqueued
    cl_uint index = 0;
    (check_context(state, index, args), ...);  // refused before anything is set or enqueued
    std::lock_guard<std::mutex> lock(state.launch_mutex);
    index = 0;
    (set_one(state, index, args), ...);
    return detail::enqueue_kernel(handle_, state, range, range.event);
  }

  /// Blocks until every command on the queue has finished (clFinish), then releases the
  /// retired attachments (below) that waited for them.
  void finish() const;
  /// Submits the queued commands to the device (clFlush).
  void flush() const;

  /// Per-queue state of a layer above (e.g. a scan's look-back tile statuses): made by `make`
  /// on the first call for `owner`, kept by this queue and its copies, and released with the
  /// last of them (which then waits for the queue's commands, as they may use what the
  /// entries hold). An entry whose owner has gone is retired when another is added, so the
  /// store holds one entry per living owner; its value is released once every command enqueued
  /// on the queue before then has completed (they may still use what it holds): at the first
  /// call to attachment() or finish() that finds them completed.
  std::shared_ptr<void> attachment(const std::shared_ptr<const void>& owner,
                                   const std::function<std::shared_ptr<void>()>& make) const;

 private:
  template <class T>
  void check_context(const detail::kernel_state& state, cl_uint& index, const T& value) const {
    const cl_context owner = detail::argument_context<T>::of(value);
    if (owner && owner != ctx_.get()) detail::throw_other_context_error(state, index);
    index += static_cast<cl_uint>(detail::launch_argument<T>::count(value));
  }
  template <class T>
  static void set_one(detail::kernel_state& state, cl_uint& index, const T& value) {
    const cl_uint first = index;
    cl_int code = detail::launch_argument<T>::set(state.handle(), index, value);
    if (code != CL_SUCCESS) detail::throw_set_arg_error(state, first, code);
  }

  context ctx_;
  cl::CommandQueue handle_;
  bool out_of_order_ = false;  // read once, when the queue is created or wrapped
  // After ctx_: released before it, while the pool its buffers return to still exists.
  std::shared_ptr<detail::queue_state> state_;
};

}  // namespace clforge
