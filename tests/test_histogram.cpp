// SPDX-License-Identifier: MIT
// clforge::histogram against numpy.histogram's rule written out in C++ (values on, above and
// below every bin edge, outside values and NaNs ignored) and histogram_kernel against host loops
// (privatised and global-atomic counting, views).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <clforge/clforge.hpp>

#include "expect_error.hpp"
#include "shared_device.hpp"
#include "threads.hpp"

namespace cf = clforge;
using clforge_test::ctx;
using clforge_test::q;

namespace {

// numpy.histogram(x, bins, range=(lo, hi)) for x of type T, written out as numpy computes it:
// the edges are np.linspace(lo, hi, bins + 1) (k * step + lo in double, step = (hi - lo) / bins,
// the last edge hi) cast to T; a value's bin is estimated as int(((x - lo) / (hi - lo)) * bins)
// in T (hi - lo taken in double, then T), the estimate bins is bins - 1, then it moves down one
// if x < edge[b] and up one if x >= edge[b + 1] (not past the last bin, which holds hi). Values
// outside [lo, hi] and NaNs are dropped.
template <class T>
std::vector<T> numpy_edges(std::size_t bins, T lo, T hi) {
  const double delta = double(hi) - double(lo), step = delta / double(bins);
  std::vector<T> edges(bins + 1);
  for (std::size_t k = 0; k < bins; ++k) {
    // Two roundings, as numpy's multiply then add (volatile: no fused multiply-add).
    volatile double product = step == 0 ? double(k) / double(bins) * delta : double(k) * step;
    edges[k] = static_cast<T>(product + double(lo));
  }
  edges[bins] = hi;
  return edges;
}

template <class T>
std::vector<cl_uint> numpy_histogram(const std::vector<T>& x, std::size_t bins, T lo, T hi) {
  const std::vector<T> edges = numpy_edges(bins, lo, hi);
  const T denom = static_cast<T>(double(hi) - double(lo));
  const long long last = static_cast<long long>(bins) - 1;
  std::vector<cl_uint> counts(bins, 0);
  for (T v : x) {
    if (!(v >= lo && v <= hi)) continue;
    long long b = static_cast<long long>(((v - lo) / denom) * static_cast<T>(bins));
    if (b == last + 1) b = last;
    if (v < edges[std::size_t(b)]) --b;
    if (b != last && v >= edges[std::size_t(b) + 1]) ++b;
    ++counts[std::size_t(b)];
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

TEST(histogram, float_counts_match_numpy_including_bin_borders) {
  for (std::size_t bins :
       {std::size_t(1), std::size_t(4), std::size_t(256), std::size_t(1000), std::size_t(10000)}) {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(255), std::size_t(100003)}) {
      SCOPED_TRACE(testing::Message() << "bins=" << bins << " n=" << n);
      const float lo = -2.5f, hi = 7.25f;
      auto x = values_with_borders<float>(n, bins, lo, hi, unsigned(n + bins));
      auto d_x = cf::array<float>::from_host(q(), x);
      EXPECT_EQ(cf::histogram(q(), d_x, bins, lo, hi).to_host(q()),
                numpy_histogram(x, bins, lo, hi));
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
            numpy_histogram(x, 300, 1e-3, 2.0));
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
            numpy_histogram(every_other, 50, -1.0f, 1.0f));
}

// The (q, range, args...) form: ranges and slices with positive and negative steps, a range
// without array arguments, empty ranges, a range past the array's end and views with ranges,
// against the host loop over the same indices; accumulate takes the same forms.
TEST(histogram_kernel, ranges_and_slices_count_the_indices_they_visit) {
  std::mt19937 rng(12);
  std::vector<cl_uint> x(40009);
  for (cl_uint& v : x) v = rng();
  auto d_x = cf::array<cl_uint>::from_host(q(), x);
  const std::int64_t n = std::int64_t(x.size());
  cf::histogram_kernel top_bits(ctx(), "global const uint* x", "x[i] >> 27", 32);
  cf::histogram_kernel wide(ctx(), "global const uint* x", "x[i] >> 12", 1 << 20);  // atomics
  auto host_counts = [&](std::int64_t first, std::int64_t step, std::int64_t count, int shift) {
    std::vector<cl_uint> want(std::size_t(1) << (32 - shift), 0);
    for (std::int64_t k = 0; k < count; ++k) ++want[x[std::size_t(first + k * step)] >> shift];
    return want;
  };
  struct case_ {
    cf::index_range r;
    std::int64_t first, step, count;
  };
  const case_ cases[] = {{cf::range(n), 0, 1, n},
                         {cf::range(3, 30001), 3, 1, 29998},
                         {cf::range(5, n, 7), 5, 7, (n - 5 + 6) / 7},
                         {cf::range(n - 1, -1, -3), n - 1, -3, (n + 2) / 3},
                         {cf::slice(-1000, cf::slice_none), n - 1000, 1, 1000},
                         {cf::slice(cf::slice_none, cf::slice_none, -1), n - 1, -1, n},
                         {cf::slice(1, 2), 1, 1, 1},
                         {cf::range(17, 17), 17, 1, 0},
                         {cf::slice(10, 5), 10, 1, 0}};
  for (const case_& c : cases) {
    SCOPED_TRACE(testing::Message()
                 << "first=" << c.first << " step=" << c.step << " count=" << c.count);
    EXPECT_EQ(top_bits(q(), c.r, d_x).to_host(q()), host_counts(c.first, c.step, c.count, 27));
    EXPECT_EQ(wide(q(), c.r, d_x).to_host(q()), host_counts(c.first, c.step, c.count, 12));
    cf::array<cl_uint> counts = top_bits(q(), d_x);
    top_bits.accumulate(q(), counts, c.r, d_x);
    std::vector<cl_uint> want = host_counts(0, 1, n, 27);
    const std::vector<cl_uint> part = host_counts(c.first, c.step, c.count, 27);
    for (std::size_t b = 0; b < want.size(); ++b) want[b] += part[b];
    EXPECT_EQ(counts.to_host(q()), want);
  }
  // A view with a range: the range counts in the view's indices.
  const auto odd = d_x.view(1, cf::slice_none, 2);
  EXPECT_EQ(top_bits(q(), cf::range(10, 5000, 3), odd).to_host(q()),
            host_counts(1 + 2 * 10, 2 * 3, (5000 - 10 + 2) / 3, 27));
  // No array argument: the range alone gives the indices.
  cf::histogram_kernel by_index(ctx(), "", "(long)(i % 10)", 10);
  std::vector<cl_uint> want_index(10, 0);
  for (std::int64_t i = 1000; i > 3; i -= 4) ++want_index[std::size_t(i % 10)];
  EXPECT_EQ(by_index(q(), cf::range(1000, 3, -4)).to_host(q()), want_index);
  // A range past the array's end is refused before anything runs.
  EXPECT_CLFORGE_ERROR(top_bits(q(), cf::range(0, n + 1), d_x),
                       {"histogram_kernel", "largest index 40009"});
  EXPECT_CLFORGE_ERROR(by_index(q(), cf::range(-5, 3)), {"histogram_kernel"});
  EXPECT_CLFORGE_ERROR(by_index(q()), {"histogram_kernel", "no array argument", "range(n)"});
}

// ---- numpy.histogram's bins -------------------------------------------------------------------

namespace {

// Every edge (numpy's, and lo + k * width in T), each with neighbours 1 to 64 units in the last
// place above and below (the estimate's rounding reaches a few of them: those must take the edge
// test); lo and hi with theirs; NaN and the infinities; then random values over and around
// [lo, hi].
template <class T>
std::vector<T> values_at_the_edges(std::size_t bins, T lo, T hi, std::size_t random,
                                   unsigned seed) {
  std::vector<T> x;
  const T inf = std::numeric_limits<T>::infinity();
  const T width = (hi - lo) / static_cast<T>(bins);
  const std::vector<T> edges = numpy_edges(bins, lo, hi);
  for (std::size_t k = 0; k <= bins; ++k)
    for (T e : {edges[k], lo + width * static_cast<T>(k)}) {
      x.push_back(e);
      for (T direction : {inf, -inf}) {
        T v = e;
        for (int step = 1; step <= 64; ++step) {
          v = std::nextafter(v, direction);
          if (step <= 4 || step % 4 == 0) x.push_back(v);
        }
      }
    }
  for (T v : {std::numeric_limits<T>::quiet_NaN(), inf, -inf, lo, hi}) x.push_back(v);
  // Far outside: estimates beyond the index type's range, whole bins below lo and above hi, the
  // extremes of T.
  using limits = std::numeric_limits<T>;
  for (T v : {limits::max(), limits::lowest(), limits::min(), -limits::min(), limits::denorm_min(),
              -limits::denorm_min(), T(0), -T(0)})
    x.push_back(v);
  for (T k : {T(1), T(2), T(3), T(1e3), T(1e10), T(1e30)})
    for (T v : {lo - k * width, hi + k * width, lo - k * (hi - lo), hi + k * (hi - lo)})
      x.push_back(v);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(double(lo) - 0.05 * (double(hi) - double(lo)),
                                           double(hi) + 0.05 * (double(hi) - double(lo)));
  for (std::size_t k = 0; k < random; ++k) x.push_back(static_cast<T>(u(rng)));
  std::shuffle(x.begin(), x.end(), rng);
  return x;
}

template <class T>
void check_numpy_bins() {
  struct case_ {
    T lo, hi;
    std::size_t bins;
  };
  const case_ cases[] = {{T(-2.5), T(7.25), 7},
                         {T(0), T(1), 10},
                         {T(0.1), T(0.7), 3},
                         {T(-1e-3), T(1e4), 1000},
                         {T(1), T(1) + T(1) / T(1 << 16), 100},
                         {T(-3), T(3), 256},
                         {T(0), T(1), 1},
                         {T(1e-30), T(3e-30), 77},
                         {T(-1e6), T(-1e6) + T(1000), 4097}};
  for (const case_& c : cases) {
    SCOPED_TRACE(testing::Message() << "bins=" << c.bins << " lo=" << c.lo << " hi=" << c.hi);
    const std::vector<T> x = values_at_the_edges(c.bins, c.lo, c.hi, 20000, unsigned(c.bins));
    auto d_x = cf::array<T>::from_host(q(), x);
    const std::vector<cl_uint> got = cf::histogram(q(), d_x, c.bins, c.lo, c.hi).to_host(q());
    const std::vector<cl_uint> want = numpy_histogram(x, c.bins, c.lo, c.hi);
    std::size_t first = c.bins;
    for (std::size_t b = 0; b < c.bins && first == c.bins; ++b)
      if (got[b] != want[b]) first = b;
    EXPECT_EQ(first, c.bins) << "first differing bin: " << got[first] << " counted, numpy "
                             << want[first];
  }
}

}  // namespace

TEST(histogram, float_bins_are_numpys_at_and_next_to_every_edge) {
  check_numpy_bins<float>();
}

TEST(histogram, double_bins_are_numpys_at_and_next_to_every_edge) {
  if (!ctx().info().has_fp64) GTEST_SKIP() << "no fp64";
  check_numpy_bins<double>();
}

// Values just below an edge that floor((x - lo) * bins / (hi - lo)) puts one bin up, with the
// counts numpy 2.4 gave for them (np.histogram(np.float32 array, bins, range=(lo, hi))): a pin
// that the reference above is numpy's, and the device with it.
TEST(histogram, values_below_an_edge_count_where_numpy_counts_them) {
  const std::vector<float> a = {-1.1071429252624512f, 0.2857142686843872f, 1.678571343421936f,
                                3.0714282989501953f,  4.464285373687744f,  5.857142448425293f};
  const std::vector<cl_uint> numpy_a = {1, 1, 1, 1, 1, 1, 0};
  EXPECT_EQ(numpy_histogram(a, 7, -2.5f, 7.25f), numpy_a);
  EXPECT_EQ(cf::histogram(q(), cf::array<float>::from_host(q(), a), 7, -2.5f, 7.25f).to_host(q()),
            numpy_a);
  const std::vector<float> b = {0.29999998211860657f, 0.4999999701976776f};
  const std::vector<cl_uint> numpy_b = {1, 1, 0};
  EXPECT_EQ(numpy_histogram(b, 3, 0.1f, 0.7f), numpy_b);
  EXPECT_EQ(cf::histogram(q(), cf::array<float>::from_host(q(), b), 3, 0.1f, 0.7f).to_host(q()),
            numpy_b);
}

// The device keeps the edges of the last ranges asked for: more ranges than it keeps, one after
// another and then the first again, each count numpy's bins.
TEST(histogram, many_ranges_one_after_another_count_numpys_bins) {
  for (int round = 0; round < 2; ++round)
    for (int r = 0; r < 100; r += round == 0 ? 1 : 33) {
      const float lo = -1.0f - 0.01f * float(r), hi = 1.0f + 0.003f * float(r);
      const std::size_t bins = 10 + std::size_t(r % 3);  // three kernels to build
      SCOPED_TRACE(testing::Message() << "bins=" << bins << " lo=" << lo << " hi=" << hi);
      const std::vector<float> x = values_at_the_edges(bins, lo, hi, 500, unsigned(r));
      EXPECT_EQ(cf::histogram(q(), cf::array<float>::from_host(q(), x), bins, lo, hi).to_host(q()),
                numpy_histogram(x, bins, lo, hi));
    }
}

// Each context keeps its own edges: the same range on a second context, then a context made and
// dropped between two calls of the first, count numpy's bins.
TEST(histogram, contexts_keep_their_own_edges) {
  const std::vector<float> x = values_at_the_edges(37, -4.0f, 5.5f, 2000, 37);
  const std::vector<cl_uint> want = numpy_histogram(x, 37, -4.0f, 5.5f);
  EXPECT_EQ(cf::histogram(q(), cf::array<float>::from_host(q(), x), 37, -4.0f, 5.5f).to_host(q()),
            want);
  {
    cf::context other = cf::context::create_default();
    cf::queue other_q(other);
    EXPECT_EQ(cf::histogram(other_q, cf::array<float>::from_host(other_q, x), 37, -4.0f, 5.5f)
                  .to_host(other_q),
              want);
  }
  EXPECT_EQ(cf::histogram(q(), cf::array<float>::from_host(q(), x), 37, -4.0f, 5.5f).to_host(q()),
            want);
}

// Threads on their own queues, each with its own range and bins (their edges made and kept by
// the context as the calls come), against the numpy rule.
TEST(histogram, threads_on_their_own_queues_count_numpys_bins) {
  constexpr int kThreads = 3;
  const std::vector<std::string> thrown = clforge_test::on_threads(kThreads, [&](int t) {
    cf::queue mine(ctx());
    for (int round = 0; round < 8; ++round) {
      const std::size_t bins = 5 + std::size_t(t) * 40 + std::size_t(round) * 13;
      const float lo = -1.5f - float(t), hi = 2.25f + float(round);
      const std::vector<float> x = values_at_the_edges(bins, lo, hi, 3000, unsigned(t + round));
      auto d_x = cf::array<float>::from_host(mine, x);
      if (cf::histogram(mine, d_x, bins, lo, hi).to_host(mine) != numpy_histogram(x, bins, lo, hi))
        throw std::runtime_error("round " + std::to_string(round) + ": counts differ");
    }
  });
  EXPECT_EQ(thrown, std::vector<std::string>(kThreads));
}

// A privatised kernel's call is one launch: its groups add into per-queue sums, and the last one
// writes the counts (whatever the pool's memory held) and zeroes the sums for the next call. One
// kernel shared by threads on their own queues, calls and accumulates interleaved, counts of
// memory that held junk just before, sizes 0, 1 and around a group's chunk.
TEST(histogram_kernel, one_launch_per_call_from_threads_on_their_own_queues) {
  cf::histogram_kernel top_bits(ctx(), "global const uint* x", "x[i] >> 26", 64);
  ASSERT_TRUE(top_bits.privatised());
  constexpr int kThreads = 3;
  const std::vector<std::string> thrown = clforge_test::on_threads(kThreads, [&](int t) {
    cf::queue mine(ctx());
    std::mt19937 rng(unsigned(100 + t));
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(255), std::size_t(256),
                          std::size_t(8191), std::size_t(8193), std::size_t(200003)}) {
      std::vector<cl_uint> x(n);
      for (cl_uint& v : x) v = rng();
      std::vector<cl_uint> want(64, 0);
      for (cl_uint v : x) ++want[v >> 26];
      auto d_x = cf::array<cl_uint>::from_host(mine, x);
      {
        cf::array<cl_uint> junk(mine, 64);
        junk.fill(mine, 0xdeadbeefu);
        mine.finish();
      }  // back to the pool: the counts below may get its memory
      cf::array<cl_uint> counts = top_bits(mine, d_x);
      if (counts.to_host(mine) != want)
        throw std::runtime_error("n " + std::to_string(n) + ": counts differ");
      top_bits.accumulate(mine, counts, n, d_x);
      top_bits.accumulate(mine, counts, n, d_x);
      for (cl_uint& w : want) w *= 3;
      if (counts.to_host(mine) != want)
        throw std::runtime_error("n " + std::to_string(n) + ": accumulated counts differ");
    }
  });
  EXPECT_EQ(thrown, std::vector<std::string>(kThreads));
}

