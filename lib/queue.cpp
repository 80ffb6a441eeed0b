// SPDX-License-Identifier: MIT
#include "clforge/queue.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <vector>

#include "event_status.hpp"

namespace clforge {

namespace detail {

namespace {
// Every living queue of the process, so that exit() can wait for what they still run. Never
// destroyed: it must outlive every queue, including those in static objects.
struct living_queues {
  std::mutex mutex;
  std::multiset<cl_command_queue> queues;  // a queue wrapped twice is here twice
};
living_queues& living() {
  static living_queues* all = new living_queues;
  return *all;
}

// exit() (and a return from main) runs the exiting thread's thread_local destructors first,
// then atexit handlers and static destructors in reverse order of registration, the driver's
// among them: LLVM registers some of its static objects only when it first compiles, often
// after clforge's own objects. A command still running then (or still being compiled: PoCL
// compiles a kernel on its worker thread at its first launch) crashed the process inside LLVM.
// So the main thread's exit finishes every living queue before anything else goes.
struct exit_guard {
  const bool main_thread = ::getpid() == static_cast<pid_t>(::syscall(SYS_gettid));
  ~exit_guard() {
    if (!main_thread) return;  // a thread ending: the process goes on
    living_queues& all = living();
    std::lock_guard<std::mutex> lock(all.mutex);
    for (cl_command_queue q : all.queues) clFinish(q);
  }
};
thread_local exit_guard guard_of_this_thread;

void arm_exit_guard() {
  (void)guard_of_this_thread.main_thread;  // constructs it in this thread
}
}  // namespace

struct queue_state {
  struct entry {
    std::weak_ptr<const void> owner;
    std::shared_ptr<void> value;
  };
  cl::CommandQueue handle;
  std::mutex mutex;
  std::map<const void*, entry> attachments;  // by owner
  // Values of owners gone, kept until `done` (a marker enqueued when their owner was found
  // gone) completes: the owner's last commands on this queue may still use what they hold.
  struct retired {
    cl::Event done;
    std::vector<std::shared_ptr<void>> values;
  };
  std::vector<retired> retired_values;

  explicit queue_state(cl::CommandQueue q) : handle(std::move(q)) {
    arm_exit_guard();
    living_queues& all = living();
    std::lock_guard<std::mutex> lock(all.mutex);
    all.queues.insert(handle());
  }
  queue_state(const queue_state&) = delete;
  queue_state& operator=(const queue_state&) = delete;

