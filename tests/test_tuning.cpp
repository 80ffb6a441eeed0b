// SPDX-License-Identifier: MIT
// clforge::tuning and CLFORGE_TUNE: tables per device class, overrides per template, clear
// errors for wrong keys and values, and results unchanged whatever the tuning.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <vector>

#include <clforge/clforge.hpp>

#include "expect_error.hpp"

namespace cf = clforge;

namespace {

// A context of its own: tuning::set must not leak into other tests' kernels.
cf::context& tuned_ctx() {
  static cf::context c = cf::context::create_default();
  return c;
}

struct env_guard {
  explicit env_guard(const char* value) { ::setenv("CLFORGE_TUNE", value, 1); }
  ~env_guard() { ::unsetenv("CLFORGE_TUNE"); }
};

cf::scan_kernel<cl_int> plain_scan(const cf::context& ctx, const char* name) {
  cf::scan_options o;
  o.name = name;
  return cf::scan_kernel<cl_int>(ctx, "global const int* x, global int* y", "x[i]", "a + b", "0",
                                 "y[i] = item", cf::scan_kind::inclusive, o);
}

}  // namespace

TEST(tuning, the_device_picks_its_table) {
  cf::context ctx = cf::context::create_default();
  const std::string table = cf::tuning::table(ctx);
  if (ctx.info().is_gpu())
    EXPECT_NE(table, "cpu");
  else
    EXPECT_EQ(table, "cpu");
}

TEST(tuning, set_overrides_a_template_and_reset_forgets_it) {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  cf::tuning::set(ctx, "scan", "algorithm=lookback,items=7,group=16");
  auto scan = plain_scan(ctx, "tuned_scan");
  EXPECT_EQ(scan.algorithm(), cf::scan_algorithm::lookback);
  EXPECT_EQ(scan.tile_size(), 7u * 16u);
  std::vector<cl_int> host(1000);
  std::iota(host.begin(), host.end(), 1);
  auto x = cf::array<cl_int>::from_host(q, host);
  cf::array<cl_int> y(q, host.size());
  scan(q, x, y);
  EXPECT_EQ(y.to_host(q).back(), 500500);
  // explicit options win over tuning
  cf::scan_options o;
  o.items_per_thread = 3;
  o.group_size = 8;
  cf::scan_kernel<cl_int> given(ctx, "global const int* x, global int* y", "x[i]", "a + b", "0",
                                "y[i] = item", cf::scan_kind::inclusive, o);
  EXPECT_EQ(given.tile_size(), 24u);
  cf::tuning::reset(ctx);
  EXPECT_EQ(
      plain_scan(ctx, "untuned_scan").algorithm(),
      ctx.info().is_gpu() ? cf::scan_algorithm::lookback : cf::scan_algorithm::reduce_then_scan);
}

TEST(tuning, a_table_can_be_selected_by_name) {
  cf::context& ctx = tuned_ctx();
  cf::queue q(ctx);
  cf::tuning::set(ctx, "table", "nvidia");
  EXPECT_EQ(cf::tuning::table(ctx), "nvidia");
  cf::reduction_kernel<float> sum(ctx, "global const float* x", "x[i]", "a + b", "0.0f");
  EXPECT_NE(sum.source().find("shape: gpu local=256 unroll=8 groups_per_cu=16 vec=4 single=1 "
                              "grid=1"),
            std::string::npos)
      << sum.source().substr(0, 300);
  auto x = cf::array<float>::from_host(q, std::vector<float>(100003, 1.0f));
  EXPECT_EQ(sum(q, x), 100003.0f);
  cf::tuning::set(ctx, "table", "generic");
  cf::reduction_kernel<float> plain(ctx, "global const float* x", "x[i]", "a + b", "0.0f");
  EXPECT_NE(
      plain.source().find("shape: gpu local=256 unroll=8 groups_per_cu=16 vec=4    compensated"),
      std::string::npos);
  EXPECT_EQ(plain(q, x), 100003.0f);
  cf::tuning::set(ctx, "table", "auto");
  EXPECT_EQ(cf::tuning::table(ctx), ctx.info().is_gpu() ? cf::tuning::table(ctx) : "cpu");
  cf::tuning::reset(ctx);
}

TEST(tuning, the_environment_variable_overrides_every_template) {
  env_guard env("table=generic; elementwise:group=64 ; scan:algorithm=reduce_then_scan,lanes=3");
  cf::context ctx = cf::context::create_default();
  EXPECT_EQ(cf::tuning::table(ctx), "generic");
  cf::elementwise_kernel k(ctx, "global int* y", "y[i] = 1");
  EXPECT_EQ(k.shape().local_size, 64u);
  EXPECT_EQ(k.shape().which, cf::kernel_shape::kind::gpu);
  auto scan = plain_scan(ctx, "env_scan");
  EXPECT_EQ(scan.algorithm(), cf::scan_algorithm::reduce_then_scan);
  EXPECT_NE(scan.source().find("#define CLFORGE_LANES 3"), std::string::npos);
}

