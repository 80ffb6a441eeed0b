// SPDX-License-Identifier: MIT
// clforge::unique, remove_if, gather and scatter against the std algorithms, at edge sizes, and
// their bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <clforge/clforge.hpp>

#include "cache_lookups.hpp"
#include "expect_error.hpp"
#include "shared_device.hpp"
#include "threads.hpp"

namespace cf = clforge;
using clforge_test::ctx;
using clforge_test::q;

namespace {
const std::size_t kSizes[] = {0, 1, 2, 1023, 1024, 1025, 16385, 100003};
}

TEST(unique, matches_std_unique_copy) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n);
    std::mt19937 rng(unsigned(n) + 1);
    std::vector<int> in(n);
    for (int& v : in) v = int(rng() % 4);  // long runs
    std::vector<int> want;
    std::unique_copy(in.begin(), in.end(), std::back_inserter(want));
    auto d_in = cf::array<int>::from_host(q(), in);
    cf::array<int> d_out(q(), n);
    const std::size_t kept = cf::unique(q(), d_in, d_out);
    ASSERT_EQ(kept, want.size());
    std::vector<int> got = d_out.to_host(q());
    got.resize(kept);
    EXPECT_EQ(got, want);
  }
}

TEST(unique, floats_compare_with_equality_zeros_equal_nans_never) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> in = {-0.0f, 0.0f, 1.0f, 1.0f, nan, nan, 2.0f};
  auto d_in = cf::array<float>::from_host(q(), in);
  cf::array<float> d_out(q(), in.size());
  ASSERT_EQ(cf::unique(q(), d_in, d_out), 5u);
  auto got = d_out.to_host(q());
  EXPECT_TRUE(got[0] == 0.0f && std::signbit(got[0]));
  EXPECT_EQ(got[1], 1.0f);
  EXPECT_TRUE(std::isnan(got[2]) && std::isnan(got[3]));
  EXPECT_EQ(got[4], 2.0f);
}

// The branch-free store of the CPU path puts a rejected element at the next free slot, which
// is the next chunk's first slot when the element ends its chunk: those stores must not land.
// Runs of kept and rejected elements longer than a chunk, single kept elements, and kept
// elements only at the ends, over many chunks, repeated (a lost race shows only sometimes).
TEST(copy_if, runs_longer_than_chunks_and_lone_kept_elements) {
  const std::size_t n = (std::size_t(1) << 20) + 3;
  std::mt19937 rng(7);
  std::vector<std::vector<int>> inputs(4, std::vector<int>(n, -1));
  for (std::size_t i = 0; i < n; ++i) {
    inputs[0][i] = (i / 70000) % 2 ? int(i % 1000) : -1;    // long runs of each
    inputs[1][i] = rng() % 5000 == 0 ? int(i % 1000) : -1;  // a few lone kept elements
    inputs[2][i] = rng() % 2 ? int(i % 1000) : -1;          // about half
  }
  inputs[3][0] = 5;  // only the first and the last
  inputs[3][n - 1] = 6;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    SCOPED_TRACE(testing::Message() << "input " << k);
    std::vector<int> want;
    std::copy_if(inputs[k].begin(), inputs[k].end(), std::back_inserter(want),
                 [](int v) { return v >= 0; });
    auto d_in = cf::array<int>::from_host(q(), inputs[k]);
    cf::array<int> d_out(q(), n);
    for (int repeat = 0; repeat < 5; ++repeat) {
      d_out.fill(q(), -7);
      const std::size_t kept = cf::copy_if(q(), d_in, d_out, "x >= 0");
      ASSERT_EQ(kept, want.size());
      std::vector<int> got = d_out.to_host(q());
      got.resize(kept);
      ASSERT_EQ(got, want);
    }
  }
}

