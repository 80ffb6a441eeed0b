// SPDX-License-Identifier: MIT
// clforge::tuning and CLFORGE_TUNE: tables per device class, overrides per template, clear
// errors for wrong keys and values, and results unchanged whatever the tuning.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <clforge/clforge.hpp>

#include "cache_lookups.hpp"
#include "expect_error.hpp"
#include "tune_env.hpp"
#include "tuning/registry.hpp"
#include "tuning/resolve.hpp"
#include "tuning/tables.hpp"

// Also checks that the tuning fields deprecated in 0.2 (kernel_options::shape,
// kernel_shape::parse, scan_options' tile and chunk fields) keep working until 0.3.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace cf = clforge;

namespace {

// A context of its own: tuning::set must not leak into other tests' kernels.
cf::context& tuned_ctx() {
  static cf::context c = cf::context::create_default();
  return c;
}

// CLFORGE_TUNE set to `value` alone for one test (its parsing, the device's own table); the
// run's value comes back after it, as with tune_env.
struct env_guard : clforge_test::tune_env {
  explicit env_guard(const char* value) : tune_env("") { ::setenv("CLFORGE_TUNE", value, 1); }
};

cf::scan_kernel<cl_int> plain_scan(const cf::context& ctx, const char* name) {
  cf::scan_options o;
  o.name = name;
  return cf::scan_kernel<cl_int>(ctx, "global const int* x, global int* y", "x[i]", "a + b", "0",
                                 "y[i] = item", cf::scan_kind::inclusive, o);
}

}  // namespace

// These two test the device's own table: a CLFORGE_TUNE the caller set (running the suite by
// hand under table=nvidia, say) is set aside while they run.
TEST(tuning, the_device_picks_its_table) {
  const env_guard device_table("table=auto");
  cf::context ctx = cf::context::create_default();
  const std::string table = cf::tuning::table(ctx);
  if (ctx.info().is_gpu())
    EXPECT_NE(table, "cpu");
  else
    EXPECT_EQ(table, "cpu");
}

TEST(tuning, set_overrides_a_template_and_reset_forgets_it) {
  const env_guard device_table("table=auto");
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
  EXPECT_NE(sum.source().find("policy: kind=gpu,group=256,unroll=8,groups_per_cu=16,"
                              "vector_bytes=16,grid=1,single_launch=1"),
            std::string::npos)
      << sum.source().substr(0, 300);
  auto x = cf::array<float>::from_host(q, std::vector<float>(100003, 1.0f));
  EXPECT_EQ(sum(q, x), 100003.0f);
  cf::tuning::set(ctx, "table", "generic");
  cf::reduction_kernel<float> plain(ctx, "global const float* x", "x[i]", "a + b", "0.0f");
  EXPECT_NE(plain.source().find("policy: kind=gpu,group=256,unroll=8,groups_per_cu=16,"
                                "vector_bytes=16,grid=0,single_launch=0 "),
            std::string::npos)
      << plain.source().substr(0, 300);
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

// Every row of every table parses through its template's keys (a typo would make
// tuning_tables() throw), names every key, reads back as written, and says where it comes from.
TEST(tuning, every_table_row_parses_and_says_where_it_comes_from) {
  const auto& tables = cf::detail::tuning_tables();
  ASSERT_EQ(tables.size(), 6u);
  std::vector<std::string> names;
  for (const cf::detail::tuning_table& t : tables) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"nvidia", "amd", "intel", "gpu", "generic", "cpu"}));
  for (const cf::detail::tuning_table& t : tables)
    for (const cf::detail::template_row* row : cf::detail::template_rows()) {
      SCOPED_TRACE(t.name + " / " + row->name());
      ASSERT_EQ(t.text.count(row->name()), 1u);
      const std::string& text = t.text.at(row->name());
      EXPECT_EQ(cf::detail::normalized_policy(row->name(), text, "test"), text);
      for (const std::string& key : row->key_names())
        EXPECT_NE(("," + text).find("," + key + "="), std::string::npos) << key;
      const std::string& from = t.provenance.at(row->name());
      EXPECT_TRUE(from.rfind("measured", 0) == 0 || from.rfind("not measured", 0) == 0) << from;
      EXPECT_EQ(cf::detail::table_policy(t.name, row->name()), text);
    }
  // The measured rows carry their figures.
  EXPECT_NE(tables[0].provenance.at("scan").find("2507.8"), std::string::npos);
  EXPECT_NE(tables[5].provenance.at("histogram").find("1.044"), std::string::npos);
}

