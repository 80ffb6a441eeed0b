// SPDX-License-Identifier: MIT
// clforge::sort and sort_by_key against std::stable_sort, on both algorithms (onesweep, the GPU
// path, and chunked, the CPU path), every key type, edge sizes and data patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include <clforge/clforge.hpp>

#include "expect_error.hpp"
#include "shared_device.hpp"

namespace cf = clforge;
using clforge_test::ctx;
using clforge_test::q;

namespace {

// The documented order: IEEE total order with all NaNs equal and last.
template <class K>
bool ordered_less(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) {
    const bool an = std::isnan(a), bn = std::isnan(b);
    if (an || bn) return !an && bn;
    if (a == b) return std::signbit(a) && !std::signbit(b);
    return a < b;
  } else {
    return a < b;
  }
}

template <class K>
std::vector<K> reference(std::vector<K> keys, cf::order direction) {
  if (direction == cf::order::ascending)
    std::stable_sort(keys.begin(), keys.end(), ordered_less<K>);
  else
    std::stable_sort(keys.begin(), keys.end(), [](K a, K b) { return ordered_less(b, a); });
  return keys;
}

template <class K>
bool same_bits(const std::vector<K>& a, const std::vector<K>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(K)) == 0);
}

enum class pattern { random, sorted, reversed, all_equal, few_distinct, specials };

template <class K>
std::vector<K> make_keys(std::size_t n, pattern how, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<K> keys(n);
  for (K& k : keys) {
    if constexpr (std::is_floating_point_v<K>) {
      k = static_cast<K>(std::normal_distribution<double>(0, 1e3)(rng));
    } else {
      const std::uint64_t bits = rng();
      std::memcpy(&k, &bits, sizeof(K));
    }
  }
  switch (how) {
    case pattern::random:
      break;
    case pattern::sorted:
      std::sort(keys.begin(), keys.end(), ordered_less<K>);
      break;
    case pattern::reversed:
      std::sort(keys.begin(), keys.end(), [](K a, K b) { return ordered_less(b, a); });
      break;
    case pattern::all_equal:
      std::fill(keys.begin(), keys.end(), n ? keys[0] : K{});
      break;
    case pattern::few_distinct:
      for (K& k : keys) k = static_cast<K>(rng() % 5);
      break;
    case pattern::specials:
      if constexpr (std::is_floating_point_v<K>) {
        using lim = std::numeric_limits<K>;
        const K specials[] = {
            lim::quiet_NaN(),  -lim::quiet_NaN(),  lim::infinity(), -lim::infinity(), K(0), K(-0.0),
            lim::denorm_min(), -lim::denorm_min(), lim::max(),      lim::lowest(),    K(1), K(-1)};
        for (K& k : keys)
          if (rng() % 2) k = specials[rng() % (sizeof(specials) / sizeof(specials[0]))];
      }
      break;
  }
  return keys;
}

const char* name_of(cf::sort_algorithm a) {
  return a == cf::sort_algorithm::onesweep ? "onesweep" : "chunked";
}

template <class K>
void check_sort_on(cf::queue& on, std::size_t n, pattern how, cf::sort_algorithm alg,
                   cf::order direction, std::uint64_t seed = 1) {
  SCOPED_TRACE(
      testing::Message() << "n=" << n << " pattern=" << int(how) << " " << name_of(alg)
                         << (direction == cf::order::descending ? " descending" : " ascending"));
  std::vector<K> host = make_keys<K>(n, how, seed);
  auto keys = cf::array<K>::from_host(on, host);
  cf::sort_options o;
  o.algorithm = alg;
  o.direction = direction;
  cf::sort(on, keys, o);
  EXPECT_TRUE(same_bits(keys.to_host(on), reference(host, direction)));
}

template <class K>
void check_sort(std::size_t n, pattern how, cf::sort_algorithm alg, cf::order direction,
                std::uint64_t seed = 1) {
  check_sort_on<K>(q(), n, how, alg, direction, seed);
}

constexpr cf::sort_algorithm kAlgorithms[] = {cf::sort_algorithm::onesweep,
                                              cf::sort_algorithm::chunked};

}  // namespace

