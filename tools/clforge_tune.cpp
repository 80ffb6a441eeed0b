// SPDX-License-Identifier: MIT
// clforge-tune: searches the kernel templates' policies on one device and stores the fastest
// in the cache directory, where the templates find them (docs/tuning.md).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <clforge/clforge.hpp>
#include <clforge/tuner.hpp>
#include <nlohmann/json.hpp>

#include "cli.hpp"

namespace cf = clforge;

namespace {

// --json must be writable before the search starts (minutes), not found unwritable after it.
// Opens it for appending (nothing is truncated yet); a file made only for the check goes again.
void check_writable(const std::string& path) {
  const bool existed = ::access(path.c_str(), F_OK) == 0;
  {
    std::ofstream probe(path, std::ios::app);
    if (!probe)
      throw cf::error("--json " + path + ": cannot write there (" + std::strerror(errno) + ")");
  }
  if (!existed) std::remove(path.c_str());
}

// The default size of each template's problem: large enough that the shape matters, small
// enough for a CPU device to time many candidates within the budget.
std::size_t default_size(const std::string& name, bool gpu) {
  if (name == "polygon") return gpu ? std::size_t(8192) * 8192 : std::size_t(2048) * 2048;
  return gpu ? std::size_t(1) << 26 : std::size_t(1) << 22;
}

}  // namespace

