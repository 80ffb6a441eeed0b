// SPDX-License-Identifier: MIT
// Sorting more than 2^31 keys (label `large`): 2^31 + 3 byte keys on both algorithms, checked
// by their counts (a host counting sort) and order, so 64-bit indices are exercised end to end.
// Skipped where one allocation cannot hold 2^31 + 3 bytes (PoCL here: at most 2 GiB at once).
#include <gtest/gtest.h>

#include <array>
#include <random>

#include <clforge/clforge.hpp>

namespace cf = clforge;

TEST(large_sort, more_than_2_to_the_31_byte_keys) {
  cf::context ctx = cf::context::create_default();
  const std::size_t n = (std::size_t(1) << 31) + 3;
  // keys and the sort's second buffer on the device, the keys once more on the host
  if (ctx.info().max_alloc_bytes < n || ctx.info().global_mem_bytes < 2 * n + (n >> 2))
    GTEST_SKIP() << ctx.info().name << " allocates at most " << ctx.info().max_alloc_bytes
                 << " bytes at once and has " << ctx.info().global_mem_bytes
                 << " bytes; sorting 2^31 + 3 byte keys needs two buffers of 2^31 + 3 bytes";
  cf::queue q(ctx);
  std::vector<cl_uchar> host(n);
  std::mt19937_64 rng(5);
  for (std::size_t i = 0; i < n; i += 8) {
    const std::uint64_t r = rng();
    for (std::size_t k = 0; k < 8 && i + k < n; ++k) host[i + k] = cl_uchar(r >> (8 * k));
  }
  std::array<std::size_t, 256> want{};
  for (cl_uchar k : host) ++want[k];

  for (cf::sort_algorithm alg : {cf::sort_algorithm::chunked, cf::sort_algorithm::onesweep}) {
    SCOPED_TRACE(alg == cf::sort_algorithm::onesweep ? "onesweep" : "chunked");
    cf::array<cl_uchar> keys = cf::array<cl_uchar>::from_host(q, host);
    cf::sort_options o;
    o.algorithm = alg;
    o.direction = cf::order::descending;
    cf::sort(q, keys, o);
    std::vector<cl_uchar> got = keys.to_host(q);
    keys = cf::array<cl_uchar>();
    // descending: runs of 255, 254, ... 0 of exactly the host's counts
    std::size_t at = 0;
    bool ok = true;
    for (int value = 255; value >= 0 && ok; --value) {
      for (std::size_t k = 0; k < want[value] && ok; ++k) ok = got[at++] == value;
      if (!ok)
        ADD_FAILURE() << "position " << at - 1 << " holds " << int(got[at - 1]) << ", " << value
                      << " expected";
    }
    EXPECT_EQ(at, n);
  }
}
