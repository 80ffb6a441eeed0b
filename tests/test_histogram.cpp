// SPDX-License-Identifier: MIT
// clforge::histogram and histogram_kernel against a host loop with the same arithmetic: exact
// counts, values on bin borders, outside values and NaNs ignored, privatised and global-atomic
// counting.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <clforge/clforge.hpp>

#include "expect_error.hpp"
#include "shared_device.hpp"

namespace cf = clforge;
using clforge_test::ctx;
using clforge_test::q;

namespace {

template <class T>
std::vector<cl_uint> host_histogram(const std::vector<T>& x, std::size_t bins, T lo, T hi) {
  std::vector<cl_uint> counts(bins, 0);
  const T scale = static_cast<T>(bins) / (hi - lo);
  for (T v : x) {
    if (!(v >= lo && v <= hi)) continue;
    const T scaled = (v - lo) * scale;  // in T, as the kernel computes
    const long long b = static_cast<long long>(scaled);
    ++counts[b < static_cast<long long>(bins) ? b : bins - 1];
  }
  return counts;
}

template <class T>
std::vector<T> values_with_borders(std::size_t n, std::size_t bins, T lo, T hi, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(double(lo) - 0.1 * double(hi - lo),
                                           double(hi) + 0.1 * double(hi - lo));
  std::vector<T> x(n);
  const T width = (hi - lo) / static_cast<T>(bins);
  for (T& v : x) {
    switch (rng() % 8) {
      case 0:
        v = lo + width * static_cast<T>(rng() % (bins + 1));
        break;  // on a border
      case 1:
        v = std::numeric_limits<T>::quiet_NaN();
        break;
      case 2:
        v = (rng() % 2 ? 1 : -1) * std::numeric_limits<T>::infinity();
        break;
      case 3:
        v = rng() % 2 ? lo : hi;
        break;
      default:
        v = static_cast<T>(u(rng));
    }
  }
  return x;
}

}  // namespace

TEST(histogram, float_counts_match_a_host_loop_including_bin_borders) {
  for (std::size_t bins :
       {std::size_t(1), std::size_t(4), std::size_t(256), std::size_t(1000), std::size_t(10000)}) {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(255), std::size_t(100003)}) {
      SCOPED_TRACE(testing::Message() << "bins=" << bins << " n=" << n);
      const float lo = -2.5f, hi = 7.25f;
      auto x = values_with_borders<float>(n, bins, lo, hi, unsigned(n + bins));
      auto d_x = cf::array<float>::from_host(q(), x);
      EXPECT_EQ(cf::histogram(q(), d_x, bins, lo, hi).to_host(q()),
                host_histogram(x, bins, lo, hi));
    }
  }
}

TEST(histogram, exact_borders_land_in_the_upper_bin_and_hi_in_the_last) {
  std::vector<float> x = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, -0.0f, 1.0000001f, -1e-30f};
  auto d_x = cf::array<float>::from_host(q(), x);
  EXPECT_EQ(cf::histogram(q(), d_x, 4, 0.0f, 1.0f).to_host(q()),
            (std::vector<cl_uint>{2, 1, 1, 2}));
}

TEST(histogram, double_values) {
  if (!ctx().info().has_fp64) GTEST_SKIP() << "no fp64";
  auto x = values_with_borders<double>(50001, 300, 1e-3, 2.0, 3);
  auto d_x = cf::array<double>::from_host(q(), x);
  EXPECT_EQ(cf::histogram(q(), d_x, 300, 1e-3, 2.0).to_host(q()),
            host_histogram(x, 300, 1e-3, 2.0));
}

TEST(histogram_kernel, top_byte_and_out_of_range_bins_ignored) {
  std::mt19937 rng(4);
  std::vector<cl_uint> x(70001);
  for (cl_uint& v : x) v = rng();
  auto d_x = cf::array<cl_uint>::from_host(q(), x);
  cf::histogram_kernel top_byte(ctx(), "global const uint* x", "x[i] >> 24", 256);
  EXPECT_TRUE(top_byte.privatised());
  std::vector<cl_uint> want(256, 0);
  for (cl_uint v : x) ++want[v >> 24];
  EXPECT_EQ(top_byte(q(), d_x).to_host(q()), want);

  // Bins below 0 or at / above `bins` are not counted; many bins: global atomics.
  const std::size_t bins = 100000;
  cf::histogram_kernel wide(ctx(), "global const uint* x, int shift",
                            "(long)(x[i] >> shift) - 1000", bins);
  EXPECT_FALSE(wide.privatised());
  std::vector<cl_uint> want_wide(bins, 0);
  for (cl_uint v : x) {
    const long long b = static_cast<long long>(v >> 14) - 1000;
    if (b >= 0 && b < static_cast<long long>(bins)) ++want_wide[b];
  }
  EXPECT_EQ(wide(q(), d_x, 14).to_host(q()), want_wide);

  // accumulate adds to existing counts
  cf::array<cl_uint> counts = top_byte(q(), d_x);
  top_byte.accumulate(q(), counts, x.size(), d_x);
  for (cl_uint& w : want) w *= 2;
  EXPECT_EQ(counts.to_host(q()), want);
}

