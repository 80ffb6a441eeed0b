// SPDX-License-Identifier: MIT
// What the snippet templates (elementwise, reduction, scan) accept from users: snippets ending
// in a line comment, neutral elements with newlines, any parameter name outside the reserved
// ones, pointers without an address space, signed indices, bounded tuning values, and clear
// errors (never a crash) for what they refuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <clforge/clforge.hpp>
#include <clforge/detail/codegen.hpp>

#include "expect_error.hpp"
#include "shared_device.hpp"

// Also checks that the tuning fields deprecated in 0.2 (kernel_options::shape,
// kernel_shape::parse, scan_options' tile and chunk fields) keep working until 0.3.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace cf = clforge;
using clforge_test::ctx;
using clforge_test::q;

namespace {

constexpr cf::scan_algorithm kAlgorithms[] = {cf::scan_algorithm::reduce_then_scan,
                                              cf::scan_algorithm::lookback};

cf::scan_options scan_with(cf::scan_algorithm a, const std::string& name = "scan") {
  cf::scan_options o;
  o.algorithm = a;
  o.name = name;
  return o;
}

std::vector<cl_int> ramp(std::size_t n) {
  std::vector<cl_int> v(n);
  std::iota(v.begin(), v.end(), 1);
  return v;
}

// The line of a build error that the message marks with ">>" (the line the compiler reported).
std::string marked_lines(const std::string& message) {
  std::string out;
  for (std::size_t pos = message.find(">>"); pos != std::string::npos;
       pos = message.find(">>", pos + 2))
    out += message.substr(pos, message.find('\n', pos) - pos) + "\n";
  return out;
}

}  // namespace

TEST(template_inputs, snippets_ending_in_a_line_comment_build_in_every_template) {
  const std::size_t n = 1000;
  auto x = cf::array<float>::from_host(q(), std::vector<float>(n, 1.5f));
  cf::array<float> y(q(), n);

  cf::elementwise_kernel reset(ctx(), "global float* y", "y[i] = 2.0f // reset");
  reset(q(), y);
  EXPECT_EQ(y.to_host(q()), std::vector<float>(n, 2.0f));

  cf::reduction_kernel<float> sum(ctx(), "global const float* x", "x[i] // the value",
                                  "a + b // add", "0.0f // nothing");
  EXPECT_FLOAT_EQ(sum(q(), x), 1.5f * n);

  auto xi = cf::array<cl_int>::from_host(q(), ramp(n));
  cf::array<cl_int> yi(q(), n);
  for (cf::scan_algorithm alg : kAlgorithms) {
    cf::scan_kernel<cl_int> scan(ctx(), "global const int* x, global int* y", "x[i] // in",
                                 "a + b // op", "0 // zero", "y[i] = item // out",
                                 cf::scan_kind::inclusive, scan_with(alg));
    scan(q(), xi, yi);
    EXPECT_EQ(yi.to_host(q())[n - 1], static_cast<cl_int>(n * (n + 1) / 2));
  }
}

