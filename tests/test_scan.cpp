// SPDX-License-Identifier: MIT
// scan_kernel, inclusive_scan, exclusive_scan, copy_if, partition against plain C++ references,
// on both algorithms (look-back and reduce-then-scan), on random data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <numeric>
#include <optional>
#include <random>
#include <string>

#include <clforge/clforge.hpp>

#include "cache_lookups.hpp"
#include "expect_error.hpp"
#include "shared_device.hpp"
#include "tune_env.hpp"

// Also checks that the tuning fields deprecated in 0.2 (kernel_options::shape,
// kernel_shape::parse, scan_options' tile and chunk fields) keep working until 0.3.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace cf = clforge;

// A non-commutative, associative operation on 8 bytes (the look-back's flag + fence protocol):
// composition of affine maps x -> a * x + b modulo 2^32.
struct affine {
  cl_uint a, b;
};
CLFORGE_DECLARE_TYPE(affine, "affine")
static const char* kAffinePreamble = "typedef struct { uint a, b; } affine;\n";
static affine compose(affine f, affine g) {  // f, then g
  return {g.a * f.a, g.a * f.b + g.b};
}

namespace {

constexpr cf::scan_algorithm kAlgorithms[] = {cf::scan_algorithm::reduce_then_scan,
                                              cf::scan_algorithm::lookback};
const char* name_of(cf::scan_algorithm a) {
  return a == cf::scan_algorithm::lookback ? "lookback" : "reduce_then_scan";
}

using clforge_test::ctx;
using clforge_test::q;

std::vector<cl_int> random_ints(std::size_t n, unsigned seed, int lo = -100, int hi = 100) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<cl_int> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

cf::scan_options options_for(cf::scan_algorithm a, const std::string& name = "scan") {
  cf::scan_options o;
  o.algorithm = a;
  o.name = name;
  return o;
}

// Sizes around the tile (look-back tile or reduce-then-scan chunk granularity) and primes.
std::vector<std::size_t> sizes_for(std::size_t tile) {
  return {0, 1, 2, 31, tile - 1, tile, tile + 1, 2 * tile + 1, 7919, 104729};
}

template <class T, class Op>
std::vector<T> inclusive_reference(const std::vector<T>& in, Op op) {
  std::vector<T> out(in.size());
  if (in.empty()) return out;
  out[0] = in[0];
  for (std::size_t i = 1; i < in.size(); ++i) out[i] = op(out[i - 1], in[i]);
  return out;
}

// Index of the first mismatch, or -1.
template <class T>
long first_mismatch(const std::vector<T>& got, const std::vector<T>& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(got[i] == want[i])) return static_cast<long>(i);
  return -1;
}

}  // namespace

TEST(scan, integer_sums_exact_at_tile_edges_both_algorithms) {
  for (cf::scan_algorithm alg : kAlgorithms) {
    cf::scan_kernel<cl_int> inc(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                                "y[i] = item", cf::scan_kind::inclusive, options_for(alg, "inc"));
    cf::scan_kernel<cl_int> exc(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                                "y[i] = item", cf::scan_kind::exclusive, options_for(alg, "exc"));
    ASSERT_EQ(inc.algorithm(), alg);
    for (std::size_t n : sizes_for(inc.tile_size())) {
      SCOPED_TRACE(std::string(name_of(alg)) + " n=" + std::to_string(n));
      auto host = random_ints(n, static_cast<unsigned>(n) + 1);
      auto x = cf::array<cl_int>::from_host(q(), host);
      cf::array<cl_int> y(q(), n), z(q(), n);
      inc(q(), x, y);
      exc(q(), x, z);
      auto want = inclusive_reference(host, std::plus<cl_int>());
      auto got = y.to_host(q());
      EXPECT_EQ(first_mismatch(got, want), -1);
      // exclusive[i] == inclusive[i] - x[i], exclusive[0] == 0
      auto ex = z.to_host(q());
      for (std::size_t i = 0; i < n; ++i) want[i] -= host[i];
      EXPECT_EQ(first_mismatch(ex, want), -1);
    }
  }
}

TEST(scan, ten_million_and_one_both_algorithms) {
  const std::size_t n = 10'000'001;
  auto host = random_ints(n, 7);
  auto want = inclusive_reference(host, std::plus<cl_int>());
  auto x = cf::array<cl_int>::from_host(q(), host);
  for (cf::scan_algorithm alg : kAlgorithms) {
    SCOPED_TRACE(name_of(alg));
    cf::scan_kernel<cl_int> inc(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                                "y[i] = item", cf::scan_kind::inclusive, options_for(alg, "inc"));
    cf::array<cl_int> y(q(), n);
    inc(q(), x, y);
    EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
    // Calls reuse the look-back state (new epoch, nothing cleared): run again, still exact.
    y.fill(q(), 12345);
    inc(q(), x, y);
    EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
  }
}

