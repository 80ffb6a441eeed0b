// SPDX-License-Identifier: MIT
// A pool of device buffers reused by size class, so repeated temporaries are not reallocated.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "clforge/detail/opencl.hpp"

namespace clforge {

/// Counters of a memory_pool.
struct pool_stats {
  /// Allocations served from a kept buffer.
  std::size_t hits = 0;
  /// Allocations that created a new buffer.
  std::size_t misses = 0;
  /// Buffers kept for reuse right now.
  std::size_t held_buffers = 0;
  /// Bytes kept for reuse right now.
  std::size_t held_bytes = 0;
  /// Failed allocations retried after freeing every kept buffer.
  std::size_t retries = 0;
};

/// Buffers are handed out as shared handles; when the last handle goes, the buffer returns to
/// the pool. A handle dropped while commands that use it may still be pending must go through
/// release_after: the pool then keeps a marker of that queue and hands the buffer to another
/// queue only once the marker has completed (the same in-order queue may take it at once, its
/// later commands run after the pending ones). clforge's own temporaries are released this way,
/// so several queues and threads can share one context. A handle simply dropped is reusable at
/// once: drop it only when nothing pending uses it (as with any allocator).
class CLFORGE_API memory_pool : public std::enable_shared_from_this<memory_pool> {
 public:
  /// A pool for buffers of `context`, none larger than `max_alloc_bytes`.
  memory_pool(cl::Context context, std::size_t max_alloc_bytes);

  /// A buffer of at least `bytes` bytes (rounded up to its size class). Zero bytes gives an
  /// empty handle. On allocation failure the pool frees what it keeps and tries once more.
  std::shared_ptr<cl::Buffer> allocate(std::size_t bytes);
  /// As allocate(bytes), for commands about to be enqueued on `queue`: a kept buffer whose
  /// last user was this same in-order queue is reused without waiting for its marker.
  std::shared_ptr<cl::Buffer> allocate(std::size_t bytes, const cl::CommandQueue& queue,
                                       bool in_order);
  /// Drops `buffer` (it becomes empty). If it was the last handle of a pooled buffer, the
  /// buffer returns to the pool fenced by a marker enqueued now on `queue`: it is handed to
  /// another queue only after every command enqueued so far on `queue` has completed.
  static void release_after(std::shared_ptr<cl::Buffer>& buffer, const cl::CommandQueue& queue,
                            bool in_order);
  /// Frees every kept buffer.
  void release_all();
  /// The counters so far.
  pool_stats stats() const;

  /// The size class `bytes` is rounded up to: powers of two up to 64 KiB, then steps of an
  /// eighth of the power of two below (so at most 12.5% is wasted).
  static std::size_t size_class(std::size_t bytes);

  /// How the pool creates a buffer: clCreateBuffer's signature (context, flags, bytes, host
  /// pointer, error code out).
  using create_function =
      std::function<cl_mem(cl_context, cl_mem_flags, std::size_t, void*, cl_int*)>;
  /// Test hook: creates buffers with `create` instead of clCreateBuffer (an empty function
  /// restores clCreateBuffer). Drivers report CL_MEM_OBJECT_ALLOCATION_FAILURE rarely and
  /// unpredictably (PoCL allocates lazily and never refuses), so tests fake it with this to
  /// prove the free-and-retry-once path. Not for production use.
  void set_create_function_for_testing(create_function create);

 private:
  // A kept buffer and what must complete before another queue may use it.
  struct kept {
    cl::Buffer buffer;
    cl::Event fence;                         // empty: free at once
    cl_command_queue fence_queue = nullptr;  // compared only, never dereferenced
    bool fence_queue_in_order = false;
  };
  struct pooled_deleter;
  std::shared_ptr<cl::Buffer> allocate_impl(std::size_t bytes, cl_command_queue queue);
  void give_back(kept k, std::size_t bytes);

  cl::Context context_;
  std::size_t max_alloc_bytes_;
  mutable std::mutex mutex_;
  std::map<std::size_t, std::vector<kept>> free_;
  pool_stats stats_;
  std::shared_ptr<const create_function> create_;  // null: clCreateBuffer
};

}  // namespace clforge