// ---- every key type --------------------------------------------------------------------------

template <class K>
class sort_keys : public testing::Test {};
using key_types = testing::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t,
                                 std::uint32_t, std::int32_t, std::uint64_t, std::int64_t,
                                 unsigned long long, long long, float, double>;
TYPED_TEST_SUITE(sort_keys, key_types);

TYPED_TEST(sort_keys, patterns_and_edge_sizes_on_both_algorithms) {
  using K = TypeParam;
  if (std::is_same_v<K, double> && !ctx().info().has_fp64) GTEST_SKIP() << "no fp64";
  // Onesweep tiles on this device hold 1024 keys (64 x 16); chunks at least 16384.
  const std::size_t sizes[] = {0, 1, 2, 3, 1023, 1024, 1025, 2049, 16385, 100003};
  // Every type on the chunked path; onesweep (a larger program, slow to build on PoCL) on one
  // type of every width and kind: what differs by key type (the ordered bits) is shared code.
  constexpr bool onesweep_too =
      std::is_same_v<K, std::uint8_t> || std::is_same_v<K, std::int16_t> ||
      std::is_same_v<K, std::uint32_t> || std::is_same_v<K, std::int64_t> ||
      std::is_same_v<K, float> || std::is_same_v<K, double>;
  for (cf::sort_algorithm alg : kAlgorithms) {
    if (alg == cf::sort_algorithm::onesweep && !onesweep_too) continue;
    for (std::size_t n : sizes) check_sort<K>(n, pattern::random, alg, cf::order::ascending, n);
    for (pattern how : {pattern::sorted, pattern::reversed, pattern::all_equal,
                        pattern::few_distinct, pattern::specials}) {
      check_sort<K>(5000, how, alg, cf::order::ascending);
      check_sort<K>(5000, how, alg, cf::order::descending);
    }
  }
}

TEST(sort, two_to_the_20_plus_3_keys) {
  for (cf::sort_algorithm alg : kAlgorithms) {
    check_sort<std::uint32_t>((1u << 20) + 3, pattern::random, alg, cf::order::ascending);
    check_sort<float>((1u << 20) + 3, pattern::specials, alg, cf::order::descending);
  }
  check_sort<std::int64_t>((1u << 20) + 3, pattern::random, cf::sort_algorithm::automatic,
                           cf::order::ascending);
}

TEST(sort, onesweep_over_several_portions) {
  // On this device a onesweep launch covers 4096 tiles of 1024 keys; more keys take several
  // launches chained through the digit offsets.
  check_sort<std::uint32_t>((std::size_t(1) << 22) + 1500, pattern::random,
                            cf::sort_algorithm::onesweep, cf::order::ascending);
}

TEST(sort, float_order_puts_negative_zero_first_and_nans_last) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> host = {nan, 1.0f, 0.0f, -nan, -0.0f, -inf, inf, -1.0f};
  for (cf::sort_algorithm alg : kAlgorithms) {
    auto keys = cf::array<float>::from_host(q(), host);
    cf::sort_options o;
    o.algorithm = alg;
    cf::sort(q(), keys, o);
    auto got = keys.to_host(q());
    EXPECT_EQ(got[0], -inf);
    EXPECT_EQ(got[1], -1.0f);
    EXPECT_TRUE(got[2] == 0.0f && std::signbit(got[2]));
    EXPECT_TRUE(got[3] == 0.0f && !std::signbit(got[3]));
    EXPECT_EQ(got[4], 1.0f);
    EXPECT_EQ(got[5], inf);
    // NaNs last, in input order (+NaN then -NaN).
    EXPECT_TRUE(std::isnan(got[6]) && !std::signbit(got[6]));
    EXPECT_TRUE(std::isnan(got[7]) && std::signbit(got[7]));
  }
}

// ---- key-value -------------------------------------------------------------------------------

namespace {
struct quad {
  std::uint32_t v[4];
};
}  // namespace

