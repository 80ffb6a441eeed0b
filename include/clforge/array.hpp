// SPDX-License-Identifier: MIT
// clforge::array<T>: a typed device buffer with a size, allocated from the context's pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "clforge/queue.hpp"

namespace clforge {

template <class T>
class array;
template <class T>
class array_view;

namespace detail {
[[noreturn]] CLFORGE_API void throw_range_error(const char* what, std::size_t offset,
                                                std::size_t count, std::size_t size);
/// Checks offset + count <= size without overflow.
inline void check_range(const char* what, std::size_t offset, std::size_t count, std::size_t size) {
  if (offset > size || count > size - offset) throw_range_error(what, offset, count, size);
}
/// Throws clforge::error unless an array of context `owner` (an empty handle: a moved-from
/// array, which passes) may be used on `q`; `what` names the array in the message.
CLFORGE_API void require_array_context(const context& owner, const queue& q, const char* who,
                                       const char* what = "the array");
CLFORGE_API std::shared_ptr<cl::Buffer> allocate_checked(const context& ctx, std::size_t count,
                                                         std::size_t element_size);
// Byte-level buffer commands, compiled inside the library so that array<T> works whatever
// CLHPP settings (exceptions or not) the including file uses; each throws clforge::error.
CLFORGE_API std::size_t buffer_bytes(const cl::Buffer& buffer);
CLFORGE_API event enqueue_read_bytes(const queue& q, const cl::Buffer& buffer, std::size_t offset,
                                     std::size_t bytes, void* dst);
CLFORGE_API event enqueue_write_bytes(const queue& q, const cl::Buffer& buffer, std::size_t offset,
                                      std::size_t bytes, const void* src);
CLFORGE_API event enqueue_fill_bytes(const queue& q, const cl::Buffer& buffer, const void* pattern,
                                     std::size_t pattern_bytes, std::size_t offset,
                                     std::size_t bytes);
CLFORGE_API event enqueue_copy_bytes(const queue& q, const cl::Buffer& src, const cl::Buffer& dst,
                                     std::size_t src_offset, std::size_t dst_offset,
                                     std::size_t bytes);

/// A pooled temporary for commands on `q`: when it goes out of scope (or on release()), the
/// buffer is handed back fenced by a marker of `q`, so another queue cannot get it while the
/// commands using it still run (memory_pool::release_after).
class queue_temporary {
 public:
  queue_temporary() = default;
  queue_temporary(const queue& q, std::size_t bytes)
      : queue_(&q), buffer_(q.ctx().pool().allocate(bytes, q.cl(), !q.out_of_order())) {}
  queue_temporary(queue_temporary&& other) noexcept
      : queue_(other.queue_), buffer_(std::move(other.buffer_)) {}
  queue_temporary& operator=(queue_temporary&& other) noexcept {
    if (this != &other) {
      release();
      queue_ = other.queue_;
      buffer_ = std::move(other.buffer_);
    }
    return *this;
  }
  queue_temporary(const queue_temporary&) = delete;
  queue_temporary& operator=(const queue_temporary&) = delete;
  ~queue_temporary() { release(); }

  void release() {
    if (buffer_) memory_pool::release_after(buffer_, queue_->cl(), !queue_->out_of_order());
  }
  explicit operator bool() const { return buffer_ != nullptr; }
  const cl::Buffer& operator*() const { return *buffer_; }
  cl_mem get() const { return buffer_ ? (*buffer_)() : nullptr; }

 private:
  const queue* queue_ = nullptr;
  std::shared_ptr<cl::Buffer> buffer_;
};
/// Array expressions (clforge/array_expr.hpp) derive from this tag.
struct expression_base;
template <class T, class E>
void assign_expression(array<T>& target, const E& e);
[[noreturn]] CLFORGE_API void throw_no_home_queue(const char* what);
}  // namespace detail

/// Owns (shares) a device buffer of `size()` elements of T. Move-only so a copy of a large
/// array is always spelled out (`clone`). T must be trivially copyable; its layout must match
/// the OpenCL type the kernels use.
template <class T>
class array {
  static_assert(std::is_trivially_copyable_v<T>, "clforge::array<T> needs trivially copyable T");