TEST(remove_if, matches_std_remove_copy_if) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n);
    std::mt19937 rng(unsigned(n) + 2);
    std::vector<float> in(n);
    for (float& v : in) v = float(int(rng() % 200) - 100);
    std::vector<float> want;
    std::remove_copy_if(in.begin(), in.end(), std::back_inserter(want),
                        [](float x) { return x < 0.0f; });
    auto d_in = cf::array<float>::from_host(q(), in);
    cf::array<float> d_out(q(), n);
    const std::size_t left = cf::remove_if(q(), d_in, d_out, "x < 0.0f");
    ASSERT_EQ(left, want.size());
    std::vector<float> got = d_out.to_host(q());
    got.resize(left);
    EXPECT_EQ(got, want);
  }
}

TEST(gather_scatter, match_host_loops) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE(testing::Message() << "n=" << n);
    std::mt19937 rng(unsigned(n) + 3);
    const std::size_t m = n + 17;
    std::vector<double> src(m);
    for (double& v : src) v = double(rng());
    std::vector<cl_long> indices(n);
    for (cl_long& j : indices) j = cl_long(rng() % m);
    auto d_src = cf::array<double>::from_host(q(), src);
    auto d_idx = cf::array<cl_long>::from_host(q(), indices);
    cf::array<double> d_dst(q(), n);
    cf::gather(q(), d_idx, d_src, d_dst);
    std::vector<double> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = src[indices[i]];
    EXPECT_EQ(d_dst.to_host(q()), want);

    // scatter through a permutation: the inverse of the gather
    std::vector<cl_uint> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<std::uint16_t> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = std::uint16_t(i * 31);
    auto d_values = cf::array<std::uint16_t>::from_host(q(), values);
    auto d_perm = cf::array<cl_uint>::from_host(q(), perm);
    cf::array<std::uint16_t> d_scattered(q(), n);
    cf::scatter(q(), d_values, d_perm, d_scattered, cf::bounds::unchecked);
    std::vector<std::uint16_t> want_scattered(n);
    for (std::size_t i = 0; i < n; ++i) want_scattered[perm[i]] = values[i];
    EXPECT_EQ(d_scattered.to_host(q()), want_scattered);
  }
}

TEST(gather_scatter, out_of_range_indices_are_reported_and_not_written) {
  auto src = cf::array<int>::from_host(q(), std::vector<int>{10, 11, 12, 13});
  auto idx = cf::array<int>::from_host(q(), std::vector<int>{3, 0, -1, 2});
  cf::array<int> dst = cf::array<int>::from_host(q(), std::vector<int>{7, 7, 7, 7});
  EXPECT_CLFORGE_ERROR(cf::gather(q(), idx, src, dst),
                       {"gather", "indices[2] = -1", "out of range", "source of 4 elements"});
  EXPECT_EQ(dst.to_host(q()), (std::vector<int>{13, 10, 7, 12}));

  auto big = cf::array<cl_ulong>::from_host(q(), std::vector<cl_ulong>{1, 4});
  auto two = cf::array<int>::from_host(q(), std::vector<int>{5, 6});
  dst = cf::array<int>::from_host(q(), std::vector<int>{0, 0, 0, 0});
  EXPECT_CLFORGE_ERROR(cf::scatter(q(), two, big, dst),
                       {"scatter", "indices[1] = 4", "destination of 4 elements"});
  EXPECT_EQ(dst.to_host(q()), (std::vector<int>{0, 5, 0, 0}));
}

