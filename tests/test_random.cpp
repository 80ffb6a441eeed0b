// SPDX-License-Identifier: MIT
// clforge::random: Philox4x32-10 known answers (Random123's kat_vectors), the documented mapping
// from words to values against a host loop, call-split invariance, and statistics.
#include <gtest/gtest.h>

#include <clforge/clforge.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "expect_error.hpp"
#include "shared_device.hpp"

namespace cf = clforge;
using clforge_test::ctx;
using clforge_test::q;

namespace {

struct kat {
  std::array<std::uint32_t, 4> counter;
  std::array<std::uint32_t, 2> key;
  std::array<std::uint32_t, 4> expected;
};
// Random123 tests/kat_vectors, the "philox4x32 10" lines.
const kat kKnownAnswers[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

std::array<std::uint32_t, 4> block(std::uint64_t seed, std::uint64_t b) {
  return cf::random::philox4x32(
      {static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32), 0, 0},
      {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}
/// The documented float uniform value of stream element j.
float host_uniform_float(std::uint64_t seed, std::uint64_t j, float lo, float hi) {
  const std::uint32_t w = block(seed, j / 4)[j % 4];
  float v = std::fma(hi - lo, static_cast<float>(w >> 8) * 0x1.0p-24f, lo);
  return v < hi ? v : std::nextafter(hi, lo);
}
double host_uniform_double(std::uint64_t seed, std::uint64_t j) {
  const auto r = block(seed, j / 2);
  const std::uint64_t bits = (std::uint64_t{r[2 * (j % 2)]} << 32) | r[2 * (j % 2) + 1];
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}
/// Box-Muller on the host, in double, for float element j.
double host_normal_float(std::uint64_t seed, std::uint64_t j) {
  const auto r = block(seed, j / 4);
  const std::size_t pair = (j % 4) / 2;
  const double u1 = static_cast<double>((r[2 * pair] >> 8) + 1) * 0x1.0p-24;
  const double u2 = static_cast<double>(r[2 * pair + 1] >> 8) * 0x1.0p-24;
  const double rad = std::sqrt(-2.0 * std::log(u1)), th = 6.283185307179586 * u2;
  return j % 2 ? rad * std::sin(th) : rad * std::cos(th);
}
/// The same for double element j: one pair per block, 53 bits per uniform.
double host_normal_double(std::uint64_t seed, std::uint64_t j) {
  const auto r = block(seed, j / 2);
  const std::uint64_t w0 = (std::uint64_t{r[0]} << 32) | r[1],
                      w1 = (std::uint64_t{r[2]} << 32) | r[3];
  const double u1 = static_cast<double>((w0 >> 11) + 1) * 0x1.0p-53;
  const double u2 = static_cast<double>(w1 >> 11) * 0x1.0p-53;
  const double rad = std::sqrt(-2.0 * std::log(u1)), th = 6.283185307179586 * u2;
  return j % 2 ? rad * std::sin(th) : rad * std::cos(th);
}

/// Normal numbers of type T at every size and stream offset that selects a different launch
/// (partial blocks at either end, the eight-block CPU kernel and its remainder, a counter whose
/// low word wraps inside one work-item's eight blocks) against the host's Box-Muller; the same
/// numbers again for the same seed, and from two calls split anywhere.
template <class T>
void check_normal_stream(double tolerance, double (*host)(std::uint64_t, std::uint64_t)) {
  const std::uint64_t seed = 0xfedcba9876543210ull;
  for (std::size_t n : {0, 1, 2, 3, 5, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 4099}) {
    for (std::uint64_t offset :
         {0ull, 1ull, 3ull, 8ull, (1ull << 34) - 2801, (1ull << 34) - 2800}) {
      cf::array<T> x(q(), n);
      cf::random::normal<T>(q(), x, seed, T(1), T(2), offset);
      const auto h = x.to_host(q());
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_NEAR(h[i], 1.0 + 2.0 * host(seed, offset + i), tolerance * (1 + std::fabs(h[i])))
            << i << " of " << n << " at offset " << offset;
      cf::array<T> again(q(), n);
      cf::random::normal<T>(q(), again, seed, T(1), T(2), offset);
      ASSERT_EQ(again.to_host(q()), h) << n << " " << offset;
    }
  }
  const std::size_t n = 10007, k = 4321;
  cf::array<T> whole(q(), n), first(q(), k), rest(q(), n - k);
  cf::random::normal<T>(q(), whole, 7, T(0), T(1));
  cf::random::normal<T>(q(), first, 7, T(0), T(1), 0);
  cf::random::normal<T>(q(), rest, 7, T(0), T(1), k);
  auto hw = whole.to_host(q()), hf = first.to_host(q()), hr = rest.to_host(q());
  hf.insert(hf.end(), hr.begin(), hr.end());
  EXPECT_EQ(hw, hf);
  // moments of 2^20 numbers with mean 1 and sd 2
  cf::array<T> big(q(), std::size_t{1} << 20);
  cf::random::normal<T>(q(), big, 11, T(1), T(2));
  const auto hb = big.to_host(q());
  double mean = 0, var = 0;
  for (T v : hb) mean += v;
  mean /= hb.size();
  for (T v : hb) var += (v - mean) * (v - mean);
  var /= hb.size() - 1;
  EXPECT_NEAR(mean, 1.0, 5 * 2 / std::sqrt(double(hb.size())));
  EXPECT_NEAR(var, 4.0, 5 * 4 * std::sqrt(2.0 / hb.size()));
}

}  // namespace

TEST(Random, NormalFloatMatchesTheHostAtEverySizeAndOffset) {
  check_normal_stream<float>(2e-5, host_normal_float);
}

// The 8-byte types take two values per block, words (2k, 2k + 1) as (high, low): all bits for
// ulong, and double uniform in [lo, hi), through every launch (sizes and offsets as above).
TEST(Random, EightByteTypesMatchTheDocumentedStream) {
  const std::uint64_t seed = 0x5eed;
  for (std::size_t n : {0, 1, 2, 3, 15, 16, 17, 33, 1025}) {
    for (std::uint64_t offset : {0ull, 1ull, 3ull, (1ull << 33) - 9}) {
      cf::array<cl_ulong> u(q(), n);
      cf::random::uniform<cl_ulong>(q(), u, seed, 0, ~cl_ulong{0}, offset);
      cf::array<cl_ulong> bits(q(), n);
      if (offset == 0) cf::random::uniform(q(), bits, seed);
      const auto hu = u.to_host(q()), hb = bits.to_host(q());
      for (std::size_t i = 0; i < n; ++i) {
        const auto r = block(seed, (offset + i) / 2);
        const std::size_t k = 2 * ((offset + i) % 2);
        const std::uint64_t w = (std::uint64_t{r[k]} << 32) | r[k + 1];
        // lo + floor(w * (hi - lo) / 2^64) with lo = 0, hi - lo = 2^64 - 1
        const auto scaled = static_cast<std::uint64_t>(
            (static_cast<unsigned __int128>(w) * ~std::uint64_t{0}) >> 64);
        ASSERT_EQ(hu[i], scaled) << i << " of " << n << " at offset " << offset;
        if (offset == 0) ASSERT_EQ(hb[i], w) << i << " of " << n;
      }
      if (!ctx().info().has_fp64) continue;
      cf::array<double> d(q(), n);
      cf::random::uniform(q(), d, seed, -2.0, 3.0, offset);
      const auto hd = d.to_host(q());
      for (std::size_t i = 0; i < n; ++i) {
        const double v = std::fma(5.0, host_uniform_double(seed, offset + i), -2.0);
        ASSERT_EQ(hd[i], v < 3.0 ? v : std::nextafter(3.0, -2.0)) << i << " at offset " << offset;
      }
    }
  }
}

TEST(Random, NormalDoubleMatchesTheHostAtEverySizeAndOffset) {
  if (!ctx().info().has_fp64) GTEST_SKIP() << "no fp64 on this device";
  check_normal_stream<double>(1e-12, host_normal_double);
}

TEST(Random, PhiloxKnownAnswersOnHostAndDevice) {
  for (const kat& k : kKnownAnswers)
    EXPECT_EQ(cf::random::philox4x32(k.counter, k.key), k.expected);
  // the OpenCL header in a user's snippet
  cf::kernel_options options;
  options.preamble = cf::random::philox_header();
  cf::elementwise_kernel kat_kernel(
      ctx(), "global const uint* in, global uint* out",
      "uint4 r = clforge_philox4x32((uint4)(in[6 * i], in[6 * i + 1], in[6 * i + 2], "
      "in[6 * i + 3]), (uint2)(in[6 * i + 4], in[6 * i + 5])); vstore4(r, i, out)",
      [&] {
        options.check_array_lengths = false;
        return options;
      }());
  std::vector<cl_uint> in;
  for (const kat& k : kKnownAnswers) {
    in.insert(in.end(), k.counter.begin(), k.counter.end());
    in.insert(in.end(), k.key.begin(), k.key.end());
  }
  auto d_in = cf::array<cl_uint>::from_host(q(), in);
  cf::array<cl_uint> d_out(q(), 12);
  kat_kernel(q(), cf::range(3), d_in, d_out);
  auto out = d_out.to_host(q());
  for (std::size_t t = 0; t < 3; ++t)
    for (std::size_t w = 0; w < 4; ++w) EXPECT_EQ(out[4 * t + w], kKnownAnswers[t].expected[w]);
}

// The values are the documented function of (seed, index): exact for uniform floats, doubles
// and integers; any size, any offset (call splits give the same stream).
TEST(Random, UniformMatchesTheDocumentedStreamAtEveryOffset) {
  const std::uint64_t seed = 0x0123456789abcdefull;
  for (std::size_t n : {0, 1, 2, 3, 5, 1023, 1024, 1025, 4097}) {
    // (2^34 - 2801) / 4 and (2^34 - 2800) / 4: blocks whose counter's low word wraps within
    // one launch (the second aligned: on CPUs, inside one work-item's eight blocks).
    for (std::uint64_t offset :
         {0ull, 1ull, 3ull, 1ull << 33, (1ull << 34) - 2801, (1ull << 34) - 2800}) {
      cf::array<float> x(q(), n);
      cf::random::uniform(q(), x, seed, -2.0f, 3.0f, offset);
      auto h = x.to_host(q());
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(h[i], host_uniform_float(seed, offset + i, -2.0f, 3.0f)) << n << " " << offset;
    }
  }
  // one call equals two calls split at k
  const std::size_t n = 10007, k = 4321;
  cf::array<float> whole(q(), n), first(q(), k), rest(q(), n - k);
  cf::random::uniform(q(), whole, 99, 0.0f, 1.0f);
  cf::random::uniform(q(), first, 99, 0.0f, 1.0f, 0);
  cf::random::uniform(q(), rest, 99, 0.0f, 1.0f, k);
  auto hw = whole.to_host(q()), hf = first.to_host(q()), hr = rest.to_host(q());
  hf.insert(hf.end(), hr.begin(), hr.end());
  EXPECT_EQ(hw, hf);
  // the default range is [0, 1)
  cf::random::uniform(q(), whole, 99);
  EXPECT_EQ(whole.to_host(q()), hw);

  if (ctx().info().has_fp64) {
    cf::array<double> d(q(), 1025);
    cf::random::uniform(q(), d, seed);
    auto hd = d.to_host(q());
    for (std::size_t i = 0; i < hd.size(); ++i) ASSERT_EQ(hd[i], host_uniform_double(seed, i));
  }
}

TEST(Random, IntegersExactAndInRange) {
  const std::uint64_t seed = 7;
  const std::size_t n = 1025;
  cf::array<cl_uint> u(q(), n);
  cf::random::uniform(q(), u, seed);
  auto hu = u.to_host(q());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hu[i], block(seed, i / 4)[i % 4]);

  cf::array<cl_char> c(q(), n);
  cf::random::uniform<cl_char>(q(), c, seed, -5, 6, 3);
  auto hc = c.to_host(q());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t w = block(seed, (i + 3) / 4)[(i + 3) % 4];
    ASSERT_EQ(hc[i], static_cast<cl_char>(-5 + static_cast<int>((std::uint64_t{w} * 11) >> 32)));
  }
  cf::array<cl_long> l(q(), n);
  const cl_long lo = -1000000000000ll, hi = 3000000000000ll;
  cf::random::uniform(q(), l, seed, lo, hi);
  auto hl = l.to_host(q());
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = block(seed, i / 2);
    const std::uint64_t w = (std::uint64_t{r[2 * (i % 2)]} << 32) | r[2 * (i % 2) + 1];
    const unsigned __int128 prod =
        static_cast<unsigned __int128>(w) * static_cast<std::uint64_t>(hi - lo);
    ASSERT_EQ(hl[i], lo + static_cast<cl_long>(prod >> 64)) << i;
    ASSERT_GE(hl[i], lo);
    ASSERT_LT(hl[i], hi);
  }
  cf::array<cl_int> one(q(), 1);
  EXPECT_THROW(cf::random::uniform<cl_int>(q(), one, 1, 5, 5), cf::error);  // empty [lo, hi)
}