TEST(sort_by_key, values_follow_their_keys_stably) {
  for (cf::sort_algorithm alg : kAlgorithms) {
    for (cf::order direction : {cf::order::ascending, cf::order::descending}) {
      for (std::size_t n : {std::size_t(1), std::size_t(1025), std::size_t(70001)}) {
        SCOPED_TRACE(testing::Message() << name_of(alg) << " n=" << n << " dir=" << int(direction));
        std::vector<std::int16_t> keys = make_keys<std::int16_t>(n, pattern::few_distinct, n);
        std::vector<std::uint32_t> index(n);
        std::iota(index.begin(), index.end(), 0u);
        std::vector<std::uint32_t> want = index;
        auto less = [&](std::uint32_t a, std::uint32_t b) {
          return direction == cf::order::ascending ? keys[a] < keys[b] : keys[b] < keys[a];
        };
        std::stable_sort(want.begin(), want.end(), less);
        std::vector<std::uint8_t> bytes(n);
        std::vector<quad> quads(n);
        for (std::size_t i = 0; i < n; ++i) {
          bytes[i] = static_cast<std::uint8_t>(i * 7);
          quads[i] = {{std::uint32_t(i), std::uint32_t(~i), std::uint32_t(i * 3), 5u}};
        }
        cf::sort_options o;
        o.algorithm = alg;
        o.direction = direction;
        auto d_keys = cf::array<std::int16_t>::from_host(q(), keys);
        auto d_index = cf::array<std::uint32_t>::from_host(q(), index);
        cf::sort_by_key(q(), d_keys, d_index, o);
        EXPECT_EQ(d_index.to_host(q()), want);
        std::vector<std::int16_t> want_keys(n);
        for (std::size_t i = 0; i < n; ++i) want_keys[i] = keys[want[i]];
        EXPECT_EQ(d_keys.to_host(q()), want_keys);

        auto k2 = cf::array<std::int16_t>::from_host(q(), keys);
        auto d_bytes = cf::array<std::uint8_t>::from_host(q(), bytes);
        cf::sort_by_key(q(), k2, d_bytes, o);
        auto got_bytes = d_bytes.to_host(q());
        auto k3 = cf::array<std::int16_t>::from_host(q(), keys);
        auto d_quads = cf::array<quad>::from_host(q(), quads);
        cf::sort_by_key(q(), k3, d_quads, o);
        auto got_quads = d_quads.to_host(q());
        bool ok = true;
        for (std::size_t i = 0; i < n; ++i) {
          ok = ok && got_bytes[i] == bytes[want[i]];
          ok = ok && std::memcmp(&got_quads[i], &quads[want[i]], sizeof(quad)) == 0;
        }
        EXPECT_TRUE(ok);
      }
    }
  }
}

TEST(sort_by_key, double_keys_with_64_bit_values) {
  if (!ctx().info().has_fp64) GTEST_SKIP() << "no fp64";
  const std::size_t n = 30001;
  std::vector<double> keys = make_keys<double>(n, pattern::specials, 9);
  std::vector<std::uint64_t> index(n);
  std::iota(index.begin(), index.end(), 0u);
  std::vector<std::uint64_t> want = index;
  std::stable_sort(want.begin(), want.end(), [&](std::uint64_t a, std::uint64_t b) {
    return ordered_less(keys[a], keys[b]);
  });
  for (cf::sort_algorithm alg : kAlgorithms) {
    auto d_keys = cf::array<double>::from_host(q(), keys);
    auto d_index = cf::array<std::uint64_t>::from_host(q(), index);
    cf::sort_options o;
    o.algorithm = alg;
    cf::sort_by_key(q(), d_keys, d_index, o);
    EXPECT_EQ(d_index.to_host(q()), want) << name_of(alg);
  }
}

// ---- bit ranges, scratch, queues -------------------------------------------------------------