// Arrays of another context: refused before anything is enqueued, with the message every
// template gives (require_same_context), naming which array; nothing is written.
TEST(gather_scatter, arrays_of_another_context_are_refused) {
  cf::context other = cf::context::create_default();
  cf::queue other_q(other);
  for (cf::bounds check : {cf::bounds::checked, cf::bounds::unchecked}) {
    auto idx = cf::array<int>::from_host(q(), std::vector<int>{0, 1, 2});
    auto src = cf::array<float>::from_host(q(), std::vector<float>{1, 2, 3});
    auto dst = cf::array<float>::from_host(q(), std::vector<float>{0, 0, 0});
    auto foreign_idx = cf::array<int>::from_host(other_q, std::vector<int>{0, 1, 2});
    auto foreign_src = cf::array<float>::from_host(other_q, std::vector<float>{1, 2, 3});
    auto foreign_dst = cf::array<float>::from_host(other_q, std::vector<float>{0, 0, 0});
    EXPECT_CLFORGE_ERROR(cf::gather(q(), foreign_idx, src, dst, check),
                         {"gather", "the indices", "another OpenCL context"});
    EXPECT_CLFORGE_ERROR(cf::gather(q(), idx, foreign_src, dst, check),
                         {"gather", "the source", "another OpenCL context"});
    EXPECT_CLFORGE_ERROR(cf::gather(q(), idx, src, foreign_dst, check),
                         {"gather", "the destination", "another OpenCL context"});
    EXPECT_CLFORGE_ERROR(cf::scatter(q(), foreign_src, idx, dst, check),
                         {"scatter", "the source", "another OpenCL context"});
    EXPECT_CLFORGE_ERROR(cf::scatter(q(), src, foreign_idx, dst, check),
                         {"scatter", "the indices", "another OpenCL context"});
    EXPECT_CLFORGE_ERROR(cf::scatter(q(), src, idx, foreign_dst, check),
                         {"scatter", "the destination", "another OpenCL context"});
    EXPECT_EQ(dst.to_host(q()), (std::vector<float>{0, 0, 0}));
    EXPECT_EQ(foreign_dst.to_host(other_q), (std::vector<float>{0, 0, 0}));
    // The same calls on the arrays' own context work.
    cf::gather(other_q, foreign_idx, foreign_src, foreign_dst, check);
    EXPECT_EQ(foreign_dst.to_host(other_q), (std::vector<float>{1, 2, 3}));
  }
  other_q.finish();
}

TEST(gather_scatter, bad_input_is_a_clear_error) {
  auto src = cf::array<int>::from_host(q(), std::vector<int>{1, 2, 3});
  auto idx = cf::array<cl_uint>::from_host(q(), std::vector<cl_uint>{0, 1});
  cf::array<int> small(q(), 1);
  EXPECT_CLFORGE_ERROR(cf::gather(q(), idx, src, small), {"gather", "2 indices", "1 elements"});
  EXPECT_CLFORGE_ERROR(cf::scatter(q(), src, idx, small), {"scatter", "3 elements but 2 indices"});
  cf::array<int> same = cf::array<int>::from_host(q(), std::vector<int>{0, 1});
  EXPECT_CLFORGE_ERROR(cf::gather(q(), idx, same, same), {"another array"});
  cf::array<int> out(q(), 2);
  EXPECT_CLFORGE_ERROR(cf::unique(q(), src, out), {"unique", "the output has 2 elements"});
  EXPECT_CLFORGE_ERROR(cf::remove_if(q(), src, out, "x > 1"), {"the output has 2 elements"});
  EXPECT_CLFORGE_ERROR(cf::remove_if(q(), src, src, " "), {"remove_if", "predicate is empty"});
}

// ---- copy_if, partition and remove_if with extra arguments --------------------------------

namespace {

struct selection_case {
  std::vector<float> in;
  std::vector<cl_uchar> mask;
};

selection_case random_selection(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  selection_case c;
  c.in.resize(n);
  c.mask.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    c.in[i] = value(rng);
    c.mask[i] = cl_uchar(rng() % 4 != 0);
  }
  return c;
}

