// SPDX-License-Identifier: MIT
// A child process for the fault, cache-security and concurrent-build tests, so each case starts
// with a fresh "said once" flag and can run under limits the test process must not take on
// itself.
//   reliability_probe [--as-nobody] [--templates] NAME COUNT
// Builds COUNT distinct programs (kernels NAME_0 ...), alternating between two contexts, runs
// each, and prints the summed cache counters of both contexts on stdout:
//   compiles=.. disk_hits=.. disk_writes=.. disk_rejects=.. ok=1
// With CLFORGE_TEST_ENOSPC_DIR=<dir> set, writes into <dir> fail with ENOSPC; with
// CLFORGE_TEST_FAILED_BUILDS=<n>, the first n builds report a failure (fault_inject.cpp).
// --as-nobody drops to uid/gid 65534 first (when run as root: makes 0500 directories read-only).
// --templates also runs sum, an inclusive scan and a sort on the first context (large programs,
// long builds) and checks them against the host.
#include <grp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include <clforge/clforge.hpp>

int main(int argc, char** argv) try {
  int arg = 1;
  bool templates = false;
  for (; arg < argc && std::string(argv[arg]).rfind("--", 0) == 0; ++arg) {
    std::string flag = argv[arg];
    if (flag == "--as-nobody") {
      if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) return 4;
    } else if (flag == "--templates") {
      templates = true;
    } else {
      return 2;
    }
  }
  if (argc - arg != 2) return 2;
  const std::string name = argv[arg];
  const int count = std::atoi(argv[arg + 1]);

  clforge::context contexts[2] = {clforge::context::create_default(),
                                  clforge::context::create_default()};
  bool ok = true;
  for (int i = 0; i < count; ++i) {
    clforge::context& ctx = contexts[i % 2];
    const std::string kernel = name + "_" + std::to_string(i);
    clforge::program p =
        ctx.build("kernel void " + kernel +
                  "(global int* x) { if (get_global_id(0) < 2) x[get_global_id(0)] += 3; }\n");
    clforge::queue q(ctx);
    auto x = clforge::array<int>::from_host(q, std::vector<int>{1, 2});
    q.launch(p.kernel(kernel), clforge::ndrange(2), x);
    std::vector<int> back = x.to_host(q);
    ok = ok && back[0] == 4 && back[1] == 5;
  }
  if (templates) {
    clforge::queue q(contexts[0]);
    std::vector<int> host(100003);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int>((i * 7919) % 10007);
    auto x = clforge::array<int>::from_host(q, host);
    ok = ok && clforge::sum(q, x) == std::accumulate(host.begin(), host.end(), 0);
    clforge::array<int> scanned(q, host.size());
    clforge::inclusive_scan(q, x, scanned);
    std::vector<int> expected(host.size());
    std::partial_sum(host.begin(), host.end(), expected.begin());
    ok = ok && scanned.to_host(q) == expected;
    clforge::sort(q, x);
    std::sort(host.begin(), host.end());
    ok = ok && x.to_host(q) == host;
  }
  clforge::cache_stats sum;
  for (const clforge::context& ctx : contexts) {
    clforge::cache_stats s = ctx.program_cache_stats();
    sum.compiles += s.compiles;
    sum.disk_hits += s.disk_hits;
    sum.disk_writes += s.disk_writes;
    sum.disk_rejects += s.disk_rejects;
  }
  std::printf("compiles=%zu disk_hits=%zu disk_writes=%zu disk_rejects=%zu ok=%d\n", sum.compiles,
              sum.disk_hits, sum.disk_writes, sum.disk_rejects, ok ? 1 : 0);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "reliability_probe: %s\n", e.what());
  return 1;
}