// Every key of every template refuses a value outside its bounds or choices, naming the
// template, the key and what it takes; the registry names every template in one error.
TEST(tuning, every_key_refuses_a_value_out_of_bounds_clearly) {
  cf::context& ctx = tuned_ctx();
  std::size_t keys = 0;
  for (const cf::detail::template_row* row : cf::detail::template_rows()) {
    const std::string described = row->keys_described();
    for (const std::string& key : row->key_names()) {
      SCOPED_TRACE(std::string(row->name()) + " " + key);
      const std::string takes = described.substr(described.find(key + " (") + key.size() + 2);
      // "... key (takes), next (...)", or for the last key "... key (takes)"
      const std::size_t end = takes.find("), ");
      const std::string what = takes.substr(0, end == std::string::npos ? takes.size() - 1 : end);
      for (const std::string bad : {"99999999999999", "-1", "x", "1e3", ""})
        EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, row->name(), key + "=" + bad),
                             {"clforge::tuning::set: " + std::string(row->name()) + " " + key +
                              " takes " + what + ", not \"" + bad + "\""});
      ++keys;
    }
    EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, row->name(), "no_such_key=1"),
                         {"is not a " + std::string(row->name()) + " setting", described});
  }
  EXPECT_EQ(keys, 6u + 7u + 16u + 6u + 11u + 4u + 7u + 3u);
  EXPECT_CLFORGE_ERROR(cf::tuning::set(ctx, "convolution", "group=64"),
                       {"no template \"convolution\"",
                        "elementwise, reduce, scan, polygon, sort, histogram, stencil, par_loop"});
  cf::tuning::reset(ctx);
}

