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
/// the pool. Reuse is safe for work on one in-order queue (clforge's default); a buffer freed
/// while another queue still uses it needs that queue finished first, as with any allocator.
class CLFORGE_API memory_pool : public std::enable_shared_from_this<memory_pool> {
 public:
  /// A pool for buffers of `context`, none larger than `max_alloc_bytes`.
  memory_pool(cl::Context context, std::size_t max_alloc_bytes);

  /// A buffer of at least `bytes` bytes (rounded up to its size class). Zero bytes gives an
  /// empty handle. On allocation failure the pool frees what it keeps and tries once more.
  std::shared_ptr<cl::Buffer> allocate(std::size_t bytes);
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
  void give_back(cl::Buffer buffer, std::size_t bytes);

  cl::Context context_;
  std::size_t max_alloc_bytes_;
  mutable std::mutex mutex_;
  std::map<std::size_t, std::vector<cl::Buffer>> free_;
  pool_stats stats_;
  std::shared_ptr<const create_function> create_;  // null: clCreateBuffer
};

}  // namespace clforge