TEST(sort, bit_ranges_sort_on_those_bits_only_and_keep_ties_in_order) {
  const std::size_t n = 40000;
  for (cf::sort_algorithm alg : kAlgorithms) {
    for (auto [begin, end] :
         {std::pair{0u, 20u}, std::pair{4u, 12u}, std::pair{13u, 32u}, std::pair{31u, 32u},
          std::pair{8u, 9u}, std::pair{40u, 64u}, std::pair{63u, 64u}}) {
      SCOPED_TRACE(testing::Message() << name_of(alg) << " [" << begin << ", " << end << ")");
      std::vector<std::int64_t> host = make_keys<std::int64_t>(n, pattern::random, begin);
      auto field = [&](std::int64_t k) {
        // signed keys: the ordered form has the sign bit flipped
        const std::uint64_t ordered = std::uint64_t(k) ^ (std::uint64_t(1) << 63);
        const std::uint64_t width = end - begin;
        return (ordered >> begin) &
               (width == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1);
      };
      std::vector<std::int64_t> want = host;
      std::stable_sort(want.begin(), want.end(),
                       [&](std::int64_t a, std::int64_t b) { return field(a) < field(b); });
      auto keys = cf::array<std::int64_t>::from_host(q(), host);
      cf::sort_options o;
      o.algorithm = alg;
      o.begin_bit = begin;
      o.end_bit = end;
      cf::sort(q(), keys, o);
      EXPECT_EQ(keys.to_host(q()), want);
    }
  }
}

TEST(sort, a_scratch_makes_repeated_sorts_allocate_nothing) {
  for (cf::sort_algorithm alg : kAlgorithms) {
    cf::sort_scratch scratch;
    cf::sort_options o;
    o.algorithm = alg;
    o.scratch = &scratch;
    const std::size_t n = 50000;
    std::vector<std::int16_t> host = make_keys<std::int16_t>(n, pattern::random, 3);
    std::vector<std::uint32_t> values(n, 7);
    auto keys = cf::array<std::int16_t>::from_host(q(), host);
    auto vals = cf::array<std::uint32_t>::from_host(q(), values);
    cf::sort_by_key(q(), keys, vals, o);
    EXPECT_GT(scratch.bytes(), n * 6);
    for (int round = 0; round < 3; ++round) {
      keys.write(q(), host.data(), 0, n);
      const cf::pool_stats before = ctx().pool().stats();
      cf::sort_by_key(q(), keys, vals, o);
      const cf::pool_stats after = ctx().pool().stats();
      EXPECT_EQ(after.hits + after.misses, before.hits + before.misses) << name_of(alg);
      EXPECT_EQ(keys.to_host(q()), reference(host, cf::order::ascending));
    }
    scratch.release();
    EXPECT_EQ(scratch.bytes(), 0u);
  }
}