  // The last handle of a queue waits for its commands: nothing it enqueued runs after the queue
  // is gone (and so after the program that enqueued it may have ended), and the pooled buffers
  // its attachments hold go back to the pool (and so to other queues) only once unused.
  ~queue_state() {
    {
      living_queues& all = living();
      std::lock_guard<std::mutex> lock(all.mutex);
      all.queues.erase(all.queues.find(handle()));
    }
    clFinish(handle());
  }
};

namespace {
std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Default work-group shapes. On GPUs 256 items (8 warps/wavefronts) is a safe middle. On CPU
// devices (PoCL) large groups let the work-group loop vectorize, and a size that does not
// depend on n matters: PoCL specialises the compiled kernel per local size, so a size that
// followed n would recompile for every new n.
std::array<std::size_t, 3> preferred_shape(const kernel_state& k, std::size_t dims) {
  if (k.device_is_cpu) {
    if (dims == 1) return {1024, 1, 1};
    if (dims == 2) return {256, 1, 1};
    return {64, 1, 1};
  }
  if (dims == 1) return {256, 1, 1};
  if (dims == 2) return {32, 8, 1};
  return {32, 4, 2};
}
}  // namespace

void throw_range_overflow(const std::array<std::size_t, 3>& global) {
  throw error("ndrange " + std::to_string(global[0]) + " x " + std::to_string(global[1]) + " x " +
              std::to_string(global[2]) + ": the number of work-items does not fit in size_t");
}

void resolve_ndrange(const kernel_state& k, ndrange& range) {
  if (range.dims < 1 || range.dims > 3)
    throw error("launch of kernel \"" + k.name + "\": ndrange must have 1, 2 or 3 dimensions");
  (void)range.total();  // refuses a work-item count that overflows
  auto describe = [&](const std::array<std::size_t, 3>& sizes) {
    std::string out;
    for (std::size_t d = 0; d < range.dims; ++d) out += (d ? " x " : "") + std::to_string(sizes[d]);
    return out;
  };
  bool automatic = true;
  for (std::size_t d = 0; d < range.dims; ++d) automatic = automatic && range.local[d] == 0;
  if (automatic) {
    std::array<std::size_t, 3> shape = preferred_shape(k, range.dims);
    // Fit into what this kernel can run, halving the largest dimension, then keep x a multiple
    // of the preferred multiple where it still fits.
    const std::size_t limit = std::max<std::size_t>(1, k.work_group_size);
    while (shape[0] * shape[1] * shape[2] > limit) {
      auto largest = std::max_element(shape.begin(), shape.begin() + range.dims);
      *largest = std::max<std::size_t>(1, *largest / 2);
    }
    for (std::size_t d = range.dims; d < 3; ++d) shape[d] = 1;
    bool divides = true;
    for (std::size_t d = 0; d < range.dims; ++d)
      divides = divides && range.global[d] % shape[d] == 0;
    if (divides || range.pad) {
      range.local = shape;
    } else {
      // An exact launch the preferred shape does not divide: the driver picks a local size
      // that does (the global size is never changed behind the kernel's back).
      range.local = {0, 0, 0};
      return;
    }
  } else {
    std::size_t items = 1;
    for (std::size_t d = 0; d < range.dims; ++d) {
      if (range.local[d] == 0)
        throw error("launch of kernel \"" + k.name + "\": a local size of 0 in dimension " +
                    std::to_string(d));
      items *= range.local[d];
    }
    // Checked here, not left to the driver: NVIDIA's accepted an oversized group at enqueue and
    // ran nothing, which would be a silently wrong answer.
    if (items > k.work_group_size) {
      throw_cl_error("clEnqueueNDRangeKernel", CL_INVALID_WORK_GROUP_SIZE,
                     "kernel \"" + k.name + "\": local size of " + std::to_string(items) +
                         " work-items, this kernel allows at most " +
                         std::to_string(k.work_group_size) + " on this device");
    }
    for (std::size_t d = range.dims; d < 3; ++d) range.local[d] = 1;
    if (!range.pad) {
      for (std::size_t d = 0; d < range.dims; ++d)
        if (range.global[d] % range.local[d] != 0)
          throw error("launch of kernel \"" + k.name + "\": global size " + describe(range.global) +
                      " is not a multiple of local size " + describe(range.local) +
                      " (use ndrange::padded(...) to round it up, for a kernel that guards "
                      "against the extra work-items)");
    }
  }
  for (std::size_t d = range.dims; d < 3; ++d) range.local[d] = 1;
  if (!range.pad) return;
  for (std::size_t d = 0; d < range.dims; ++d) {
    const std::size_t g = std::max<std::size_t>(range.global[d], 1);
    if (g > static_cast<std::size_t>(-1) - (range.local[d] - 1)) throw_range_overflow(range.global);
    range.global[d] = round_up(g, range.local[d]);
  }
  (void)range.total();  // the padded count must fit too
}

void throw_arg_count_error(const kernel_state& k, std::size_t given) {
  throw error("launch of kernel \"" + k.name + "\": it takes " + std::to_string(k.num_args) +
              " argument(s), " + std::to_string(given) + " given");
}

void throw_other_context_error(const kernel_state& k, cl_uint index) {
  throw error("launch of kernel \"" + k.name + "\": argument " + std::to_string(index) +
              " is an array of another OpenCL context than the queue");
}

void throw_set_arg_error(const kernel_state& k, cl_uint index, cl_int code) {
  throw_cl_error("clSetKernelArg", code,
                 "kernel \"" + k.name + "\", argument " + std::to_string(index) +
                     " (does its C++ type match the kernel's parameter?)");
}

event enqueue_kernel(const cl::CommandQueue& queue, kernel_state& k, const ndrange& range,
                     bool want_event) {
  arm_exit_guard();  // this thread may be the one that calls exit()
  const bool has_offset = range.offset[0] || range.offset[1] || range.offset[2];
  cl_event raw = nullptr;
  const bool driver_local = range.local[0] == 0;  // resolve_ndrange left the choice to the driver
  cl_int code = clEnqueueNDRangeKernel(
      queue(), k.handle(), static_cast<cl_uint>(range.dims),
      has_offset ? range.offset.data() : nullptr, range.global.data(),
      driver_local ? nullptr : range.local.data(), 0, nullptr, want_event ? &raw : nullptr);
  if (code != CL_SUCCESS) {
    std::ostringstream detail;
    detail << "kernel \"" << k.name << "\", global size";
    for (std::size_t d = 0; d < range.dims; ++d) detail << (d ? "x" : " ") << range.global[d];
    detail << ", local size";
    if (driver_local) detail << " chosen by the driver";
    for (std::size_t d = 0; d < range.dims && !driver_local; ++d)
      detail << (d ? "x" : " ") << range.local[d];
    detail << " (this kernel allows at most " << k.work_group_size << " work-items per group)";
    throw_cl_error("clEnqueueNDRangeKernel", code, detail.str());
  }
  if (!raw) return {};
  return event(cl::Event(raw));  // takes ownership of the new event
}

}  // namespace detail

queue::queue(const context& ctx) : ctx_(ctx) {
  handle_ = detail::translate_cl_errors(
      [&] { return cl::CommandQueue(ctx.cl(), ctx.device(), CL_QUEUE_PROFILING_ENABLE); },
      "creating a command queue on " + ctx.info().name);
  state_ = std::make_shared<detail::queue_state>(handle_);
}

queue::queue(const context& ctx, const cl::CommandQueue& existing)
    : ctx_(ctx), handle_(existing), state_(std::make_shared<detail::queue_state>(existing)) {
  cl_context owner = detail::translate_cl_errors(
      [&] { return existing.getInfo<CL_QUEUE_CONTEXT>()(); }, "wrapping a command queue");
  if (owner != ctx.get())
    throw error("queue: the given command queue belongs to another OpenCL context");
  const cl_command_queue_properties props = detail::translate_cl_errors(
      [&] { return existing.getInfo<CL_QUEUE_PROPERTIES>(); }, "wrapping a command queue");
  out_of_order_ = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
}

queue queue::wrap(const context& ctx, cl_command_queue existing) {
  return queue(ctx, cl::CommandQueue(existing, /*retainObject=*/true));
}

namespace {
// Moves the retired values whose marker has completed into `out`; the caller destroys them
// after it unlocks.
void sweep_retired(detail::queue_state& state, std::vector<detail::queue_state::retired>& out) {
  auto& retired = state.retired_values;
  auto still_pending = std::stable_partition(
      retired.begin(), retired.end(),
      [](const detail::queue_state::retired& r) { return !detail::completed(r.done); });
  std::move(still_pending, retired.end(), std::back_inserter(out));
  retired.erase(still_pending, retired.end());
}
}  // namespace

std::shared_ptr<void> queue::attachment(const std::shared_ptr<const void>& owner,
                                        const std::function<std::shared_ptr<void>()>& make) const {
  if (!state_) throw error("queue::attachment: an empty queue");
  std::vector<detail::queue_state::retired> released;  // destroyed after the lock is released
  std::lock_guard<std::mutex> lock(state_->mutex);
  // Retired values go back as soon as a call finds their marker completed, not only when a new
  // owner comes (a queue that keeps its owners would hold them until it goes).
  if (!state_->retired_values.empty()) sweep_retired(*state_, released);
  auto& store = state_->attachments;
  auto found = store.find(owner.get());
  if (found != store.end() && !found->second.owner.expired()) return found->second.value;
  // A new owner (or a new one at a freed owner's address): retire the entries of owners gone.
  // Their values often hold pooled buffers, which would go straight back to the pool (and so to
  // other queues) while the owner's last kernel on this queue may still use them.
  std::vector<std::shared_ptr<void>> gone;
  for (auto it = store.begin(); it != store.end();) {
    if (!it->second.owner.expired()) {
      ++it;
      continue;
    }
    gone.push_back(std::move(it->second.value));
    it = store.erase(it);
  }
  if (!gone.empty()) {
    // The marker completes once every command enqueued so far has (in order or not).
    cl_event marker = nullptr;
    if (clEnqueueMarkerWithWaitList(state_->handle(), 0, nullptr, &marker) == CL_SUCCESS &&
        marker) {
      state_->retired_values.push_back({cl::Event(marker), std::move(gone)});
    } else {
      clFinish(state_->handle());  // no marker: wait here, then drop them after the unlock
      released.push_back({cl::Event(), std::move(gone)});
    }
  }
  std::shared_ptr<void> made = make();
  store[owner.get()] = {owner, made};
  return made;
}

void queue::finish() const {
  detail::check(clFinish(handle_()), "clFinish");
  if (!state_) return;
  // The retirement markers enqueued before have completed (not those other threads enqueued
  // since: each is tested).
  std::vector<detail::queue_state::retired> released;  // destroyed after the lock is released
  std::lock_guard<std::mutex> lock(state_->mutex);
  sweep_retired(*state_, released);
}
void queue::flush() const {
  detail::check(clFlush(handle_()), "clFlush");
}

}  // namespace clforge
