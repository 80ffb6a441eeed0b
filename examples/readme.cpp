// SPDX-License-Identifier: MIT
// The README's example, built by CMake so it cannot rot.
#include <clforge/clforge.hpp>

#include <cstdio>
namespace cf = clforge;

int main() {
  cf::context ctx = cf::context::create_default();  // CLFORGE_DEVICE=gpu|cpu|nvidia|pocl|0:1
  cf::queue q(ctx);                                 // in-order, profiling on
  std::vector<float> hx(1000003, 1.0f), hy(1000003, 2.0f);
  auto x = cf::array<float>::from_host(q, hx);
  auto y = cf::array<float>::from_host(q, hy);

  // Built once, then served from memory or from the disk cache (~/.cache/clforge).
  cf::program prog = ctx.build(R"CL(
    kernel void saxpy(ulong n, float a, global const float* x, global float* y) {
      size_t i = get_global_id(0);
      if (i < n) y[i] = a * x[i] + y[i];
    })CL");
  // padded: the global size is rounded up to whole work-groups of the size chosen for the
  // device, so the kernel guards with the true n (cf::ndrange(n) runs exactly n work-items).
  cf::event e =
      q.launch(prog.kernel("saxpy"), cf::ndrange::padded(x.size()), cl_ulong(x.size()), 2.0f, x, y);
  std::vector<float> result = y.to_host(q);
  std::printf("%.3f ms on %s\n", e.elapsed_ms(), ctx.info().name.c_str());
}
