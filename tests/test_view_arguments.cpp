// SPDX-License-Identifier: MIT
// Array views as arguments of the snippet templates (elementwise_kernel, reduction_kernel,
// scan_kernel): strided, reversed and composed views against a host reference on random data;
// whole-array calls keep their kernels; views from two queues at once; clear errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include <clforge/algorithms/histogram.hpp>
#include <clforge/clforge.hpp>

#include "cache_lookups.hpp"
#include "threads.hpp"

namespace cf = clforge;

namespace {

struct fixture : ::testing::Test {
  cf::context ctx = cf::context::create_default();
  cf::queue q{ctx};
};

std::vector<int> random_ints(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> v(n);
  for (int& x : v) x = static_cast<int>(rng() % 2001) - 1000;
  return v;
}

// The buffer indices a view visits (element k at first + k * step).
template <class T>
std::vector<std::size_t> indices_of(const cf::array_view<T>& v) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < v.size(); ++k)
    out.push_back(static_cast<std::size_t>(v.first() + static_cast<std::int64_t>(k) * v.step()));
  return out;
}

// Slices (start, stop, step) with Python's rules: odd strides, negative steps, omitted bounds.
struct slice_args {
  std::int64_t start, stop, step;
};
const slice_args kSlices[] = {
    {0, cf::slice_none, 1},
    {3, -2, 1},
    {1, cf::slice_none, 3},
    {cf::slice_none, cf::slice_none, -1},
    {-4, 2, -5},
    {7, 8, 1},
    {cf::slice_none, 0, -7},
    {5, 5, 1},
    {2, cf::slice_none, 17},
};

}  // namespace

TEST_F(fixture, elementwise_takes_strided_reversed_and_composed_views) {
  cf::elementwise_kernel axpy(ctx, "int a, global const int* x, global int* y",
                              "y[i] = a * x[i] + y[i]");
  for (std::size_t n : {0u, 1u, 2u, 1001u}) {
    const auto hx = random_ints(n, 1 + static_cast<unsigned>(n));
    const auto hy = random_ints(n, 2 + static_cast<unsigned>(n));
    for (const slice_args& sx : kSlices)
      for (const slice_args& sy : {kSlices[2], kSlices[3], kSlices[4]}) {
        auto x = cf::array<int>::from_host(q, hx);
        auto y = cf::array<int>::from_host(q, hy);
        auto full_x = x.view(sx.start, sx.stop, sx.step);
        auto vy = y.view(sy.start, sy.stop, sy.step);
        // cut both to one length: views of views
        const auto k = static_cast<std::int64_t>(std::min(full_x.size(), vy.size()));
        auto vx = full_x.view(0, k);
        auto wy = vy.view(cf::slice_none, cf::slice_none, -1).view(0, k);
        axpy(q, 3, vx, wy);
        std::vector<int> expect = hy;
        const auto ix = indices_of(vx), iy = indices_of(wy);
        for (std::size_t j = 0; j < ix.size(); ++j) expect[iy[j]] = 3 * hx[ix[j]] + hy[iy[j]];
        ASSERT_EQ(y.to_host(q), expect)
            << "n " << n << " x[" << sx.start << ":" << sx.stop << ":" << sx.step << "] y["
            << sy.start << ":" << sy.stop << ":" << sy.step << "]";
      }
  }
}

