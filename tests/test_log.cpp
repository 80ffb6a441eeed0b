// SPDX-License-Identifier: MIT
// clforge::set_log_handler: every diagnostic the library prints goes to the handler (warnings,
// CLFORGE_DUMP_SOURCE's sources), nothing to stderr while one is set; the default writes to
// stderr; swapping handlers while threads log loses or duplicates no message.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <clforge/clforge.hpp>

namespace cf = clforge;
namespace fs = std::filesystem;

namespace {
struct collected {
  std::mutex m;
  std::vector<std::pair<cf::log_level, std::string>> messages;
  cf::log_handler handler() {
    return [this](cf::log_level level, const std::string& message) {
      std::lock_guard<std::mutex> lock(m);
      messages.emplace_back(level, message);
    };
  }
  std::size_t count(cf::log_level level, const std::string& part) {
    std::lock_guard<std::mutex> lock(m);
    std::size_t n = 0;
    for (const auto& [l, text] : messages) n += l == level && text.find(part) != std::string::npos;
    return n;
  }
};

// Restores the default handler when a test ends, whatever it did.
struct default_handler_after {
  ~default_handler_after() { cf::set_log_handler({}); }
};

// A collecting handler in place from construction; the default one again at destruction.
struct collecting : collected {
  cf::log_handler previous;  // the handler it replaced
  collecting() : previous(cf::set_log_handler(handler())) {}
  ~collecting() { cf::set_log_handler({}); }
};

// What `call` writes to stderr.
template <class F>
std::string stderr_of(F call) {
  ::testing::internal::CaptureStderr();
  call();
  return ::testing::internal::GetCapturedStderr();
}

// Each of `parts` in exactly one `level` message to the handler, and nothing on stderr (`err`).
void expect_in_handler_only(collected& got, cf::log_level level,
                            const std::vector<std::string>& parts, const std::string& err) {
  for (const std::string& part : parts) EXPECT_EQ(got.count(level, part), 1u) << part;
  EXPECT_EQ(err, "");
}

void build_with_dump(const cf::context& ctx, const std::string& kernel_name) {
  ::setenv("CLFORGE_DUMP_SOURCE", "1", 1);
  ctx.build("kernel void " + kernel_name + "(global int* x) { x[0] = 1; }");
  ::unsetenv("CLFORGE_DUMP_SOURCE");
}
}  // namespace

// First in this program: the disk-cache warning is said once per process.
TEST(log, warnings_go_to_the_handler_and_not_to_stderr) {
  const fs::path dir = fs::temp_directory_path() / ("clforge-log-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0777);  // writable by others: the cache refuses it and says so
  const char* saved = std::getenv("CLFORGE_CACHE_DIR");
  const std::string saved_dir = saved ? saved : "";
  ::setenv("CLFORGE_CACHE_DIR", dir.c_str(), 1);
  collecting got;
  EXPECT_FALSE(got.previous);  // the default was in place
  const std::string err = stderr_of([] {
    cf::context ctx = cf::context::create_default();
    ctx.build("kernel void log_warning_probe(global int* x) { x[0] = 2; }");
  });
  if (saved)
    ::setenv("CLFORGE_CACHE_DIR", saved_dir.c_str(), 1);
  else
    ::unsetenv("CLFORGE_CACHE_DIR");
  fs::remove_all(dir);
  expect_in_handler_only(got, cf::log_level::warning,
                         {"disk cache off (", "writable by group or others"}, err);
}

TEST(log, dumped_sources_go_to_the_handler_as_debug) {
  cf::context ctx = cf::context::create_default();
  collecting got;
  const std::string err = stderr_of([&] { build_with_dump(ctx, "dumped_to_handler_1234"); });
  expect_in_handler_only(got, cf::log_level::debug,
                         {"kernel void dumped_to_handler_1234(", "source of program "}, err);
}

TEST(log, the_default_writes_to_stderr_and_an_empty_handler_restores_it) {
  cf::context ctx = cf::context::create_default();
  collecting got;
  cf::log_handler previous = cf::set_log_handler({});
  ASSERT_TRUE(previous);  // the collecting handler comes back
  previous(cf::log_level::warning, "handed back");
  EXPECT_EQ(got.count(cf::log_level::warning, "handed back"), 1u);
  const std::string err = stderr_of([&] { build_with_dump(ctx, "dumped_to_stderr_5678"); });
  EXPECT_EQ(err.rfind("clforge: source of program ", 0), 0u) << err;
  EXPECT_NE(err.find("kernel void dumped_to_stderr_5678("), std::string::npos) << err;
  EXPECT_EQ(err.back(), '\n');
  EXPECT_EQ(got.count(cf::log_level::debug, "dumped_to_stderr_5678"), 0u);
}

TEST(log, swapping_handlers_while_threads_log_delivers_each_message_once) {
  default_handler_after restore;
  std::atomic<long> a{0}, b{0};
  const cf::log_handler count_a = [&](cf::log_level, const std::string&) { ++a; };
  const cf::log_handler count_b = [&](cf::log_level, const std::string&) { ++b; };
  cf::set_log_handler(count_a);
  constexpr int threads = 4, per_thread = 20000;
  std::atomic<bool> done{false};
  std::thread swapper([&] {
    for (int k = 0; !done; ++k) cf::set_log_handler(k % 2 ? count_a : count_b);
  });
  std::vector<std::thread> loggers;
  for (int t = 0; t < threads; ++t)
    loggers.emplace_back([] {
      for (int k = 0; k < per_thread; ++k) cf::detail::log_message(cf::log_level::debug, "x");
    });
  for (auto& t : loggers) t.join();
  done = true;
  swapper.join();
  EXPECT_EQ(a + b, long(threads) * per_thread);
}

TEST(log, a_throwing_or_reentrant_handler_does_not_fail_the_call) {
  default_handler_after restore;
  cf::context ctx = cf::context::create_default();
  cf::set_log_handler([](cf::log_level, const std::string&) { throw std::runtime_error("no"); });
  EXPECT_NO_THROW(build_with_dump(ctx, "throwing_handler_probe"));
  // A handler that replaces itself (no lock is held while it runs).
  collected got;
  cf::set_log_handler(
      [&](cf::log_level, const std::string&) { cf::set_log_handler(got.handler()); });
  cf::detail::log_message(cf::log_level::warning, "first");
  cf::detail::log_message(cf::log_level::warning, "second");
  EXPECT_EQ(got.count(cf::log_level::warning, "first"), 0u);
  EXPECT_EQ(got.count(cf::log_level::warning, "second"), 1u);
}