// Runs copy_if, partition and (with_remove_if) remove_if of "x > limit && mask[i]" (limit and
// mask as extra arguments) on `q` at the sizes 0, 1, tile - 1, tile, tile + 1 and a few tiles,
// against std::.
void check_selection_family(cf::queue& q, const char* what, bool with_remove_if) {
  SCOPED_TRACE(what);
  const char* predicate = "x > limit && mask[i] != 0";
  const char* signature = "float limit, global const uchar* mask";
  const std::size_t tile = cf::detail::selection_kernel<float, cl_uint>(q.ctx(), "copy_if", false,
                                                                        predicate, "", signature)
                               ->scan.tile_size();
  ASSERT_GT(tile, 1u);
  for (std::size_t n : {std::size_t(0), std::size_t(1), tile - 1, tile, tile + 1, 7 * tile + 3}) {
    for (float limit : {-2.0f, 0.25f, 2.0f}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " limit=" << limit);
      const selection_case c = random_selection(n, unsigned(n * 7 + 1));
      auto keep = [&](std::size_t i) { return c.in[i] > limit && c.mask[i] != 0; };
      std::vector<float> kept, rest;
      for (std::size_t i = 0; i < n; ++i) (keep(i) ? kept : rest).push_back(c.in[i]);
      auto d_in = cf::array<float>::from_host(q, c.in);
      auto d_mask = cf::array<cl_uchar>::from_host(q, c.mask);
      cf::array<float> d_out(q, n);

      const std::size_t count =
          cf::copy_if(q, d_in, d_out, predicate, cf::extra_args(signature, limit, d_mask));
      ASSERT_EQ(count, kept.size());
      std::vector<float> got = d_out.to_host(q);
      got.resize(count);
      EXPECT_EQ(got, kept);

      if (with_remove_if) {
        const std::size_t left =
            cf::remove_if(q, d_in, d_out, predicate, cf::extra_args(signature, limit, d_mask));
        ASSERT_EQ(left, rest.size());
        got = d_out.to_host(q);
        got.resize(left);
        EXPECT_EQ(got, rest);
      }

      const std::size_t first =
          cf::partition(q, d_in, d_out, predicate, cf::extra_args(signature, limit, d_mask));
      ASSERT_EQ(first, kept.size());
      std::vector<float> want = kept;
      want.insert(want.end(), rest.begin(), rest.end());
      EXPECT_EQ(d_out.to_host(q), want);
    }
  }
}

}  // namespace

TEST(selection_extra_args, match_std_on_the_default_algorithm) {
  check_selection_family(q(), "automatic algorithm", true);
}

TEST(selection_extra_args, match_std_on_lookback) {
  // Kernels are cached per context: a new context sees the forced algorithm.
  cf::context lookback_ctx = cf::context::create_default();
  cf::tuning::set(lookback_ctx, "scan", "algorithm=lookback");
  cf::queue lq(lookback_ctx);
  // remove_if is copy_if of the negated predicate: one more look-back build (slow on CPUs)
  // would test nothing new.
  check_selection_family(lq, "look-back", false);
}

TEST(selection_extra_args, a_new_threshold_builds_nothing) {
  const std::vector<int> host = {5, -3, 8, 0, 12, 7};
  auto in = cf::array<int>::from_host(q(), host);
  cf::array<int> out(q(), host.size());
  const char* signature = "int limit";
  EXPECT_EQ(cf::copy_if(q(), in, out, "x > limit", cf::extra_args(signature, 6)), 3u);
  const cf::cache_stats before = ctx().program_cache_stats();
  EXPECT_EQ(cf::copy_if(q(), in, out, "x > limit", cf::extra_args(signature, 0)), 4u);
  EXPECT_EQ(cf::copy_if(q(), in, out, "x > limit", cf::extra_args(signature, -10)), 6u);
  const cf::cache_stats after = ctx().program_cache_stats();
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.disk_hits, before.disk_hits);
  EXPECT_EQ(after.memory_hits, before.memory_hits);
}

TEST(selection_extra_args, two_queues_share_one_program) {
  cf::queue second(ctx());
  cf::queue* queues[2] = {&q(), &second};
  const std::vector<std::string> thrown = clforge_test::on_threads(2, [&](int t) {
    cf::queue& mine = *queues[t];
    for (int round = 0; round < 6; ++round) {
      const std::size_t n = 5000 + std::size_t(t) * 1000 + std::size_t(round);
      std::vector<cl_long> host(n);
      std::mt19937 rng(unsigned(t * 100 + round));
      for (cl_long& v : host) v = cl_long(rng() % 1000);
      const cl_long limit = 100 * (round + 1) + t;
      std::vector<cl_long> want;
      std::copy_if(host.begin(), host.end(), std::back_inserter(want),
                   [&](cl_long v) { return v < limit; });
      auto in = cf::array<cl_long>::from_host(mine, host);
      cf::array<cl_long> out(mine, n);
      const std::size_t kept =
          cf::copy_if(mine, in, out, "x < limit", cf::extra_args("long limit", limit));
      std::vector<cl_long> got = out.to_host(mine);
      got.resize(kept);
      if (kept != want.size() || got != want)
        throw std::runtime_error("round " + std::to_string(round) + ": kept " +
                                 std::to_string(kept) + ", want " + std::to_string(want.size()));
    }
    mine.finish();
  });
  EXPECT_EQ(thrown, std::vector<std::string>(2));
}