// One scratch shared by sorts on several queues of one context: each sort waits on the device for
// the previous user's commands, so the shared buffers are never used by two queues at once.
// Sizes change between sorts so that the scratch also grows while another queue may use it.
TEST(sort, a_scratch_shared_by_threads_on_their_own_queues) {
  constexpr int kThreads = 4, kRounds = 6;
  for (cf::sort_algorithm alg : kAlgorithms) {
    cf::sort_scratch scratch;
    std::vector<int> wrong(kThreads, 0);
    std::vector<std::string> errors(kThreads);
    auto worker = [&](int t) {
      try {
        cf::queue own(ctx());
        for (int round = 0; round < kRounds; ++round) {
          const std::size_t n = 20000 + std::size_t(t) * 7919 + std::size_t(round) * 15013;
          std::vector<std::uint32_t> host =
              make_keys<std::uint32_t>(n, pattern::random, std::uint64_t(t * 100 + round));
          std::vector<std::uint32_t> values(n);
          std::iota(values.begin(), values.end(), 0u);
          auto keys = cf::array<std::uint32_t>::from_host(own, host);
          auto vals = cf::array<std::uint32_t>::from_host(own, values);
          cf::sort_options o;
          o.algorithm = alg;
          o.scratch = &scratch;
          cf::sort_by_key(own, keys, vals, o);
          const std::vector<std::uint32_t> got = keys.to_host(own);
          const std::vector<std::uint32_t> order = vals.to_host(own);
          std::vector<std::uint32_t> want = host;
          std::sort(want.begin(), want.end());
          bool ok = got == want;
          for (std::size_t i = 0; ok && i < n; ++i) ok = order[i] < n && host[order[i]] == got[i];
          wrong[t] += !ok;
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
    for (std::thread& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(wrong[t], 0) << name_of(alg) << " thread " << t << ": wrong sorts";
      EXPECT_EQ(errors[t], "") << name_of(alg) << " thread " << t;
    }
  }
}

namespace {
// Sorts `ha` on qa and `hb` on qb, the second enqueued while the first may still run (nothing
// waits between them on the host); how many of the two came out wrong.
int sorts_wrong(cf::queue& qa, std::vector<std::uint32_t> ha, cf::queue& qb,
                std::vector<std::uint32_t> hb, const cf::sort_options& o) {
  auto a = cf::array<std::uint32_t>::from_host(qa, ha);
  auto b = cf::array<std::uint32_t>::from_host(qb, hb);
  cf::sort(qa, a, o);
  cf::sort(qb, b, o);
  std::sort(ha.begin(), ha.end());
  std::sort(hb.begin(), hb.end());
  return int(a.to_host(qa) != ha) + int(b.to_host(qb) != hb);
}
}  // namespace

// One thread, two queues, one scratch: the second sort is enqueued while the first may still
// run (nothing waits between them on the host).
TEST(sort, a_scratch_alternating_between_two_queues) {
  for (cf::sort_algorithm alg : kAlgorithms) {
    cf::sort_scratch scratch;
    cf::queue first(ctx()), second(ctx());
    cf::sort_options o;
    o.algorithm = alg;
    o.scratch = &scratch;
    int wrong = 0;
    for (int round = 0; round < 8; ++round) {
      const std::size_t na = 30000 + std::size_t(round) * 9001,
                        nb = 70001 - std::size_t(round) * 4999;
      std::vector<std::uint32_t> ha = make_keys<std::uint32_t>(na, pattern::random, round);
      std::vector<std::uint32_t> hb = make_keys<std::uint32_t>(nb, pattern::random, round + 50);
      cf::queue& qa = round % 2 ? second : first;
      cf::queue& qb = round % 2 ? first : second;
      wrong += sorts_wrong(qa, ha, qb, hb, o);
    }
    EXPECT_EQ(wrong, 0) << name_of(alg);
    first.finish(), second.finish();
  }
}

// A scratch that moves between contexts gives its buffers back, fenced by the last sort's queue,
// and takes new ones from the other context's pool.
TEST(sort, a_scratch_alternating_between_two_contexts) {
  cf::context other = cf::context::create_default();
  cf::queue mine(ctx()), theirs(other);
  cf::sort_scratch scratch;
  cf::sort_options o;
  o.algorithm = cf::sort_algorithm::chunked;
  o.scratch = &scratch;
  int wrong = 0;
  for (int round = 0; round < 6; ++round) {
    const std::size_t n = 40000 + std::size_t(round) * 7001;
    std::vector<std::uint32_t> ha = make_keys<std::uint32_t>(n, pattern::random, round);
    std::vector<std::uint32_t> hb = make_keys<std::uint32_t>(n + 3, pattern::random, round + 9);
    wrong += sorts_wrong(mine, ha, theirs, hb, o);
  }
  EXPECT_EQ(wrong, 0);
  scratch.release();
  EXPECT_EQ(scratch.bytes(), 0u);
}

TEST(sort, out_of_order_queue) {
  auto ooo = clforge_test::out_of_order_queue(ctx());
  if (!ooo) GTEST_SKIP() << "the device has no out-of-order queues";
  for (cf::sort_algorithm alg : kAlgorithms) {
    std::vector<std::uint32_t> host = make_keys<std::uint32_t>(70000, pattern::random, 4);
    auto keys = cf::array<std::uint32_t>::from_host(*ooo, host);
    cf::sort_options o;
    o.algorithm = alg;
    cf::sort(*ooo, keys, o);
    EXPECT_EQ(keys.to_host(*ooo), reference(host, cf::order::ascending)) << name_of(alg);
  }
}

// ---- bad input -------------------------------------------------------------------------------

TEST(sort, bad_input_is_a_clear_error) {
  auto keys = cf::array<std::uint32_t>::from_host(q(), std::vector<std::uint32_t>(10, 1));
  auto values = cf::array<float>::from_host(q(), std::vector<float>(9, 1));
  EXPECT_CLFORGE_ERROR(cf::sort_by_key(q(), keys, values), {"sort_by_key", "10 keys", "9 values"});
  cf::sort_options o;
  o.begin_bit = 8;
  o.end_bit = 8;
  EXPECT_CLFORGE_ERROR(cf::sort(q(), keys, o), {"sort", "bit range [8, 8)", "32 bits", "uint"});
  o.begin_bit = 0;
  o.end_bit = 33;
  EXPECT_CLFORGE_ERROR(cf::sort(q(), keys, o), {"bit range [0, 33)"});
  auto bytes = cf::array<std::int8_t>(q(), 4);
  o.end_bit = 9;
  EXPECT_CLFORGE_ERROR(cf::sort(q(), bytes, o), {"bit range [0, 9)", "8 bits", "char"});
  auto same = cf::array<std::uint32_t>::from_host(q(), std::vector<std::uint32_t>(10, 1));
  EXPECT_CLFORGE_ERROR(cf::sort_by_key(q(), same, same), {"same array"});
}

// Views are sorted in place: the elements a view shows end up in order, the others untouched;
// strided, reversed and composed views, keys and values each an array or a view.
TEST(sort, views_are_sorted_in_place) {
  const std::size_t n = 30011;
  const std::vector<std::int32_t> host = make_keys<std::int32_t>(n, pattern::few_distinct, 21);
  struct shape {
    std::int64_t start, stop, step;
  };
  for (cf::sort_algorithm alg : kAlgorithms) {
    for (shape sh :
         {shape{0, 1025, 1}, shape{7, cf::slice_none, 3}, shape{cf::slice_none, cf::slice_none, -1},
          shape{-2, 5, -4}, shape{5, 6, 1}, shape{9, 9, 1}}) {
      SCOPED_TRACE(testing::Message()
                   << name_of(alg) << " [" << sh.start << ":" << sh.stop << ":" << sh.step << "]");
      auto keys = cf::array<std::int32_t>::from_host(q(), host);
      const auto view = keys.view(sh.start, sh.stop, sh.step);
      std::vector<std::size_t> at;
      for (std::size_t k = 0; k < view.size(); ++k)
        at.push_back(std::size_t(view.first() + std::int64_t(k) * view.step()));
      // keys only
      cf::sort_options o;
      o.algorithm = alg;
      cf::sort(q(), view, o);
      std::vector<std::int32_t> shown;
      for (std::size_t j : at) shown.push_back(host[j]);
      std::vector<std::int32_t> want = host;
      const std::vector<std::int32_t> sorted = reference(shown, cf::order::ascending);
      for (std::size_t k = 0; k < at.size(); ++k) want[at[k]] = sorted[k];
      EXPECT_EQ(keys.to_host(q()), want);
      // descending, values in a view of another array and in a whole array
      keys.write(q(), host.data(), 0, n);
      std::vector<std::uint32_t> payload(n);
      std::iota(payload.begin(), payload.end(), 0u);
      auto values = cf::array<std::uint32_t>::from_host(q(), payload);
      cf::sort_by_key(q(), view, values.view(sh.start, sh.stop, sh.step), cf::order::descending);
      std::vector<std::size_t> order(at.size());
      std::iota(order.begin(), order.end(), std::size_t(0));
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return shown[b] < shown[a]; });
      std::vector<std::int32_t> want_keys = host;
      std::vector<std::uint32_t> want_values = payload;
      for (std::size_t k = 0; k < at.size(); ++k) {
        want_keys[at[k]] = shown[order[k]];
        want_values[at[k]] = payload[at[order[k]]];
      }
      EXPECT_EQ(keys.to_host(q()), want_keys);
      EXPECT_EQ(values.to_host(q()), want_values);
      keys.write(q(), host.data(), 0, n);
      auto whole = cf::array<std::uint32_t>::from_host(
          q(), std::vector<std::uint32_t>(payload.begin(), payload.begin() + at.size()));
      cf::sort_by_key(q(), view, whole);
      std::iota(order.begin(), order.end(), std::size_t(0));
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return shown[a] < shown[b]; });
      std::vector<std::uint32_t> want_whole;
      for (std::size_t k : order) want_whole.push_back(std::uint32_t(k));
      EXPECT_EQ(whole.to_host(q()), want_whole);
    }
  }
  // Keys and values as views of one array are refused (they may overlap).
  auto both = cf::array<std::uint32_t>::from_host(q(), std::vector<std::uint32_t>(10, 1));
  EXPECT_CLFORGE_ERROR(cf::sort_by_key(q(), both.view(0, 5), both.view(5, 10)),
                       {"sort_by_key", "views of one array"});
  auto five = cf::array<std::uint32_t>(q(), 4);
  EXPECT_CLFORGE_ERROR(cf::sort_by_key(q(), both.view(0, 5), five), {"5 keys but 4 values"});
}

