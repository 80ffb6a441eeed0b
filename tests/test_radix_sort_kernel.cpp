// SPDX-License-Identifier: MIT
// clforge::radix_sort_kernel: keys from a snippet, several arrays permuted together, against a
// host std::stable_sort of the same keys.
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
const char* kCellPreamble = R"(
static inline uint cell_of(float x, float y, uint cells) {
  return (uint)(y * cells) * cells + (uint)(x * cells);
}
)";

// What sorting the elements at the indices `at` (in that order) among themselves by key(index)
// leaves in `values`: the j-th index receives the j-th element in key order, ties in the order
// of `at`.
template <class Key>
std::vector<cl_uint> sorted_at(const std::vector<cl_uint>& values,
                               const std::vector<std::int64_t>& at, Key key) {
  std::vector<std::size_t> order(at.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return key(at[a]) < key(at[b]); });
  std::vector<cl_uint> out = values;
  for (std::size_t j = 0; j < at.size(); ++j) out[at[j]] = values[at[order[j]]];
  return out;
}
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
    std::vector<std::int64_t> at(vk.size());
    for (std::size_t j = 0; j < at.size(); ++j) at[j] = vk.first() + std::int64_t(j) * vk.step();
    auto key = [&](std::int64_t i) { return keys[i]; };
    by_key(q(), vk, vp);
    EXPECT_EQ(d_k.to_host(q()), sorted_at(keys, at, key));
    EXPECT_EQ(d_p.to_host(q()), sorted_at(payload, at, key));
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
  EXPECT_CLFORGE_ERROR(by_key(q(), d_k.view(0, 100), d_q.view(0, 99)),
                       {"radix_sort", "one length"});
}

namespace {
// The order clforge::sort gives floating-point keys: IEEE total order with every NaN equal and
// last (-0 before +0), stable.
template <class F>
bool float_key_less(F a, F b) {
  const bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return !an && bn;
  if (a == b) return std::signbit(a) && !std::signbit(b);
  return a < b;
}

template <class F>
std::vector<F> float_keys(std::size_t n, unsigned seed) {
  using lim = std::numeric_limits<F>;
  const F specials[] = {lim::quiet_NaN(),
                        -lim::quiet_NaN(),
                        lim::infinity(),
                        -lim::infinity(),
                        F(0),
                        F(-0.0),
                        lim::denorm_min(),
                        -lim::max(),
                        F(1),
                        F(-1)};
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0, 1e3);
  std::vector<F> keys(n);
  for (F& k : keys) k = rng() % 4 ? static_cast<F>(d(rng)) : specials[rng() % 10];
  return keys;
}

// Sorts indices by a floating-point key expression (the key array itself, and an arithmetic
// expression of it), on both algorithms, against std::stable_sort in clforge::sort's order.
template <class F>
void check_float_keys(unsigned key_bits) {
  const std::string type = std::is_same_v<F, float> ? "float" : "double";
  for (cf::sort_algorithm alg : {cf::sort_algorithm::onesweep, cf::sort_algorithm::chunked}) {
    cf::radix_sort_options o;
    o.algorithm = alg;
    cf::radix_sort_kernel by_key(ctx(), "global const " + type + "* k, global uint* p", "k[i]",
                                 {"p"}, key_bits, o);
    cf::radix_sort_kernel by_negated(ctx(), "global const " + type + "* k, global uint* p",
                                     "-k[i] * 2", {"p"}, key_bits, o);
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1023), std::size_t(1025),
                          std::size_t(40001)}) {
      SCOPED_TRACE(testing::Message()
                   << type << " n=" << n << " "
                   << (alg == cf::sort_algorithm::onesweep ? "onesweep" : "chunked"));
      const std::vector<F> keys = float_keys<F>(n, unsigned(n));
      std::vector<cl_uint> index(n);
      std::iota(index.begin(), index.end(), 0u);
      auto d_k = cf::array<F>::from_host(q(), keys);
      auto d_p = cf::array<cl_uint>::from_host(q(), index);
      by_key(q(), d_k, d_p);
      std::vector<cl_uint> want = index;
      std::stable_sort(want.begin(), want.end(),
                       [&](cl_uint a, cl_uint b) { return float_key_less(keys[a], keys[b]); });
      EXPECT_EQ(d_p.to_host(q()), want);
      d_p.write(q(), index.data(), 0, n);
      by_negated(q(), d_k, d_p);
      want = index;
      std::stable_sort(want.begin(), want.end(), [&](cl_uint a, cl_uint b) {
        return float_key_less(F(-keys[a] * 2), F(-keys[b] * 2));
      });
      EXPECT_EQ(d_p.to_host(q()), want);
      // The keys through a reversed view (the view variant of the kernels).
      d_p.write(q(), index.data(), 0, n);
      by_key(q(), d_k.view(cf::slice_none, cf::slice_none, -1), d_p);
      want = index;
      std::stable_sort(want.begin(), want.end(), [&](cl_uint a, cl_uint b) {
        return float_key_less(keys[n - 1 - a], keys[n - 1 - b]);
      });
      EXPECT_EQ(d_p.to_host(q()), want);
    }
  }
}
}  // namespace

