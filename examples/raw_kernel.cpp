// SPDX-License-Identifier: MIT
// The layers under the templates, used directly: build a kernel (cached), launch it, check it.
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <clforge/clforge.hpp>
namespace cf = clforge;

int main() try {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  std::printf("device: %s (%s)\n", ctx.info().name.c_str(), ctx.info().platform_name.c_str());

  const std::size_t n = 1000003;  // a prime: the launcher rounds the range up, the kernel guards
  std::vector<float> x(n), y(n);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i) x[i] = dist(rng), y[i] = dist(rng);

  cf::program prog = ctx.build(R"CL(
    kernel void saxpy(ulong n, float a, global const float* x, global float* y) {
      size_t i = get_global_id(0);
      if (i < n) y[i] = a * x[i] + y[i];
    })CL");
  auto dx = cf::array<float>::from_host(q, x);
  auto dy = cf::array<float>::from_host(q, y);
  cf::event e = q.launch(prog.kernel("saxpy"), cf::ndrange(n), cl_ulong(n), 2.0f, dx, dy);
  std::vector<float> back = dy.to_host(q);

  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (std::fabs(back[i] - (2.0f * x[i] + y[i])) > 1e-6f) ++wrong;
  std::printf("saxpy over %zu floats: %.3f ms on the device, %zu wrong\n", n, e.elapsed_ms(),
              wrong);
  cf::cache_stats s = ctx.program_cache_stats();
  std::printf("program cache: %zu compiled, %zu from disk, %zu from memory\n", s.compiles,
              s.disk_hits, s.memory_hits);
  return wrong == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
