// SPDX-License-Identifier: MIT
// Uses the installed headers and library: build a kernel, run it, check the answer.
#include <clforge/clforge.hpp>

#include <cstdio>

int main() try {
  clforge::context ctx = clforge::context::create_default();
  clforge::queue q(ctx);
  auto x = clforge::array<int>::from_host(q, std::vector<int>{1, 2, 3, 4, 5});
  clforge::program p = ctx.build(
      "kernel void twice(ulong n, global int* x) { size_t i = get_global_id(0);"
      " if (i < n) x[i] *= 2; }");
  q.launch(p.kernel("twice"), clforge::ndrange(x.size()), cl_ulong(x.size()), x);
  std::vector<int> back = x.to_host(q);
  bool ok = back == std::vector<int>{2, 4, 6, 8, 10};
  std::printf("consumer of clforge %s on %s: %s\n", CLFORGE_VERSION_STRING, ctx.info().name.c_str(),
              ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "consumer: %s\n", e.what());
  return 1;
}
