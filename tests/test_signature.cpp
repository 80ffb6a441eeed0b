// SPDX-License-Identifier: MIT
// Parsing of snippet parameter lists and binding of C++ arguments to them.
#include <gtest/gtest.h>

#include <clforge/clforge.hpp>
#include <clforge/detail/signature.hpp>

namespace cf = clforge;
using cf::detail::argument_list;
using cf::detail::parse_signature;

namespace {
template <class... Args>
std::string bind_error(const std::vector<cf::detail::parameter>& params, const Args&... args) {
  try {
    argument_list::bind("elementwise_kernel \"k\"", params, args...);
  } catch (const cf::error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(signature, parses_qualifiers_pointers_and_spellings) {
  auto p = parse_signature(
      " float a, __global const float *x,global float* restrict y, unsigned int n, "
      "constant uchar*lut, local int* scratch, unsigned long big ");
  ASSERT_EQ(p.size(), 7u);
  EXPECT_EQ(p[0].type, "float");
  EXPECT_FALSE(p[0].is_pointer);
  EXPECT_EQ(p[1].name, "x");
  EXPECT_TRUE(p[1].is_pointer);
  EXPECT_TRUE(p[1].is_const);
  EXPECT_EQ(p[1].address_space, "global");
  EXPECT_EQ(p[2].name, "y");
  EXPECT_FALSE(p[2].is_const);
  EXPECT_EQ(p[3].type, "uint");
  EXPECT_EQ(p[4].address_space, "constant");
  EXPECT_EQ(p[4].type, "uchar");
  EXPECT_EQ(p[5].address_space, "local");
  EXPECT_EQ(p[6].type, "ulong");
  EXPECT_TRUE(parse_signature("").empty());
  EXPECT_TRUE(parse_signature("void").empty());
}

TEST(signature, rejects_malformed_lists) {
  EXPECT_THROW(parse_signature("float"), cf::error);
  EXPECT_THROW(parse_signature("float a,, float b"), cf::error);
  EXPECT_EQ(parse_signature("float* x")[0].address_space, "global");  // PyOpenCL's default
  EXPECT_THROW(parse_signature("global float** x"), cf::error);       // pointer to pointer
  EXPECT_THROW(parse_signature("float a, int a"), cf::error);         // duplicate name
  EXPECT_THROW(parse_signature("float a[4]"), cf::error);
  try {
    parse_signature("float a; int b");
    FAIL();
  } catch (const cf::error& e) {
    EXPECT_NE(std::string(e.what()).find("float a; int b"), std::string::npos) << e.what();
  }
}

TEST(signature, binds_and_checks_arguments) {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  auto params = parse_signature("float a, global const float* x, global float* y, int k");
  cf::array<float> x(q, 10), y(q, 10);
  cf::array<int> wrong(q, 10);

  argument_list ok = argument_list::bind("k", params, 2.0, x, y, 3);
  EXPECT_TRUE(ok.has_array());
  EXPECT_EQ(ok.first_array_length(), 10u);
  EXPECT_EQ(ok.count(), 4u);

  std::string e = bind_error(params, 2.0f, x, y);
  EXPECT_NE(e.find("takes 4 argument(s)"), std::string::npos) << e;
  EXPECT_NE(e.find("3 given"), std::string::npos) << e;
  e = bind_error(params, 2.0f, 1.0f, y, 3);
  EXPECT_NE(e.find("argument 2 (x) expects array<float>"), std::string::npos) << e;
  e = bind_error(params, 2.0f, wrong, y, 3);
  EXPECT_NE(e.find("got array<int>"), std::string::npos) << e;
  e = bind_error(params, x, x, y, 3);
  EXPECT_NE(e.find("argument 1 (a) expects a float value"), std::string::npos) << e;
  e = bind_error(params, 2.0f, x, y, 2.5);
  EXPECT_NE(e.find("floating-point value for an integer"), std::string::npos) << e;
  e = bind_error(params, 2.0f, x, y, 1ll << 40);
  EXPECT_NE(e.find("does not fit"), std::string::npos) << e;
  EXPECT_EQ(bind_error(params, 2.0f, x, y, -(1ll << 31)), "");

  cf::array<float> short_y(q, 9);
  argument_list uneven = argument_list::bind("k", params, 1.0f, x, short_y, 1);
  EXPECT_THROW(uneven.require_array_lengths(10, "the range"), cf::error);
  EXPECT_NO_THROW(ok.require_array_lengths(10, "the range"));
}