// The shared check of every template (detail::require_same_context), with its message.
TEST(Random, AnArrayOfAnotherContextIsRefused) {
  cf::context other = cf::context::create_default();
  cf::queue other_q(other);
  cf::array<float> foreign(other_q, 16);
  cf::array<cl_uint> foreign_bits(other_q, 16);
  const std::string same = "belongs to another OpenCL context than the queue";
  EXPECT_CLFORGE_ERROR(cf::random::uniform(q(), foreign, 1),
                       {"clforge::random::uniform: the array", same});
  EXPECT_CLFORGE_ERROR(cf::random::uniform(q(), foreign_bits, 1),
                       {"clforge::random::uniform: the array", same});
  EXPECT_CLFORGE_ERROR(cf::random::uniform(q(), foreign, 1, 2.0f, 3.0f),
                       {"clforge::random::uniform: the array", same});
  EXPECT_CLFORGE_ERROR(cf::random::normal(q(), foreign, 1),
                       {"clforge::random::normal: the array", same});
  // The array's own queue works.
  cf::random::uniform(other_q, foreign, 1, 2.0f, 3.0f);
  for (float v : foreign.to_host(other_q)) {
    EXPECT_GE(v, 2.0f);
    EXPECT_LT(v, 3.0f);
  }
}

TEST(Random, NormalFollowsBoxMuller) {
  const std::size_t n = 4099;
  cf::array<float> x(q(), n);
  for (std::uint64_t offset : {5, 0}) {  // partial blocks at the start, or none
    cf::random::normal(q(), x, 42, 1.0f, 2.0f, offset);
    auto h = x.to_host(q());
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_NEAR(h[i], 1.0 + 2.0 * host_normal_float(42, i + offset), 2e-5 * (1 + std::fabs(h[i])))
          << i << " " << offset;
  }
  EXPECT_THROW(cf::random::normal(q(), x, 42, 0.0f, -1.0f), cf::error);
}

