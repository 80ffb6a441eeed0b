// SPDX-License-Identifier: MIT
// The buffer pool (reuse by size class) and interop with code that already uses OpenCL.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <clforge/clforge.hpp>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <vector>

namespace cf = clforge;

// Markers fail while fail_markers is set (the driver's clEnqueueMarkerWithWaitList otherwise):
// this program's definition comes before the OpenCL library's for clforge's calls too.
namespace {
std::atomic<bool> fail_markers{false};
std::atomic<int> failed_markers{0};
}  // namespace

extern "C" CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue queue,
                                                                       cl_uint count,
                                                                       const cl_event* wait_list,
                                                                       cl_event* event) {
  using marker_fn = cl_int(CL_API_CALL*)(cl_command_queue, cl_uint, const cl_event*, cl_event*);
  static const auto driver =
      reinterpret_cast<marker_fn>(dlsym(RTLD_NEXT, "clEnqueueMarkerWithWaitList"));
  if (fail_markers || !driver) {
    ++failed_markers;
    return CL_OUT_OF_RESOURCES;
  }
  return driver(queue, count, wait_list, event);
}

TEST(memory_pool, size_classes) {
  EXPECT_EQ(cf::memory_pool::size_class(0), 0u);
  EXPECT_EQ(cf::memory_pool::size_class(1), 256u);
  EXPECT_EQ(cf::memory_pool::size_class(257), 512u);
  EXPECT_EQ(cf::memory_pool::size_class(65536), 65536u);
  EXPECT_EQ(cf::memory_pool::size_class(65537), 65536u + 8192u);
  for (std::size_t bytes : {100000u, 1000000u, 123456789u}) {
    std::size_t c = cf::memory_pool::size_class(bytes);
    EXPECT_GE(c, bytes);
    EXPECT_LE(c, bytes + bytes / 8 + 1) << bytes;  // at most 12.5% more
  }
}

TEST(memory_pool, freed_buffers_are_reused) {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  cf::memory_pool& pool = ctx.pool();
  const cf::pool_stats before = pool.stats();
  cl_mem first = nullptr;
  {
    cf::array<float> a(q, 1000);
    first = a.get();
  }
  EXPECT_EQ(pool.stats().held_buffers, before.held_buffers + 1);
  {
    cf::array<float> b(q, 990);  // same size class
    EXPECT_EQ(b.get(), first);
  }
  cf::pool_stats after = pool.stats();
  EXPECT_EQ(after.misses, before.misses + 1);
  EXPECT_EQ(after.hits, before.hits + 1);
  pool.release_all();
  EXPECT_EQ(pool.stats().held_buffers, 0u);
  EXPECT_EQ(pool.stats().held_bytes, 0u);
  { cf::array<float> c(q, 1000); }
  EXPECT_EQ(pool.stats().misses, after.misses + 1);
}

