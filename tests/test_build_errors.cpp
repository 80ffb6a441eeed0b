// SPDX-License-Identifier: MIT
// A failed build says where: device, options, the build log and the source around the line.
#include <gtest/gtest.h>

#include <clforge/clforge.hpp>

#include "program_cache.hpp"  // quote_error_lines (library-internal)

namespace cf = clforge;

namespace {
std::string numbered_source(int lines) {
  std::string s;
  for (int i = 1; i <= lines; ++i) s += "line" + std::to_string(i) + "\n";
  return s;
}
}  // namespace

TEST(build_errors, failed_build_shows_log_options_and_source_line) {
  cf::context ctx = cf::context::create_default();
  const std::string source =
      "kernel void broken(global float* y) {\n"
      "  size_t i = get_global_id(0);\n"
      "  y[i] = undefined_identifier * 2.0f;\n"
      "}\n";
  try {
    ctx.build(source, "-DSOMETHING=1");
    FAIL() << "a kernel with an undefined identifier built";
  } catch (const cf::error& e) {
    std::string m = e.what();
    EXPECT_EQ(e.call(), "clBuildProgram");
    EXPECT_EQ(e.code(), CL_BUILD_PROGRAM_FAILURE);
    EXPECT_NE(m.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << m;
    EXPECT_NE(m.find("undefined_identifier"), std::string::npos) << m;  // the log
    EXPECT_NE(m.find("options: -DSOMETHING=1"), std::string::npos) << m;
    EXPECT_NE(m.find(ctx.info().name), std::string::npos) << m;  // the device
    EXPECT_NE(m.find(">>    3 |   y[i] = undefined_identifier"), std::string::npos) << m;
  }
  // The failure is not cached: a later good build works.
  EXPECT_NO_THROW(ctx.build("kernel void fine(global float* y) { y[0] = 1.0f; }"));
}

TEST(build_errors, quotes_five_lines_around_each_reported_line) {
  const std::string source = numbered_source(30);
  // PoCL/clang style, and NVIDIA style.
  std::string q = cf::detail::quote_error_lines("<source>:12:5: error: bad thing\n", source);
  EXPECT_NE(q.find(">>   12 | line12"), std::string::npos) << q;
  EXPECT_NE(q.find("      7 | line7"), std::string::npos) << q;
  EXPECT_NE(q.find("     17 | line17"), std::string::npos) << q;
  EXPECT_EQ(q.find("line6\n"), std::string::npos) << q;
  EXPECT_EQ(q.find("line18"), std::string::npos) << q;

  q = cf::detail::quote_error_lines(
      "<kernel>:2:10: error: use of undeclared identifier 'x'\n"
      "<kernel>:28:1: warning: something\n",
      source);
  EXPECT_NE(q.find(">>    2 | line2"), std::string::npos) << q;
  EXPECT_NE(q.find(">>   28 | line28"), std::string::npos) << q;
  EXPECT_NE(q.find("..."), std::string::npos) << q;  // the gap between the two windows
  EXPECT_NE(q.find("     30 | line30"), std::string::npos) << q;

  // Line numbers past the source, or none at all: nothing quoted, nothing crashes.
  EXPECT_EQ(cf::detail::quote_error_lines("<source>:99:1: error\n", source), "");
  EXPECT_EQ(cf::detail::quote_error_lines("error without location", source), "");
}

TEST(build_errors, dump_source_prints_generated_source) {
  ::setenv("CLFORGE_DUMP_SOURCE", "1", 1);
  ::setenv("CLFORGE_CACHE", "off", 1);
  cf::context ctx = cf::context::create_default();
  ::testing::internal::CaptureStderr();
  ctx.build("kernel void dumped_kernel_4711(global int* x) { x[0] = 4711; }");
  std::string err = ::testing::internal::GetCapturedStderr();
  ::unsetenv("CLFORGE_DUMP_SOURCE");
  ::unsetenv("CLFORGE_CACHE");
  EXPECT_NE(err.find("dumped_kernel_4711"), std::string::npos) << err;
}
