// SPDX-License-Identifier: MIT
// A second process for the tuner tests (test_tuner.cpp):
//   tuner_probe [--driver D] show            prints the elementwise policy the templates get
//   tuner_probe [--driver D] store SETTINGS  stores SETTINGS as the elementwise result
//   tuner_probe tune TAG                     tunes saxpy briefly, then stores 100 entries of its
//   own
//                                          (TAG/2^0 .. TAG/2^99), one store each
// --driver files results as if the driver version were D (a simulated driver update).
#include <cstdio>
#include <cstring>
#include <string>

#include <clforge/clforge.hpp>

#include "tuning/resolve.hpp"
#include "tuning/store.hpp"

namespace cf = clforge;

int main(int argc, char** argv) try {
  int at = 1;
  if (argc > at + 1 && std::strcmp(argv[at], "--driver") == 0) {
    cf::detail::simulate_driver_version_for_tests(argv[at + 1]);
    at += 2;
  }
  if (argc <= at) return 2;
  const std::string what = argv[at];
  cf::context ctx = cf::context::create_default();
  if (what == "show") {
    std::printf("%s\n", cf::detail::resolved_policy(ctx, "elementwise", true).c_str());
    return 0;
  }
  if (what == "store" && argc > at + 1) {
    cf::detail::store_tuned(ctx.info(),
                            {{"elementwise", "float32/2^20", argv[at + 1], 2e-3, 1e-3}});
    return 0;
  }
  if (what == "tune" && argc > at + 1) {
    cf::queue q(ctx);
    cf::tuner::options opt;
    opt.budget_seconds = 2;
    opt.threads = 1;
    opt.repetitions = 2;
    cf::tuner::tune_template(q, "saxpy", 4096, opt, true);
    for (int k = 0; k < 100; ++k)
      cf::detail::store_tuned(
          ctx.info(), {{"elementwise", std::string(argv[at + 1]) + "/2^" + std::to_string(k),
                        "kind=gpu,group=64", 2e-3, 1e-3}});
    return 0;
  }
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "tuner_probe: %s\n", e.what());
  return 1;
}