TEST(interop, wraps_and_hands_back_raw_handles) {
  cf::context made = cf::context::create_default();
  cl_context raw_context = made.get();
  cl_device_id raw_device = made.device()();

  cf::context ctx = cf::context::wrap(raw_context, raw_device);
  EXPECT_EQ(ctx.get(), raw_context);
  EXPECT_EQ(ctx.info().name, made.info().name);

  cl_int code = CL_SUCCESS;
  cl_command_queue raw_queue = clCreateCommandQueue(raw_context, raw_device, 0, &code);
  ASSERT_EQ(code, CL_SUCCESS);
  cf::queue q = cf::queue::wrap(ctx, raw_queue);
  EXPECT_EQ(q.get(), raw_queue);
  clReleaseCommandQueue(raw_queue);  // the wrapper holds its own reference

  std::vector<int> host = {1, 2, 3, 4, 5};
  cl_mem raw_buffer =
      clCreateBuffer(raw_context, CL_MEM_READ_WRITE, 5 * sizeof(int), nullptr, &code);
  ASSERT_EQ(code, CL_SUCCESS);
  {
    cf::array<int> a = cf::array<int>::wrap(ctx, raw_buffer, 5);
    a.write(q, host.data(), 0, 5);
    EXPECT_EQ(a.get(), raw_buffer);
    EXPECT_THROW(cf::array<int>::wrap(ctx, raw_buffer, 6), cf::error);  // larger than the buffer
  }
  std::vector<int> back(5);
  ASSERT_EQ(clEnqueueReadBuffer(q.get(), raw_buffer, CL_TRUE, 0, 5 * sizeof(int), back.data(), 0,
                                nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(back, host);
  clReleaseMemObject(raw_buffer);

  // CLHPP objects too.
  cf::context from_clhpp(made.cl(), made.device());
  cf::queue q2(from_clhpp, cl::CommandQueue(made.cl(), made.device()));
  EXPECT_EQ(from_clhpp.cl()(), made.get());
  cf::program p(ctx.build("kernel void k(global int* x) { x[0] = 1; }").cl(), made.device());
  EXPECT_EQ(p.kernel("k").num_args(), 1u);
}

namespace {
// Holds back every command enqueued on `q` after hold() until release() (a marker waiting for a
// user event), so that what a test enqueues stays pending for as long as it needs.
struct held_queue {
  cf::queue q;
  cl_event gate = nullptr;
  explicit held_queue(const cf::context& ctx) : q(ctx) {}
  void hold() {
    cl_int err = CL_SUCCESS;
    gate = clCreateUserEvent(q.ctx().get(), &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(clEnqueueMarkerWithWaitList(q.get(), 1, &gate, nullptr), CL_SUCCESS);
  }
  void release() {
    if (!gate) return;
    clSetUserEventStatus(gate, CL_COMPLETE);
    clReleaseEvent(gate);
    gate = nullptr;
  }
  ~held_queue() { release(); }  // before q goes: its last handle waits for its commands
};

std::shared_ptr<void> nothing() {
  return nullptr;
}

// Holds `held` back, gives an owner a value holding a pooled buffer of `bytes`, lets the owner
// go and retires its value (another owner comes); returns the buffer.
cl_mem retire_pooled_value(held_queue& held, cf::memory_pool& pool, std::size_t bytes) {
  held.hold();
  cl_mem scratch = nullptr;
  auto owner = std::make_shared<int>(1);
  held.q.attachment(owner, [&] {
    auto buffer = pool.allocate(bytes);
    scratch = (*buffer)();
    return std::static_pointer_cast<void>(std::make_shared<std::shared_ptr<cl::Buffer>>(buffer));
  });
  owner.reset();  // as if its kernel were still pending on the queue (it is held back)
  auto next = std::make_shared<int>(2);
  held.q.attachment(next, nothing);  // retires the value of the owner gone
  return scratch;
}
}  // namespace

// Per-queue state (a scan's tile statuses, a one-launch reduction's counter, a histogram's sums)
// holds pooled buffers; when its owner goes, its last kernels on the queue may still run, so the
// pool must not hand those buffers to anyone before the queue has passed them.
TEST(queue_attachment, values_of_owners_gone_reach_the_pool_after_the_queue_passed_them) {
  cf::context ctx = cf::context::create_default();
  cf::memory_pool& pool = ctx.pool();
  held_queue held(ctx);
  const cl_mem scratch = retire_pooled_value(held, pool, 3000);
  {
    auto other = pool.allocate(3000);
    EXPECT_NE((*other)(), scratch) << "a buffer of pending commands was handed out again";
  }
  held.release();
  held.q.finish();
  auto third = std::make_shared<int>(3);
  held.q.attachment(third, nothing);  // the marker has completed: the value goes
  auto again = pool.allocate(3000);   // the newest kept buffer of the size class
  EXPECT_EQ((*again)(), scratch) << "the retired value was not released";
}

// A retired value goes back at the first call that finds its marker completed: finish(), or
// attachment() for an owner the queue already has (a queue whose owners all live on would
// otherwise hold it until it goes).
TEST(queue_attachment, retired_values_go_back_at_finish_and_at_a_known_owners_call) {
  cf::context ctx = cf::context::create_default();
  cf::memory_pool& pool = ctx.pool();
  held_queue held(ctx);
  auto living = std::make_shared<int>(0);  // an owner the queue keeps throughout
  held.q.attachment(living, nothing);

  cl_mem scratch = retire_pooled_value(held, pool, 5000);
  held.release();
  held.q.finish();
  {
    auto again = pool.allocate(5000);
    EXPECT_EQ((*again)(), scratch) << "finish() did not release the retired value";
  }

  scratch = retire_pooled_value(held, pool, 7000);
  held.q.attachment(living, nothing);  // the marker is still held back: the value stays
  {
    auto other = pool.allocate(7000);
    EXPECT_NE((*other)(), scratch) << "a buffer of pending commands was handed out again";
  }
  held.release();
  ASSERT_EQ(clFinish(held.q.get()), CL_SUCCESS);  // the queue passes the marker, unseen
  held.q.attachment(living, nothing);             // an owner it has: the value goes
  auto again = pool.allocate(7000);
  EXPECT_EQ((*again)(), scratch) << "a known owner's call did not release the retired value";
}

TEST(queue_attachment, a_histogram_kernel_dropped_with_its_launch_pending_keeps_its_sums) {
  cf::context ctx = cf::context::create_default();
  cf::memory_pool& pool = ctx.pool();
  std::mt19937 rng(7);
  std::vector<cl_uint> host(100003);
  for (cl_uint& v : host) v = static_cast<cl_uint>(rng());
  std::vector<cl_uint> expected(256, 0);
  for (cl_uint v : host) ++expected[v >> 24];

  held_queue held(ctx);
  auto x = cf::array<cl_uint>::from_host(held.q, host);
  auto top_byte =
      std::make_unique<cf::histogram_kernel>(ctx, "global const uint* x", "x[i] >> 24", 256);
  EXPECT_EQ((*top_byte)(held.q, x).to_host(held.q), expected);  // its sums are made and zeroed
  held.hold();
  cf::array<cl_uint> pending = (*top_byte)(held.q, x);  // held back: still to run
  const std::size_t kept = pool.stats().held_buffers;
  top_byte.reset();
  auto next = std::make_shared<int>(1);
  held.q.attachment(next, nothing);  // retires the sums of the kernel gone
  EXPECT_EQ(pool.stats().held_buffers, kept) << "the sums went back to the pool while in use";
  held.release();
  EXPECT_EQ(pending.to_host(held.q), expected);
  auto third = std::make_shared<int>(2);
  held.q.attachment(third, nothing);
  EXPECT_EQ(pool.stats().held_buffers, kept + 1) << "the sums were not released";
}

// Without a marker (the driver refuses one) attachment() waits for the queue and drops the values
// of owners gone itself, after it has let go of the queue's lock: their destructors may use the
// queue (here: another thread's attachment() call, which must not wait for this one).
TEST(queue_attachment, without_a_marker_the_values_of_owners_gone_go_after_the_lock) {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  auto living = std::make_shared<int>(0);
  q.attachment(living, nothing);
  struct on_destroy {
    std::function<void()> call;
    ~on_destroy() {
      if (call) call();
    }
  };
  std::atomic<bool> destroyed{false}, other_done{false}, other_done_in_destructor{false};
  std::thread other;
  auto owner = std::make_shared<int>(1);
  q.attachment(owner, [&] {
    auto value = std::make_shared<on_destroy>();
    value->call = [&] {
      destroyed = true;
      other = std::thread([&] {
        q.attachment(living, nothing);
        other_done = true;
      });
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (!other_done && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      other_done_in_destructor = other_done.load();
    };
    return std::static_pointer_cast<void>(value);
  });
  owner.reset();
  fail_markers = true;
  auto next = std::make_shared<int>(2);
  q.attachment(next, nothing);  // retires the value of the owner gone, without a marker
  fail_markers = false;
  EXPECT_GT(failed_markers.load(), 0) << "no marker was refused";
  EXPECT_TRUE(destroyed) << "the value of the owner gone was kept";
  if (other.joinable()) other.join();
  EXPECT_TRUE(other_done_in_destructor)
      << "the value was destroyed while attachment() held the queue's lock";
}
