// SPDX-License-Identifier: MIT
// The radix sort's engine (kernels/sort.cl), shared by its files: sort.cpp (the plan, the build,
// radix_sort and the scratch), sort_onesweep.cpp (GPUs), sort_chunked.cpp (CPUs), and
// radix_sort_kernel.cpp (keys from a user's expression, sorted by radix_sort). Internal to the
// library.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>

#include "clforge/algorithms/sort.hpp"
#include "template_engine.hpp"

namespace clforge::detail {

// The policy (path, tile shapes, chunking) is data: sort_policy in lib/tuning/policies.hpp, one
// row per device class in lib/tuning/tables.cpp, overridden by CLFORGE_TUNE="sort:..." and
// tuning::set(ctx, "sort", ...).

constexpr unsigned kRadix = 256;
constexpr unsigned kDigitBits = 8;
constexpr std::size_t kDigitSlices = 32;             // CLFORGE_DIGIT_SLICES in kernels/sort.cl
constexpr std::uint32_t kMaxEpoch = (1u << 24) - 1;  // 24 epoch bits in a tile status word

// Pooled buffers for commands on q. They go back with memory_pool::release_after (fenced by
// q): another queue must not get one while the sort's commands still use it.
inline std::shared_ptr<cl::Buffer> allocate(const queue& q, std::size_t bytes) {
  return q.ctx().pool().allocate(std::max<std::size_t>(bytes, 16), q.cl(), !q.out_of_order());
}
inline void release_fenced(const queue& q, std::shared_ptr<cl::Buffer>& buffer) {
  if (buffer) memory_pool::release_after(buffer, q.cl(), !q.out_of_order());
  buffer.reset();
}

inline void fill_zero(const queue& q, const cl::Buffer& buffer, std::size_t bytes) {
  translate_cl_errors(
      [&] { q.cl().enqueueFillBuffer(buffer, cl_uint(0), 0, (bytes + 3) / 4 * 4); });
}

inline event copy_buffer(const queue& q, const cl::Buffer& from, const cl::Buffer& to,
                         std::size_t bytes) {
  return translate_cl_errors([&] {
    cl::Event e;
    q.cl().enqueueCopyBuffer(from, to, 0, 0, bytes, nullptr, &e);
    return event(e);
  });
}

// Temporaries of a sort; in a sort_scratch they outlive the call.
struct sort_scratch_state {
  std::mutex mutex;
  const void* context_identity = nullptr;
  std::shared_ptr<cl::Buffer> alt_keys, alt_values, counts, bases, counters, status;
  std::size_t alt_keys_bytes = 0, alt_values_bytes = 0, counts_bytes = 0, bases_bytes = 0,
              status_bytes = 0;
  std::uint32_t epoch = 0;  // of the last onesweep launch
  // The queue of the last sort that used the buffers (a sort_scratch only): its commands may
  // still be pending, so another queue waits for them and the buffers go back fenced by it.
  cl::CommandQueue user;
  bool user_in_order = true;

  ~sort_scratch_state() { release_after_user(); }

  // Forgets the buffers (their handles go; see release_after and release_after_user).
  void release() {
    alt_keys.reset(), alt_values.reset(), counts.reset(), bases.reset(), counters.reset(),
        status.reset();
    alt_keys_bytes = alt_values_bytes = counts_bytes = bases_bytes = status_bytes = 0;
    epoch = 0;
  }
  // The buffers back to the pool after the commands enqueued so far on q.
  void release_after(const queue& q) {
    for (auto* buffer : {&alt_keys, &alt_values, &counts, &bases, &counters, &status})
      release_fenced(q, *buffer);
    release();
  }
  // The buffers back to the pool after the commands enqueued so far on the last user's queue
  // (sort_scratch::release, a sort in another context, the scratch's end).
  void release_after_user() {
    if (user())
      for (auto* buffer : {&alt_keys, &alt_values, &counts, &bases, &counters, &status})
        memory_pool::release_after(*buffer, user, user_in_order);
    release();
    user = cl::CommandQueue();
  }
  // Before a sort on q uses the buffers: the commands of the last user's queue that use them
  // come first. A marker there and a barrier on q that waits for it order them on the device
  // (the host does not wait); the same in-order queue runs its commands in order anyway.
  void take_over(const queue& q) {
    if (user() == q.get() && user_in_order) return;
    if (user()) {
      cl_event marker = nullptr;
      // The marker's queue is flushed: a command on another queue may wait for it only then.
      const bool ordered = clEnqueueMarkerWithWaitList(user(), 0, nullptr, &marker) == CL_SUCCESS &&
                           marker && clFlush(user()) == CL_SUCCESS &&
                           clEnqueueBarrierWithWaitList(q.get(), 1, &marker, nullptr) == CL_SUCCESS;
      if (!ordered) clFinish(user());  // wait here rather than share the buffers unordered
      if (marker) clReleaseEvent(marker);
    }
    user = q.cl();
    user_in_order = !q.out_of_order();
  }
  std::size_t bytes() const {
    return alt_keys_bytes + alt_values_bytes + counts_bytes + bases_bytes + status_bytes +
           (counters ? 16 : 0);
  }
  // Makes `buffer` hold at least `need` bytes; returns whether it is new.
  static bool ensure(const queue& q, std::shared_ptr<cl::Buffer>& buffer, std::size_t& have,
                     std::size_t need) {
    if (buffer && have >= need) return false;
    release_fenced(q, buffer);  // back to the pool first, so it can serve this request
    buffer = allocate(q, need);
    have = need;
    return true;
  }
  // The epoch of the next onesweep launch; clears the tile states and counters when needed.
  std::uint32_t next_epoch(const queue& q, bool fresh_status) {
    if (!counters) {
      counters = allocate(q, 16);
      fresh_status = true;
    }
    if (fresh_status || epoch >= kMaxEpoch) {
      fill_zero(q, *status, status_bytes);
      fill_zero(q, *counters, 8);
      epoch = 0;
      order_point(q);
    }
    return ++epoch;
  }
};

struct sort_plan {
  const char* who;
  sort_key_type key;
  std::size_t n = 0;
  std::size_t value_size = 0;  // 0: keys only
  unsigned begin_bit = 0, end_bit = 0, passes = 0;
  bool descending = false;
  sort_path path = sort_path::chunked;
  sort_policy policy{};
  std::size_t group = 0, items = 0;  // onesweep tile, after fitting local memory
  unsigned digit_bits = 8;           // bits per pass (onesweep: 8; chunked: the policy's)
};

struct buffers {
  const cl::Buffer* keys[2];
  const cl::Buffer* values[2];
};

// Fits the onesweep tile to the device (sort_onesweep.cpp). False where it cannot fit and
// `required` is false (the table chose onesweep: the chunked path runs instead); an error where
// the caller asked for onesweep.
bool fit_onesweep_tile(const device_info& info, sort_plan& p, bool required);
// The passes of each algorithm over the keys (and values) in `b`, from b.keys[0]; after an odd
// number of passes the result is in b.keys[1].
event run_onesweep(const queue& q, const sort_plan& p, const program& prog, sort_scratch_state& s,
                   buffers b);
event run_chunked(const queue& q, const sort_plan& p, const program& prog, sort_scratch_state& s,
                  buffers b);

}  // namespace clforge::detail