TEST_F(fixture, views_mix_with_arrays_ranges_and_nested_indices) {
  const std::size_t n = 777;
  const auto hx = random_ints(n, 3);
  std::vector<int> hidx(n);
  // A permutation (38 and 777 share no factor): each y element written once, by one work-item.
  for (std::size_t j = 0; j < n; ++j) hidx[j] = static_cast<int>((j * 38) % n);
  auto x = cf::array<int>::from_host(q, hx);
  auto idx = cf::array<int>::from_host(q, hidx);
  cf::array<int> y(q, n);
  y.fill(q, 0);
  // y[idx[i]] = x[i] with idx and x reversed views: the index expression of y holds a view
  cf::elementwise_kernel scatter(ctx, "global const int* idx, global const int* x, global int* y",
                                 "y[ idx [i] ] = x[i] + 1", [] {
                                   cf::kernel_options o;
                                   o.check_array_lengths = false;
                                   return o;
                                 }());
  auto ridx = idx.view(cf::slice_none, cf::slice_none, -1);
  auto rx = x.view(cf::slice_none, cf::slice_none, -1);
  scatter(q, ridx, rx, y);
  std::vector<int> expect(n, 0);
  for (std::size_t k = 0; k < n; ++k) expect[hidx[n - 1 - k]] = hx[n - 1 - k] + 1;
  EXPECT_EQ(y.to_host(q), expect);

  // a slice of the call's range over a view: the range counts in the view's indices
  cf::elementwise_kernel set(ctx, "global int* y, int v", "y[i] = v");
  y.fill(q, 0);
  auto odd = y.view(1, cf::slice_none, 2);
  set(q, cf::slice(0, cf::slice_none, 3), odd, 5);
  expect.assign(n, 0);
  for (std::size_t k = 0; k < odd.size(); k += 3) expect[1 + 2 * k] = 5;
  EXPECT_EQ(y.to_host(q), expect);
}

TEST_F(fixture, whole_array_calls_keep_their_kernel_and_variants_build_once) {
  const std::size_t n = 100;
  auto x = cf::array<int>::from_host(q, random_ints(n, 4));
  cf::array<int> y(q, n);
  cf::elementwise_kernel copy(ctx, "global const int* x, global int* y", "y[i] = x[i]");
  EXPECT_EQ(copy.source().find("_view_"), std::string::npos);
  const std::size_t before = clforge_test::cache_lookups(ctx);
  auto builds = [&] { return clforge_test::cache_lookups(ctx) - before; };
  copy(q, x, y);
  copy(q, x.view(0, 50), y.view(0, 50));  // a prefix is indexed as the array: no variant
  EXPECT_EQ(builds(), 0u);
  copy(q, x.view(1, 51), y);  // unit-step variant
  EXPECT_EQ(builds(), 1u);
  copy(q, x.view(7, 57), y.view(3, 53));  // two unit-step views: another variant
  EXPECT_EQ(builds(), 2u);
  copy(q, x.view(7, 57), y.view(40, 90));
  copy(q, x.view(98, 0, -2), y.view(3, 52));  // strided x
  copy(q, x.view(96, 0, -2), y.view(5, 53));
  EXPECT_EQ(builds(), 3u);
  q.finish();
}

TEST_F(fixture, reductions_take_views) {
  cf::reduction_kernel<cl_long> dot(ctx, "global const int* x, global const int* y",
                                    "(long)x[i] * y[i]", "a + b", "0");
  for (std::size_t n : {0u, 1u, 5u, 4099u}) {
    const auto hx = random_ints(n, 5), hy = random_ints(n, 6);
    auto x = cf::array<int>::from_host(q, hx);
    auto y = cf::array<int>::from_host(q, hy);
    for (const slice_args& s : kSlices) {
      auto full_x = x.view(s.start, s.stop, s.step);
      auto vy = y.view(cf::slice_none, cf::slice_none, -3)
                    .view(0, static_cast<std::int64_t>(full_x.size()));
      auto vx = full_x.view(0, static_cast<std::int64_t>(vy.size()));
      const auto ix = indices_of(vx), iy = indices_of(vy);
      long long expect = 0;
      for (std::size_t j = 0; j < ix.size(); ++j)
        expect += static_cast<long long>(hx[ix[j]]) * hy[iy[j]];
      EXPECT_EQ(dot(q, vx, vy), expect) << n << " " << s.start << ":" << s.stop << ":" << s.step;
      cf::array<cl_long> r(q, 1);
      dot.into(q, r, vx, vy);
      EXPECT_EQ(r.to_host(q)[0], expect);
    }
  }
}