// Every way user text can end or break a line - a // comment, a backslash (which joins the next
// line), CR LF and lone CR line ends, a #define before the expression - in every template that
// pastes user text: snippets, preambles, bin and key expressions, predicates. The lane-by-lane
// reduction (GPU tables) pastes the map once per lane; CI runs this under every table.
TEST(template_inputs, user_text_with_comments_backslashes_and_line_ends_builds_everywhere) {
  const std::size_t n = 1000;
  const std::vector<std::string> endings = {" // end", " /* end */", " \\",
                                            "\r\n",    "\r",         "\r\n// end\r\n"};
  auto x = cf::array<float>::from_host(q(), std::vector<float>(n, 1.5f));
  auto xi = cf::array<cl_int>::from_host(q(), ramp(n));
  cf::array<float> y(q(), n);
  cf::array<cl_int> yi(q(), n);
  for (std::size_t e = 0; e < endings.size(); ++e) {
    SCOPED_TRACE("ending " + std::to_string(e));
    const std::string& end = endings[e];
    const std::string tag = std::to_string(e);
    cf::kernel_options o;
    o.name = "reset_" + tag;
    o.preamble = "#define CLFORGE_TEST_TWO 2.0f" + end;
    cf::elementwise_kernel reset(ctx(), "global float* y", "y[i] = CLFORGE_TEST_TWO" + end, o);
    reset(q(), y);
    EXPECT_EQ(y.to_host(q()), std::vector<float>(n, 2.0f));

    cf::reduction_options ro_sum;
    ro_sum.name = "sum_" + tag;
    cf::reduction_kernel<float> sum(ctx(), "global const float* x",
                                    "\n#define USER_ONE 1.0f\nx[i] * USER_ONE" + end, "a + b" + end,
                                    "0.0f" + end, ro_sum);
    EXPECT_FLOAT_EQ(sum(q(), x), 1.5f * n);

    for (cf::scan_algorithm alg : kAlgorithms) {
      cf::scan_options so = scan_with(alg, "scan_" + tag);
      so.preamble = "// helpers" + end;
      cf::scan_kernel<cl_int> scan(ctx(), "global const int* x, global int* y", "x[i]" + end,
                                   "a + b" + end, "0" + end, "y[i] = item" + end,
                                   cf::scan_kind::inclusive, so);
      scan(q(), xi, yi);
      EXPECT_EQ(yi.to_host(q())[n - 1], static_cast<cl_int>(n * (n + 1) / 2));
    }

    cf::histogram_options ho;
    ho.name = "bins_" + tag;
    ho.preamble = "// helpers" + end;
    cf::histogram_kernel bins(ctx(), "global const int* x", "x[i] % 4" + end, 4, ho);
    const std::vector<cl_uint> counts = bins(q(), xi).to_host(q());
    EXPECT_EQ(counts, std::vector<cl_uint>(4, static_cast<cl_uint>(n / 4)));

    cf::radix_sort_options ro;
    ro.name = "by_key_" + tag;
    ro.preamble = "// helpers" + end;
    cf::radix_sort_kernel by_key(ctx(), "global int* x", "(uint)(2000 - x[i])" + end, {"x"}, 32,
                                 ro);
    cf::array<cl_int> sorted = cf::array<cl_int>::from_host(q(), ramp(n));
    by_key(q(), sorted);
    std::vector<cl_int> expect = ramp(n);
    std::reverse(expect.begin(), expect.end());
    EXPECT_EQ(sorted.to_host(q()), expect);

    cf::array<cl_int> kept(q(), n);
    EXPECT_EQ(cf::copy_if(q(), xi, kept, "x > 500" + end), n - 500);
  }
}

TEST(template_inputs, reduction_neutral_with_newlines_builds) {
  auto x = cf::array<cl_int>::from_host(q(), ramp(100));
  cf::reduction_kernel<cl_int> sum(ctx(), "global const int* x", "x[i]", "a + b", "0\n");
  EXPECT_EQ(sum(q(), x), 5050);
  cf::reduction_kernel<cl_int> low(ctx(), "global const int* x", "x[i]", "min(a, b)",
                                   "\nINT_MAX\n");
  EXPECT_EQ(low(q(), x), 1);
  EXPECT_EQ(low(q(), cf::range(0), x), INT_MAX);  // no index: the neutral element
}

TEST(template_inputs, syntax_error_in_the_neutral_shows_the_users_line) {
  const std::string message = clforge_test::error_message([] {
    cf::reduction_kernel<cl_int> bad(ctx(), "global const int* x", "x[i]", "a + b",
                                     "no_such_neutral_t11 +");
  });
  EXPECT_NE(marked_lines(message).find("no_such_neutral_t11"), std::string::npos) << message;
  const std::string in_scan = clforge_test::error_message([] {
    cf::scan_kernel<cl_int> bad(ctx(), "global const int* x, global int* y", "x[i]", "a + b",
                                "no_such_neutral_t11s +", "y[i] = item");
  });
  EXPECT_NE(marked_lines(in_scan).find("no_such_neutral_t11s"), std::string::npos) << in_scan;
}