// Views: a strided, a reversed and a view of a view, against the host loop over the same
// elements; the whole-array kernel's counts stay right after the variants are built.
TEST(histogram_kernel, array_views_count_the_elements_they_show) {
  std::mt19937 rng(8);
  std::vector<cl_uint> x(30011);
  for (cl_uint& v : x) v = rng();
  auto d_x = cf::array<cl_uint>::from_host(q(), x);
  cf::histogram_kernel top_bits(ctx(), "global const uint* x, uint shift", "x[i] >> shift", 16);
  auto host_counts = [&](std::int64_t first, std::int64_t step, std::size_t count) {
    std::vector<cl_uint> want(16, 0);
    for (std::size_t k = 0; k < count; ++k)
      ++want[x[std::size_t(first + std::int64_t(k) * step)] >> 28];
    return want;
  };
  const auto odd = d_x.view(1, cf::slice_none, 3);
  EXPECT_EQ(top_bits(q(), odd, cl_uint(28)).to_host(q()),
            host_counts(odd.first(), odd.step(), odd.size()));
  const auto reversed = d_x.view(cf::slice_none, cf::slice_none, -1);
  EXPECT_EQ(top_bits(q(), reversed, cl_uint(28)).to_host(q()), host_counts(0, 1, x.size()));
  const auto inner = reversed.view(5, 20000, 7);
  EXPECT_EQ(top_bits(q(), inner, cl_uint(28)).to_host(q()),
            host_counts(inner.first(), inner.step(), inner.size()));
  const auto window = d_x.view(100, 10100);
  EXPECT_EQ(top_bits(q(), window, cl_uint(28)).to_host(q()), host_counts(100, 1, 10000));
  EXPECT_EQ(top_bits(q(), d_x, cl_uint(28)).to_host(q()), host_counts(0, 1, x.size()));
  // An empty view counts nothing.
  EXPECT_EQ(top_bits(q(), d_x.view(7, 7), cl_uint(28)).to_host(q()), std::vector<cl_uint>(16, 0));

  // clforge::histogram over a view of floats.
  auto f = values_with_borders<float>(20001, 50, -1.0f, 1.0f, 9);
  auto d_f = cf::array<float>::from_host(q(), f);
  std::vector<float> every_other;
  for (std::size_t k = 19999;; k -= 2) {
    every_other.push_back(f[k]);
    if (k < 2) break;
  }
  EXPECT_EQ(cf::histogram(q(), d_f.view(19999, cf::slice_none, -2), 50, -1.0f, 1.0f).to_host(q()),
            host_histogram(every_other, 50, -1.0f, 1.0f));
}

TEST(histogram, bad_input_is_a_clear_error) {
  auto d_x = cf::array<float>::from_host(q(), std::vector<float>(10, 1.0f));
  EXPECT_CLFORGE_ERROR(cf::histogram(q(), d_x, 0, 0.0f, 1.0f), {"histogram", "0 bins"});
  EXPECT_CLFORGE_ERROR(cf::histogram(q(), d_x, 4, 1.0f, 1.0f), {"histogram", "range", "lo < hi"});
  EXPECT_CLFORGE_ERROR(cf::histogram(q(), d_x, 4, 2.0f, 1.0f), {"lo < hi"});
  EXPECT_CLFORGE_ERROR(cf::histogram(q(), d_x, 4, std::nanf(""), 1.0f), {"lo < hi"});
  EXPECT_CLFORGE_ERROR(cf::histogram(q(), d_x, 4, -std::numeric_limits<float>::max(),
                                     std::numeric_limits<float>::max()),
                       {"no finite bin width"});
  EXPECT_CLFORGE_ERROR(cf::histogram_kernel(ctx(), "global const float* x", "0", 0),
                       {"histogram_kernel \"histogram\"", "0 bins"});
  cf::histogram_kernel k(ctx(), "global const float* x, global const float* y", "(long)x[i]", 4);
  auto d_short = cf::array<float>::from_host(q(), std::vector<float>(5, 1.0f));
  EXPECT_CLFORGE_ERROR(k(q(), d_x, d_short), {"y", "has 5 elements"});
  cf::array<cl_uint> small(q(), 3);
  EXPECT_CLFORGE_ERROR(k.accumulate(q(), small, 10, d_x, d_x), {"3 elements", "4 bins"});
}