TEST(selection_extra_args, bad_extra_arguments_are_clear_errors) {
  auto in = cf::array<float>::from_host(q(), std::vector<float>{1, 2, 3, 4});
  cf::array<float> out(q(), 4);
  auto short_mask = cf::array<cl_uchar>::from_host(q(), std::vector<cl_uchar>{1, 1});
  EXPECT_CLFORGE_ERROR(cf::copy_if(q(), in, out, "mask[i] != 0",
                                   cf::extra_args("global const uchar* mask", short_mask)),
                       {"copy_if", "mask", "2 elements", "[i]", "4 elements"});
  EXPECT_CLFORGE_ERROR(cf::partition(q(), in, out, "x > 0", cf::extra_args("float x", 1.0f)),
                       {"partition", "\"x\" is reserved"});
  EXPECT_CLFORGE_ERROR(
      cf::copy_if(q(), in, out, "x > clforge_limit", cf::extra_args("float clforge_limit", 1.0f)),
      {"copy_if", "clforge_"});
  EXPECT_CLFORGE_ERROR(
      cf::copy_if(q(), in, out, "x > limit", cf::extra_args("float limit, int k", 1.0f)),
      {"copy_if"});
  EXPECT_CLFORGE_ERROR(
      cf::remove_if(q(), in, out, "x > limit", cf::extra_args("float limit[", 1.0f)),
      {"remove_if", "parameter list"});
  EXPECT_CLFORGE_ERROR(cf::copy_if(q(), in, out, "  ", cf::extra_args("float limit", 1.0f)),
                       {"copy_if", "predicate is empty"});
  // An extra array given as a view (here every other element of a longer mask): a clear error
  // naming the function called, before and after a tuning change, with no build asked for first.
  auto long_mask = cf::array<cl_uchar>::from_host(q(), std::vector<cl_uchar>(8, 1));
  auto every_other = long_mask.view(0, cf::slice_none, 2);
  const auto mask_arg = [&] { return cf::extra_args("global const uchar* mask", every_other); };
  const auto refuse_views = [&] {
    EXPECT_CLFORGE_ERROR(cf::copy_if(q(), in, out, "mask[i] != 0", mask_arg()),
                         {"copy_if: extra argument mask is an array view", "whole arrays"});
    EXPECT_CLFORGE_ERROR(cf::partition(q(), in, out, "mask[i] != 0", mask_arg()),
                         {"partition: extra argument mask is an array view"});
    EXPECT_CLFORGE_ERROR(cf::remove_if(q(), in, out, "mask[i] == 0", mask_arg()),
                         {"remove_if: extra argument mask is an array view"});
  };
  // Round 0's first pass builds the three selection programs (the message quotes their
  // parameter names); a second pass, and every pass after a tuning change, asks for nothing.
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    if (round == 0) refuse_views();
    if (round == 1) cf::tuning::set(ctx(), "scan", "group=64");
    const std::size_t before = clforge_test::cache_lookups(ctx());
    refuse_views();
    EXPECT_EQ(clforge_test::cache_lookups(ctx()), before);
  }
  cf::tuning::reset(ctx());
  EXPECT_EQ(cf::copy_if(q(), in, out, "mask[i] != 0",
                        cf::extra_args("global const uchar* mask", long_mask)),
            4u);
  // The outputs were checked before anything ran: out still usable.
  EXPECT_EQ(cf::copy_if(q(), in, out, "x > limit", cf::extra_args("float limit", 2.5f)), 2u);
}

