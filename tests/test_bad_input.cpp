// SPDX-License-Identifier: MIT
// One test per row of docs/errors.md (runtime layer): each bad input gives a clforge::error
// whose message says what was wrong, and nothing else happens. Rows are numbered as in the doc.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <vector>

#include <clforge/clforge.hpp>
#include <clforge/detail/checks.hpp>
#include <clforge/detail/codegen.hpp>
#include <clforge/detail/signature.hpp>

#include "expect_error.hpp"

namespace cf = clforge;
namespace cfd = clforge::detail;

namespace {
const char* kSource = R"CL(
kernel void add(ulong n, global const float* x, global float* y) {
  size_t i = get_global_id(0);
  if (i < n) y[i] += x[i];
}
kernel void poke(global int* x) { x[0] = 42; }
)CL";

struct bad_input : ::testing::Test {
  static cf::context& ctx() {
    static cf::context c = cf::context::create_default();
    return c;
  }
  static cf::program& prog() {
    static cf::program p = ctx().build(kSource);
    return p;
  }
  cf::queue q{ctx()};
};

cf::device_info fake_device(std::string name, cl_device_type type, bool fp64) {
  cf::device_info info;
  info.name = std::move(name);
  info.platform_name = "Fake Platform";
  info.type = type;
  info.has_fp64 = fp64;
  return info;
}
}  // namespace

// ---- device selection --------------------------------------------------------------------

TEST_F(bad_input, row01_unknown_clforge_device) {
  ::setenv("CLFORGE_DEVICE", "no-such-device-xyz", 1);
  EXPECT_CLFORGE_ERROR(
      cf::context::create_default(),
      {"CLFORGE_DEVICE=\"no-such-device-xyz\"", "no platform or device name contains it",
       "Devices on this machine:", ctx().info().name,
       "Use \"gpu\", \"cpu\", \"accelerator\", a device number, \"P:D\""});
  ::unsetenv("CLFORGE_DEVICE");
}

TEST(bad_input_pure, row02_device_type_or_index_not_present) {
  std::vector<cf::device_info> cpus = {fake_device("Some CPU", CL_DEVICE_TYPE_CPU, true)};
  EXPECT_CLFORGE_ERROR(cf::choose_device("accelerator", cpus),
                       {"CLFORGE_DEVICE=\"accelerator\": no accelerator device", "Some CPU"});
  EXPECT_CLFORGE_ERROR(cf::choose_device("7:3", cpus),
                       {"CLFORGE_DEVICE=\"7:3\": no device with these platform:device indices"});
}

TEST(bad_input_pure, row03_no_opencl_device_at_all) {
  EXPECT_CLFORGE_ERROR(cf::choose_device("", {}),
                       {"no OpenCL device found", "none (is an OpenCL driver installed"});
}

// ---- arrays ----------------------------------------------------------------------------------

TEST_F(bad_input, row04_array_over_max_alloc_size) {
  const std::size_t limit = ctx().info().max_alloc_bytes;
  const std::size_t n = limit / sizeof(float) + 1;
  EXPECT_CLFORGE_ERROR(
      cf::array<float>(ctx(), n),
      {"array of " + std::to_string(n) + " elements of 4 bytes",
       "exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE (" + std::to_string(limit) + " bytes)",
       ctx().info().name});
  // Near SIZE_MAX: no overflow in the size computation.
  EXPECT_CLFORGE_ERROR(cf::array<double>(ctx(), std::numeric_limits<std::size_t>::max() / 2),
                       {"exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE"});
}

TEST_F(bad_input, row05_size_or_offset_past_the_end) {
  std::vector<float> host(10, 1.5f);
  auto a = cf::array<float>::from_host(q, host);
  cf::array<float> small(q, 4);
  float buffer[16];
  EXPECT_CLFORGE_ERROR(a.read(q, buffer, 8, 4),
                       {"array::read: elements [8, 8 + 4) lie outside an array of 10 elements"});
  EXPECT_CLFORGE_ERROR(a.write(q, buffer, 11, 0), {"array::write", "[11, 11 + 0)"});
  EXPECT_CLFORGE_ERROR(a.fill(q, 0.f, 5, 6), {"array::fill", "[5, 5 + 6)"});
  EXPECT_CLFORGE_ERROR(a.copy_to(q, small), {"array::copy_to (destination)", "4 elements"});
  EXPECT_CLFORGE_ERROR(small.copy_to(q, a, 3, 0, 2), {"array::copy_to (source)"});
  // offset + count overflowing size_t is still caught.
  EXPECT_CLFORGE_ERROR(a.read(q, buffer, 2, std::numeric_limits<std::size_t>::max()),
                       {"array::read", "lie outside an array of 10 elements"});
  EXPECT_EQ(a.to_host(q), host);  // nothing was touched
}

