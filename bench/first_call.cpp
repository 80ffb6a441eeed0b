// SPDX-License-Identifier: MIT
#include "first_call.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <vector>

#include <clforge/clforge.hpp>

namespace clforge_bench {
namespace cf = clforge;

namespace {
using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// A trivial kernel; the nonce in its name makes the program new to every cache, PoCL's own
// included (a comment would not do: PoCL caches compiled kernels by their IR).
std::string kernel_source(const std::string& nonce) {
  return "kernel void probe_" + nonce +
         "(ulong n, global float* y, float a) {\n"
         "  size_t i = get_global_id(0);\n"
         "  if (i < n) y[i] = a * y[i] + 1.0f;\n"
         "}\n";
}

struct timings {
  double context_ms = -1, first_ms = -1, memory_ms = -1;
};

timings run_child(const std::string& self, const std::string& device, const std::string& nonce) {
  std::string command =
      "'" + self + "' " + first_call_child_flag + " '" + nonce + "' '" + device + "'";
  timings t;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return t;
  char line[256];
  while (std::fgets(line, sizeof line, pipe))
    std::sscanf(line, "context_ms=%lf first_ms=%lf memory_ms=%lf", &t.context_ms, &t.first_ms,
                &t.memory_ms);
  ::pclose(pipe);
  return t;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int first_call_child(int argc, char** argv) {
  if (argc < 4) return 2;
  try {
    auto t0 = clock_type::now();
    cf::context ctx = cf::context::create(argv[3]);
    cf::queue q(ctx);
    cf::array<float> y(q, 1024);
    y.fill(q, 1.0f);
    q.finish();
    double context_ms = ms_since(t0);

    std::string source = kernel_source(argv[2]);
    auto t1 = clock_type::now();  // from here: what a user's first call of a new kernel costs
    const std::string name = std::string("probe_") + argv[2];
    cf::kernel k = ctx.build(source).kernel(name);
    q.launch(k, cf::ndrange(1024), cl_ulong(1024), y, 2.0f);
    q.finish();
    double first_ms = ms_since(t1);

    auto t2 = clock_type::now();
    cf::kernel again = ctx.build(source).kernel(name);
    q.launch(again, cf::ndrange(1024), cl_ulong(1024), y, 2.0f);
    q.finish();
    double memory_ms = ms_since(t2);
    std::printf("context_ms=%f first_ms=%f memory_ms=%f\n", context_ms, first_ms, memory_ms);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "first-call child: %s\n", e.what());
    return 1;
  }
  return 0;
}

report_table run_first_call_report(const std::string& self, const std::string& device,
                                   int repetitions) {
  namespace fs = std::filesystem;
  const std::string saved =
      std::getenv("CLFORGE_CACHE_DIR") ? std::getenv("CLFORGE_CACHE_DIR") : "";
  std::vector<double> cold, warm, memory, context;
  std::mt19937_64 rng(std::random_device{}());
  for (int r = 0; r < repetitions; ++r) {
    progress("first call: fresh process pair " + std::to_string(r + 1) + " of " +
             std::to_string(repetitions));
    fs::path dir = fs::temp_directory_path() /
                   ("clforge-first-call-" + std::to_string(::getpid()) + "-" + std::to_string(r));
    fs::remove_all(dir);
    ::setenv("CLFORGE_CACHE_DIR", dir.c_str(), 1);
    std::string nonce = std::to_string(rng());
    timings c = run_child(self, device, nonce);  // empty directory: compile
    timings w = run_child(self, device, nonce);  // same source, fresh process: disk hit
    fs::remove_all(dir);
    if (c.first_ms < 0 || w.first_ms < 0) continue;
    cold.push_back(c.first_ms);
    warm.push_back(w.first_ms);
    memory.push_back(w.memory_ms);
    context.push_back(w.context_ms);
  }
  if (saved.empty())
    ::unsetenv("CLFORGE_CACHE_DIR");
  else
    ::setenv("CLFORGE_CACHE_DIR", saved.c_str(), 1);
  report_table t;
  t.columns = {"case", "ms"};
  if (cold.empty()) {
    t.note = "The first-call measurement failed (the child processes did not report).";
    return t;
  }
  const double mc = median(cold), mw = median(warm), mm = median(memory), mx = median(context);
  t.note = "Build + kernel + launch + finish of a new kernel, median of " +
           std::to_string(cold.size()) +
           " fresh processes; cold / warm disk = " + format("%.1f", mc / mw) + ".";
  t.rows = {{"cold, empty cache", format("%.3f", mc)},
            {"warm disk, new process", format("%.3f", mw)},
            {"warm memory, same process", format("%.3f", mm)},
            {"context + queue creation (not included above)", format("%.3f", mx)}};
  return t;
}

}  // namespace clforge_bench