 public:
  /// "To the end": the default count of fill and copy_to.
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();
  /// The element type.
  using value_type = T;

  array() = default;
  /// `n` uninitialised elements from the pool of `ctx`.
  array(const context& ctx, std::size_t n)
      : ctx_(ctx), size_(n), buffer_(detail::allocate_checked(ctx, n, sizeof(T))) {}
  /// `n` uninitialised elements; the array remembers `q` as its home queue (array expressions
  /// assigned to it run there).
  array(const queue& q, std::size_t n) : array(q.ctx(), n) { home_queue_.emplace(q); }
  /// Wraps an existing buffer of at least n elements (interop); the pool does not take it.
  array(const context& ctx, const cl::Buffer& existing, std::size_t n)
      : ctx_(ctx), size_(n), buffer_(std::make_shared<cl::Buffer>(existing)) {
    std::size_t bytes = detail::buffer_bytes(existing);
    if (bytes / sizeof(T) < n)
      detail::throw_range_error("array: wrapped buffer", 0, n, bytes / sizeof(T));
  }
  /// Wraps a raw buffer of at least n elements (interop); it is retained, the caller keeps its
  /// reference.
  static array wrap(const context& ctx, cl_mem existing, std::size_t n) {
    return array(ctx, cl::Buffer(existing, /*retainObject=*/true), n);
  }

  /// A moved-from array is empty (size 0, no buffer), so using it fails the length checks
  /// instead of reaching the driver with a null buffer.
  array(array&& other) noexcept
      : ctx_(std::move(other.ctx_)),
        size_(std::exchange(other.size_, 0)),
        buffer_(std::move(other.buffer_)) {}
  /// Moves `other` in; it is left empty.
  array& operator=(array&& other) noexcept {
    if (this != &other) {
      ctx_ = std::move(other.ctx_);
      size_ = std::exchange(other.size_, 0);
      buffer_ = std::move(other.buffer_);
    }
    return *this;
  }
  array(const array&) = delete;
  array& operator=(const array&) = delete;

  /// Evaluates an array expression (clforge/array_expr.hpp) into this array, as one kernel on
  /// the home queue: `y = 2.0f * x + clforge::sin(y);`. Throws clforge::error without one.
  template <class E, class = std::enable_if_t<std::is_base_of_v<detail::expression_base, E>>>
  array& operator=(const E& expression) {
    detail::assign_expression(*this, expression);
    return *this;
  }

  /// The queue the array was made on (array(q, n), from_host, clone); throws clforge::error
  /// for an array made on a context only. set_home_queue changes it.
  const clforge::queue& home_queue() const {
    if (!home_queue_) detail::throw_no_home_queue("array::home_queue");
    return *home_queue_;
  }
  /// True when the array has a home queue.
  bool has_home_queue() const { return home_queue_.has_value(); }
  /// Makes q the array's home queue (the queue `=` with an expression runs on).
  void set_home_queue(const clforge::queue& q) { home_queue_.emplace(q); }

  /// Elements start, start + step, ... up to stop (exclusive), Python slice rules (negative
  /// values count from the end, out-of-range values are clamped, clforge::slice_none means
  /// omitted). No copy: the view shares the buffer. See clforge/array_view.hpp.
  array_view<T> view(std::int64_t start, std::int64_t stop, std::int64_t step = 1) const;

  /// Blocking upload of `host` into a new array.
  static array from_host(const queue& q, const T* host, std::size_t n) {
    array a(q, n);
    a.write(q, host, 0, n);
    return a;
  }
  /// Blocking upload of `host` into a new array.
  static array from_host(const queue& q, const std::vector<T>& host) {
    return from_host(q, host.data(), host.size());
  }

