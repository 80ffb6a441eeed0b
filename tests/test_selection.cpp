// SPDX-License-Identifier: MIT
// clforge::unique, remove_if, gather and scatter against the std algorithms, at edge sizes, and
// their bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include <clforge/clforge.hpp>

#include "expect_error.hpp"
#include "shared_device.hpp"

namespace cf = clforge;
using clforge_test::ctx;
using clforge_test::q;

namespace {
const std::size_t kSizes[] = {0, 1, 2, 1023, 1024, 1025, 16385, 100003};
}

TEST(unique, matches_std_unique_copy) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n);
    std::mt19937 rng(unsigned(n) + 1);
    std::vector<int> in(n);
    for (int& v : in) v = int(rng() % 4);  // long runs
    std::vector<int> want;
    std::unique_copy(in.begin(), in.end(), std::back_inserter(want));
    auto d_in = cf::array<int>::from_host(q(), in);
    cf::array<int> d_out(q(), n);
    const std::size_t kept = cf::unique(q(), d_in, d_out);
    ASSERT_EQ(kept, want.size());
    std::vector<int> got = d_out.to_host(q());
    got.resize(kept);
    EXPECT_EQ(got, want);
  }
}

TEST(unique, floats_compare_with_equality_zeros_equal_nans_never) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> in = {-0.0f, 0.0f, 1.0f, 1.0f, nan, nan, 2.0f};
  auto d_in = cf::array<float>::from_host(q(), in);
  cf::array<float> d_out(q(), in.size());
  ASSERT_EQ(cf::unique(q(), d_in, d_out), 5u);
  auto got = d_out.to_host(q());
  EXPECT_TRUE(got[0] == 0.0f && std::signbit(got[0]));
  EXPECT_EQ(got[1], 1.0f);
  EXPECT_TRUE(std::isnan(got[2]) && std::isnan(got[3]));
  EXPECT_EQ(got[4], 2.0f);
}

TEST(remove_if, matches_std_remove_copy_if) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n);
    std::mt19937 rng(unsigned(n) + 2);
    std::vector<float> in(n);
    for (float& v : in) v = float(int(rng() % 200) - 100);
    std::vector<float> want;
    std::remove_copy_if(in.begin(), in.end(), std::back_inserter(want),
                        [](float x) { return x < 0.0f; });
    auto d_in = cf::array<float>::from_host(q(), in);
    cf::array<float> d_out(q(), n);
    const std::size_t left = cf::remove_if(q(), d_in, d_out, "x < 0.0f");
    ASSERT_EQ(left, want.size());
    std::vector<float> got = d_out.to_host(q());
    got.resize(left);
    EXPECT_EQ(got, want);
  }
}

TEST(gather_scatter, match_host_loops) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n);
    std::mt19937 rng(unsigned(n) + 3);
    const std::size_t m = n + 17;
    std::vector<double> src(m);
    for (double& v : src) v = double(rng());
    std::vector<cl_long> indices(n);
    for (cl_long& j : indices) j = cl_long(rng() % m);
    auto d_src = cf::array<double>::from_host(q(), src);
    auto d_idx = cf::array<cl_long>::from_host(q(), indices);
    cf::array<double> d_dst(q(), n);
    cf::gather(q(), d_idx, d_src, d_dst);
    std::vector<double> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = src[indices[i]];
    EXPECT_EQ(d_dst.to_host(q()), want);

    // scatter through a permutation: the inverse of the gather
    std::vector<cl_uint> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<std::uint16_t> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = std::uint16_t(i * 31);
    auto d_values = cf::array<std::uint16_t>::from_host(q(), values);
    auto d_perm = cf::array<cl_uint>::from_host(q(), perm);
    cf::array<std::uint16_t> d_scattered(q(), n);
    cf::scatter(q(), d_values, d_perm, d_scattered, cf::bounds::unchecked);
    std::vector<std::uint16_t> want_scattered(n);
    for (std::size_t i = 0; i < n; ++i) want_scattered[perm[i]] = values[i];
    EXPECT_EQ(d_scattered.to_host(q()), want_scattered);
  }
}

TEST(gather_scatter, out_of_range_indices_are_reported_and_not_written) {
  auto src = cf::array<int>::from_host(q(), std::vector<int>{10, 11, 12, 13});
  auto idx = cf::array<int>::from_host(q(), std::vector<int>{3, 0, -1, 2});
  cf::array<int> dst = cf::array<int>::from_host(q(), std::vector<int>{7, 7, 7, 7});
  EXPECT_CLFORGE_ERROR(cf::gather(q(), idx, src, dst),
                       {"gather", "indices[2] = -1", "out of range", "source of 4 elements"});
  EXPECT_EQ(dst.to_host(q()), (std::vector<int>{13, 10, 7, 12}));

  auto big = cf::array<cl_ulong>::from_host(q(), std::vector<cl_ulong>{1, 4});
  auto two = cf::array<int>::from_host(q(), std::vector<int>{5, 6});
  dst = cf::array<int>::from_host(q(), std::vector<int>{0, 0, 0, 0});
  EXPECT_CLFORGE_ERROR(cf::scatter(q(), two, big, dst),
                       {"scatter", "indices[1] = 4", "destination of 4 elements"});
  EXPECT_EQ(dst.to_host(q()), (std::vector<int>{0, 5, 0, 0}));
}

TEST(gather_scatter, bad_input_is_a_clear_error) {
  auto src = cf::array<int>::from_host(q(), std::vector<int>{1, 2, 3});
  auto idx = cf::array<cl_uint>::from_host(q(), std::vector<cl_uint>{0, 1});
  cf::array<int> small(q(), 1);
  EXPECT_CLFORGE_ERROR(cf::gather(q(), idx, src, small), {"gather", "2 indices", "1 elements"});
  EXPECT_CLFORGE_ERROR(cf::scatter(q(), src, idx, small), {"scatter", "3 elements but 2 indices"});
  cf::array<int> same = cf::array<int>::from_host(q(), std::vector<int>{0, 1});
  EXPECT_CLFORGE_ERROR(cf::gather(q(), idx, same, same), {"another array"});
  cf::array<int> out(q(), 2);
  EXPECT_CLFORGE_ERROR(cf::unique(q(), src, out), {"unique", "the output has 2 elements"});
  EXPECT_CLFORGE_ERROR(cf::remove_if(q(), src, out, "x > 1"), {"the output has 2 elements"});
  EXPECT_CLFORGE_ERROR(cf::remove_if(q(), src, src, " "), {"remove_if", "predicate is empty"});
}