TEST_F(bad_input, row06_zero_length_is_valid_and_enqueues_nothing) {
  cf::array<float> empty(q, 0);
  EXPECT_TRUE(empty.empty());
  EXPECT_FALSE(empty.buffer()());  // no buffer at all
  auto from_empty = cf::array<float>::from_host(q, std::vector<float>{});
  EXPECT_TRUE(from_empty.to_host(q).empty());
  EXPECT_FALSE(empty.fill(q, 1.f));
  EXPECT_FALSE(empty.copy_to(q, from_empty));
  EXPECT_FALSE(empty.read_async(q, nullptr, 0, 0));
  cf::array<float> some(q, 3);
  EXPECT_FALSE(some.write_async(q, nullptr, 3, 0));  // zero elements at the very end
}

TEST_F(bad_input, row07_array_from_an_empty_context) {
  EXPECT_CLFORGE_ERROR(cf::array<int>(cf::context(), 4), {"array: created with an empty context"});
}

TEST_F(bad_input, row08_wrapped_buffer_too_small) {
  cl::Buffer raw(ctx().cl(), CL_MEM_READ_WRITE, 16);
  EXPECT_CLFORGE_ERROR(cf::array<float>(ctx(), raw, 5),
                       {"array: wrapped buffer: elements [0, 0 + 5) lie outside an array of 4"});
}

// ---- launches --------------------------------------------------------------------------------

TEST_F(bad_input, row09_wrong_argument_count) {
  cf::array<float> x(q, 4);
  EXPECT_CLFORGE_ERROR(q.launch(prog().kernel("add"), cf::ndrange(4), cl_ulong(4), x),
                       {"launch of kernel \"add\": it takes 3 argument(s), 2 given"});
}

TEST_F(bad_input, row10_argument_of_the_wrong_size) {
  cf::array<float> x(q, 4), y(q, 4);
  // A float (4 bytes) for the ulong parameter: the driver refuses the size.
  std::string m = clforge_test::error_message(
      [&] { q.launch(prog().kernel("add"), cf::ndrange(4), 4.0f, x, y); });
  EXPECT_TRUE(clforge_test::contains_all(m, {"clSetKernelArg failed", "kernel \"add\", argument 0",
                                             "does its C++ type match the kernel's parameter?"}));
}

TEST_F(bad_input, row11_work_group_size_the_kernel_cannot_run) {
  cf::kernel k = prog().kernel("add");
  cf::array<float> x(q, 4), y(q, 4);
  const std::size_t too_big = k.work_group_size() * 2;
  EXPECT_CLFORGE_ERROR(q.launch(k, cf::ndrange(too_big).with_local(too_big), cl_ulong(4), x, y),
                       {"clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE",
                        "kernel \"add\": local size of " + std::to_string(too_big) + " work-items",
                        "this kernel allows at most " + std::to_string(k.work_group_size())});
  EXPECT_CLFORGE_ERROR(q.launch(k, cf::ndrange(8, 8).with_local(4, 0), cl_ulong(4), x, y),
                       {"kernel \"add\": a local size of 0 in dimension 1"});
  cf::ndrange four_d(4);
  four_d.dims = 4;
  EXPECT_CLFORGE_ERROR(q.launch(k, four_d, cl_ulong(4), x, y),
                       {"ndrange must have 1, 2 or 3 dimensions"});
}

TEST_F(bad_input, row12_zero_work_items_launch_nothing) {
  auto x = cf::array<int>::from_host(q, std::vector<int>{7, 7});
  cf::event e = q.launch(prog().kernel("poke"), cf::ndrange(0), x);
  EXPECT_FALSE(e);
  e.wait();                                           // an empty event waits for nothing
  EXPECT_EQ(x.to_host(q), (std::vector<int>{7, 7}));  // poke would have written 42
  // The arguments are still counted.
  EXPECT_CLFORGE_ERROR(q.launch(prog().kernel("poke"), cf::ndrange(0)),
                       {"it takes 1 argument(s), 0 given"});
}