  /// Blocking download of the whole array.
  std::vector<T> to_host(const queue& q) const {
    std::vector<T> out(size_);
    read(q, out.data(), 0, size_);
    return out;
  }
  /// Blocking download of [offset, offset + count) into `dst`.
  void read(const queue& q, T* dst, std::size_t offset, std::size_t count) const {
    read_async(q, dst, offset, count).wait();
  }
  /// Blocking upload of `count` elements from `src` to [offset, offset + count).
  void write(const queue& q, const T* src, std::size_t offset, std::size_t count) {
    write_async(q, src, offset, count).wait();
  }
  /// Non-blocking download; `dst` must stay valid until the event completes.
  event read_async(const queue& q, T* dst, std::size_t offset, std::size_t count) const {
    detail::check_range("array::read", offset, count, size_);
    detail::require_array_context(ctx_, q, "array::read");
    if (count == 0) return {};
    return detail::enqueue_read_bytes(q, *buffer_, offset * sizeof(T), count * sizeof(T), dst);
  }
  /// Non-blocking upload; `src` must stay valid until the event completes.
  event write_async(const queue& q, const T* src, std::size_t offset, std::size_t count) {
    detail::check_range("array::write", offset, count, size_);
    detail::require_array_context(ctx_, q, "array::write");
    if (count == 0) return {};
    return detail::enqueue_write_bytes(q, *buffer_, offset * sizeof(T), count * sizeof(T), src);
  }
  /// Sets [offset, offset + count) to `value` on the device.
  event fill(const queue& q, const T& value, std::size_t offset = 0, std::size_t count = npos) {
    if (count == npos) count = offset <= size_ ? size_ - offset : 0;
    detail::check_range("array::fill", offset, count, size_);
    detail::require_array_context(ctx_, q, "array::fill");
    if (count == 0) return {};
    return detail::enqueue_fill_bytes(q, *buffer_, &value, sizeof(T), offset * sizeof(T),
                                      count * sizeof(T));
  }
  /// Device-side copy of `count` elements from this[src_offset] to dst[dst_offset].
  event copy_to(const queue& q, array& dst, std::size_t src_offset = 0, std::size_t dst_offset = 0,
                std::size_t count = npos) const {
    if (count == npos) count = src_offset <= size_ ? size_ - src_offset : 0;
    detail::check_range("array::copy_to (source)", src_offset, count, size_);
    detail::check_range("array::copy_to (destination)", dst_offset, count, dst.size_);
    detail::require_array_context(ctx_, q, "array::copy_to", "the source array");
    detail::require_array_context(dst.ctx_, q, "array::copy_to", "the destination array");
    if (count == 0) return {};
    return detail::enqueue_copy_bytes(q, *buffer_, *dst.buffer_, src_offset * sizeof(T),
                                      dst_offset * sizeof(T), count * sizeof(T));
  }
  /// A new array with the same contents.
  array clone(const queue& q) const {
    array out(q, size_);
    copy_to(q, out);
    return out;
  }

  /// Number of elements.
  std::size_t size() const { return size_; }
  /// True when size() == 0.
  bool empty() const { return size_ == 0; }
  /// size() * sizeof(T).
  std::size_t bytes() const { return size_ * sizeof(T); }
  /// The context the buffer belongs to.
  const context& ctx() const { return ctx_; }
  /// The OpenCL buffer (may be larger than bytes(): pool size classes). Empty when size() == 0.
  const cl::Buffer& buffer() const {
    static const cl::Buffer none;
    return buffer_ ? *buffer_ : none;
  }
  /// The raw buffer handle (not retained); null when size() == 0.
  cl_mem get() const { return buffer()(); }

  /// Empties the array; its buffer goes back to the pool once the commands enqueued so far on
  /// `q` have completed (memory_pool::release_after). For a temporary dropped right after
  /// enqueuing work on it, so that no other queue gets the buffer while that work runs.
  void release_after(const queue& q) {
    memory_pool::release_after(buffer_, q.cl(), !q.out_of_order());
    size_ = 0;
  }

 private:
  friend class array_view<T>;
  context ctx_;
  std::size_t size_ = 0;
  std::shared_ptr<cl::Buffer> buffer_;
  std::optional<clforge::queue> home_queue_;
};

namespace detail {
template <class T>
struct argument_context<array<T>> {
  static cl_context of(const array<T>& a) { return a.get() ? a.ctx().get() : nullptr; }
};
template <class T>
struct kernel_arg<array<T>> {
  static cl_int set(cl_kernel k, cl_uint index, const array<T>& a) {
    cl_mem mem = a.get();
    return clSetKernelArg(k, index, sizeof(cl_mem), &mem);
  }
};
}  // namespace detail

}  // namespace clforge

#include "clforge/array_view.hpp"
