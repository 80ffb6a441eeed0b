// SPDX-License-Identifier: MIT
// clforge::radix_sort_kernel: keys from a snippet, several arrays permuted together, against a
// host std::stable_sort of the same keys.
#include <gtest/gtest.h>

#include <algorithm>
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
const char* kCellPreamble = R"(
static inline uint cell_of(float x, float y, uint cells) {
  return (uint)(y * cells) * cells + (uint)(x * cells);
}
)";
}  // namespace

TEST(radix_sort_kernel, particles_by_cell_three_arrays_move_together) {
  for (cf::sort_algorithm alg : {cf::sort_algorithm::onesweep, cf::sort_algorithm::chunked}) {
    cf::radix_sort_options o;
    o.name = "by_cell";
    o.preamble = kCellPreamble;
    o.algorithm = alg;
    cf::radix_sort_kernel by_cell(ctx(),
                                  "global float* x, global float* y, global int* id, uint cells",
                                  "cell_of(x[i], y[i], cells)", {"x", "y", "id"}, 12, o);
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1025), std::size_t(50001)}) {
      SCOPED_TRACE(testing::Message() << "n=" << n);
      const cl_uint cells = 64;
      std::mt19937 rng{static_cast<unsigned>(n)};
      std::uniform_real_distribution<float> u(0.0f, 0.999f);
      std::vector<float> x(n), y(n);
      std::vector<int> id(n);
      for (std::size_t i = 0; i < n; ++i) x[i] = u(rng), y[i] = u(rng), id[i] = int(i);
      auto cell = [&](std::size_t i) {
        return unsigned(y[i] * cells) * cells + unsigned(x[i] * cells);
      };
      std::vector<std::size_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return cell(a) < cell(b); });
      auto dx = cf::array<float>::from_host(q(), x);
      auto dy = cf::array<float>::from_host(q(), y);
      auto did = cf::array<int>::from_host(q(), id);
      by_cell(q(), dx, dy, did, cells);
      auto gx = dx.to_host(q()), gy = dy.to_host(q());
      auto gid = did.to_host(q());
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i)
        ok = ok && gx[i] == x[order[i]] && gy[i] == y[order[i]] && gid[i] == int(order[i]);
      EXPECT_TRUE(ok);
    }
  }
}

TEST(radix_sort_kernel, sixty_four_bit_keys_use_their_high_bits) {
  cf::radix_sort_kernel by_key(ctx(), "global const ulong* k, global ulong* v", "k[i]", {"v"}, 64);
  const std::size_t n = 20000;
  std::mt19937_64 rng(2);
  std::vector<cl_ulong> k(n), v(n);
  for (std::size_t i = 0; i < n; ++i) k[i] = rng() & 0xFF000000000000FFull, v[i] = i;
  std::vector<cl_ulong> want = v;
  std::stable_sort(want.begin(), want.end(), [&](cl_ulong a, cl_ulong b) { return k[a] < k[b]; });
  auto dk = cf::array<cl_ulong>::from_host(q(), k);
  auto dv = cf::array<cl_ulong>::from_host(q(), v);
  by_key(q(), dk, dv);
  EXPECT_EQ(dv.to_host(q()), want);
  EXPECT_EQ(dk.to_host(q()), k);  // not permuted: not named in sort_by
}

// Regression: a double parameter makes the source start with the fp64 pragma, which must end
// its line (the preamble used to follow on the same line and the build failed).
TEST(radix_sort_kernel, double_arrays_are_permuted) {
  if (!ctx().info().has_fp64) GTEST_SKIP() << "no fp64";
  cf::radix_sort_options o;
  o.preamble = "static inline uint bucket(double v) { return (uint)(v * 16.0); }";
  cf::radix_sort_kernel by_bucket(ctx(), "global double* v", "bucket(v[i])", {"v"}, 4, o);
  std::vector<double> v = {0.9, 0.1, 0.5, 0.11, 0.95, 0.0};
  auto d_v = cf::array<double>::from_host(q(), v);
  by_bucket(q(), d_v);
  EXPECT_EQ(d_v.to_host(q()), (std::vector<double>{0.0, 0.1, 0.11, 0.5, 0.9, 0.95}));
}