TEST_F(bad_input, row13_unknown_kernel_name) {
  EXPECT_CLFORGE_ERROR(
      prog().kernel("no_such_kernel"),
      {"clCreateKernel failed: CL_INVALID_KERNEL_NAME", "kernel name: \"no_such_kernel\""});
  EXPECT_CLFORGE_ERROR(cf::program().kernel("k"), {"program::kernel(\"k\") on an empty program"});
}

// ---- building --------------------------------------------------------------------------------

TEST_F(bad_input, row14_snippet_that_does_not_compile) {
  const std::string source =
      "kernel void broken_row14(global float* y) {\n"
      "  size_t i = get_global_id(0);\n"
      "  y[i] = no_such_identifier_row14 * 2.0f;\n"
      "}\n";
  EXPECT_CLFORGE_ERROR(
      ctx().build(source, "-DROW=14"),
      {"clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE", ctx().info().name, "options: -DROW=14",
       "build log:", "no_such_identifier_row14", ">>    3 |   y[i] = no_such_identifier_row14"});
}

// ---- snippet parameter lists and arguments (detail/signature.hpp) ---------------------------

TEST(bad_input_pure, row15_bad_parameter_lists) {
  struct row {
    const char* list;
    const char* message;
  };
  const row rows[] = {
      {"float", "cannot read parameter \"float\": expected a type and a name"},
      {"global float x", "only pointers can be global, constant or local"},
      {"global local float* x", "two address spaces"},
      {"global int** p", "pointers to pointers cannot be kernel arguments"},
      {"float a-b", "unexpected '-'"},
      {"float a, , int b", "an empty parameter"},
      {"float a,", "an empty parameter"},
      {"int a, float a", "the name \"a\" is used twice"},
      {"unsigned long long x", "unknown type"},
      {"float 2x", "the last word must be the name"},
      {"global * x", "no type"},
  };
  for (const row& r : rows)
    EXPECT_CLFORGE_ERROR(cfd::parse_signature(r.list), {r.message}) << "list: " << r.list;
}

TEST_F(bad_input, row16_wrong_argument_count_or_kind_for_a_snippet) {
  const auto params = cfd::parse_signature(
      "float a, int k, global const float* x, global float* y, local float* scratch");
  cf::array<float> x(q, 8), y(q, 8);
  cf::array<int> wrong_type(q, 8);
  const char* who = "elementwise_kernel \"row16\"";
  using cfd::argument_list;
  EXPECT_CLFORGE_ERROR(argument_list::bind(who, params, 1.f, 2, x),
                       {"elementwise_kernel \"row16\": takes 5 argument(s)", "3 given",
                        "float a, int k, global const float* x"});
  EXPECT_CLFORGE_ERROR(
      argument_list::bind(who, params, 1.f, 2, wrong_type, y, cf::local<float>(4)),
      {"argument 3 (x) expects array<float> (global float*)", "got array<int> of 8 elements"});
  EXPECT_CLFORGE_ERROR(
      argument_list::bind(who, params, 1.f, 2.5, x, y, cf::local<float>(4)),
      {"argument 2 (k, int): got a floating-point value for an integer parameter"});
  EXPECT_CLFORGE_ERROR(argument_list::bind(who, params, 1.f, 1ll << 40, x, y, cf::local<float>(4)),
                       {"argument 2 (k, int): the value does not fit"});
  EXPECT_CLFORGE_ERROR(argument_list::bind(who, params, x, 2, x, y, cf::local<float>(4)),
                       {"argument 1 (a) expects a float value, got array<float>"});
  EXPECT_CLFORGE_ERROR(argument_list::bind(who, params, 1.f, 2, 3.f, y, cf::local<float>(4)),
                       {"argument 3 (x) expects array<float>", "got a floating-point value"});
  EXPECT_CLFORGE_ERROR(argument_list::bind(who, params, 1.f, 2, x, y, y),
                       {"argument 5 (scratch) expects local<float>(count)"});
  EXPECT_NO_THROW(argument_list::bind(who, params, 1.f, 2, x, y, cf::local<float>(4)));
}

TEST_F(bad_input, row17_arrays_of_different_lengths) {
  const auto params = cfd::parse_signature("global const float* x, global float* y");
  cf::array<float> x(q, 10), y(q, 5);
  auto args = cfd::argument_list::bind("elementwise_kernel \"row17\"", params, x, y);
  EXPECT_EQ(args.first_array_length(), 10u);
  EXPECT_CLFORGE_ERROR(args.require_array_lengths(10, "an elementwise kernel over 10 elements"),
                       {"elementwise_kernel \"row17\": array argument 2 (y) has 5 elements",
                        "an elementwise kernel over 10 elements needs 10"});
}

