// SPDX-License-Identifier: MIT
// Test helpers for bad-input and fault tests: run something, expect a clforge::error whose
// message contains given parts. Shared by the runtime tests and the templates' tests, so each
// row of docs/errors.md is asserted the same way.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include <clforge/error.hpp>

namespace clforge_test {

/// The message of the clforge::error `body` throws; "(no error)" when it throws nothing and
/// "NOT a clforge::error: ..." for any other exception (both fail every message check).
template <class Body>
std::string error_message(Body&& body) {
  try {
    body();
  } catch (const clforge::error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("NOT a clforge::error: ") + e.what();
  } catch (...) {
    return "NOT a clforge::error: an exception of unknown type";
  }
  return "(no error)";
}

/// Passes when `message` contains every part, in any order; shows the whole message otherwise.
inline ::testing::AssertionResult contains_all(const std::string& message,
                                               std::initializer_list<std::string> parts) {
  for (const std::string& part : parts)
    if (message.find(part) == std::string::npos)
      return ::testing::AssertionFailure() << "missing \"" << part << "\" in:\n" << message;
  return ::testing::AssertionSuccess();
}

}  // namespace clforge_test

/// EXPECT_CLFORGE_ERROR(statement, {"part", ...}): `statement` throws clforge::error and its
/// message contains every part.
#define EXPECT_CLFORGE_ERROR(statement, ...)                                                  \
  EXPECT_TRUE(::clforge_test::contains_all(::clforge_test::error_message([&] { statement; }), \
                                           __VA_ARGS__))