// Keys or values of another context: refused before anything is enqueued, as every template
// refuses them.
TEST(sort, arrays_of_another_context_are_refused) {
  cf::context other = cf::context::create_default();
  cf::queue other_q(other);
  auto keys = cf::array<std::uint32_t>::from_host(q(), std::vector<std::uint32_t>{3, 1, 2});
  auto values = cf::array<std::uint32_t>::from_host(q(), std::vector<std::uint32_t>{0, 1, 2});
  auto foreign_keys =
      cf::array<std::uint32_t>::from_host(other_q, std::vector<std::uint32_t>{3, 1, 2});
  auto foreign_values =
      cf::array<std::uint32_t>::from_host(other_q, std::vector<std::uint32_t>{0, 1, 2});
  for (cf::sort_algorithm alg : kAlgorithms) {
    cf::sort_options o;
    o.algorithm = alg;
    EXPECT_CLFORGE_ERROR(cf::sort(q(), foreign_keys, o), {"sort", "the keys", "another OpenCL"});
    EXPECT_CLFORGE_ERROR(cf::sort_by_key(q(), keys, foreign_values, o),
                         {"sort_by_key", "the values", "another OpenCL"});
    EXPECT_CLFORGE_ERROR(cf::sort_by_key(q(), foreign_keys, values, o),
                         {"sort_by_key", "the keys", "another OpenCL"});
  }
  EXPECT_EQ(foreign_keys.to_host(other_q), (std::vector<std::uint32_t>{3, 1, 2}));
  cf::sort(other_q, foreign_keys);
  EXPECT_EQ(foreign_keys.to_host(other_q), (std::vector<std::uint32_t>{1, 2, 3}));
}