TEST(bad_input_pure, row18_double_on_a_device_without_fp64) {
  const cf::device_info no_fp64 = fake_device("Tiny GPU", CL_DEVICE_TYPE_GPU, false);
  const cf::device_info fp64 = fake_device("Big GPU", CL_DEVICE_TYPE_GPU, true);
  EXPECT_CLFORGE_ERROR(cfd::require_type_support(no_fp64, "double", "reduction_kernel \"sum\""),
                       {"reduction_kernel \"sum\": type double needs a device with double "
                        "precision (cl_khr_fp64); Tiny GPU has none"});
  EXPECT_CLFORGE_ERROR(cfd::require_type_support(no_fp64, "double4", "k"), {"type double4"});
  const auto params = cfd::parse_signature("float a, global const double* x");
  EXPECT_CLFORGE_ERROR(cfd::require_type_support(no_fp64, params, "elementwise_kernel \"e\""),
                       {"type double (parameter \"global const double* x\") needs a device with "
                        "double precision"});
  // it also says whether the source needs the fp64 pragma
  EXPECT_TRUE(cfd::require_type_support(fp64, params, "e"));
  EXPECT_FALSE(cfd::require_type_support(no_fp64, "float", "e"));
  EXPECT_FALSE(cfd::require_type_support(no_fp64, "doubleword", "e"));  // a struct's name
  EXPECT_FALSE(cfd::require_type_support(no_fp64, cfd::parse_signature("float a"), "e"));
}

// ---- templates (detail/codegen.hpp) ----------------------------------------------------------

TEST(bad_input_pure, row19_template_placeholder_without_a_value) {
  EXPECT_CLFORGE_ERROR(cfd::render("map", "y[i] = $expr + $offset;", {{"expr", "x[i]"}}),
                       {"template \"map\": no value for $offset"});
  EXPECT_CLFORGE_ERROR(cfd::render("map", "cost: 5 $", {}),
                       {"template \"map\": a '$' not followed by a name"});
  EXPECT_CLFORGE_ERROR(cfd::render("map", "$ 1", {}), {"a '$' not followed by a name"});
  EXPECT_EQ(cfd::render("map", "$$x $a", {{"a", "$b"}}), "$x $b");  // values are not re-scanned
  EXPECT_CLFORGE_ERROR(cfd::embedded_kernel("no_such_template"),
                       {"no embedded kernel template \"no_such_template\""});
}

// ---- map/reduce templates (clforge/algorithms) -----------------------------------------------

TEST_F(bad_input, rowT1_template_snippet_that_does_not_compile) {
  EXPECT_CLFORGE_ERROR(
      cf::elementwise_kernel(ctx(), "global const float* x, global float* y",
                             "y[i] = x[i] * no_such_identifier_t1"),
      {"clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE", "no_such_identifier_t1", ">>"});
  EXPECT_CLFORGE_ERROR(
      cf::reduction_kernel<float>(ctx(), "global const float* x", "x[i]", "a +* b", "0.0f"),
      {"clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE", "a +* b"});
}

TEST_F(bad_input, rowT2_templates_with_zero_length_inputs) {
  static cf::elementwise_kernel twice(ctx(), "global const float* x, global float* y",
                                      "y[i] = 2.0f * x[i]");
  cf::array<float> x(q, 0), y(q, 0);
  EXPECT_FALSE(twice(q, x, y));  // nothing enqueued
  static cf::reduction_kernel<float> total(ctx(), "global const float* x", "x[i]", "a + b", "0.0f");
  EXPECT_EQ(total(q, x), 0.0f);  // the neutral element
  EXPECT_EQ(cf::sum(q, x), 0.0f);
}

TEST_F(bad_input, rowT3_templates_with_arrays_of_different_lengths) {
  static cf::elementwise_kernel twice(ctx(), "global const float* x, global float* y",
                                      "y[i] = 2.0f * x[i]");
  cf::array<float> x(q, 10), y(q, 5);
  EXPECT_CLFORGE_ERROR(twice(q, x, y), {"array argument 2 (y) has 5 elements"});
  EXPECT_CLFORGE_ERROR(twice(q, 1.0f, y), {"argument 1 (x) expects array<float>"});
}
