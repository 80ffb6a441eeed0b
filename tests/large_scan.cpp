// SPDX-License-Identifier: MIT
// Scans over more than 2^31 elements (label `large`): counting the set bytes among 2^31 + 4098
// bytes on both algorithms, with prefix counts sampled above 2^31 (64-bit indices and a 64-bit
// scan type, so the look-back's flag + fence protocol). The bytes lie in two arrays of half the
// size each because PoCL allocates at most 2 GiB at once; the scan runs over all of them.
#include <gtest/gtest.h>

#include <random>

#include <clforge/clforge.hpp>

// Sets the deprecated scan_options tile fields: they keep working until 0.3.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace cf = clforge;

TEST(large_scan, counting_flags_over_more_than_2_gib) {
  cf::context ctx = cf::context::create_default();
  const std::size_t n = (std::size_t(1) << 31) + 4098, half = n / 2;
  if (ctx.info().max_alloc_bytes < half)
    GTEST_SKIP() << ctx.info().name << " allocates at most " << ctx.info().max_alloc_bytes
                 << " bytes (PoCL: raise POCL_MEMORY_LIMIT)";
  cf::queue q(ctx);
  std::vector<cl_uchar> flags(n);
  std::mt19937_64 rng(1);
  for (std::size_t i = 0; i < n; i += 8) {
    std::uint64_t r = rng();
    for (std::size_t k = 0; k < 8 && i + k < n; ++k) flags[i + k] = (r >> (8 * k)) % 3 == 0;
  }
  constexpr int kShift = 28;  // a sample every 2^28 elements
  const std::size_t samples = (n >> kShift) + 1;
  std::vector<cl_ulong> want(samples);
  cl_ulong total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    total += flags[i];
    if ((i & ((std::size_t(1) << kShift) - 1)) == 0) want[i >> kShift] = total;
  }
  auto d_low = cf::array<cl_uchar>::from_host(q, flags.data(), half);
  auto d_high = cf::array<cl_uchar>::from_host(q, flags.data() + half, n - half);
  flags.clear();
  flags.shrink_to_fit();

  for (cf::scan_algorithm alg :
       {cf::scan_algorithm::reduce_then_scan, cf::scan_algorithm::lookback}) {
    SCOPED_TRACE(alg == cf::scan_algorithm::lookback ? "lookback" : "reduce_then_scan");
    cf::scan_options o;
    o.name = "count_flags";
    o.algorithm = alg;
    o.check_array_lengths = false;  // low[i] is read only where i < split
    if (alg == cf::scan_algorithm::lookback && ctx.info().is_cpu()) {
      o.items_per_thread = 64;  // fewer, larger tiles: PoCL pays per work-group
      o.group_size = 256;
    }
    cf::scan_kernel<cl_ulong> count(
        ctx,
        "global const uchar* low, global const uchar* high, ulong split, global ulong* total, "
        "global ulong* sampled",
        "(i < split ? low[i] : high[i - split]) != 0 ? 1 : 0", "a + b", "0",
        "if (i == n - 1) total[0] = item; if ((i & 0xFFFFFFF) == 0) sampled[i >> 28] = item;",
        cf::scan_kind::inclusive, o);
    cf::array<cl_ulong> d_total(q, 1), d_sampled(q, samples);
    d_total.fill(q, 0);
    count(q, cf::range(static_cast<std::int64_t>(n)), d_low, d_high, cl_ulong(half), d_total,
          d_sampled);
    EXPECT_EQ(d_total.to_host(q)[0], total);
    EXPECT_EQ(d_sampled.to_host(q), want);
  }
}