// Names the generated code once used for its own locals, parameters and macro arguments: user
// parameters of those names must build and keep their values (parameter k holds k + 1, so a
// parameter shadowed by an internal name changes the result).
namespace {
const char* const kOnceInternalNames[] = {"scratch", "lid",  "width", "value", "word", "status",
                                          "epoch",   "bits", "t",     "p",     "s",    "c",
                                          "j",       "k",    "u",     "v",     "q",    "base",
                                          "first",   "last", "step",  "count", "x4",   "heads"};
constexpr int kNames = sizeof kOnceInternalNames / sizeof kOnceInternalNames[0];

template <class Kernel, class... Rest, std::size_t... K>
auto call_with_names(const Kernel& k, std::index_sequence<K...>, const Rest&... rest) {
  return k(q(), static_cast<cl_int>(K + 1)..., rest...);
}
template <class Kernel, class... Rest>
auto call_with_names(const Kernel& k, const Rest&... rest) {
  return call_with_names(k, std::make_index_sequence<kNames>(), rest...);
}
}  // namespace

TEST(template_inputs, any_parameter_name_outside_the_reserved_ones_works) {
  std::string params, total;
  for (const char* name : kOnceInternalNames) {
    params += std::string("int ") + name + ", ";
    total += std::string(total.empty() ? "" : " + ") + name;
  }
  const cl_int weight = kNames * (kNames + 1) / 2;
  const std::string times = " * (" + total + ")";
  const std::size_t n = 300;
  auto x = cf::array<cl_int>::from_host(q(), ramp(n));
  cf::array<cl_int> y(q(), n);
  const cl_int ramp_sum = static_cast<cl_int>(n * (n + 1) / 2);

  cf::reduction_kernel<cl_int> sum(ctx(), params + "global const int* x", "x[i]" + times, "a + b",
                                   "0");
  EXPECT_EQ(call_with_names(sum, x), weight * ramp_sum);
  cf::elementwise_kernel scale(ctx(), params + "global const int* x, global int* y",
                               "y[i] = x[i]" + times);
  call_with_names(scale, x, y);
  EXPECT_EQ(y.to_host(q())[n - 1], static_cast<cl_int>(weight * n));
  for (cf::scan_algorithm alg : kAlgorithms) {
    cf::scan_kernel<cl_int> scan(ctx(), params + "global const int* x, global int* y",
                                 "x[i]" + times, "a + b", "0", "y[i] = item",
                                 cf::scan_kind::inclusive, scan_with(alg));
    call_with_names(scan, x, y);
    EXPECT_EQ(y.to_host(q())[n - 1], weight * ramp_sum);
  }
}

TEST(template_inputs, reserved_names_are_refused_by_name) {
  EXPECT_CLFORGE_ERROR(cf::reduction_kernel<cl_int>(ctx(), "int clforge_x, global const int* x",
                                                    "x[i]", "a + b", "0"),
                       {"clforge_", "reserved"});
  EXPECT_CLFORGE_ERROR(cf::scan_kernel<cl_int>(ctx(), "global const int* item, global int* y",
                                               "item[i]", "a + b", "0", "y[i] = item"),
                       {"\"item\"", "reserved"});
}

// Every snippet template's options are kernel_options: the name, preamble and build options
// mean one thing everywhere, and the deprecated shape, read by elementwise and reduction kernels
// only, is refused by the others rather than ignored.
static_assert(std::is_base_of_v<cf::kernel_options, cf::reduction_options> &&
              std::is_base_of_v<cf::kernel_options, cf::scan_options> &&
              std::is_base_of_v<cf::kernel_options, cf::histogram_options> &&
              std::is_base_of_v<cf::kernel_options, cf::radix_sort_options> &&
              std::is_base_of_v<cf::kernel_options, cf::stencil_options>);

template <class Options>
Options named_with_a_shape(const std::string& name) {
  Options o;
  o.name = name;
  o.preamble = "int clforge_test_helper(int v) { return v; }";
  o.shape.local_size = 64;
  return o;
}

