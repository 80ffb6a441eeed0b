// SPDX-License-Identifier: MIT
// A second process for the cache tests: builds one program and prints the cache counters.
//   cache_probe <kernel-name> [build options]
#include <cstdio>

#include <clforge/clforge.hpp>

int main(int argc, char** argv) try {
  if (argc < 2) return 2;
  clforge::context ctx = clforge::context::create_default();
  std::string name = argv[1];
  std::string source = "kernel void " + name + "(global int* x) { x[get_global_id(0)] += 3; }\n";
  clforge::program p = ctx.build(source, argc > 2 ? argv[2] : "");
  clforge::queue q(ctx);
  auto x = clforge::array<int>::from_host(q, std::vector<int>{1, 2});
  q.launch(p.kernel(name), clforge::ndrange(2).with_local(1), x);
  std::vector<int> back = x.to_host(q);
  clforge::cache_stats s = ctx.program_cache_stats();
  std::printf("compiles=%zu disk_hits=%zu memory_hits=%zu disk_writes=%zu disk_rejects=%zu ok=%d\n",
              s.compiles, s.disk_hits, s.memory_hits, s.disk_writes, s.disk_rejects,
              back[0] == 4 && back[1] == 5);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "cache_probe: %s\n", e.what());
  return 1;
}