// tuning::set after a template's first call changes what its next call runs: the snippets
// below read the work-group size each call runs with.
TEST(tuning, set_after_first_use_takes_effect) {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  const std::size_t n = 1000;
  auto x = cf::array<cl_int>::from_host(q, std::vector<cl_int>(n, 1));
  cf::array<cl_int> y(q, n);
  auto all_equal = [&](const std::vector<cl_int>& v, cl_int value) {
    return std::all_of(v.begin(), v.end(), [&](cl_int e) { return e == value; });
  };

  cf::tuning::set(ctx, "elementwise", "kind=gpu,group=64,groups_per_cu=0,block=0,interleave=0");
  cf::elementwise_kernel local_size(ctx, "global int* y", "y[i] = (int)get_local_size(0)");
  local_size(q, y);
  EXPECT_TRUE(all_equal(y.to_host(q), 64));
  cf::tuning::set(ctx, "elementwise", "group=32");
  local_size(q, y);
  EXPECT_TRUE(all_equal(y.to_host(q), 32));
  const cf::elementwise_kernel copy = local_size;  // copies share the rebuild
  cf::tuning::set(ctx, "elementwise", "group=16");
  copy(q, y);
  EXPECT_TRUE(all_equal(y.to_host(q), 16));
  local_size(q, y);
  EXPECT_TRUE(all_equal(y.to_host(q), 16));

  cf::tuning::set(ctx, "reduce", "kind=gpu,group=64,vector_bytes=0,single_launch=0");
  cf::reduction_kernel<cl_int> widest(ctx, "global const int* x", "(int)get_local_size(0)",
                                      "max(a, b)", "0");
  EXPECT_EQ(widest(q, x), 64);
  cf::tuning::set(ctx, "reduce", "group=32");
  EXPECT_EQ(widest(q, x), 32);

  cf::tuning::set(ctx, "scan", "algorithm=lookback,items=4,group=64");
  cf::scan_kernel<cl_int> scan(ctx, "global const int* x, global int* y", "(int)get_local_size(0)",
                               "max(a, b)", "0", "y[i] = item", cf::scan_kind::inclusive);
  scan(q, x, y);
  EXPECT_TRUE(all_equal(y.to_host(q), 64));
  cf::tuning::set(ctx, "scan", "group=32");
  scan(q, x, y);
  EXPECT_TRUE(all_equal(y.to_host(q), 32));
  // A tuned tile is fitted to the device at the next call: the group capped to the device's
  // limit, then lowered to what the built kernel allows (NVIDIA's limit per kernel depends on its
  // registers), and the items shrunk until the tile fits local memory (only a tile the
  // deprecated scan_options fields ask for is refused). The kernel runs the group it was built
  // for.
  cf::tuning::set(ctx, "scan", "items=64,group=4096");
  cf::scan_kernel<cl_int> fitted(ctx, "global const int* x, global int* y",
                                 "(int)get_local_size(0)", "max(a, b)", "0", "y[i] = item",
                                 cf::scan_kind::inclusive);
  fitted(q, x, y);
  const std::string built = fitted.source();
  const std::size_t at = built.find("#define CLFORGE_GROUP ");
  ASSERT_NE(at, std::string::npos);
  const int group = std::atoi(built.c_str() + at + std::strlen("#define CLFORGE_GROUP "));
  EXPECT_GT(group, 0);
  EXPECT_LE(group, int(std::min<std::size_t>(4096, ctx.info().max_work_group_size)));
  EXPECT_TRUE(all_equal(y.to_host(q), group)) << "group " << group;
  scan(q, x, y);  // the kernel built before the change is built again the same way
  EXPECT_TRUE(all_equal(y.to_host(q), group)) << "group " << group;

  cf::tuning::set(ctx, "histogram", "group=64");
  cf::histogram_kernel groups(ctx, "global const int* x", "get_local_size(0) == 64 ? 0 : 1", 2);
  EXPECT_EQ(groups(q, x).to_host(q), (std::vector<cl_uint>{cl_uint(n), 0}));
  cf::tuning::set(ctx, "histogram", "group=32");
  EXPECT_EQ(groups(q, x).to_host(q), (std::vector<cl_uint>{0, cl_uint(n)}));
  cf::tuning::set(ctx, "histogram", "group=64");
  EXPECT_EQ(groups(q, x).to_host(q), (std::vector<cl_uint>{cl_uint(n), 0}));
  cf::tuning::reset(ctx);  // reset moves the tuning too: back to the table's group
  const std::size_t table_group = std::min(
      cf::detail::tuned<cf::detail::histogram_policy>(ctx).group, ctx.info().max_work_group_size);
  const std::vector<cl_uint> expected =
      table_group == 64 ? std::vector<cl_uint>{cl_uint(n), 0} : std::vector<cl_uint>{0, cl_uint(n)};
  EXPECT_EQ(groups(q, x).to_host(q), expected);

  // The templates kept with the context (cf::sum) follow too: a new program after set, none
  // on the next call.
  auto f = cf::array<float>::from_host(q, std::vector<float>(n, 1.0f));
  EXPECT_EQ(cf::sum(q, f), float(n));
  auto lookups = [&] { return clforge_test::cache_lookups(ctx); };
  std::size_t before = lookups();
  EXPECT_EQ(cf::sum(q, f), float(n));
  EXPECT_EQ(lookups(), before);
  cf::tuning::set(ctx, "reduce", "unroll=2");
  EXPECT_EQ(cf::sum(q, f), float(n));
  EXPECT_GT(lookups(), before);
  before = lookups();
  EXPECT_EQ(cf::sum(q, f), float(n));
  EXPECT_EQ(lookups(), before);
  q.finish();
}

// The histogram's policy comes from the tables and the overrides like every other template's.
TEST(tuning, histogram_takes_its_policy_from_the_tuning) {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  std::vector<float> host(5003);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = float(i % 97) / 97.0f;
  auto x = cf::array<float>::from_host(q, host);
  const std::vector<cl_uint> reference = cf::histogram(q, x, 16, 0.0f, 1.0f).to_host(q);
  for (const char* settings :
       {"group=1,groups_per_cu=3,unroll=1", "group=64,unroll=4",
        "group=256,groups_per_cu=32,local_bins=8192", "local_bins=0,unroll=16"}) {
    SCOPED_TRACE(settings);
    cf::tuning::set(ctx, "histogram", settings);
    EXPECT_EQ(cf::histogram(q, x, 16, 0.0f, 1.0f).to_host(q), reference);
  }
  cf::histogram_kernel few(ctx, "global const float* x", "(long)(x[i] * 16.0f)", 16);
  EXPECT_FALSE(few.privatised());  // local_bins=0: global atomics
  cf::tuning::reset(ctx);
  {
    env_guard env("histogram:local_bins=64");
    cf::histogram_kernel many(ctx, "global const float* x", "(long)(x[i] * 16.0f)", 65);
    EXPECT_FALSE(many.privatised());
    cf::histogram_kernel fits(ctx, "global const float* x", "(long)(x[i] * 16.0f)", 64);
    EXPECT_TRUE(fits.privatised());
  }
  q.finish();
}

