// SPDX-License-Identifier: MIT
// Inputs the fuzzers in fuzz/ found to break something, kept as tests once fixed. Each names
// the fuzz target that found it.
#include <gtest/gtest.h>

#include <string>

#include <clforge/detail/signature.hpp>
#include <clforge/error.hpp>

#include "program_cache.hpp"  // quote_error_lines (library-internal)

namespace cfd = clforge::detail;

// fuzz_build_log: std::regex recursed once per digit and overflowed the stack on a long digit
// run; the build log is the driver's, and drivers echo the user's source lines into it.
TEST(fuzz_regressions, build_log_with_a_long_run_of_digits) {
  const std::string source = "line1\nline2\nline3\n";
  const std::string digits(1 << 20, '7');
  EXPECT_EQ(cfd::quote_error_lines(":" + digits + ":1: error\n", source), "");
  EXPECT_EQ(cfd::quote_error_lines(":1:" + digits + ":", source),
            ">>    1 | line1\n      2 | line2\n      3 | line3\n");
  // The scan keeps the old matching rules: left to right, matches do not overlap.
  EXPECT_EQ(cfd::quote_error_lines("x:1:2:3:4: y", source),
            ">>    1 | line1\n      2 | line2\n      3 | line3\n");
}

// fuzz_signature: "private" was read as "no address space", so "private float* x" became a
// global pointer whose re-joined declaration ("global private float* x") no longer parsed.
TEST(fuzz_regressions, private_pointer_parameter_is_refused) {
  for (const char* text : {"private*ong do", "private float* x", "__private const int* p"}) {
    try {
      cfd::parse_signature(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const clforge::error& e) {
      EXPECT_NE(std::string(e.what()).find("private memory"), std::string::npos) << e.what();
    }
  }
  // A private scalar is an ordinary by-value argument, and global/private together is refused.
  const auto scalar = cfd::parse_signature("private float a");
  ASSERT_EQ(scalar.size(), 1u);
  EXPECT_FALSE(scalar[0].is_pointer);
  EXPECT_THROW(cfd::parse_signature("global private float* x"), clforge::error);
}