TEST(template_inputs, every_template_takes_kernel_options_and_refuses_a_shape_it_would_ignore) {
  const auto scan = [](const cf::scan_options& o) {
    cf::scan_kernel<cl_int>(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                            "y[i] = item", cf::scan_kind::inclusive, o);
  };
  const auto histogram = [](const cf::histogram_options& o) {
    cf::histogram_kernel(ctx(), "global const int* x", "clforge_test_helper(x[i]) & 3", 4, o);
  };
  const auto radix = [](const cf::radix_sort_options& o) {
    cf::radix_sort_kernel(ctx(), "global uint* k", "clforge_test_helper(k[i])", {"k"}, 32, o);
  };
  const auto stencil = [](const cf::stencil_options& o) {
    cf::stencil_kernel(ctx(), "float[1D] u, float[1D] v", "v(0) = u(-1) + u(1)", o);
  };
  EXPECT_CLFORGE_ERROR(scan(named_with_a_shape<cf::scan_options>("prefix")),
                       {"scan_kernel \"prefix\"", "kernel_options::shape", "tuning::set"});
  EXPECT_CLFORGE_ERROR(histogram(named_with_a_shape<cf::histogram_options>("bins")),
                       {"histogram_kernel \"bins\"", "kernel_options::shape"});
  EXPECT_CLFORGE_ERROR(radix(named_with_a_shape<cf::radix_sort_options>("order")),
                       {"radix_sort_kernel \"order\"", "kernel_options::shape"});
  EXPECT_CLFORGE_ERROR(stencil(named_with_a_shape<cf::stencil_options>("smooth")),
                       {"stencil_kernel \"smooth\"", "kernel_options::shape"});
  // Without a shape the same options build: the base's name and preamble reach every template.
  auto unshaped = [](auto o) {
    o.shape = cf::kernel_shape();
    return o;
  };
  scan(unshaped(named_with_a_shape<cf::scan_options>("prefix")));
  histogram(unshaped(named_with_a_shape<cf::histogram_options>("bins")));
  radix(unshaped(named_with_a_shape<cf::radix_sort_options>("order")));
  stencil(unshaped(named_with_a_shape<cf::stencil_options>("smooth")));
  // A bad name is refused through the base by every template alike.
  for (const std::string& who :
       {"scan_kernel", "histogram_kernel", "radix_sort_kernel", "stencil_kernel"}) {
    const std::string message = clforge_test::error_message([&] {
      if (who == "scan_kernel") scan(unshaped(named_with_a_shape<cf::scan_options>("1st")));
      if (who == "histogram_kernel")
        histogram(unshaped(named_with_a_shape<cf::histogram_options>("1st")));
      if (who == "radix_sort_kernel")
        radix(unshaped(named_with_a_shape<cf::radix_sort_options>("1st")));
      if (who == "stencil_kernel")
        stencil(unshaped(named_with_a_shape<cf::stencil_options>("1st")));
    });
    EXPECT_TRUE(clforge_test::contains_all(message, {who, "1st"})) << who;
  }
}

TEST(template_inputs, scan_build_failure_keeps_the_opencl_call_and_code) {
  for (cf::scan_algorithm alg : kAlgorithms) {
    try {
      cf::scan_kernel<cl_int> bad(ctx(), "global const int* x, global int* y",
                                  "x[i] + no_such_identifier_t13", "a + b", "0", "y[i] = item",
                                  cf::scan_kind::inclusive, scan_with(alg, "bad_scan"));
      FAIL() << "a scan with an undefined identifier built";
    } catch (const cf::error& e) {
      EXPECT_EQ(e.call(), "clBuildProgram");
      EXPECT_EQ(e.code(), CL_BUILD_PROGRAM_FAILURE);
      const std::string m = e.what();
      EXPECT_NE(m.find("scan_kernel \"bad_scan\""), std::string::npos) << m;
      EXPECT_NE(m.find("no_such_identifier_t13"), std::string::npos) << m;
    }
  }
}

TEST(template_inputs, long_blank_runs_and_huge_numbers_are_no_crash) {
  // 40k blanks between an array's name and [i]: read as x[i] (its length is checked).
  const std::string input = "x" + std::string(40000, ' ') + "[i]";
  auto x = cf::array<cl_int>::from_host(q(), ramp(100));
  cf::array<cl_int> y(q(), 100), short_y(q(), 10);
  for (cf::scan_algorithm alg : kAlgorithms) {
    cf::scan_kernel<cl_int> scan(ctx(), "global const int* x, global int* y", input, "a + b", "0",
                                 "y[i] = item", cf::scan_kind::inclusive, scan_with(alg));
    scan(q(), x, y);
    EXPECT_EQ(y.to_host(q())[99], 5050);
  }
  // A tile spec whose numbers do not fit, or with 100k digits: a clforge::error.
  cf::scan_options o;
  EXPECT_CLFORGE_ERROR(o.tile("99999999999999999999x64"), {"99999999999999999999x64"});
  EXPECT_CLFORGE_ERROR(o.tile(std::string(100000, '7') + "x64"), {"scan tile"});
  EXPECT_CLFORGE_ERROR(o.tile("32x256w" + std::string(100000, '9')), {"scan tile"});
}