// copy_if's look-back keeps its items where selection_registers says, a plain scan where
// registers says; both give the host loop's answer either way.
TEST(tuning, selections_take_their_own_registers_key) {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  std::vector<cl_int> host(20011);
  std::uint32_t state = 12345;
  for (cl_int& v : host) v = static_cast<cl_int>((state = state * 1664525u + 1013904223u) >> 8);
  auto in = cf::array<cl_int>::from_host(q, host);
  cf::array<cl_int> out(q, host.size());
  const std::string row = "algorithm=lookback,item_bytes=64,group=64,window=8,";
  for (const bool in_registers : {true, false}) {
    SCOPED_TRACE(in_registers);
    cf::tuning::set(ctx, "scan",
                    row + "registers=" + (in_registers ? "0" : "1") +
                        ",selection_registers=" + (in_registers ? "1" : "0"));
    const std::string predicate = in_registers ? "x % 3 == 0" : "x % 3 == 1";
    const std::string selection =
        cf::detail::selection_kernel<cl_int, cl_uint>(ctx, "copy_if", false, predicate, "")
            ->scan.source();
    const std::string scan = plain_scan(ctx, in_registers ? "plain_a" : "plain_b").source();
    const std::string yes = "#define CLFORGE_REGISTERS 1", no = "#define CLFORGE_REGISTERS 0";
    EXPECT_NE(selection.find(in_registers ? yes : no), std::string::npos);
    EXPECT_NE(scan.find(in_registers ? no : yes), std::string::npos);

    std::vector<cl_int> expected;
    for (cl_int v : host)
      if (v % 3 == (in_registers ? 0 : 1)) expected.push_back(v);
    const std::size_t kept = cf::copy_if(q, in, out, predicate);
    ASSERT_EQ(kept, expected.size());
    std::vector<cl_int> got = out.to_host(q);
    got.resize(kept);
    EXPECT_EQ(got, expected);
  }
  cf::tuning::reset(ctx);
}

// A selection built before a change of selection_registers is built again with the new key at
// its next call (the same source would be a memory hit of the program cache, a new one is not).
TEST(tuning, a_selection_built_before_follows_selection_registers) {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  std::vector<cl_int> host(5003);
  for (std::size_t k = 0; k < host.size(); ++k) host[k] = static_cast<cl_int>(k * 7919 % 1000);
  auto in = cf::array<cl_int>::from_host(q, host);
  cf::array<cl_int> out(q, host.size());
  std::vector<cl_int> expected;
  for (cl_int v : host)
    if (v < 300) expected.push_back(v);
  const std::string row = "algorithm=lookback,item_bytes=64,group=64,window=8,registers=1,";
  auto new_programs = [&] {
    const cf::cache_stats c = ctx.program_cache_stats();
    return c.disk_hits + c.compiles;
  };
  for (const char* key : {"selection_registers=1", "selection_registers=0"}) {
    SCOPED_TRACE(key);
    cf::tuning::set(ctx, "scan", row + key);
    const std::size_t before = new_programs();
    const std::size_t kept = cf::copy_if(q, in, out, "x < 300");
    const std::size_t after = new_programs();
    EXPECT_GT(after, before);
    // a call under the same setting builds nothing: the counts above rise only with the key
    EXPECT_EQ(cf::copy_if(q, in, out, "x < 300"), kept);
    EXPECT_EQ(new_programs(), after);
    ASSERT_EQ(kept, expected.size());
    std::vector<cl_int> got = out.to_host(q);
    got.resize(kept);
    EXPECT_EQ(got, expected);
  }
  cf::tuning::reset(ctx);
}