TEST(radix_sort_kernel, ranges_and_slices_sort_the_indices_they_visit) {
  // Keys from two arrays at i (one not permuted, longer) and n, the number of indices visited:
  // the range's i and n reach the snippet. The permuted arrays are of different lengths, both
  // holding every index visited.
  const std::int64_t len = 3001;
  std::mt19937 rng(21);
  std::vector<cl_uint> keys(len), payload(len + 10), bias(len + 5);
  for (cl_uint& k : keys) k = rng() % 300;
  for (cl_uint& b : bias) b = rng() % 3;
  std::iota(payload.begin(), payload.end(), 0u);
  for (cf::sort_algorithm alg : {cf::sort_algorithm::onesweep, cf::sort_algorithm::chunked}) {
    cf::radix_sort_options o;
    o.algorithm = alg;
    cf::radix_sort_kernel by_key(ctx(), "global uint* k, global const uint* b, global uint* p",
                                 "k[i] + b[i] + (uint)(n % 2)", {"k", "p"}, 10, o);
    const std::int64_t none = cf::slice_none;
    const std::vector<cf::index_range> ranges = {
        cf::range(len),        cf::range(len - 1),        cf::range(1, len),
        cf::range(5, 2000, 3), cf::range(len - 1, 0, -7), cf::range(0),
        cf::range(7, 8),       cf::range(10, 3),          cf::slice(none, none, -1),
        cf::slice(-100, none), cf::slice(1, none, 2),     cf::slice(-1, -len - 5, -1000)};
    for (const cf::index_range& r : ranges) {
      SCOPED_TRACE(testing::Message() << "alg=" << int(alg) << " slice=" << r.is_slice << " start="
                                      << r.start << " stop=" << r.stop << " step=" << r.step);
      // The host reference: the indices the range visits, stably sorted by key.
      std::vector<std::int64_t> at;
      if (!r.is_slice) {
        for (std::int64_t i = r.start; r.step > 0 ? i < r.stop : i > r.stop; i += r.step)
          at.push_back(i);
      } else {
        auto clamp = [&](std::int64_t v, std::int64_t dflt) {
          if (v == none) return dflt;
          if (v < 0) v += len;
          const std::int64_t lo = r.step > 0 ? 0 : -1, hi = r.step > 0 ? len : len - 1;
          return std::clamp(v, lo, hi);
        };
        const std::int64_t b = clamp(r.start, r.step > 0 ? 0 : len - 1);
        const std::int64_t e = clamp(r.stop, r.step > 0 ? len : -1);
        for (std::int64_t i = b; r.step > 0 ? i < e : i > e; i += r.step) at.push_back(i);
      }
      const cl_uint n = cl_uint(at.size());
      auto key = [&](std::int64_t i) { return keys[i] + bias[i] + n % 2; };
      auto d_k = cf::array<cl_uint>::from_host(q(), keys);
      auto d_b = cf::array<cl_uint>::from_host(q(), bias);
      auto d_p = cf::array<cl_uint>::from_host(q(), payload);
      by_key(q(), r, d_k, d_b, d_p);
      EXPECT_EQ(d_k.to_host(q()), sorted_at(keys, at, key));
      EXPECT_EQ(d_p.to_host(q()), sorted_at(payload, at, key));
    }
  }

  // A range over array views: the indices count in the views.
  cf::radix_sort_kernel by_key(ctx(), "global uint* k, global uint* p", "k[i]", {"k", "p"}, 10);
  auto d_k = cf::array<cl_uint>::from_host(q(), keys);
  auto d_p = cf::array<cl_uint>::from_host(q(), payload);
  const auto vk = d_k.view(1, cf::slice_none, 2);  // indices 1, 3, 5, ... of the arrays
  const auto vp = d_p.view(1, cf::slice_none, 2);
  by_key(q(), cf::range(3, 900, 4), vk, vp);  // view positions 3, 7, ...: array 7, 15, ...
  std::vector<std::int64_t> at;
  for (std::int64_t j = 3; j < 900; j += 4) at.push_back(1 + 2 * j);
  auto key = [&](std::int64_t i) { return keys[i]; };
  EXPECT_EQ(d_k.to_host(q()), sorted_at(keys, at, key));
  EXPECT_EQ(d_p.to_host(q()), sorted_at(payload, at, key));

  // A range past a permuted array is refused before anything runs.
  auto small = cf::array<cl_uint>::from_host(q(), std::vector<cl_uint>(100, 1));
  EXPECT_CLFORGE_ERROR(by_key(q(), cf::range(0, 200), d_k, small),
                       {"indices up to 199", "p has 100 elements"});
  EXPECT_EQ(small.to_host(q()), std::vector<cl_uint>(100, 1));
}

