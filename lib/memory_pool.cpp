// SPDX-License-Identifier: MIT
#include "clforge/memory_pool.hpp"

#include <algorithm>

#include "clforge/array.hpp"
#include "clforge/error.hpp"
#include "event_status.hpp"

namespace clforge {

memory_pool::memory_pool(cl::Context context, std::size_t max_alloc_bytes)
    : context_(std::move(context)), max_alloc_bytes_(max_alloc_bytes) {}

std::size_t memory_pool::size_class(std::size_t bytes) {
  if (bytes == 0) return 0;
  constexpr std::size_t kSmall = std::size_t(64) << 10;
  std::size_t power = 256;
  while (power < bytes && power < kSmall) power <<= 1;
  if (bytes <= power) return power;
  // Above 64 KiB: the largest power of two <= bytes, in eight steps up to the next one.
  std::size_t below = kSmall;
  while (below <= bytes / 2) below <<= 1;
  std::size_t step = below / 8;
  return (bytes + step - 1) / step * step;
}

// The deleter of every pooled handle. release_after sets the fence just before the handle
// goes; the pool holds itself weakly, so a buffer outliving its pool is simply released.
struct memory_pool::pooled_deleter {
  std::weak_ptr<memory_pool> owner;
  std::size_t bytes = 0;
  cl::Event fence;
  cl_command_queue fence_queue = nullptr;
  bool fence_queue_in_order = false;

  void operator()(cl::Buffer* b) {
    if (auto pool = owner.lock())
      pool->give_back(kept{std::move(*b), std::move(fence), fence_queue, fence_queue_in_order},
                      bytes);
    delete b;
  }
};

std::shared_ptr<cl::Buffer> memory_pool::allocate(std::size_t bytes) {
  return allocate_impl(bytes, nullptr);
}

std::shared_ptr<cl::Buffer> memory_pool::allocate(std::size_t bytes, const cl::CommandQueue& queue,
                                                  bool in_order) {
  return allocate_impl(bytes, in_order ? queue() : nullptr);
}

void memory_pool::release_after(std::shared_ptr<cl::Buffer>& buffer, const cl::CommandQueue& queue,
                                bool in_order) {
  if (!buffer) return;
  pooled_deleter* deleter = std::get_deleter<pooled_deleter>(buffer);
  if (deleter && buffer.use_count() == 1) {
    // The marker completes when every command enqueued before it has (in-order or not).
    cl::Event marker;
    cl_event raw = nullptr;
    if (clEnqueueMarkerWithWaitList(queue(), 0, nullptr, &raw) == CL_SUCCESS && raw) {
      marker = cl::Event(raw);
    } else {
      // No marker: wait here rather than hand out a buffer that may still be in use.
      clFinish(queue());
    }
    deleter->fence = std::move(marker);
    deleter->fence_queue = queue();
    deleter->fence_queue_in_order = in_order;
  }
  buffer.reset();
}

std::shared_ptr<cl::Buffer> memory_pool::allocate_impl(std::size_t bytes,
                                                       cl_command_queue in_order_queue) {
  if (bytes == 0) return {};
  // A size class past the device's allocation limit would fail where the exact size fits.
  const std::size_t rounded = std::max(bytes, std::min(size_class(bytes), max_alloc_bytes_));
  cl::Buffer buffer;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = free_.find(rounded);
    if (found != free_.end()) {
      std::vector<kept>& list = found->second;
      // Newest first (warm in caches). A fenced buffer is free once its marker completed, or
      // at once for the same in-order queue that fenced it.
      for (std::size_t j = list.size(); j-- > 0;) {
        kept& k = list[j];
        const bool usable =
            !k.fence() ||
            (in_order_queue && k.fence_queue == in_order_queue && k.fence_queue_in_order) ||
            detail::completed(k.fence);
        if (!usable) continue;
        buffer = std::move(k.buffer);
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(j));
        break;
      }
    }
    if (buffer()) {
      ++stats_.hits;
      --stats_.held_buffers;
      stats_.held_bytes -= rounded;
    } else {
      ++stats_.misses;
    }
  }
  if (!buffer()) {
    std::shared_ptr<const create_function> create;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      create = create_;
    }
    auto create_buffer = [&](cl_int* code) {
      return create ? (*create)(context_(), CL_MEM_READ_WRITE, rounded, nullptr, code)
                    : clCreateBuffer(context_(), CL_MEM_READ_WRITE, rounded, nullptr, code);
    };
    cl_int code = CL_SUCCESS;
    cl_mem raw = create_buffer(&code);
    std::size_t freed = 0;
    bool retried = false;
    if (code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES ||
        code == CL_OUT_OF_HOST_MEMORY) {
      // What we keep may be what the device lacks: free it all and try once more.
      {
        std::lock_guard<std::mutex> lock(mutex_);
        freed = stats_.held_bytes;
        ++stats_.retries;
      }
      release_all();
      retried = true;
      raw = create_buffer(&code);
    }
    if (code != CL_SUCCESS || !raw) {
      if (raw) clReleaseMemObject(raw);
      std::string what = "allocating " + std::to_string(rounded) + " bytes";
      if (retried)
        what += ": the device is out of memory even after clforge freed the " +
                std::to_string(freed) + " bytes its pool kept and retried once";
      detail::throw_cl_error("clCreateBuffer", code == CL_SUCCESS ? CL_INVALID_MEM_OBJECT : code,
                             what);
    }
    buffer = cl::Buffer(raw);  // takes ownership
  }
  pooled_deleter deleter;
  deleter.owner = weak_from_this();
  deleter.bytes = rounded;
  return std::shared_ptr<cl::Buffer>(new cl::Buffer(std::move(buffer)), std::move(deleter));
}

void memory_pool::give_back(kept k, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_[bytes].push_back(std::move(k));
  ++stats_.held_buffers;
  stats_.held_bytes += bytes;
}

void memory_pool::release_all() {
  std::map<std::size_t, std::vector<kept>> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    dropped.swap(free_);
    stats_.held_buffers = 0;
    stats_.held_bytes = 0;
  }
  // Buffers are released here, outside the lock.
}

void memory_pool::set_create_function_for_testing(create_function create) {
  std::lock_guard<std::mutex> lock(mutex_);
  create_ = create ? std::make_shared<const create_function>(std::move(create)) : nullptr;
}

pool_stats memory_pool::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

namespace detail {

void throw_range_error(const char* what, std::size_t offset, std::size_t count, std::size_t size) {
  throw error(std::string(what) + ": elements [" + std::to_string(offset) + ", " +
              std::to_string(offset) + " + " + std::to_string(count) +
              ") lie outside an array of " + std::to_string(size) + " elements");
}

std::shared_ptr<cl::Buffer> allocate_checked(const context& ctx, std::size_t count,
                                             std::size_t element_size) {
  if (!ctx) throw error("array: created with an empty context");
  if (count == 0) return {};
  const std::size_t limit = ctx.info().max_alloc_bytes;
  if (count > limit / element_size) {
    throw error("array of " + std::to_string(count) + " elements of " +
                std::to_string(element_size) + " bytes exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE (" +
                std::to_string(limit) + " bytes) of " + ctx.info().name);
  }
  return ctx.pool().allocate(count * element_size);
}

}  // namespace detail
}  // namespace clforge