TEST(template_inputs, every_numeric_tuning_value_is_bounded) {
  EXPECT_CLFORGE_ERROR(cf::kernel_shape::parse("cpu,unroll=1048576"), {"unroll", "64"});
  EXPECT_CLFORGE_ERROR(cf::kernel_shape::parse("gpu,local=65536"), {"local", "4096"});
  EXPECT_CLFORGE_ERROR(cf::kernel_shape::parse("gpu,groups_per_cu=100000"),
                       {"groups_per_cu", "1024"});
  cf::scan_options o;
  EXPECT_CLFORGE_ERROR(o.tile("100000x64"), {"items", "64"});
  EXPECT_CLFORGE_ERROR(o.tile("32x100000"), {"group", "4096"});
  EXPECT_CLFORGE_ERROR(o.tile("32x256w100000"), {"window", "1024"});
  EXPECT_CLFORGE_ERROR(o.tile("32x256p100000"), {"groups_per_cu", "1024"});
  // The same bounds for values set field by field.
  auto x = cf::array<cl_int>::from_host(q(), ramp(10));
  auto build = [&](const cf::scan_options& options) {
    cf::scan_kernel<cl_int> s(ctx(), "global const int* x, global int* y", "x[i]", "a + b", "0",
                              "y[i] = item", cf::scan_kind::inclusive, options);
  };
  cf::scan_options lanes = scan_with(cf::scan_algorithm::reduce_then_scan);
  lanes.lanes = 1u << 20;
  EXPECT_CLFORGE_ERROR(build(lanes), {"lanes", "16"});
  cf::scan_options granularity = scan_with(cf::scan_algorithm::reduce_then_scan);
  granularity.chunk_granularity = std::size_t(1) << 40;
  EXPECT_CLFORGE_ERROR(build(granularity), {"chunk_granularity"});
  cf::scan_options items = scan_with(cf::scan_algorithm::lookback);
  items.items_per_thread = 1u << 20;
  EXPECT_CLFORGE_ERROR(build(items), {"items", "64"});
  cf::kernel_options shape;
  shape.shape = cf::kernel_shape::cpu();
  shape.shape.unroll = 1u << 20;
  EXPECT_CLFORGE_ERROR(cf::reduction_kernel<cl_int>(ctx(), "global const int* x", "x[i]", "a + b",
                                                    "0", cf::reduction_options{shape}),
                       {"unroll", "64"});
}

TEST(template_inputs, indices_i_and_n_are_signed_in_every_template) {
  const std::size_t n = 11;
  cf::array<float> y(q(), n);
  cf::elementwise_kernel centred(ctx(), "global float* y", "y[i] = (i - n / 2) * 0.5f");
  centred(q(), y);
  auto got = y.to_host(q());
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_FLOAT_EQ(got[i], (static_cast<long>(i) - static_cast<long>(n) / 2) * 0.5f) << i;

  cf::reduction_kernel<cl_long> sum(ctx(), "global const int* x", "(i - 3) / 2", "a + b", "0");
  auto x = cf::array<cl_int>::from_host(q(), ramp(n));
  long want = 0;
  for (long i = 0; i < static_cast<long>(n); ++i) want += (i - 3) / 2;
  EXPECT_EQ(sum(q(), x), want);
  cf::reduction_kernel<cl_long> below(ctx(), "global const int* x", "(n - 20) + i * 0", "min(a, b)",
                                      "LONG_MAX");
  EXPECT_EQ(below(q(), x), static_cast<long>(n) - 20);

  for (cf::scan_algorithm alg : kAlgorithms) {
    cf::scan_kernel<cl_long> scan(ctx(), "global const int* x, global long* y", "(i - 3) / 2",
                                  "a + b", "0", "y[i] = item + (n - n)", cf::scan_kind::inclusive,
                                  scan_with(alg));
    cf::array<cl_long> out(q(), n);
    scan(q(), x, out);
    EXPECT_EQ(out.to_host(q())[n - 1], want);
  }
}