// An empty input runs nothing, but its extra arguments get the errors of any other size, with
// nothing built: a view, another context's array, a wrong count or kind, a bad parameter list.
TEST(selection_extra_args, an_empty_input_still_checks_its_extra_arguments) {
  cf::array<float> in(q(), 0), out(q(), 0);
  auto mask = cf::array<cl_uchar>::from_host(q(), std::vector<cl_uchar>(8, 1));
  cf::context other = cf::context::create_default();
  cf::queue other_q(other);
  auto foreign_mask = cf::array<cl_uchar>::from_host(other_q, std::vector<cl_uchar>(8, 1));
  const char* signature = "global const uchar* mask";
  const std::size_t before = clforge_test::cache_lookups(ctx());
  EXPECT_CLFORGE_ERROR(cf::copy_if(q(), in, out, "mask[i] != 0",
                                   cf::extra_args(signature, mask.view(0, cf::slice_none, 2))),
                       {"copy_if: extra argument mask is an array view"});
  EXPECT_CLFORGE_ERROR(
      cf::partition(q(), in, out, "mask[i] != 0", cf::extra_args(signature, foreign_mask)),
      {"partition: extra_args: argument 1 (mask) belongs to another OpenCL context"});
  EXPECT_CLFORGE_ERROR(
      cf::remove_if(q(), in, out, "x > limit", cf::extra_args("float limit, int k", 1.0f)),
      {"remove_if: extra_args: takes 2 argument(s) (float limit, int k), 1 given"});
  EXPECT_CLFORGE_ERROR(cf::copy_if(q(), in, out, "x > limit", cf::extra_args("float limit", mask)),
                       {"copy_if: extra_args: argument 1 (limit) expects a float value"});
  EXPECT_CLFORGE_ERROR(cf::copy_if(q(), in, out, "x > limit", cf::extra_args("float limit[", 1.0f)),
                       {"copy_if", "parameter list"});
  EXPECT_CLFORGE_ERROR(cf::partition(q(), in, out, "x > 0", cf::extra_args("float x", 1.0f)),
                       {"partition", "\"x\" is reserved"});
  EXPECT_CLFORGE_ERROR(cf::copy_if(q(), in, out, " "), {"copy_if", "predicate is empty"});
  // Valid calls return 0, the indexed mask longer than the (empty) input included.
  EXPECT_EQ(cf::copy_if(q(), in, out, "mask[i] != 0", cf::extra_args(signature, mask)), 0u);
  EXPECT_EQ(cf::partition(q(), in, out, "x > 0"), 0u);
  EXPECT_EQ(clforge_test::cache_lookups(ctx()), before);
}

