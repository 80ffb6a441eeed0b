// clforge::array<T>: a typed device buffer with a size, allocated from the context's pool.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "clforge/queue.hpp"

namespace clforge {

namespace detail {
[[noreturn]] void throw_range_error(const char* what, std::size_t offset, std::size_t count,
                                    std::size_t size);
/// Checks offset + count <= size without overflow.
inline void check_range(const char* what, std::size_t offset, std::size_t count, std::size_t size) {
  if (offset > size || count > size - offset) throw_range_error(what, offset, count, size);
}
std::shared_ptr<cl::Buffer> allocate_checked(const context& ctx, std::size_t count,
                                             std::size_t element_size);

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
}  // namespace detail

/// Owns (shares) a device buffer of `size()` elements of T. Move-only so a copy of a large
/// array is always spelled out (`clone`). T must be trivially copyable; its layout must match
/// the OpenCL type the kernels use.
template <class T>
class array {
  static_assert(std::is_trivially_copyable_v<T>, "clforge::array<T> needs trivially copyable T");

 public:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();
  using value_type = T;

  array() = default;
  /// `n` uninitialised elements from the pool of `ctx`.
  array(const context& ctx, std::size_t n)
      : ctx_(ctx), size_(n), buffer_(detail::allocate_checked(ctx, n, sizeof(T))) {}
  array(const queue& q, std::size_t n) : array(q.ctx(), n) {}
  /// Wraps an existing buffer of at least n elements (interop); the pool does not take it.
  array(const context& ctx, const cl::Buffer& existing, std::size_t n)
      : ctx_(ctx), size_(n), buffer_(std::make_shared<cl::Buffer>(existing)) {
    std::size_t bytes = detail::translate_cl_errors([&] { return existing.getInfo<CL_MEM_SIZE>(); },
                                                    "wrapping a buffer");
    if (bytes / sizeof(T) < n)
      detail::throw_range_error("array: wrapped buffer", 0, n, bytes / sizeof(T));
  }
  static array wrap(const context& ctx, cl_mem existing, std::size_t n) {
    return array(ctx, cl::Buffer(existing, /*retainObject=*/true), n);
  }

  /// A moved-from array is empty (size 0, no buffer), so using it fails the length checks
  /// instead of reaching the driver with a null buffer.
  array(array&& other) noexcept
      : ctx_(std::move(other.ctx_)),
        size_(std::exchange(other.size_, 0)),
        buffer_(std::move(other.buffer_)) {}
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

  /// Blocking upload of `host` into a new array.
  static array from_host(const queue& q, const T* host, std::size_t n) {
    array a(q, n);
    a.write(q, host, 0, n);
    return a;
  }
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
    if (count == 0) return {};
    return detail::translate_cl_errors([&] {
      cl::Event e;
      q.cl().enqueueReadBuffer(*buffer_, CL_FALSE, offset * sizeof(T), count * sizeof(T), dst,
                               nullptr, &e);
      return event(e);
    });
  }
  /// Non-blocking upload; `src` must stay valid until the event completes.
  event write_async(const queue& q, const T* src, std::size_t offset, std::size_t count) {
    detail::check_range("array::write", offset, count, size_);
    if (count == 0) return {};
    return detail::translate_cl_errors([&] {
      cl::Event e;
      q.cl().enqueueWriteBuffer(*buffer_, CL_FALSE, offset * sizeof(T), count * sizeof(T), src,
                                nullptr, &e);
      return event(e);
    });
  }
  /// Sets [offset, offset + count) to `value` on the device.
  event fill(const queue& q, const T& value, std::size_t offset = 0, std::size_t count = npos) {
    if (count == npos) count = offset <= size_ ? size_ - offset : 0;
    detail::check_range("array::fill", offset, count, size_);
    if (count == 0) return {};
    return detail::translate_cl_errors([&] {
      cl::Event e;
      q.cl().enqueueFillBuffer(*buffer_, value, offset * sizeof(T), count * sizeof(T), nullptr, &e);
      return event(e);
    });
  }
  /// Device-side copy of `count` elements from this[src_offset] to dst[dst_offset].
  event copy_to(const queue& q, array& dst, std::size_t src_offset = 0, std::size_t dst_offset = 0,
                std::size_t count = npos) const {
    if (count == npos) count = src_offset <= size_ ? size_ - src_offset : 0;
    detail::check_range("array::copy_to (source)", src_offset, count, size_);
    detail::check_range("array::copy_to (destination)", dst_offset, count, dst.size_);
    if (count == 0) return {};
    return detail::translate_cl_errors([&] {
      cl::Event e;
      q.cl().enqueueCopyBuffer(*buffer_, *dst.buffer_, src_offset * sizeof(T),
                               dst_offset * sizeof(T), count * sizeof(T), nullptr, &e);
      return event(e);
    });
  }
  /// A new array with the same contents.
  array clone(const queue& q) const {
    array out(q, size_);
    copy_to(q, out);
    return out;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  const context& ctx() const { return ctx_; }
  /// The OpenCL buffer (may be larger than bytes(): pool size classes). Empty when size() == 0.
  const cl::Buffer& buffer() const {
    static const cl::Buffer none;
    return buffer_ ? *buffer_ : none;
  }
  cl_mem get() const { return buffer()(); }

  /// Empties the array; its buffer goes back to the pool once the commands enqueued so far on
  /// `q` have completed (memory_pool::release_after). For a temporary dropped right after
  /// enqueuing work on it, so that no other queue gets the buffer while that work runs.
  void release_after(const queue& q) {
    memory_pool::release_after(buffer_, q.cl(), !q.out_of_order());
    size_ = 0;
  }

 private:
  context ctx_;
  std::size_t size_ = 0;
  std::shared_ptr<cl::Buffer> buffer_;
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
