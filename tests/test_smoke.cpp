// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <clforge/clforge.hpp>

TEST(smoke, context_on_default_device) {
  clforge::context ctx = clforge::context::create_default();
  EXPECT_FALSE(ctx.info().name.empty());
}