TEST(radix_sort_kernel, float_keys_sort_by_their_total_order) {
  check_float_keys<float>(32);
}

TEST(radix_sort_kernel, double_keys_sort_by_their_total_order) {
  if (!ctx().info().has_fp64) GTEST_SKIP() << "no fp64";
  check_float_keys<double>(64);
}

// A floating-point key has as many ordered bits as its type: other key_bits are refused at
// construction (sorting on some of its bits would sort nothing in particular).
TEST(radix_sort_kernel, floating_keys_with_other_key_bits_are_refused) {
  EXPECT_CLFORGE_ERROR(cf::radix_sort_kernel(ctx(), "global const float* k, global uint* p",
                                             "k[i] + 1.0f", {"p"}, 16),
                       {"radix_sort_kernel \"radix_sort\"", "float", "key_bits 32", "not 16"});
  EXPECT_CLFORGE_ERROR(
      cf::radix_sort_kernel(ctx(), "global const float* k, global uint* p", "k[i]", {"p"}, 64),
      {"float", "key_bits 32", "not 64"});
  if (ctx().info().has_fp64)
    EXPECT_CLFORGE_ERROR(
        cf::radix_sort_kernel(ctx(), "global const double* k, global uint* p", "k[i]", {"p"}),
        {"double", "key_bits 64", "not 32"});
  // Integer keys keep their low key_bits bits, as before.
  cf::radix_sort_kernel low(ctx(), "global const int* k, global uint* p", "k[i] * 3", {"p"}, 4);
  auto d_k = cf::array<int>::from_host(q(), std::vector<int>{5, 1, 4});  // keys 15, 3, 12
  auto d_p = cf::array<cl_uint>::from_host(q(), std::vector<cl_uint>{0, 1, 2});
  low(q(), d_k, d_p);
  EXPECT_EQ(d_p.to_host(q()), (std::vector<cl_uint>{1, 2, 0}));
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
  // An array the key reads but does not permute must hold every index too (it was read past
  // its end); a lookup table indexed otherwise passes with the check turned off.
  cf::radix_sort_kernel by_weight(ctx(), "global uint* k, global const uint* w", "w[i]", {"k"});
  auto keys = cf::array<cl_uint>::from_host(q(), std::vector<cl_uint>{5, 4, 3, 2, 1, 0});
  auto four = cf::array<cl_uint>::from_host(q(), std::vector<cl_uint>(4, 7));
  EXPECT_CLFORGE_ERROR(by_weight(q(), keys, four), {"(w) has 4 elements", "needs 6"});
  EXPECT_CLFORGE_ERROR(by_weight(q(), cf::range(1, 6), keys, four), {"(w) has 4", "needs 6"});
  by_weight(q(), cf::range(0, 4), keys, four);  // the indices the range visits are there
  cf::radix_sort_options unchecked;
  unchecked.check_array_lengths = false;
  cf::radix_sort_kernel by_table(ctx(), "global uint* k, global const uint* w", "w[k[i] % 4]",
                                 {"k"}, 32, unchecked);
  auto table = cf::array<cl_uint>::from_host(q(), std::vector<cl_uint>{3, 2, 1, 0});
  by_table(q(), keys, table);  // keys 5 4 3 2 1 0 weigh 2 3 0 1 2 3
  EXPECT_EQ(keys.to_host(q()), (std::vector<cl_uint>{3, 2, 5, 1, 4, 0}));
  // A raw buffer has no length to sort by.
  const cl::Buffer raw(ctx().cl(), CL_MEM_READ_WRITE, 10 * sizeof(cl_uint));
  EXPECT_CLFORGE_ERROR(k(q(), a, raw), {"b is permuted", "an array or array view"});
  EXPECT_CLFORGE_ERROR(k(q(), cf::range(5), a, raw), {"b is permuted"});
}