TEST_F(fixture, scans_take_views) {
  cf::scan_kernel<cl_int> cumsum(ctx, "global const int* x, global int* y", "x[i]", "a + b", "0",
                                 "y[i] = item", cf::scan_kind::inclusive);
  for (std::size_t n : {0u, 1u, 3u, 5000u}) {
    const auto hx = random_ints(n, 7);
    auto x = cf::array<int>::from_host(q, hx);
    cf::array<int> y(q, 2 * n + 1);
    y.fill(q, -1);
    auto rx = x.view(cf::slice_none, cf::slice_none, -1);  // x[::-1]
    auto oy = y.view(1, cf::slice_none, 2);                // y[1::2], n elements
    cumsum(q, rx, oy);
    std::vector<int> expect(2 * n + 1, -1);
    int run = 0;
    for (std::size_t k = 0; k < n; ++k) expect[1 + 2 * k] = run += hx[n - 1 - k];
    EXPECT_EQ(y.to_host(q), expect) << n;
  }
}

TEST_F(fixture, views_on_two_queues_at_once) {
  cf::queue q2(ctx);
  cf::elementwise_kernel scale(ctx, "global const int* x, global int* y", "y[i] = 2 * x[i]");
  cf::reduction_kernel<int> sum(ctx, "global const int* x", "x[i]", "a + b", "0");
  const std::size_t n = 3001;
  const auto hx = random_ints(n, 8);
  auto work = [&](const cf::queue& on, std::int64_t step, std::vector<int>& out, int& total) {
    auto x = cf::array<int>::from_host(on, hx);
    cf::array<int> y(on, n);
    y.fill(on, 0);
    for (int round = 0; round < 20; ++round) {
      scale(on, x.view(cf::slice_none, cf::slice_none, step),
            y.view(0, static_cast<std::int64_t>((n + std::abs(step) - 1) / std::abs(step))));
      total = sum(on, y.view(1, cf::slice_none, 1));
    }
    out = y.to_host(on);
  };
  std::vector<int> out1, out2;
  int total1 = 0, total2 = 0;
  const std::vector<std::string> thrown = clforge_test::on_threads(2, [&](int t) {
    if (t == 0)
      work(q, -3, out1, total1);
    else
      work(q2, 2, out2, total2);
  });
  for (const std::string& f : thrown) ASSERT_EQ(f, "");
  auto expect = [&](std::int64_t step, std::vector<int>& out, int total) {
    std::vector<int> y(n, 0);
    std::size_t k = 0;
    if (step > 0)
      for (std::size_t j = 0; j < n; j += static_cast<std::size_t>(step)) y[k++] = 2 * hx[j];
    else
      for (std::int64_t j = static_cast<std::int64_t>(n) - 1; j >= 0; j += step)
        y[k++] = 2 * hx[static_cast<std::size_t>(j)];
    EXPECT_EQ(out, y) << step;
    int t = 0;
    for (std::size_t j = 1; j < n; ++j) t += y[j];
    EXPECT_EQ(total, t) << step;
  };
  expect(-3, out1, total1);
  expect(2, out2, total2);
}

TEST_F(fixture, views_that_cannot_be_taken_are_clear_errors) {
  auto x = cf::array<int>::from_host(q, random_ints(64, 9));
  cf::array<int> y(q, 64);
  // a view parameter used other than as name[index]
  cf::elementwise_kernel pointer_math(ctx, "global const int* x, global int* y", "y[i] = *(x + i)");
  pointer_math(q, x, y);  // whole arrays: fine
  try {
    pointer_math(q, x.view(1, 33), y.view(0, 32));
    FAIL() << "expected clforge::error";
  } catch (const cf::error& e) {
    EXPECT_NE(std::string(e.what()).find("only as x[index]"), std::string::npos) << e.what();
  }
  // lengths are the views' lengths
  cf::elementwise_kernel copy(ctx, "global const int* x, global int* y", "y[i] = x[i]");
  EXPECT_THROW(copy(q, x.view(1, 64), y.view(0, 64, 2)), cf::error);
  q.finish();
}
