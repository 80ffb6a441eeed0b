// SPDX-License-Identifier: MIT
// The buffer pool (reuse by size class) and interop with code that already uses OpenCL.
#include <gtest/gtest.h>

#include <clforge/clforge.hpp>

namespace cf = clforge;

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
