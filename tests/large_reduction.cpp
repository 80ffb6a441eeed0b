// SPDX-License-Identifier: MIT
// More than 2^31 elements: 64-bit indices in elementwise_kernel and reduction_kernel.
// Label `large`; run alone with `ctest -L large` (tests/mapreduce.cmake sets PoCL's memory
// limit for it). Where the device cannot allocate all bytes in one buffer (PoCL here: at most
// 2^31 bytes per allocation), the elements live in two buffers and the snippets pick the
// buffer by index; the reduction still runs over one range of more than 2^31 indices.
#include <gtest/gtest.h>

#include <chrono>
#include <clforge/clforge.hpp>
#include <cstdint>
#include <iostream>

namespace cf = clforge;

namespace {
// The byte at index i, the same formula on both sides.
std::uint8_t pattern(std::uint64_t i) {
  return static_cast<std::uint8_t>(((i ^ (i >> 13)) * 2654435761ull) >> 7);
}
#define PATTERN "(uchar)(((i ^ (i >> 13)) * 2654435761ul) >> 7)"

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

TEST(large, reduction_over_more_than_2_to_the_31_bytes) {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  const std::uint64_t n = (std::uint64_t(1) << 31) + 4099;
  std::uint64_t want = 0, want_tail = 0;
  for (std::uint64_t i = 0; i < n; ++i) want += pattern(i);
  for (std::uint64_t i = n - 10000; i < n; i += 7) want_tail += pattern(i);

  if (ctx.info().max_alloc_bytes >= n) {
    cf::array<cl_uchar> x(q, n);
    cf::elementwise_kernel fill(ctx, "global uchar* x", "x[i] = " PATTERN);
    fill(q, x).wait();
    cf::reduction_kernel<cl_ulong> total(ctx, "global const uchar* x", "(ulong)x[i]", "a + b", "0");
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(total(q, x), want);
    std::cout << "reduction_kernel<ulong> over " << n
              << " uchar in one buffer: " << seconds_since(t0) * 1e3 << " ms on " << ctx.info().name
              << "\n";
    EXPECT_EQ(total(q, cf::slice(-10000, cf::slice_none, 7), x), want_tail);
    t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(cf::sum<cl_ulong>(q, x), want);
    std::cout << "clforge::sum<ulong> over the same: " << seconds_since(t0) * 1e3 << " ms\n";
    return;
  }

  const std::uint64_t half = n / 2;
  // PoCL reports a smaller allocation limit when other processes use memory: not a failure.
  if (ctx.info().max_alloc_bytes < n - half)
    GTEST_SKIP() << ctx.info().name << " allocates at most " << ctx.info().max_alloc_bytes
                 << " bytes at once; even the two halves of " << n << " bytes do not fit";
  cf::array<cl_uchar> lo(q, half), hi(q, n - half);
  cf::kernel_options o;
  o.check_array_lengths = false;  // the range is longer than either buffer
  o.name = "fill_halves";
  cf::elementwise_kernel fill(ctx, "global uchar* lo, global uchar* hi, ulong mid",
                              "const uchar v = " PATTERN
                              ";\n"
                              "  if (i < mid) lo[i] = v; else hi[i - mid] = v",
                              o);
  fill(q, cf::range(0, n), lo, hi, cl_ulong(half)).wait();
  cf::reduction_options r;
  r.check_array_lengths = false;
  r.name = "sum_halves";
  cf::reduction_kernel<cl_ulong> total(
      ctx, "global const uchar* lo, global const uchar* hi, ulong mid",
      "i < mid ? (ulong)lo[i] : (ulong)hi[i - mid]", "a + b", "0", r);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(total(q, cf::range(0, n), lo, hi, cl_ulong(half)), want);
  std::cout << "reduction_kernel<ulong> over " << n
            << " uchar in two buffers: " << seconds_since(t0) * 1e3 << " ms on " << ctx.info().name
            << "\n";
  EXPECT_EQ(total(q, cf::range(n - 10000, n, 7), lo, hi, cl_ulong(half)), want_tail);
  // each half through clforge::sum as well
  EXPECT_EQ(cf::sum<cl_ulong>(q, lo) + cf::sum<cl_ulong>(q, hi), want);
}