TEST(scan, float_sums_exact_on_dyadic_values_and_bounded_on_random_ones) {
  const std::size_t n = 200'003;
  // Multiples of 1/8 in [-8, 8]: every partial sum is exact in float (|sum| < 2^21).
  std::vector<cl_float> dyadic(n), noisy(n);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d(-64, 64);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& v : dyadic) v = d(rng) / 8.0f;
  for (auto& v : noisy) v = u(rng);
  for (cf::scan_algorithm alg : kAlgorithms) {
    SCOPED_TRACE(name_of(alg));
    cf::scan_kernel<cl_float> inc(ctx(), "global const float* x, global float* y", "x[i]", "a + b",
                                  "0.0f", "y[i] = item", cf::scan_kind::inclusive,
                                  options_for(alg, "finc"));
    auto x = cf::array<cl_float>::from_host(q(), dyadic);
    cf::array<cl_float> y(q(), n);
    inc(q(), x, y);
    EXPECT_EQ(first_mismatch(y.to_host(q()), inclusive_reference(dyadic, std::plus<float>())), -1);

    // Arbitrary floats: the device sums in another order than a serial loop. Any order of
    // summation whose longest chain of additions has d terms errs by at most
    // d * 2^-24 * sum|x_j| (Higham, ch. 4). d is below chunk + chunks for reduce-then-scan and
    // below items + group + tiles for look-back; 2 * sqrt(n) + tile covers both here.
    auto xn = cf::array<cl_float>::from_host(q(), noisy);
    inc(q(), xn, y);
    auto got = y.to_host(q());
    const double depth = 2 * std::sqrt(double(n)) + double(inc.tile_size()) + 64;
    double exact = 0, magnitude = 0;
    for (std::size_t i = 0; i < n; ++i) {
      exact += noisy[i];
      magnitude += std::fabs(noisy[i]);
      const double bound = depth * std::ldexp(1.0, -24) * magnitude;
      if (std::fabs(got[i] - exact) > bound) {
        ADD_FAILURE() << "i=" << i << " got " << got[i] << " want " << exact << " bound " << bound;
        break;
      }
    }
  }
}

TEST(scan, max_scan_and_exclusive_identity) {
  const std::size_t n = 50'001;
  auto host = random_ints(n, 11, -1'000'000, 1'000'000);
  auto x = cf::array<cl_int>::from_host(q(), host);
  auto want = inclusive_reference(host, [](int a, int b) { return std::max(a, b); });
  for (cf::scan_algorithm alg : kAlgorithms) {
    SCOPED_TRACE(name_of(alg));
    // Inclusive output and prev_item (always exclusive) from one kernel.
    cf::scan_kernel<cl_int> k(ctx(), "global const int* x, global int* y, global int* z", "x[i]",
                              "max(a, b)", "INT_MIN", "y[i] = item; z[i] = prev_item",
                              cf::scan_kind::inclusive, options_for(alg, "maxscan"));
    cf::array<cl_int> y(q(), n), z(q(), n);
    k(q(), x, y, z);
    EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
    auto prev = z.to_host(q());
    EXPECT_EQ(prev[0], INT32_MIN);
    std::vector<cl_int> shifted(n);
    shifted[0] = INT32_MIN;
    std::copy(want.begin(), want.end() - 1, shifted.begin() + 1);
    EXPECT_EQ(first_mismatch(prev, shifted), -1);
  }
}