// Evaluations of the input expression per element: lookback once (a second pass where the
// output uses last_item); reduce-then-scan twice (its reduce pass and its scan pass both need
// the values and it keeps none between them).
TEST(template_inputs, scan_counts_its_input_evaluations) {
  for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(100000)}) {
    for (cf::scan_algorithm alg : kAlgorithms) {
      SCOPED_TRACE(std::to_string(n) +
                   (alg == cf::scan_algorithm::lookback ? " lookback" : " rts"));
      auto x = cf::array<cl_int>::from_host(q(), ramp(n));
      cf::array<cl_int> y(q(), n);
      auto count = cf::array<cl_uint>::from_host(q(), std::vector<cl_uint>{0});
      cf::scan_kernel<cl_int> scan(ctx(), "global const int* x, global int* y, global uint* count",
                                   "x[i] + (int)(atomic_inc(count) * 0u)", "a + b", "0",
                                   "y[i] = item", cf::scan_kind::inclusive, scan_with(alg));
      scan(q(), x, y, count);
      const cl_uint per_element = alg == cf::scan_algorithm::lookback ? 1 : 2;
      EXPECT_EQ(count.to_host(q())[0], per_element * n);
      EXPECT_EQ(y.to_host(q())[n - 1], static_cast<cl_int>(n * (n + 1) / 2));
    }
  }
}

TEST(template_inputs, pointers_without_an_address_space_are_global) {
  const std::size_t n = 64;
  auto x = cf::array<float>::from_host(q(), std::vector<float>(n, 2.0f));
  cf::array<float> y(q(), n);
  cf::elementwise_kernel axpy(ctx(), "float a, const float *x, float *y", "y[i] = a * x[i]");
  axpy(q(), 3.0f, x, y);
  EXPECT_EQ(y.to_host(q()), std::vector<float>(n, 6.0f));
  cf::reduction_kernel<float> sum(ctx(), "float* x", "x[i]", "a + b", "0.0f");
  EXPECT_FLOAT_EQ(sum(q(), x), 2.0f * n);
  const auto params = cf::detail::parse_signature("float *y, const int* z");
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].address_space, "global");
  EXPECT_EQ(params[1].address_space, "global");
  EXPECT_TRUE(params[1].is_const);
}

TEST(template_inputs, common_device_code_leads_every_builtin_kernel) {
  // kernels/common.cl is put in front of every other kernel file when they are embedded, once
  // (its include guard keeps it whole where a program pastes several files together).
  const std::string common(cf::detail::embedded_kernel("common"));
  ASSERT_NE(common.find("#ifndef CLFORGE_COMMON_CL"), std::string::npos);
  EXPECT_NE(common.find("CLFORGE_GROUP_SCAN"), std::string::npos);
  EXPECT_NE(common.find("clforge_lookback_wait_word"), std::string::npos);
  for (const char* name :
       {"elementwise", "reduction", "scan_lookback", "scan_rts", "polygon_mask", "sort", "sort_key",
        "histogram", "gather", "complex", "philox", "random"}) {
    SCOPED_TRACE(name);
    const std::string text(cf::detail::embedded_kernel(name));
    EXPECT_EQ(text.substr(0, common.size()), common);
    EXPECT_EQ(text.find("#ifndef CLFORGE_COMMON_CL", common.size()), std::string::npos);
  }
  // A built template carries it, and uses it: the reduction's group reduce and the scan's
  // group scan come from common.cl.
  cf::reduction_options gpu_shape;
  gpu_shape.shape = cf::kernel_shape::gpu();
  cf::reduction_kernel<float> sum(ctx(), "global const float* x", "x[i]", "a + b", "0.0f",
                                  gpu_shape);
  EXPECT_NE(sum.source().find("CLFORGE_DEFINE_GROUP_REDUCE(clforge_group_reduce"),
            std::string::npos);
  const std::size_t n = 1000;
  auto x = cf::array<float>::from_host(q(), std::vector<float>(n, 0.5f));
  EXPECT_FLOAT_EQ(sum(q(), x), 0.5f * n);
}