// Another context's array (whole or a view) as an extra argument: the error names the function
// called and the caller's parameter, not the scan's. Views from two threads (each its own queue)
// at once: each call gets the view error, and the valid calls between them the right count.
TEST(selection_extra_args, other_contexts_arrays_and_views_from_two_threads_are_refused) {
  cf::context other = cf::context::create_default();
  cf::queue other_q(other);
  auto foreign_mask = cf::array<cl_uchar>::from_host(other_q, std::vector<cl_uchar>(8, 1));
  auto in = cf::array<float>::from_host(q(), std::vector<float>{1, 2, 3, 4});
  cf::array<float> out(q(), 4);
  for (int as_view = 0; as_view < 2; ++as_view) {
    SCOPED_TRACE(as_view);
    const std::string message = clforge_test::error_message([&] {
      if (as_view)
        cf::partition(q(), in, out, "mask[i] != 0",
                      cf::extra_args("global const uchar* mask", foreign_mask.view(0, 4)));
      else
        cf::partition(q(), in, out, "mask[i] != 0",
                      cf::extra_args("global const uchar* mask", foreign_mask));
    });
    EXPECT_TRUE(clforge_test::contains_all(
        message, {"partition: extra_args: argument 1 (mask) belongs to another OpenCL context"}));
    EXPECT_EQ(message.find("scan_kernel"), std::string::npos) << message;
  }

  cf::queue second(ctx());
  cf::queue* queues[2] = {&q(), &second};
  const std::vector<std::string> thrown = clforge_test::on_threads(2, [&](int t) {
    cf::queue& mine = *queues[t];
    const std::size_t n = 3000 + std::size_t(t) * 7;
    std::vector<int> host(n);
    std::vector<cl_uchar> mask_host(2 * n);
    std::mt19937 rng(unsigned(t) + 11);
    for (int& v : host) v = int(rng() % 100);
    for (cl_uchar& m : mask_host) m = cl_uchar(rng() % 2);
    auto d_in = cf::array<int>::from_host(mine, host);
    cf::array<int> d_out(mine, n);
    auto mask = cf::array<cl_uchar>::from_host(mine, mask_host);
    auto every_other = mask.view(0, cf::slice_none, 2);
    for (int round = 0; round < 8; ++round) {
      const std::string message = clforge_test::error_message([&] {
        cf::remove_if(mine, d_in, d_out, "mask[i] != 0",
                      cf::extra_args("global const uchar* mask", every_other));
      });
      if (message.find("remove_if: extra argument mask is an array view") != 0)
        throw std::runtime_error("round " + std::to_string(round) + ": " + message);
      // The whole mask (its first n elements index the input) is accepted.
      std::vector<int> want;
      for (std::size_t i = 0; i < n; ++i)
        if (mask_host[i] == 0) want.push_back(host[i]);
      const std::size_t kept = cf::remove_if(mine, d_in, d_out, "mask[i] != 0",
                                             cf::extra_args("global const uchar* mask", mask));
      if (kept != want.size())
        throw std::runtime_error("round " + std::to_string(round) + ": kept " +
                                 std::to_string(kept) + ", want " + std::to_string(want.size()));
      std::vector<int> got = d_out.to_host(mine);
      got.resize(kept);
      if (got != want)
        throw std::runtime_error("round " + std::to_string(round) + ": the kept elements differ");
    }
    mine.finish();
  });
  EXPECT_EQ(thrown, std::vector<std::string>(2));
}

// Extra values that do not match the extra parameter list: the message counts and names the
// caller's parameters only, not the selection's own (its input, output and count arrays).
TEST(selection_extra_args, a_wrong_count_or_kind_names_only_the_extra_parameters) {
  auto in = cf::array<float>::from_host(q(), std::vector<float>{1, 2, 3, 4});
  cf::array<float> out(q(), 4);
  auto mask = cf::array<cl_uchar>::from_host(q(), std::vector<cl_uchar>{1, 0, 1, 1});
  const auto expect_only_extras = [](const std::string& message,
                                     std::initializer_list<std::string> parts) {
    EXPECT_TRUE(clforge_test::contains_all(message, parts));
    for (const char* internal : {"selection_in", "selection_out", "selection_count", "scan_kernel"})
      EXPECT_EQ(message.find(internal), std::string::npos) << message;
  };
  expect_only_extras(clforge_test::error_message([&] {
                       cf::copy_if(q(), in, out, "x > limit",
                                   cf::extra_args("float limit, int k", 1.0f));
                     }),
                     {"copy_if: extra_args: takes 2 argument(s) (float limit, int k), 1 given"});
  expect_only_extras(clforge_test::error_message([&] {
                       cf::remove_if(q(), in, out, "x > limit",
                                     cf::extra_args("float limit", 1.0f, 2, mask));
                     }),
                     {"remove_if: extra_args: takes 1 argument(s) (float limit), 3 given"});
  expect_only_extras(clforge_test::error_message([&] {
                       cf::partition(
                           q(), in, out, "mask[i] > limit",
                           cf::extra_args("float limit, global const uchar* mask", mask, 1.0f));
                     }),
                     {"partition: extra_args: argument 1 (limit) expects a float value"});
  expect_only_extras(
      clforge_test::error_message([&] {
        cf::copy_if(q(), in, out, "mask[i] > 0", cf::extra_args("global const uchar* mask", in));
      }),
      {"copy_if: extra_args: argument 1 (mask) expects array<uchar>", "array<float>"});
}