TEST(scan, commutative_operations_publish_their_aggregate_early) {
  // A look-back tile whose operation commutes publishes its aggregate, reduced in the order its
  // elements arrive, before it scans them: integer +, min and max without a declaration (int:
  // status and value in one word; long: apart), xor declared by scan_options::commutative.
  // Vector and scalar reads, one and several look-back work-items, one group per tile and
  // persistent groups, sizes around the tile.
  auto host = random_ints(30'011, 83, -1'000'000, 1'000'000);
  std::vector<cl_long> wide(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) wide[i] = cl_long(host[i]) * 3'000'000'001LL;
  const auto max_op = [](cl_int a, cl_int b) { return std::max(a, b); };
  for (const std::string spec : {"8x64s", "3x32", "8x32w8lsp2", "4x16w4p1"}) {
    SCOPED_TRACE(spec);
    cf::scan_options o = options_for(cf::scan_algorithm::lookback, "commuting");
    o.tile(spec);
    cf::scan_kernel<cl_int> sum(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                                "y[i] = item", cf::scan_kind::inclusive, o);
    cf::scan_kernel<cl_int> max(ctx(), "global const int* x, global int* y", "x[i]", "max(b,a)",
                                "INT_MIN", "y[i] = item", cf::scan_kind::inclusive, o);
    cf::scan_kernel<cl_long> wide_sum(ctx(), "global const long* x, global long* y", "x[i]",
                                      "b + a", "0", "y[i] = item", cf::scan_kind::inclusive, o);
    cf::scan_options declared = o;
    declared.commutative = true;
    cf::scan_kernel<cl_int> xor_scan(ctx(), "global const int* x, global int* y", "x[i]", "a ^ b",
                                     "0", "y[i] = item", cf::scan_kind::inclusive, declared);
    for (const auto* k : {&sum, &max, &xor_scan})
      EXPECT_NE(k->source().find("#define CLFORGE_EARLY 1"), std::string::npos);
    EXPECT_NE(wide_sum.source().find("#define CLFORGE_EARLY 1"), std::string::npos);
    const std::size_t tile = sum.tile_size();
    for (std::size_t n : {std::size_t(0), std::size_t(1), tile - 1, tile, tile + 1,
                          std::size_t(7919), host.size()}) {
      SCOPED_TRACE("n=" + std::to_string(n));
      const std::vector<cl_int> part(host.begin(), host.begin() + n);
      const std::vector<cl_long> wide_part(wide.begin(), wide.begin() + n);
      auto x = cf::array<cl_int>::from_host(q(), part);
      auto xw = cf::array<cl_long>::from_host(q(), wide_part);
      cf::array<cl_int> y(q(), n);
      cf::array<cl_long> yw(q(), n);
      sum(q(), x, y);
      EXPECT_EQ(first_mismatch(y.to_host(q()), inclusive_reference(part, std::plus<cl_int>())), -1);
      max(q(), x, y);
      EXPECT_EQ(first_mismatch(y.to_host(q()), inclusive_reference(part, max_op)), -1);
      xor_scan(q(), x, y);
      EXPECT_EQ(first_mismatch(y.to_host(q()), inclusive_reference(part, std::bit_xor<cl_int>())),
                -1);
      wide_sum(q(), xw, yw);
      EXPECT_EQ(
          first_mismatch(yw.to_host(q()), inclusive_reference(wide_part, std::plus<cl_long>())),
          -1);
    }
  }
  // Not early: floating-point sums, other integer operations undeclared, segmented scans (a
  // tile's aggregate depends on where its segments start; the declaration is ignored).
  const cf::scan_options o = options_for(cf::scan_algorithm::lookback, "not_commuting");
  cf::scan_kernel<cl_float> float_sum(ctx(), "global const float* x, global float* y", "x[i]",
                                      "a + b", "0", "y[i] = item", cf::scan_kind::inclusive, o);
  cf::scan_kernel<cl_int> undeclared(ctx(), "global const int* x, global int* y", "x[i]", "a ^ b",
                                     "0", "y[i] = item", cf::scan_kind::inclusive, o);
  EXPECT_NE(float_sum.source().find("#define CLFORGE_EARLY 0"), std::string::npos);
  EXPECT_NE(undeclared.source().find("#define CLFORGE_EARLY 0"), std::string::npos);
  cf::scan_options so = options_for(cf::scan_algorithm::lookback, "commuting_segments");
  so.commutative = true;
  so.is_segment_start = "i % 1000 == 0";
  cf::scan_kernel<cl_int> seg(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                              "y[i] = item", cf::scan_kind::inclusive, so);
  EXPECT_NE(seg.source().find("#define CLFORGE_EARLY 0"), std::string::npos);
  auto x = cf::array<cl_int>::from_host(q(), host);
  cf::array<cl_int> y(q(), host.size());
  seg(q(), x, y);
  std::vector<cl_int> want(host.size());
  for (std::size_t i = 0; i < host.size(); ++i)
    want[i] = i % 1000 == 0 ? host[i] : want[i - 1] + host[i];
  EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
  EXPECT_FALSE(cf::detail::known_commutative("int", "a + b + 1"));
  EXPECT_FALSE(cf::detail::known_commutative("int", "a - b"));
  EXPECT_FALSE(cf::detail::known_commutative("my_struct", "a + b"));
  EXPECT_TRUE(cf::detail::known_commutative("ulong", " min( a ,b ) "));
}

TEST(scan, struct_scan_with_a_non_commutative_operation) {
  const std::size_t n = 70'001;
  std::mt19937 rng(5);
  std::vector<affine> host(n);
  for (auto& f : host) f = {static_cast<cl_uint>(rng() | 1u), static_cast<cl_uint>(rng())};
  auto want = inclusive_reference(host, compose);
  auto x = cf::array<affine>::from_host(q(), host);
  for (cf::scan_algorithm alg : kAlgorithms) {
    SCOPED_TRACE(name_of(alg));
    cf::scan_options o = options_for(alg, "affine_scan");
    o.preamble = kAffinePreamble;
    cf::scan_kernel<affine> k(ctx(), "global const affine* x, global affine* y", "x[i]",
                              "(affine){b.a * a.a, b.a * a.b + b.b}", "(affine){1u, 0u}",
                              "y[i] = item", cf::scan_kind::inclusive, o);
    cf::array<affine> y(q(), n);
    k(q(), x, y);
    auto got = y.to_host(q());
    long bad = -1;
    for (std::size_t i = 0; i < n && bad < 0; ++i)
      if (got[i].a != want[i].a || got[i].b != want[i].b) bad = static_cast<long>(i);
    EXPECT_EQ(bad, -1);
  }
}

TEST(scan, segmented_sums_both_algorithms) {
  const std::size_t n = 30'011;
  auto host = random_ints(n, 13);
  auto x = cf::array<cl_int>::from_host(q(), host);
  std::mt19937 rng(17);
  std::vector<std::pair<std::string, std::vector<cl_uchar>>> patterns;
  patterns.push_back({"every element starts a segment", std::vector<cl_uchar>(n, 1)});
  std::vector<cl_uchar> whole(n, 0);
  patterns.push_back({"one segment, no flag", whole});
  whole[0] = 1;
  patterns.push_back({"one segment, flag at 0", whole});
  std::vector<cl_uchar> random(n), sparse(n);
  for (auto& f : random) f = rng() % 7 == 0;
  for (auto& f : sparse) f = rng() % 5000 == 0;
  patterns.push_back({"random segments", random});
  patterns.push_back({"long random segments", sparse});

  for (cf::scan_algorithm alg : kAlgorithms) {
    cf::scan_options o = options_for(alg, "segsum");
    o.is_segment_start = "flags[i]";
    cf::scan_kernel<cl_int> inc(ctx(),
                                "global const int* x, global const uchar* flags, global int* y",
                                "x[i]", "a + b", "0", "y[i] = item", cf::scan_kind::inclusive, o);
    cf::scan_kernel<cl_int> exc(ctx(),
                                "global const int* x, global const uchar* flags, global int* y",
                                "x[i]", "a + b", "0", "y[i] = item", cf::scan_kind::exclusive, o);
    for (const auto& [what, flags] : patterns) {
      SCOPED_TRACE(std::string(name_of(alg)) + ": " + what);
      std::vector<cl_int> want(n);
      for (std::size_t i = 0; i < n; ++i)
        want[i] = (i == 0 || flags[i]) ? host[i] : want[i - 1] + host[i];
      auto f = cf::array<cl_uchar>::from_host(q(), flags);
      cf::array<cl_int> y(q(), n);
      inc(q(), x, f, y);
      EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
      exc(q(), x, f, y);
      for (std::size_t i = 0; i < n; ++i) want[i] -= host[i];
      EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
    }
  }
}

TEST(scan, last_item_is_the_total_on_both_algorithms) {
  const std::size_t n = 12'345;
  auto host = random_ints(n, 19);
  auto x = cf::array<cl_int>::from_host(q(), host);
  const cl_int total = std::accumulate(host.begin(), host.end(), 0);
  for (cf::scan_algorithm alg : kAlgorithms) {
    SCOPED_TRACE(name_of(alg));
    // Reversed inclusive sums: y[i] = total - (exclusive at i) = x[i] + ... + x[n-1].
    cf::scan_kernel<cl_int> k(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                              "y[i] = last_item - prev_item", cf::scan_kind::inclusive,
                              options_for(alg, "suffix"));
    cf::array<cl_int> y(q(), n);
    k(q(), x, y);
    auto got = y.to_host(q());
    EXPECT_EQ(got[0], total);
    cl_int suffix = 0;
    long bad = -1;
    for (std::size_t i = n; i-- > 0;) {
      suffix += host[i];
      if (got[i] != suffix && bad < 0) bad = static_cast<long>(i);
    }
    EXPECT_EQ(bad, -1);
  }
}

TEST(scan, copy_if_and_partition_keep_order) {
  auto run = [](const char* what) {
    SCOPED_TRACE(what);
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(65'537)}) {
      auto host = random_ints(n, static_cast<unsigned>(n) + 23);
      auto x = cf::array<cl_int>::from_host(q(), host);
      cf::array<cl_int> out(q(), n);
      for (const char* pred : {"x > -1000", "x > 1000", "x % 3 == 0"}) {
        SCOPED_TRACE(std::string(pred) + " n=" + std::to_string(n));
        std::vector<cl_int> kept, rest;
        for (std::size_t i = 0; i < n; ++i) {
          const int v = host[i];
          const bool keep = std::string(pred) == "x > -1000"  ? v > -1000
                            : std::string(pred) == "x > 1000" ? v > 1000
                                                              : v % 3 == 0;
          (keep ? kept : rest).push_back(v);
        }
        std::size_t count = cf::copy_if(q(), x, out, pred);
        ASSERT_EQ(count, kept.size());
        auto got = out.to_host(q());
        got.resize(count);
        EXPECT_EQ(got, kept);
        count = cf::partition(q(), x, out, pred);
        ASSERT_EQ(count, kept.size());
        got = out.to_host(q());
        kept.insert(kept.end(), rest.begin(), rest.end());
        EXPECT_EQ(got, kept);
      }
    }
  };
  run("automatic algorithm");
  // The helpers cache kernels per context: a new context sees the forced algorithm.
  {
    clforge_test::tune_env tune("scan:algorithm=lookback");
    cf::context lookback_ctx = cf::context::create_default();
    cf::queue lq(lookback_ctx);
    std::vector<cl_int> host = random_ints(100'003, 29);
    auto x = cf::array<cl_int>::from_host(lq, host);
    cf::array<cl_int> out(lq, host.size());
    std::vector<cl_int> kept;
    for (int v : host)
      if (v < 0) kept.push_back(v);
    EXPECT_EQ(cf::copy_if(lq, x, out, "x < 0"), kept.size());
    auto got = out.to_host(lq);
    got.resize(kept.size());
    EXPECT_EQ(got, kept);
    // partition needs last_item: on look-back that is a first pass, then the scan.
    const std::size_t negatives = kept.size();
    for (int v : host)
      if (v >= 0) kept.push_back(v);
    EXPECT_EQ(cf::partition(lq, x, out, "x < 0"), negatives);
    EXPECT_EQ(out.to_host(lq), kept);
  }
}

// A tuned group up to the device's largest runs on both algorithms: where the kernels run fewer
// work-items (registers), they are built again for as many as they run.
TEST(scan, the_largest_tuned_group_runs_both_algorithms) {
  struct tuning_scope {
    explicit tuning_scope(const std::string& settings) { cf::tuning::set(ctx(), "scan", settings); }
    ~tuning_scope() { cf::tuning::reset(ctx()); }
  };
  const std::string largest =
      std::to_string(std::min<std::size_t>(4096, ctx().info().max_work_group_size));
  for (const std::string& settings : {"algorithm=lookback, group=" + largest,
                                      "algorithm=lookback, group=" + largest + ", groups_per_cu=2",
                                      "algorithm=reduce_then_scan, rts_group=" + largest}) {
    SCOPED_TRACE(settings);
    tuning_scope scope(settings);
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4097), std::size_t(300007)}) {
      auto host = random_ints(n, static_cast<unsigned>(n) + 71);
      auto x = cf::array<cl_int>::from_host(q(), host);
      cf::array<cl_int> y(q(), n);
      cf::inclusive_scan(q(), x, y);
      EXPECT_EQ(first_mismatch(y.to_host(q()), inclusive_reference(host, std::plus<cl_int>())), -1)
          << "n=" << n;
      std::vector<cl_int> kept;
      std::copy_if(host.begin(), host.end(), std::back_inserter(kept),
                   [](cl_int v) { return v > 10; });
      const std::size_t count = cf::copy_if(q(), x, y, "x > 10");
      std::vector<cl_int> got = y.to_host(q());
      got.resize(count);
      EXPECT_EQ(got, kept) << "n=" << n;
    }
  }
}

