// SPDX-License-Identifier: MIT
// Where the templates keep what they build and what a queue needs between calls: with the
// context (built-in reductions, the scans behind inclusive_scan and copy_if) and with the queue
// (a scan's look-back tile statuses, a single-launch reduction's counter), released with them,
// never in stores that outlive them.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include <clforge/clforge.hpp>
#include <clforge/detail/codegen.hpp>

#include "shared_device.hpp"

namespace cf = clforge;
using clforge_test::ctx;

namespace {

// An attachment of `c` under `key` if there is one (an empty pointer makes none).
std::weak_ptr<void> attachment_of(const cf::context& c, const std::string& key) {
  return c.attachment(key, [] { return std::shared_ptr<void>(); });
}

}  // namespace

// Built-in reductions and cached scans belong to the context: its state (and with it every
// attachment) goes when the last handle does. A process-wide cache that held a handle kept
// every context it had seen alive.
TEST(template_engine, built_in_caches_are_released_with_the_context) {
  std::weak_ptr<void> marker, reductions, scans;
  {
    cf::context local(ctx().device());
    cf::queue lq(local);
    marker = local.attachment("test.marker", [] { return std::make_shared<int>(7); });
    auto x = cf::array<cl_int>::from_host(lq, std::vector<cl_int>{3, -1, 4, -1, 5});
    cf::array<cl_int> y(lq, 5);
    EXPECT_EQ(cf::sum(lq, x), 10);
    EXPECT_EQ(cf::min(lq, x), -1);
    cf::inclusive_scan(lq, x, y);
    EXPECT_EQ(y.to_host(lq)[4], 10);
    EXPECT_EQ(cf::copy_if(lq, x, y, "x > 0"), 3u);
    reductions = attachment_of(local, "clforge.reductions");
    scans = attachment_of(local, "clforge.scans");
    EXPECT_FALSE(reductions.expired());
    EXPECT_FALSE(scans.expired());
    lq.finish();
  }
  EXPECT_TRUE(marker.expired()) << "a cache outlived its context";
  EXPECT_TRUE(reductions.expired());
  EXPECT_TRUE(scans.expired());
}

// A scan's look-back state (tile counters and statuses) lives with the queue: when the queue
// goes, its buffers return to the pool, although the kernel lives on. Kept in the kernel by
// queue handle, they stayed for as long as the kernel did, one set per queue ever used.
TEST(template_engine, per_queue_state_is_released_with_the_queue) {
  cf::context local(ctx().device());
  cf::scan_options o;
  o.algorithm = cf::scan_algorithm::lookback;
  const cf::scan_kernel<cl_int> scan(local, "global const int* x, global int* y", "x[i]", "a + b",
                                     "0", "y[i] = item", cf::scan_kind::inclusive, o);
  const std::size_t n = 3 * scan.tile_size() + 1;
  for (int round = 0; round < 20; ++round) {
    std::size_t held_before = 0;
    {
      cf::queue lq(local);
      auto x = cf::array<cl_int>::from_host(lq, std::vector<cl_int>(n, 1));
      cf::array<cl_int> y(lq, n);
      scan(lq, x, y);
      ASSERT_EQ(y.to_host(lq)[n - 1], static_cast<cl_int>(n));
      lq.finish();
      // x and y go back to the pool with the scope too: count only what the queue held.
      x = cf::array<cl_int>();
      y = cf::array<cl_int>();
      held_before = local.pool().stats().held_buffers;
    }
    // The counters and the tile statuses (packed int: one buffer) came back.
    EXPECT_GE(local.pool().stats().held_buffers, held_before + 2) << "round " << round;
  }
  // Each round's queue took buffers the previous one gave back: the pool did not grow.
  EXPECT_LE(local.pool().stats().held_buffers, 8u);
}

// Every template takes the indices of a call in one form: clforge::range. A scan runs over
// [0, n), so it takes range(n) (PyOpenCL's size=) and refuses other ranges and slices.
TEST(template_engine, scan_takes_the_range_form) {
  const cf::scan_kernel<cl_int> scan(ctx(), "global const int* x, global int* y", "x[i]", "a + b",
                                     "0", "y[i] = item");
  cf::queue& q = clforge_test::q();
  for (std::size_t n : {0u, 1u, 999u}) {
    std::vector<cl_int> host(1000);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<cl_int>(i % 7) - 3;
    auto x = cf::array<cl_int>::from_host(q, host);
    auto y = cf::array<cl_int>::from_host(q, std::vector<cl_int>(1000, -99));
    scan(q, cf::range(static_cast<std::int64_t>(n)), x, y);
    const std::vector<cl_int> out = y.to_host(q);
    cl_int running = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (i < n) running += host[i];
      ASSERT_EQ(out[i], i < n ? running : -99) << "n " << n << ", i " << i;
    }
  }
  auto x = cf::array<cl_int>(q, 10);
  auto y = cf::array<cl_int>(q, 10);
  for (const cf::index_range& r : {cf::range(1, 10), cf::range(0, 10, 2), cf::slice(0, 10)}) {
    try {
      scan(q, r, x, y);
      FAIL() << "a range other than [0, n) must throw";
    } catch (const cf::error& e) {
      EXPECT_NE(std::string(e.what()).find("clforge::range(n)"), std::string::npos) << e.what();
    }
  }
  q.finish();
}

// The one scanner of snippets (and of whole sources, for their kernel names): string and
// character literals stay whole, so that a bracket or a name inside one is not code; comments go.
TEST(template_engine, source_tokens_keep_literals_whole_and_drop_comments) {
  const std::string text = "x[i] /* y[i] */ + \"a]b\" // z\n + '\\'' + 15";
  const std::vector<std::string_view> tokens = cf::detail::source_tokens(text);
  const std::vector<std::string_view> expected = {"x",       "[", "i",     "]", "+",
                                                  "\"a]b\"", "+", "'\\''", "+", "15"};
  EXPECT_EQ(tokens, expected);
  EXPECT_TRUE(cf::detail::source_tokens("// only a comment").empty());
  EXPECT_EQ(cf::detail::source_tokens("\"unterminated").size(), 1u);
}
