// SPDX-License-Identifier: MIT
// Many threads sharing one context: building the same and different programs, launching the
// same cached kernels (through queue::launch and the snippet binder), allocating and freeing
// pool arrays, reading cache and pool statistics, and freeing the pool, all at once; plus
// contexts created and destroyed meanwhile. Every result is checked against a plain C++
// reference. Runs in the normal suite and, built with -fsanitize=thread, under ThreadSanitizer
// (tools/run-sanitizers.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <clforge/clforge.hpp>
#include <clforge/detail/signature.hpp>

namespace cf = clforge;
namespace fs = std::filesystem;

namespace {
const std::string kCommon = R"CL(
kernel void scale(ulong n, float a, global const float* x, global float* y) {
  size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i];
}
)CL";

// Three more programs, each built by several threads at once.
std::string variant_source(int v) {
  return "kernel void variant" + std::to_string(v) +
         "(ulong n, int k, global int* x) {\n"
         "  size_t i = get_global_id(0);\n"
         "  if (i < n) x[i] = x[i] * " +
         std::to_string(v + 2) + " + k;\n}\n";
}

struct concurrency : ::testing::Test {
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("clforge-concurrency-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    ::setenv("CLFORGE_CACHE_DIR", dir.c_str(), 1);
  }
  void TearDown() override { fs::remove_all(dir); }
};
}  // namespace

TEST_F(concurrency, threads_share_a_context_programs_kernels_and_the_pool) {
  cf::context ctx = cf::context::create_default();
  cf::queue shared_queue(ctx);
  constexpr int kThreads = 8, kIterations = 12, kVariants = 3;
  std::atomic<int> failures{0}, checks{0};
  std::atomic<bool> done{false};
  std::vector<std::string> errors(kThreads + 2);

  auto worker = [&](int t) {
    try {
      std::mt19937 rng(1234 + t);
      cf::queue own_queue(ctx);
      const cf::queue& q = t % 2 ? shared_queue : own_queue;  // odd threads share one queue
      const int v = t % kVariants;
      const std::string variant_name = "variant" + std::to_string(v);
      const auto params = cf::detail::parse_signature("ulong n, int k, global int* x");
      for (int it = 0; it < kIterations; ++it) {
        // Sizes across pool size classes, odd ones included.
        const std::size_t n = 1 + rng() % 5000;
        std::vector<float> x(n);
        for (float& e : x) e = static_cast<float>(rng() % 1000) * 0.25f;
        const float a = 0.5f + static_cast<float>(t);

        cf::kernel scale = ctx.build(kCommon).kernel("scale");
        auto dx = cf::array<float>::from_host(q, x);
        cf::array<float> dy(q, n);
        q.launch(scale, cf::ndrange(n), cl_ulong(n), a, dx, dy);
        std::vector<float> y = dy.to_host(q);
        for (std::size_t i = 0; i < n; ++i)
          if (y[i] != a * x[i]) {
            ++failures;
            break;
          }

        std::vector<int> xi(n);
        for (int& e : xi) e = static_cast<int>(rng() % 100000) - 50000;
        auto di = cf::array<int>::from_host(q, xi);
        cf::kernel variant = ctx.build(variant_source(v)).kernel(variant_name);
        auto args = cf::detail::argument_list::bind("variant", params, cl_ulong(n), t, di);
        q.launch(variant, cf::ndrange(n), args);
        std::vector<int> back = di.to_host(q);
        for (std::size_t i = 0; i < n; ++i)
          if (back[i] != xi[i] * (v + 2) + t) {
            ++failures;
            break;
          }
        checks += 2;
        (void)ctx.program_cache_stats();
        (void)ctx.pool().stats();
      }
    } catch (const std::exception& e) {
      errors[t] = e.what();
      ++failures;
    }
  };

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  // Meanwhile: the pool freed now and then, and contexts made and dropped.
  threads.emplace_back([&] {
    while (!done) {
      ctx.pool().release_all();
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
    }
  });
  threads.emplace_back([&] {
    try {
      for (int i = 0; i < 2; ++i) {
        cf::context other = cf::context::create_default();
        cf::queue q(other);
        auto x = cf::array<float>::from_host(q, std::vector<float>{1, 2, 3});
        cf::array<float> y(q, 3);
        q.launch(other.build(kCommon).kernel("scale"), cf::ndrange(3), cl_ulong(3), 2.0f, x, y);
        if (y.to_host(q) != std::vector<float>{2, 4, 6}) ++failures;
      }
    } catch (const std::exception& e) {
      errors[kThreads + 1] = e.what();
      ++failures;
    }
  });
  for (int t = 0; t < kThreads; ++t) threads[t].join();
  done = true;
  for (std::size_t t = kThreads; t < threads.size(); ++t) threads[t].join();

  for (const std::string& e : errors) EXPECT_EQ(e, "");
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(checks.load(), kThreads * kIterations * 2);
  cf::cache_stats s = ctx.program_cache_stats();
  EXPECT_EQ(s.compiles + s.disk_hits, 1u + kVariants) << "each program built once";
  EXPECT_EQ(s.memory_hits + s.compiles + s.disk_hits, 2u * kThreads * kIterations);
}