TEST(scan, inclusive_and_exclusive_helpers_are_cached) {
  const std::size_t n = 4099;
  auto host = random_ints(n, 31);
  auto x = cf::array<cl_int>::from_host(q(), host);
  cf::array<cl_int> y(q(), n);
  cf::inclusive_scan(q(), x, y);
  auto want = inclusive_reference(host, std::plus<cl_int>());
  EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
  const std::size_t before = clforge_test::cache_lookups(ctx());
  cf::inclusive_scan(q(), x, y);
  cf::exclusive_scan(q(), x, y);
  cf::exclusive_scan(q(), x, y);
  // One new program (the exclusive scan), looked up once: repeated calls touch no cache.
  EXPECT_EQ(clforge_test::cache_lookups(ctx()), before + 1);
  for (std::size_t i = 0; i < n; ++i) want[i] -= host[i];
  EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
  // In place, and with another operation.
  cf::inclusive_scan(q(), x, x, "max(a, b)", "INT_MIN");
  EXPECT_EQ(first_mismatch(x.to_host(q()),
                           inclusive_reference(host, [](int a, int b) { return std::max(a, b); })),
            -1);
}

TEST(scan, bad_input_is_a_clear_error) {
  cf::scan_kernel<cl_int> k(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                            "y[i] = item");
  cf::array<cl_int> x(q(), 100), y(q(), 100), short_y(q(), 99);
  cf::array<cl_float> wrong(q(), 100);
  auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const cf::error& e) {
      return e.what();
    }
    return "(no error)";
  };
  std::string e = message([&] { k(q(), x); });
  EXPECT_NE(e.find("takes 2 argument(s)"), std::string::npos) << e;
  e = message([&] { k(q(), x, 3); });
  EXPECT_NE(e.find("argument 2 (y) expects array<int>"), std::string::npos) << e;
  e = message([&] { k(q(), x, wrong); });
  EXPECT_NE(e.find("got array<float>"), std::string::npos) << e;
  e = message([&] { k(q(), x, short_y); });
  EXPECT_NE(e.find("(y) has 99 elements"), std::string::npos) << e;
  e = message([&] {
    cf::scan_kernel<cl_int>(ctx(), "global const int* x, global int* y", "x[i] +", "a + b", "0",
                            "y[i] = item", cf::scan_kind::inclusive,
                            options_for(kAlgorithms[0], "broken"));
  });
  EXPECT_NE(e.find("broken"), std::string::npos) << e;
  e = message([&] {
    cf::scan_kernel<cl_int>(ctx(), "global const int* x, global int* n", "x[i]", "a + b", "0",
                            "n[i] = item");
  });
  EXPECT_NE(e.find("reserved"), std::string::npos) << e;
  e = message([&] {
    cf::scan_kernel<cl_int>(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                            "y[i] = item", cf::scan_kind::inclusive,
                            options_for(kAlgorithms[0], "not a name"));
  });
  EXPECT_NE(e.find("not a C identifier"), std::string::npos) << e;
  cf::array<cl_int> small_out(q(), 10);
  e = message([&] { cf::copy_if(q(), x, small_out, "x > 0"); });
  EXPECT_NE(e.find("copy_if: the output has 10 elements"), std::string::npos) << e;
  e = message([&] { cf::copy_if(q(), x, x, "x > 0"); });
  EXPECT_NE(e.find("another array"), std::string::npos) << e;
}