TEST(tuning, wrong_overrides_name_the_valid_keys_and_bounds) {
  cf::context& ctx = tuned_ctx();
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "scan", "itemz=32"),
                       {"clforge::tuning::set", "\"itemz=32\" is not a scan setting",
                        "items (0 (by type) to 64)", "group (1 to 4096)", "layout"});
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "reduce", "unroll=1048576"),
                       {"reduce unroll takes 1 to 64, not \"1048576\""});
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "scan", "items=" + std::string(100000, '9')),
                       {"scan items takes 0 (by type) to 64"});
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "scan", "layout=diagonal"), {"striped|striped_vector"});
  // The blocked layouts were removed (they lost to the striped ones wherever measured).
  for (const std::string removed : {"blocked", "blocked_vload", "blocked_aligned"})
    EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "scan", "layout=" + removed),
                         {"scan layout takes striped|striped_vector, not \"" + removed + "\""});
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "sorting", "items=4"),
                       {"no template \"sorting\"", "elementwise, reduce, scan, polygon, sort"});
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "table", "fastest"),
                       {"no tuning table \"fastest\"", "nvidia", "generic", "cpu"});
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "elementwise", "vector_width=3"),
                       {"vector_width takes 0 or a power of two up to 16"});
  EXPECT_CLFORGE_ERROR(cf::tuning::set(cf::context(), "scan", "items=4"), {"empty"});
  {
    env_guard env("scan:items=7by16");
    EXPECT_CLFORGE_ERROR(plain_scan(ctx, "bad_env"), {"CLFORGE_TUNE", "scan items takes"});
  }
  {
    env_guard env("scan");
    EXPECT_CLFORGE_ERROR(plain_scan(ctx, "bad_env"), {"CLFORGE_TUNE", "expected table=NAME",
                                                      "tuned=on|off", "PRIMITIVE:key=value"});
  }
  // Nothing was stored by the failed calls.
  EXPECT_NO_THROW(plain_scan(ctx, "after_errors"));
}

TEST(tuning, polygon_shapes_come_from_the_tuning) {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  const std::vector<cf::point2f> square = {{1, 1}, {7, 1}, {7, 7}, {1, 7}};
  cf::polygon_mask mask(ctx);
  const auto reference = mask(q, square, 8, 8).to_host(q);
  for (const char* settings : {"kernel=pixel,pixels=2", "kernel=span,pixels=4,group=64,serial=1",
                               "kernel=fill,pixels=16,group=64", "kernel=row,pixels=1024"}) {
    SCOPED_TRACE(settings);
    cf::tuning::set(ctx, "polygon", settings);
    EXPECT_EQ(mask(q, square, 8, 8).to_host(q), reference);
  }
  cf::tuning::set(ctx, "polygon", "kernel=span,pixels=1000");
  EXPECT_CLFORGE_ERROR(mask(q, square, 8, 8), {"too many pixels per work-item"});
}

TEST(tuning, sort_takes_its_policy_from_the_tuning) {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  const cf::sort_options automatic;
  // The GPU tables sort on onesweep, the CPU table on the chunked path.
  for (const char* gpu_table : {"nvidia", "generic"}) {
    SCOPED_TRACE(gpu_table);
    cf::tuning::set(ctx, "table", gpu_table);
    EXPECT_EQ(cf::detail::sort_path_for(ctx, 0, automatic), "onesweep");
    EXPECT_EQ(cf::detail::sort_path_for(ctx, 16, automatic), "onesweep");
    cf::tuning::reset(ctx);
  }
  cf::tuning::set(ctx, "table", "cpu");
  EXPECT_EQ(cf::detail::sort_path_for(ctx, 0, automatic), "chunked");
  cf::tuning::set(ctx, "sort", "path=onesweep,group=32,items=8,portion=4096");
  EXPECT_EQ(cf::detail::sort_path_for(ctx, 0, automatic), "onesweep");
  EXPECT_EQ(cf::detail::sort_path_for(ctx, 16, automatic), "onesweep");
  std::vector<cl_uint> host(20011);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = cl_uint(i * 2654435761u);
  auto keys = cf::array<cl_uint>::from_host(q, host);
  cf::sort(q, keys);
  std::sort(host.begin(), host.end());
  EXPECT_EQ(keys.to_host(q), host);
  // Values wider than the table allows take the chunked path; explicit options win.
  cf::tuning::set(ctx, "sort", "onesweep_value_bytes=4");
  EXPECT_EQ(cf::detail::sort_path_for(ctx, 4, automatic), "onesweep");
  EXPECT_EQ(cf::detail::sort_path_for(ctx, 8, automatic), "chunked");
  cf::sort_options chunked;
  chunked.algorithm = cf::sort_algorithm::chunked;
  EXPECT_EQ(cf::detail::sort_path_for(ctx, 0, chunked), "chunked");
  cf::tuning::reset(ctx);
  cf::tuning::set(ctx, "table", "cpu");
  EXPECT_EQ(cf::detail::sort_path_for(ctx, 0, automatic), "chunked");
  {
    env_guard env("sort:path=onesweep");
    EXPECT_EQ(cf::detail::sort_path_for(ctx, 0, automatic), "onesweep");
  }
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "sort", "itemz=4"),
                       {"\"itemz=4\" is not a sort setting", "path (onesweep|chunked)",
                        "items (4|8|12|16|20|24|32|40|48|64)", "chunks_per_cu (1|4|8|16)",
                        "min_chunk", "ranking (matrix|lanes|nv_match|nv_warp)"});
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "sort", "items=10"),
                       {"sort items takes 4|8|12|16|20|24|32|40|48|64, not \"10\""});
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "sort", "ranking=match"),
                       {"sort ranking takes matrix|lanes|nv_match|nv_warp"});
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "sort", "path=bitonic"),
                       {"sort path takes onesweep|chunked"});
  {
    env_guard env("sort:group=48");
    EXPECT_CLFORGE_ERROR(cf::sort(q, keys), {"CLFORGE_TUNE", "sort group takes 32|64|128|256"});
  }
  q.finish();
}
