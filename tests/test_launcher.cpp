// SPDX-License-Identifier: MIT
// queue::launch: argument checks, automatic local size, 1/2/3-D ranges, local memory, errors.
#include <gtest/gtest.h>

#include <clforge/clforge.hpp>

namespace cf = clforge;

namespace {
struct fixture : ::testing::Test {
  cf::context ctx = cf::context::create_default();
  cf::queue q{ctx};
  cf::program prog = ctx.build(R"CL(
    kernel void iota(ulong n, global ulong* out, ulong offset) {
      size_t i = get_global_id(0);
      if (i < n) out[i] = i + offset;
    }
    kernel void grid(uint w, uint h, uint d, global uint* out) {
      size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
      if (x < w && y < h && z < d) out[(z * h + y) * w + x] = (uint)(x + 1000 * y + 1000000 * z);
    }
    typedef struct { int a; float b; } pair_t;
    kernel void group_sums(ulong n, global const int* in, global int* sums, local int* scratch,
                           pair_t extra) {
      size_t i = get_global_id(0), l = get_local_id(0);
      scratch[l] = i < n ? in[i] : 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (l == 0) {
        int s = 0;
        for (size_t k = 0; k < get_local_size(0); ++k) s += scratch[k];
        sums[get_group_id(0)] = s + extra.a + (int)extra.b;
      }
    })CL");
};
}  // namespace

TEST_F(fixture, automatic_local_size_covers_odd_sizes) {
  for (std::size_t n : {1u, 7u, 257u, 1000003u}) {
    cf::array<cl_ulong> out(q, n);
    q.launch(prog.kernel("iota"), cf::ndrange(n), cl_ulong(n), out, cl_ulong(5));
    std::vector<cl_ulong> got = out.to_host(q);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], i + 5) << "n=" << n << " i=" << i;
  }
}

TEST_F(fixture, two_and_three_dimensional_ranges) {
  const cl_uint w = 37, h = 11, d = 3;
  cf::array<cl_uint> out(q, w * h * d);
  out.fill(q, 0xdeadbeef);
  q.launch(prog.kernel("grid"), cf::ndrange(w, h, d), w, h, d, out);
  std::vector<cl_uint> got = out.to_host(q);
  for (cl_uint z = 0; z < d; ++z)
    for (cl_uint y = 0; y < h; ++y)
      for (cl_uint x = 0; x < w; ++x)
        ASSERT_EQ(got[(z * h + y) * w + x], x + 1000 * y + 1000000 * z);
  cf::array<cl_uint> flat(q, w * h);
  q.launch(prog.kernel("grid"), cf::ndrange(w, h), w, h, cl_uint(1), flat);
  got = flat.to_host(q);
  for (cl_uint y = 0; y < h; ++y)
    for (cl_uint x = 0; x < w; ++x) ASSERT_EQ(got[y * w + x], x + 1000 * y);
}

TEST_F(fixture, explicit_local_size_local_memory_and_struct_arguments) {
  struct pair_t {
    cl_int a;
    cl_float b;
  };
  const std::size_t n = 1000, group = 64, groups = (n + group - 1) / group;
  std::vector<int> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<int>(i % 13) - 6;
  auto d_in = cf::array<int>::from_host(q, in);
  cf::array<int> sums(q, groups);
  q.launch(prog.kernel("group_sums"), cf::ndrange::padded(n).with_local(group), cl_ulong(n), d_in,
           sums, cf::local<int>(group), pair_t{100, 2.0f});
  std::vector<int> got = sums.to_host(q);
  for (std::size_t g = 0; g < groups; ++g) {
    int expect = 102;
    for (std::size_t i = g * group; i < std::min(n, (g + 1) * group); ++i) expect += in[i];
    EXPECT_EQ(got[g], expect) << g;
  }
}

TEST_F(fixture, wrong_argument_count_names_kernel_and_counts) {
  cf::array<cl_ulong> out(q, 4);
  try {
    q.launch(prog.kernel("iota"), cf::ndrange(4), cl_ulong(4), out);
    FAIL();
  } catch (const cf::error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("\"iota\""), std::string::npos) << m;
    EXPECT_NE(m.find("takes 3 argument(s), 2 given"), std::string::npos) << m;
  }
}

TEST_F(fixture, impossible_work_group_size_is_a_named_error) {
  cf::kernel k = prog.kernel("iota");
  cf::array<cl_ulong> out(q, 16);
  const std::size_t too_big = k.work_group_size() * 2;
  try {
    q.launch(k, cf::ndrange(too_big).with_local(too_big), cl_ulong(16), out, cl_ulong(0));
    q.finish();
    FAIL() << "a local size over CL_KERNEL_WORK_GROUP_SIZE was accepted";
  } catch (const cf::error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("CL_INVALID_WORK_GROUP_SIZE"), std::string::npos) << m;
    EXPECT_NE(m.find("\"iota\""), std::string::npos) << m;
    EXPECT_EQ(e.call(), "clEnqueueNDRangeKernel");
  }
}

TEST_F(fixture, kernels_are_created_once_per_program) {
  EXPECT_EQ(prog.kernel("iota").cl()(), prog.kernel("iota").cl()());
  EXPECT_EQ(prog.kernel("iota").num_args(), 3u);
  EXPECT_THROW(prog.kernel("no_such_kernel"), cf::error);
}

TEST_F(fixture, events_report_elapsed_device_time) {
  const std::size_t n = 1 << 16;
  cf::array<cl_ulong> out(q, n);
  cf::event e = q.launch(prog.kernel("iota"), cf::ndrange(n), cl_ulong(n), out, cl_ulong(0));
  EXPECT_GT(e.elapsed_ns(), 0u);
  EXPECT_EQ(cf::event().elapsed_ns(), 0u);
}

TEST(errors, codes_have_names) {
  EXPECT_STREQ(cf::error_name(-54), "CL_INVALID_WORK_GROUP_SIZE");
  EXPECT_STREQ(cf::error_name(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
  EXPECT_STREQ(cf::error_name(-12345), "CL_UNKNOWN_ERROR");
  cf::error e("clFinish", CL_OUT_OF_RESOURCES, "while testing");
  EXPECT_EQ(e.code(), CL_OUT_OF_RESOURCES);
  EXPECT_NE(std::string(e.what()).find("clFinish failed: CL_OUT_OF_RESOURCES (-5)"),
            std::string::npos);
}