// Views as permuted arrays and as arrays only the key reads: the elements the views show are
// sorted in place, the others are untouched.
TEST(radix_sort_kernel, array_views_are_sorted_in_place) {
  const std::size_t n = 20011;
  std::mt19937 rng(12);
  std::vector<cl_uint> keys(n), payload(n);
  for (cl_uint& k : keys) k = rng() % 1000;
  std::iota(payload.begin(), payload.end(), 0u);
  cf::radix_sort_kernel by_key(ctx(), "global uint* k, global uint* p", "k[i]", {"k", "p"}, 10);
  for (std::int64_t step : {std::int64_t(1), std::int64_t(3), std::int64_t(-2)}) {
    SCOPED_TRACE(testing::Message() << "step=" << step);
    auto d_k = cf::array<cl_uint>::from_host(q(), keys);
    auto d_p = cf::array<cl_uint>::from_host(q(), payload);
    const auto vk = step > 0 ? d_k.view(11, cf::slice_none, step)
                             : d_k.view(cf::slice_none, cf::slice_none, step);
    const auto vp = step > 0 ? d_p.view(11, cf::slice_none, step)
                             : d_p.view(cf::slice_none, cf::slice_none, step);
    ASSERT_EQ(vk.size(), vp.size());
    // The host reference: the view's positions, stably sorted by key.
    std::vector<std::size_t> at(vk.size());
    for (std::size_t j = 0; j < at.size(); ++j)
      at[j] = std::size_t(vk.first() + std::int64_t(j) * vk.step());
    std::vector<std::size_t> order(at.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return keys[at[a]] < keys[at[b]]; });
    std::vector<cl_uint> want_k = keys, want_p = payload;
    for (std::size_t j = 0; j < at.size(); ++j) {
      want_k[at[j]] = keys[at[order[j]]];
      want_p[at[j]] = payload[at[order[j]]];
    }
    by_key(q(), vk, vp);
    EXPECT_EQ(d_k.to_host(q()), want_k);
    EXPECT_EQ(d_p.to_host(q()), want_p);
  }

  // A key that reads a view it does not permute: sort whole indices by every other weight.
  std::vector<cl_uint> weights(2 * n);
  for (cl_uint& w : weights) w = rng() % 5000;
  auto d_w = cf::array<cl_uint>::from_host(q(), weights);
  auto d_p = cf::array<cl_uint>::from_host(q(), payload);
  cf::radix_sort_kernel by_weight(ctx(), "global const uint* w, global uint* p", "w[i]", {"p"}, 13);
  by_weight(q(), d_w.view(1, cf::slice_none, 2), d_p);
  std::vector<cl_uint> want = payload;
  std::stable_sort(want.begin(), want.end(),
                   [&](cl_uint a, cl_uint b) { return weights[2 * a + 1] < weights[2 * b + 1]; });
  EXPECT_EQ(d_p.to_host(q()), want);

  // Permuted views of different lengths are refused.
  auto d_k = cf::array<cl_uint>::from_host(q(), keys);
  auto d_q = cf::array<cl_uint>::from_host(q(), payload);
  EXPECT_CLFORGE_ERROR(by_key(q(), d_k.view(0, 100), d_q.view(0, 99)), {"radix_sort", "one length"});
}

TEST(radix_sort_kernel, bad_input_is_a_clear_error) {
  EXPECT_CLFORGE_ERROR(cf::radix_sort_kernel(ctx(), "global float* x", "x[i]", {"y"}),
                       {"sort_by names \"y\"", "not a parameter"});
  EXPECT_CLFORGE_ERROR(cf::radix_sort_kernel(ctx(), "global const float* x", "1", {"x"}),
                       {"global pointers that are not const"});
  EXPECT_CLFORGE_ERROR(cf::radix_sort_kernel(ctx(), "global uint* x", "x[i]", {"x"}, 65),
                       {"key_bits is 65"});
  EXPECT_CLFORGE_ERROR(cf::radix_sort_kernel(ctx(), "global uint* x", "x[i]", {}), {"sort_by"});
  EXPECT_CLFORGE_ERROR(cf::radix_sort_kernel(ctx(), "global uint* x", "x[i] +", {"x"}),
                       {"radix_sort_kernel \"radix_sort\""});
  cf::radix_sort_kernel k(ctx(), "global uint* a, global uint* b", "a[i]", {"a", "b"});
  auto a = cf::array<cl_uint>(q(), 10);
  auto b = cf::array<cl_uint>(q(), 11);
  EXPECT_CLFORGE_ERROR(k(q(), a, b), {"one length", "a has 10", "b 11"});
}