// 10^7 samples: mean, variance and a Kolmogorov-Smirnov distance below the 0.1% critical value
// (1.95 / sqrt(n)). The empirical CDF comes from a fine histogram (2^20 bins: its resolution,
// 1e-6, is far below the critical value 6e-4).
TEST(Random, StatisticsOfTenMillionSamples) {
  const std::size_t n = 10000000, bins = 1 << 20;
  const double critical = 1.95 / std::sqrt(double(n));
  auto ks = [&](const std::vector<double>& cdf_values) {
    std::vector<std::uint32_t> hist(bins, 0);
    for (double u : cdf_values) ++hist[std::min<std::size_t>(bins - 1, std::size_t(u * bins))];
    double d = 0, seen = 0;
    for (std::size_t b = 0; b < bins; ++b) {
      seen += hist[b];
      d = std::max(d, std::fabs(seen / n - double(b + 1) / bins));
    }
    return d;
  };
  cf::array<float> x(q(), n);
  cf::random::uniform(q(), x, 2026);
  auto h = x.to_host(q());
  double mean = 0, var = 0;
  for (float v : h) mean += v;
  mean /= n;
  for (float v : h) var += (v - mean) * (v - mean);
  var /= n;
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 5 * std::sqrt(1.0 / 180 / n));
  EXPECT_LT(ks(std::vector<double>(h.begin(), h.end())), critical);

  cf::random::normal(q(), x, 2027);
  h = x.to_host(q());
  mean = 0, var = 0;
  for (float v : h) mean += v;
  mean /= n;
  for (float v : h) var += (v - mean) * (v - mean);
  var /= n;
  EXPECT_NEAR(mean, 0.0, 5 / std::sqrt(double(n)));
  EXPECT_NEAR(var, 1.0, 5 * std::sqrt(2.0 / n));
  std::vector<double> phi(n);
  for (std::size_t i = 0; i < n; ++i) phi[i] = 0.5 * std::erfc(-h[i] / std::sqrt(2.0));
  EXPECT_LT(ks(phi), critical);
}