namespace {
template <class T>
void check_sum_of(cf::scan_algorithm alg, const std::string& name, std::size_t n) {
  SCOPED_TRACE(cf::type_name<T>() + " " + name_of(alg));
  const std::string t = cf::type_name<T>();
  cf::scan_kernel<T> k(ctx(), "global const " + t + "* x, global " + t + "* y", "x[i]", "a + b",
                       "0", "y[i] = item", cf::scan_kind::inclusive, options_for(alg, name));
  auto ints = random_ints(n, 37, -20, 20);
  std::vector<T> host(ints.begin(), ints.end());
  auto x = cf::array<T>::from_host(q(), host);
  cf::array<T> y(q(), n);
  k(q(), x, y);
  // short wraps on the device as in C++ (computed in int, then truncated).
  auto want = inclusive_reference(host, [](T a, T b) { return static_cast<T>(a + b); });
  EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
}
}  // namespace

TEST(scan, other_scalar_types_both_algorithms) {
  // 2-byte values share the look-back's 64-bit word with the status; 8-byte ones use the
  // flag + fence protocol.
  // (One algorithm each: every kernel is a compile on PoCL, and the value's width matters to
  // the look-back's publishing only.)
  check_sum_of<cl_short>(cf::scan_algorithm::lookback, "sum_short", 40'009);
  check_sum_of<cl_long>(cf::scan_algorithm::lookback, "sum_long", 40'009);
  if (ctx().info().has_fp64) {
    check_sum_of<cl_double>(cf::scan_algorithm::lookback, "sum_double", 40'009);
    check_sum_of<cl_double>(cf::scan_algorithm::reduce_then_scan, "sum_double", 40'009);
  }
}

TEST(scan, lookback_tile_shapes_from_options_and_environment) {
  for (auto [items, group] : {std::pair<std::size_t, std::size_t>{1, 1}, {3, 32}, {5, 100}}) {
    SCOPED_TRACE(std::to_string(items) + "x" + std::to_string(group));
    cf::scan_options o = options_for(cf::scan_algorithm::lookback, "shaped");
    o.items_per_thread = items;
    o.group_size = group;
    cf::scan_kernel<cl_int> k(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                              "y[i] = item", cf::scan_kind::exclusive, o);
    EXPECT_EQ(k.tile_size(), items * group);
    for (std::size_t n : {k.tile_size() - 1, k.tile_size() + 1, std::size_t(3001)}) {
      if (n == 0) continue;
      auto host = random_ints(n, 41);
      auto x = cf::array<cl_int>::from_host(q(), host);
      cf::array<cl_int> y(q(), n);
      k(q(), x, y);
      auto want = inclusive_reference(host, std::plus<cl_int>());
      for (std::size_t i = 0; i < n; ++i) want[i] -= host[i];
      EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1) << "n=" << n;
    }
  }
  std::optional<clforge_test::tune_env> tune(std::in_place, "scan:items=7,group=16");
  cf::scan_kernel<cl_int> from_env(ctx(), "global const int* x, global int* y", "x[i]", "a + b",
                                   "0", "y[i] = item", cf::scan_kind::inclusive,
                                   options_for(cf::scan_algorithm::lookback, "shaped"));
  EXPECT_EQ(from_env.tile_size(), 7u * 16u);
  EXPECT_EQ(cf::scan_options().tile("40x256w32lp8").lookback_groups_per_cu, 8u);
  EXPECT_THROW(cf::scan_options().tile("40x"), cf::error);
  tune->set("scan:items=5,group=32,window=4,registers=0,groups_per_cu=2");
  cf::scan_kernel<cl_int> flagged(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                                  "y[i] = item", cf::scan_kind::inclusive,
                                  options_for(cf::scan_algorithm::lookback, "shaped"));
  EXPECT_EQ(flagged.tile_size(), 5u * 32u);
  EXPECT_NE(flagged.source().find("#define CLFORGE_REGISTERS 0"), std::string::npos);
  EXPECT_NE(flagged.source().find("#define CLFORGE_WINDOW 4"), std::string::npos);
  EXPECT_NE(flagged.source().find("#define CLFORGE_PERSISTENT 1"), std::string::npos);
  {
    auto host = random_ints(1001, 61);
    auto x = cf::array<cl_int>::from_host(q(), host);
    cf::array<cl_int> y(q(), host.size());
    flagged(q(), x, y);
    EXPECT_EQ(first_mismatch(y.to_host(q()), inclusive_reference(host, std::plus<cl_int>())), -1);
  }
  tune->set("scan:items=7by16");
  EXPECT_THROW(cf::scan_kernel<cl_int>(ctx(), "global const int* x, global int* y", "x[i]", "a + b",
                                       "0", "y[i] = item", cf::scan_kind::inclusive,
                                       options_for(cf::scan_algorithm::lookback, "shaped")),
               cf::error);
  tune.reset();
  // A shape that does not fit local memory is refused with the numbers.
  cf::scan_options huge = options_for(cf::scan_algorithm::lookback, "shaped");
  huge.items_per_thread = 64;  // the largest values allowed: 1 MiB of int and more
  huge.group_size = 4096;
  try {
    cf::scan_kernel<cl_int>(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                            "y[i] = item", cf::scan_kind::inclusive, huge);
    ADD_FAILURE() << "no error";
  } catch (const cf::error& e) {
    EXPECT_NE(std::string(e.what()).find("local memory"), std::string::npos) << e.what();
  }
}

TEST(scan, two_queues_share_a_kernel) {
  cf::scan_kernel<cl_int> k(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                            "y[i] = item", cf::scan_kind::inclusive,
                            options_for(cf::scan_algorithm::lookback, "inc"));
  cf::queue other(ctx());
  const std::size_t n = 20'011;
  auto host = random_ints(n, 43);
  auto want = inclusive_reference(host, std::plus<cl_int>());
  auto x = cf::array<cl_int>::from_host(q(), host);
  cf::array<cl_int> y1(q(), n), y2(q(), n);
  for (int round = 0; round < 3; ++round) {
    k(q(), x, y1);
    k(other, x, y2);
    EXPECT_EQ(first_mismatch(y1.to_host(q()), want), -1);
    EXPECT_EQ(first_mismatch(y2.to_host(other), want), -1);
  }
}

TEST(scan, lookback_windows_packed_unpacked_and_segmented) {
  const std::size_t n = 30'011;
  auto host = random_ints(n, 47);
  auto x = cf::array<cl_int>::from_host(q(), host);
  std::vector<cl_uchar> flags(n);
  std::mt19937 rng(53);
  for (auto& f : flags) f = rng() % 900 == 0;
  auto d_flags = cf::array<cl_uchar>::from_host(q(), flags);
  std::vector<affine> maps(n);
  for (auto& f : maps) f = {static_cast<cl_uint>(rng() | 1u), static_cast<cl_uint>(rng())};
  auto d_maps = cf::array<affine>::from_host(q(), maps);
  // window, items in registers, persistent groups per compute unit (0: one group per tile)
  struct variant {
    std::size_t window;
    int in_registers;
    std::size_t groups_per_cu;
  };
  for (variant v : {variant{8, 1, 0}, variant{64, 0, 2}, variant{1, 0, 1}, variant{1, 1, 3}}) {
    SCOPED_TRACE("window " + std::to_string(v.window) + (v.in_registers ? " registers" : " local") +
                 " groups/cu " + std::to_string(v.groups_per_cu));
    cf::scan_options o = options_for(cf::scan_algorithm::lookback, "windowed");
    o.lookback_window = v.window;
    o.lookback_in_registers = v.in_registers;
    o.lookback_groups_per_cu = v.groups_per_cu;
    o.items_per_thread = 2;  // small tiles: many tiles, long look-backs
    o.group_size = 64;
    cf::scan_kernel<cl_int> sum(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                                "y[i] = item", cf::scan_kind::inclusive, o);
    cf::array<cl_int> y(q(), n);
    sum(q(), x, y);
    EXPECT_EQ(first_mismatch(y.to_host(q()), inclusive_reference(host, std::plus<cl_int>())), -1);

    // Segmented and struct (flag + fence) scans for the first two variants only: each
    // variant is a compile on PoCL.
    if (v.window == 1) continue;
    cf::scan_options so = o;
    so.is_segment_start = "flags[i]";
    cf::scan_kernel<cl_int> seg(ctx(),
                                "global const int* x, global const uchar* flags, global int* y",
                                "x[i]", "a + b", "0", "y[i] = item", cf::scan_kind::inclusive, so);
    seg(q(), x, d_flags, y);
    std::vector<cl_int> want(n);
    for (std::size_t i = 0; i < n; ++i)
      want[i] = (i == 0 || flags[i]) ? host[i] : want[i - 1] + host[i];
    EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);

    cf::scan_options ao = o;
    ao.preamble = kAffinePreamble;
    cf::scan_kernel<affine> composed(ctx(), "global const affine* x, global affine* y", "x[i]",
                                     "(affine){b.a * a.a, b.a * a.b + b.b}", "(affine){1u, 0u}",
                                     "y[i] = item", cf::scan_kind::inclusive, ao);
    cf::array<affine> ya(q(), n);
    composed(q(), d_maps, ya);
    auto got = ya.to_host(q());
    auto expected = inclusive_reference(maps, compose);
    long bad = -1;
    for (std::size_t i = 0; i < n && bad < 0; ++i)
      if (got[i].a != expected[i].a || got[i].b != expected[i].b) bad = static_cast<long>(i);
    EXPECT_EQ(bad, -1);
  }
}

TEST(scan, lookback_layouts) {
  // s: striped through local memory, with a plain load/store of full tiles as striped
  // 4-vectors (scalar path for partial tiles and other snippets); no letter: striped.
  auto host = random_ints(30'011, 71);
  auto x = cf::array<cl_int>::from_host(q(), host);
  std::vector<cl_uchar> flags(host.size());
  std::mt19937 rng(73);
  for (auto& f : flags) f = rng() % 300 == 0;
  flags[5] = 1;
  auto d_flags = cf::array<cl_uchar>::from_host(q(), flags);
  for (const std::string spec : {"8x64", "8x32w8p2", "3x32", "6x16sp1", "4x32s", "8x64s",
                                 "12x16w4s", "6x16s", "8x64ls", "3x32w4l", "8x32lsp2"}) {
    SCOPED_TRACE(spec);
    cf::scan_options o = options_for(cf::scan_algorithm::lookback, "layouts");
    o.tile(spec);
    cf::scan_kernel<cl_int> inc(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                                "y[i] = item", cf::scan_kind::inclusive, o);
    const bool vector =
        o.lookback_layout == cf::scan_layout::striped_vector && o.items_per_thread % 4 == 0;
    EXPECT_EQ(inc.source().find("#define CLFORGE_VECTOR_OUT 1") != std::string::npos, vector);
    const std::size_t tile = inc.tile_size();
    for (std::size_t n :
         {std::size_t(1), tile - 1, tile, tile + 1, std::size_t(7919), host.size()}) {
      std::vector<cl_int> part(host.begin(), host.begin() + n);
      auto xp = cf::array<cl_int>::from_host(q(), part);
      cf::array<cl_int> y(q(), n);
      inc(q(), xp, y);
      EXPECT_EQ(first_mismatch(y.to_host(q()), inclusive_reference(part, std::plus<cl_int>())), -1)
          << "n=" << n;
    }
    // l: items scanned in local memory, the output adding the prefixes as it writes
    if (spec != "8x64" && spec != "3x32" && spec != "8x64s" && spec != "8x64ls" &&
        spec != "3x32w4l")
      continue;  // each kernel: a compile on PoCL
    const std::size_t n = host.size();
    cf::array<cl_int> y(q(), n);
    // Exclusive (vector load, scalar store) and a non-plain input (scalar load).
    cf::scan_kernel<cl_int> exc(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                                "y[i] = item", cf::scan_kind::exclusive, o);
    exc(q(), x, y);
    auto want = inclusive_reference(host, std::plus<cl_int>());
    for (std::size_t i = 0; i < n; ++i) want[i] -= host[i];
    EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
    cf::scan_kernel<cl_int> twice(ctx(), "global const int* x, global int* y", "2 * x[i]", "a + b",
                                  "0", "y[i] = item + 1", cf::scan_kind::inclusive, o);
    EXPECT_NE(twice.source().find("#define CLFORGE_VECTOR_IN 0"), std::string::npos);
    twice(q(), x, y);
    want = inclusive_reference(host, std::plus<cl_int>());
    for (auto& w : want) w = 2 * w + 1;
    EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
    // Segmented, inclusive and exclusive.
    cf::scan_options so = o;
    so.is_segment_start = "flags[i]";
    for (cf::scan_kind kind : {cf::scan_kind::inclusive, cf::scan_kind::exclusive}) {
      cf::scan_kernel<cl_int> seg(ctx(),
                                  "global const int* x, global const uchar* flags, global int* y",
                                  "x[i]", "a + b", "0", "y[i] = item", kind, so);
      seg(q(), x, d_flags, y);
      std::vector<cl_int> sw(n);
      for (std::size_t i = 0; i < n; ++i)
        sw[i] = (i == 0 || flags[i]) ? host[i] : sw[i - 1] + host[i];
      if (kind == cf::scan_kind::exclusive)
        for (std::size_t i = 0; i < n; ++i) sw[i] -= host[i];
      EXPECT_EQ(first_mismatch(y.to_host(q()), sw), -1);
    }
    // last_item (a second, total-only kernel) and prev_item.
    cf::scan_kernel<cl_int> suffix(ctx(), "global const int* x, global int* y", "x[i]", "a + b",
                                   "0", "y[i] = last_item - prev_item", cf::scan_kind::inclusive,
                                   o);
    suffix(q(), x, y);
    auto got = y.to_host(q());
    cl_int sum = 0;
    long bad = -1;
    for (std::size_t i = n; i-- > 0;) {
      sum += host[i];
      if (got[i] != sum && bad < 0) bad = static_cast<long>(i);
    }
    EXPECT_EQ(bad, -1);
  }
  EXPECT_EQ(cf::scan_options().tile("32x256w32s").lookback_layout, cf::scan_layout::striped_vector);
  EXPECT_EQ(cf::scan_options().tile("40x256w32").lookback_layout, cf::scan_layout::striped);
  EXPECT_EQ(cf::scan_options().tile("40x256sp4").lookback_groups_per_cu, 4u);
  // The blocked layouts b, v and a were removed: a clear error naming the valid ones.
  for (const char* removed : {"40x256w32v", "40x256bp4", "32x256a"})
    EXPECT_CLFORGE_ERROR(cf::scan_options().tile(removed),
                         {removed, "no layout", "s: striped with 4-vector", "none: striped"});
  EXPECT_THROW(cf::scan_options().tile("40x256sb"), cf::error);
  // A value outside the enum is an error too, not a silently chosen layout.
  cf::scan_options bad = options_for(cf::scan_algorithm::lookback, "bad_layout");
  bad.lookback_layout = static_cast<cf::scan_layout>(7);
  EXPECT_CLFORGE_ERROR(
      cf::scan_kernel<cl_int>(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                              "y[i] = item", cf::scan_kind::inclusive, bad),
      {"lookback_layout", "striped_vector"});
}

TEST(scan, reduce_then_scan_lanes_and_chunks) {
  for (std::size_t lanes : {std::size_t(1), std::size_t(3)}) {
    cf::scan_options o = options_for(cf::scan_algorithm::reduce_then_scan, "chunked");
    o.lanes = lanes;
    o.chunk_granularity = 16;
    o.max_chunks = 10;
    cf::scan_kernel<cl_int> k(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                              "y[i] = item", cf::scan_kind::exclusive, o);
    for (std::size_t n :
         {std::size_t(1), std::size_t(15), std::size_t(17), std::size_t(161), std::size_t(5003)}) {
      SCOPED_TRACE("lanes " + std::to_string(lanes) + " n=" + std::to_string(n));
      auto host = random_ints(n, 59);
      auto x = cf::array<cl_int>::from_host(q(), host);
      cf::array<cl_int> y(q(), n);
      k(q(), x, y);
      auto want = inclusive_reference(host, std::plus<cl_int>());
      for (std::size_t i = 0; i < n; ++i) want[i] -= host[i];
      EXPECT_EQ(first_mismatch(y.to_host(q()), want), -1);
    }
  }
}

TEST(scan, out_of_order_queue_keeps_calls_apart) {
  // Both algorithms enqueue several dependent commands and keep per-queue state; on an
  // out-of-order queue barriers keep them apart. Calls back to back (with last_item: two
  // look-back passes), each into its own output, then copy_if's count read back.
  auto made = clforge_test::out_of_order_queue(ctx());
  if (!made) GTEST_SKIP() << "the device has no out-of-order queues";
  cf::queue& ooo = *made;
  const std::size_t n = 50'021;
  auto host = random_ints(n, 91);
  auto x = cf::array<cl_int>::from_host(q(), host);
  const auto want = inclusive_reference(host, std::plus<cl_int>());
  const cl_int total = want.back();
  q().finish();
  for (cf::scan_algorithm alg : kAlgorithms) {
    SCOPED_TRACE(name_of(alg));
    cf::scan_kernel<cl_int> inc(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                                "y[i] = item", cf::scan_kind::inclusive, options_for(alg, "ooo"));
    cf::scan_kernel<cl_int> suffix(ctx(), "global const int* x, global int* y", "x[i]", "a + b",
                                   "0", "y[i] = last_item - item", cf::scan_kind::inclusive,
                                   options_for(alg, "ooo_suffix"));
    std::vector<cf::array<cl_int>> outs;
    for (int j = 0; j < 8; ++j) outs.emplace_back(q(), n);
    q().finish();
    for (int j = 0; j < 8; ++j) (j % 2 ? suffix : inc)(ooo, x, outs[j]);
    ooo.finish();
    for (int j = 0; j < 8; ++j) {
      auto got = outs[j].to_host(q());
      long bad = -1;
      for (std::size_t i = 0; i < n && bad < 0; ++i)
        if (got[i] != (j % 2 ? total - want[i] : want[i])) bad = static_cast<long>(i);
      EXPECT_EQ(bad, -1) << "call " << j;
    }
  }
  cf::array<cl_int> kept(q(), n);
  q().finish();
  const std::size_t count = cf::copy_if(ooo, x, kept, "x > 0");
  EXPECT_EQ(count, static_cast<std::size_t>(
                       std::count_if(host.begin(), host.end(), [](cl_int v) { return v > 0; })));
}