// numpy refuses bins narrower than the value type resolves (two edges equal): so does clforge.
TEST(histogram, more_bins_than_the_range_resolves_is_a_clear_error) {
  auto x = cf::array<float>::from_host(q(), std::vector<float>{1.0f, 1.0000001f});
  EXPECT_CLFORGE_ERROR(cf::histogram(q(), x, 100, 1.0f, 1.0f + 1.0f / (1 << 20)),
                       {"histogram", "100 bins", "edges", "float"});
  EXPECT_EQ(cf::histogram(q(), x, 8, 1.0f, 1.0f + 1.0f / (1 << 20)).to_host(q()),
            (std::vector<cl_uint>{1, 1, 0, 0, 0, 0, 0, 0}));
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

// GPU shapes read the indices 0, 1, ... four at a time where the bin expression reads its
// arrays only at i (arrays nothing writes through may also be used otherwise): every length
// around the vectors and the groups' chunks, two element types, i and n in the expression, a
// const table passed on and a const array read at another index too; against host loops. The
// largest group a tuning may ask for runs too.
TEST(histogram_kernel, vector_reads_count_every_length_and_lane) {
  struct tuning_scope {
    explicit tuning_scope(const std::string& settings) {
      cf::tuning::set(ctx(), "histogram", settings);
    }
    ~tuning_scope() { cf::tuning::reset(ctx()); }
  };
  std::mt19937 rng(21);
  const std::size_t most = 100003;
  std::vector<float> x(most);
  std::vector<cl_int> y(most);
  std::vector<cl_uint> table(8), u(most);
  for (float& v : x) v = std::uniform_real_distribution<float>(-1.0f, 9.0f)(rng);
  for (cl_int& v : y) v = static_cast<cl_int>(rng());
  for (cl_uint& v : table) v = rng() % 8;
  for (cl_uint& v : u) v = rng();
  auto d_x = cf::array<float>::from_host(q(), x);
  auto d_y = cf::array<cl_int>::from_host(q(), y);
  auto d_table = cf::array<cl_uint>::from_host(q(), table);
  auto d_u = cf::array<cl_uint>::from_host(q(), u);

  // The largest group the row takes: where the kernels run fewer work-items (registers), they are
  // built again for as many as they run.
  const std::string largest =
      "group=" + std::to_string(std::min<std::size_t>(1024, ctx().info().max_work_group_size)) +
      ", unroll=16";
  for (const std::string& settings : {std::string("group=64, groups_per_cu=2, unroll=4"),
                                      std::string("group=32, unroll=1"), largest}) {
    SCOPED_TRACE(settings);
    tuning_scope scope(settings);
    cf::histogram_options unchecked;  // the table is not an array of n elements
    unchecked.check_array_lengths = false;
    cf::histogram_kernel lanes(ctx(),
                               "global const float* x, global int* y, global const uint* table, "
                               "float scale",
                               "x[i] < 0 ? -1 : table[(int)(x[i] * scale) & 7] + (y[i] & 1) * 8 + "
                               "(i & 1) * 16 + (i + 1 == n) * 32",
                               64, unchecked);
    cf::histogram_kernel neighbours(ctx(), "global const uint* u",
                                    "(u[i] ^ (i + 1 < n ? u[i + 1] : 0u)) & 15", 16);
    if (ctx().info().max_work_group_size >= 64) {
      EXPECT_NE(lanes.source().find("_vector("), std::string::npos);
      EXPECT_NE(neighbours.source().find("_vector("), std::string::npos);
    }
    for (std::size_t n :
         {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(4),
          std::size_t(5), std::size_t(7), std::size_t(255), std::size_t(256), std::size_t(257),
          std::size_t(4 * 64 * 4 * 8 - 1), std::size_t(4 * 64 * 4 * 8 + 1), most}) {
      SCOPED_TRACE(testing::Message() << "n=" << n);
      std::vector<cl_uint> want(64, 0), want_neighbours(16, 0);
      for (std::size_t i = 0; i < n; ++i) {
        if (!(x[i] < 0))
          ++want[table[static_cast<int>(x[i] * 2.5f) & 7] + (y[i] & 1) * 8 + (i & 1) * 16 +
                 (i + 1 == n) * 32];
        ++want_neighbours[(u[i] ^ (i + 1 < n ? u[i + 1] : 0u)) & 15];
      }
      EXPECT_EQ(lanes.run(q(), n, d_x, d_y, d_table, 2.5f).to_host(q()), want);
      EXPECT_EQ(neighbours.run(q(), n, d_u).to_host(q()), want_neighbours);
    }
  }
}

TEST(histogram_kernel, out_of_order_queue_keeps_calls_apart) {
  // A privatised call is one launch that adds into sums kept per queue and leaves them zero; on
  // an out-of-order queue barriers around each call keep two calls from sharing them. Many calls
  // back to back (counts, then accumulate into the same counts), results read at the end.
  auto made = clforge_test::out_of_order_queue(ctx());
  if (!made) GTEST_SKIP() << "the device has no out-of-order queues";
  cf::queue& ooo = *made;
  cf::histogram_kernel top_byte(ctx(), "global const uint* x", "x[i] >> 24", 256);
  ASSERT_TRUE(top_byte.privatised());
  std::mt19937 rng(31);
  std::vector<cf::array<cl_uint>> inputs;
  std::vector<std::vector<cl_uint>> want;
  for (std::size_t n : {1u, 255u, 8193u, 100003u}) {
    std::vector<cl_uint> x(n);
    for (cl_uint& v : x) v = rng();
    std::vector<cl_uint> counts(256, 0);
    for (cl_uint v : x) ++counts[v >> 24];
    inputs.push_back(cf::array<cl_uint>::from_host(q(), x));
    want.push_back(counts);
  }
  q().finish();
  std::vector<cf::array<cl_uint>> results;
  for (int j = 0; j < 24; ++j) results.push_back(top_byte(ooo, inputs[j % inputs.size()]));
  for (int j = 0; j < 24; ++j) {
    const cf::array<cl_uint>& x = inputs[j % inputs.size()];
    top_byte.accumulate(ooo, results[j], x.size(), x);
  }
  ooo.finish();
  for (std::size_t j = 0; j < results.size(); ++j) {
    std::vector<cl_uint> twice = want[j % inputs.size()];
    for (cl_uint& c : twice) c *= 2;
    EXPECT_EQ(results[j].to_host(q()), twice) << "call " << j;
  }
}