int main(int argc, char** argv) {
  std::string spec = std::getenv("CLFORGE_DEVICE") ? std::getenv("CLFORGE_DEVICE") : "";
  std::string which = "all";
  double budget = 60;
  std::vector<std::size_t> sizes;
  std::string json_path;
  bool reset = false;
  unsigned threads = 0;
  unsigned repetitions = 5;
  CLI::App app(
      "clforge-tune: searches the kernel templates' shapes (policies) on one device, checks each "
      "candidate's output against the default policy's, times them and stores the fastest in "
      "the cache directory; templates built afterwards use it (CLFORGE_TUNE=off ignores it).",
      "clforge-tune");
  clforge_cli::add_version(app);
  app.add_option("-d,--device", spec, "device spec: gpu, cpu, pocl, nvidia, P:D ...");
  std::vector<std::string> workloads = cf::tuner::template_names();
  std::string listed;
  for (const std::string& w : workloads) listed += w + ", ";
  workloads.push_back("all");
  app.add_option("-t,--template", which, listed + "or all")->check(CLI::IsMember(workloads));
  app.add_option("-b,--budget", budget, "seconds of search per template and size")
      ->check(clforge_cli::finite_number(1.0, 86400.0));
  app.add_option("-s,--sizes", sizes,
                 "problem sizes in elements (polygon: pixels); default 2^22 on CPUs, 2^26 on GPUs")
      ->check(CLI::Range(std::size_t(1), std::size_t(1) << 40));
  app.add_option("--json", json_path, "also write the results to this file as JSON");
  app.add_flag("--reset", reset,
               "delete the device's stored results (and tune nothing else "
               "unless --template is given)");
  app.add_option("--threads", threads, "build threads (default: one per core)")
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--repetitions", repetitions, "timed runs per candidate (the median counts)")
      ->check(CLI::Range(1u, 1000u));
  if (int status = clforge_cli::parse(app, argc, argv); status >= 0) return status;
  try {
    if (!json_path.empty()) check_writable(json_path);
    cf::context ctx = cf::context::create(spec);
    cf::queue q(ctx);
    const cf::device_info& info = ctx.info();
    std::fprintf(stderr, "clforge-tune: %s (%s, driver %s)\n", info.name.c_str(),
                 info.platform_name.c_str(), info.driver_version.c_str());
    if (reset) {
      const bool had = cf::tuner::reset_stored(ctx);
      std::fprintf(stderr, "clforge-tune: %s %s\n", had ? "deleted" : "no stored results in",
                   cf::tuner::results_file(ctx).c_str());
      if (app.count("--template") == 0) return 0;
    }
    std::vector<std::string> names;
    if (which == "all")
      names = cf::tuner::template_names();
    else
      names.push_back(which);

    struct row {
      cf::tuner::template_result r;
      std::string baseline_policy;
    };
    std::vector<row> rows;
    for (const std::string& name : names) {
      std::vector<std::size_t> these = sizes;
      if (these.empty()) these.push_back(default_size(name, info.is_gpu()));
      for (std::size_t n : these) {
        cf::tuner::options opt;
        opt.budget_seconds = budget;
        opt.threads = threads;
        opt.repetitions = repetitions;
        opt.on_progress = [&](const cf::tuner::progress& p) {
          std::fprintf(stderr, "  %s n=%zu: candidate %zu of %zu  %s  %s", name.c_str(), n, p.index,
                       p.total, cf::tuner::to_string(p.candidate).c_str(), p.status.c_str());
          if (p.seconds > 0) std::fprintf(stderr, " %.3f ms", p.seconds * 1e3);
          std::fprintf(stderr, "  | best %.3f ms %s\n", p.best_seconds * 1e3,
                       cf::tuner::to_string(p.best).c_str());
        };
        std::fprintf(stderr, "clforge-tune: %s, n=%zu, budget %.0f s\n", name.c_str(), n, budget);
        row r;
        r.r = cf::tuner::tune_template(q, name, n, opt, true);
        r.baseline_policy = cf::tuner::to_string(r.r.search.baseline);
        std::fprintf(stderr,
                     "clforge-tune: %s: %zu of %zu candidates in %.1f s (%zu rejected, %zu "
                     "failed)%s\n",
                     name.c_str(), r.r.search.tried, r.r.search.space_size, r.r.search.wall_seconds,
                     r.r.search.rejected, r.r.search.failed,
                     r.r.search.exhaustive ? ", exhaustive" : "");
        rows.push_back(r);
      }
    }
    std::printf("%-9s %-16s %-46s %10s  %-46s %10s %8s\n", "template", "problem",
                "default policy (searched keys)", "default ms", "tuned policy (searched keys)",
                "tuned ms", "speed-up");
    for (const row& r : rows)
      std::printf("%-9s %-16s %-46s %10.3f  %-46s %10.3f %7.2fx\n", r.r.name.c_str(),
                  r.r.problem.c_str(), r.baseline_policy.c_str(), r.r.search.baseline_seconds * 1e3,
                  cf::tuner::to_string(r.r.search.best).c_str(), r.r.search.best_seconds * 1e3,
                  r.r.search.speedup());
    std::printf("stored in %s\n", cf::tuner::results_file(ctx).c_str());
    if (!json_path.empty()) {
      nlohmann::json results = nlohmann::json::array();
      for (const row& r : rows)
        results.push_back({{"template", r.r.name},
                           {"primitive", r.r.primitive},
                           {"problem", r.r.problem},
                           {"default", r.baseline_policy},
                           {"default_seconds", r.r.search.baseline_seconds},
                           {"tuned", cf::tuner::to_string(r.r.search.best)},
                           {"tuned_seconds", r.r.search.best_seconds},
                           {"policy", r.r.policy},
                           {"tried", r.r.search.tried},
                           {"space", r.r.search.space_size},
                           {"rejected", r.r.search.rejected},
                           {"failed", r.r.search.failed},
                           {"wall_seconds", r.r.search.wall_seconds}});
      const nlohmann::json out = {{"device", info.name},
                                  {"driver_version", info.driver_version},
                                  {"clforge_version", CLFORGE_VERSION_STRING},
                                  {"results", results}};
      std::ofstream file(json_path, std::ios::trunc);
      file << out.dump(2) << '\n';
      if (!file.flush()) throw cf::error("cannot write " + json_path);
    }
  } catch (const std::exception& e) {
    std::cerr << "clforge-tune: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