namespace {
struct wide_value {
  std::uint64_t a, b;
};

// sort_by_key of random uint keys with values V on `q`, against std::stable_sort.
template <class V, class MakeValue>
void check_onesweep_values(cf::queue& q, std::size_t n, MakeValue make_value) {
  SCOPED_TRACE(testing::Message() << "n=" << n << " value bytes=" << sizeof(V));
  std::vector<cl_uint> keys = make_keys<cl_uint>(n, pattern::few_distinct, n + 5);
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = make_value(i);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  auto d_keys = cf::array<cl_uint>::from_host(q, keys);
  auto d_values = cf::array<V>::from_host(q, values);
  cf::sort_by_key(q, d_keys, d_values);
  const std::vector<cl_uint> got_keys = d_keys.to_host(q);
  const std::vector<V> got_values = d_values.to_host(q);
  std::size_t bad = n;
  for (std::size_t i = 0; i < n && bad == n; ++i)
    if (got_keys[i] != keys[order[i]] ||
        std::memcmp(&got_values[i], &values[order[i]], sizeof(V)) != 0)
      bad = i;
  EXPECT_EQ(bad, n) << "first wrong position";
}
}  // namespace

// Onesweep with values wider than 4 bytes, forced through the tuning (CLFORGE_TUNE / tuning::set
// "sort:path=onesweep"): the staged values are 8- and 16-byte types in local memory.
TEST(sort_by_key, onesweep_with_8_and_16_byte_values) {
  cf::context own = cf::context::create_default();
  cf::tuning::set(own, "sort",
                  "path=onesweep,group=64,items=16,portion=4096,onesweep_value_bytes=16");
  cf::queue oq(own);
  ASSERT_EQ(cf::detail::sort_path_for(own, sizeof(wide_value), cf::sort_options{}), "onesweep");
  ASSERT_EQ(cf::detail::sort_path_for(own, sizeof(std::uint64_t), cf::sort_options{}), "onesweep");
  const std::size_t tile = 64 * 16;
  for (std::size_t n :
       {std::size_t(0), std::size_t(1), tile - 1, tile, tile + 1, std::size_t(37) * tile + 5}) {
    check_onesweep_values<std::uint64_t>(
        oq, n, [](std::size_t i) { return std::uint64_t(i) * 0x9E3779B97F4A7C15ull; });
    check_onesweep_values<wide_value>(oq, n, [](std::size_t i) {
      return wide_value{std::uint64_t(i), ~std::uint64_t(i) * 3u};
    });
  }
  oq.finish();
}

