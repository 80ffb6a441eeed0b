// SPDX-License-Identifier: MIT
// Test helper for the tests that run clforge from several threads: an exception thrown on a
// thread becomes that thread's failure message instead of std::terminate ending the whole test
// program (which would hide every other result).
#pragma once

#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace clforge_test {

/// Runs body(t) on `count` threads at once and joins them. Returns one message per thread:
/// empty where body returned, else what it threw.
template <class Body>
std::vector<std::string> on_threads(int count, Body&& body) {
  std::vector<std::string> thrown(static_cast<std::size_t>(count));
  std::vector<std::thread> threads;
  for (int t = 0; t < count; ++t)
    threads.emplace_back([&body, &thrown, t] {
      try {
        body(t);
      } catch (const std::exception& e) {
        thrown[static_cast<std::size_t>(t)] = "thread " + std::to_string(t) + " threw: " + e.what();
      } catch (...) {
        thrown[static_cast<std::size_t>(t)] = "thread " + std::to_string(t) + " threw";
      }
    });
  for (std::thread& th : threads) th.join();
  return thrown;
}

}  // namespace clforge_test