// Onesweep's tile rankings: the count matrix, and lane counts (lane groups of 32 work-items) in
// their portable form; on NVIDIA devices also the warp-barrier and match.any.sync forms. One to
// eight lane groups per tile, partial tiles and partial lane groups.
TEST(sort, onesweep_rankings_agree_with_stable_sort) {
  const bool nvidia = ctx().info().vendor.find("NVIDIA") != std::string::npos;
  struct shape {
    const char* ranking;
    std::size_t group, items;
  };
  std::vector<shape> shapes = {{"lanes", 256, 4}, {"lanes", 32, 12}, {"matrix", 64, 8}};
  if (nvidia) {
    shapes.push_back({"nv_match", 256, 16});
    shapes.push_back({"nv_warp", 256, 16});
    shapes.push_back({"nv_warp", 64, 12});
  }
  for (const shape& sh : shapes) {
    SCOPED_TRACE(testing::Message() << sh.ranking << " " << sh.group << " x " << sh.items);
    cf::context own = cf::context::create_default();
    cf::tuning::set(own, "sort",
                    std::string("path=onesweep,portion=4096,onesweep_value_bytes=16,ranking=") +
                        sh.ranking + ",group=" + std::to_string(sh.group) +
                        ",items=" + std::to_string(sh.items));
    cf::queue oq(own);
    const std::size_t tile = sh.group * sh.items;
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(33), tile - 1,
                          tile, tile + 1, 3 * tile + 7, std::size_t(100003)})
      check_sort_on<std::uint32_t>(oq, n, pattern::random, cf::sort_algorithm::onesweep,
                                   cf::order::ascending, n);
    for (pattern how : {pattern::few_distinct, pattern::all_equal, pattern::reversed}) {
      check_sort_on<std::uint8_t>(oq, 5000, how, cf::sort_algorithm::onesweep,
                                  cf::order::descending);
      check_sort_on<std::int64_t>(oq, 5000, how, cf::sort_algorithm::onesweep,
                                  cf::order::ascending);
    }
    check_sort_on<float>(oq, 5000, pattern::specials, cf::sort_algorithm::onesweep,
                         cf::order::ascending);
    // Stability: few distinct keys, values that record the input order.
    for (std::size_t n : {tile - 1, 5 * tile + 3}) {
      check_onesweep_values<cl_uint>(oq, n, [](std::size_t i) { return cl_uint(i); });
      check_onesweep_values<wide_value>(oq, n, [](std::size_t i) {
        return wide_value{std::uint64_t(i), ~std::uint64_t(i)};
      });
    }
    oq.finish();
  }
  if (!nvidia) {
    cf::context own = cf::context::create_default();
    cf::tuning::set(own, "sort", "path=onesweep,ranking=nv_warp");
    cf::queue oq(own);
    auto keys = cf::array<cl_uint>::from_host(oq, std::vector<cl_uint>(100, 7));
    EXPECT_TRUE(clforge_test::contains_all(
        clforge_test::error_message([&] { cf::sort(oq, keys); }),
        {"nv_match and nv_warp need an NVIDIA device", "ranking=lanes"}));
  }
}
