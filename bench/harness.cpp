// SPDX-License-Identifier: MIT
// clforge-bench: registers every case from bench/bench_*.cpp for every size under Google
// Benchmark (manual time = what the case's runner returns), adds the device-copy reference,
// then prints one table of GB/s and ratios to the references measured in this same run.
#include "harness.hpp"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <tuple>

#include "cli.hpp"
#include "first_call.hpp"

namespace clforge_bench {

namespace {
struct settings {
  std::string device;
  int min_log2 = 16, max_log2 = 28;
  bool quick = false;
  std::string markdown_path;
  bool first_call = true;
  bool reports = true;
  std::string filter;  // --filter, applied to the paired comparison too
};
settings& config() {
  static settings s;
  return s;
}
std::vector<case_spec>& registry() {
  static std::vector<case_spec> cases;
  return cases;
}
std::vector<report_spec>& reports() {
  static std::vector<report_spec> list;
  return list;
}
std::unique_ptr<cf::context>& context_slot() {
  static std::unique_ptr<cf::context> c;
  return c;
}
}  // namespace

cf::context& ctx() {
  auto& slot = context_slot();
  if (!slot) slot = std::make_unique<cf::context>(cf::context::create(config().device));
  return *slot;
}
cf::queue& queue() {
  static cf::queue q(ctx());
  return q;
}
bool device_is_cpu() {
  return ctx().info().is_cpu();
}

void add_case(case_spec spec) {
  registry().push_back(std::move(spec));
}
void add_report(report_spec spec) {
  reports().push_back(std::move(spec));
}

std::vector<std::size_t> default_sizes() {
  std::vector<std::size_t> out;
  const int step = config().quick ? 4 : 2;
  for (int l = config().min_log2; l <= config().max_log2; l += step)
    out.push_back(std::size_t(1) << l);
  if (config().quick && !out.empty() && out.back() != (std::size_t(1) << config().max_log2))
    out.push_back(std::size_t(1) << config().max_log2);
  return out;
}

std::vector<float> random_floats(std::size_t n, std::uint32_t seed, float lo, float hi) {
  std::vector<float> v(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& x : v) x = dist(rng);
  return v;
}

std::vector<std::int32_t> random_ints(std::size_t n, std::uint32_t seed, std::int32_t lo,
                                      std::int32_t hi) {
  std::vector<std::int32_t> v(n);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int32_t> dist(lo, hi);
  for (auto& x : v) x = dist(rng);
  return v;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}
double quantile_of(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

namespace {

// The reference every ratio needs: clEnqueueCopyBuffer of n floats (4 bytes read + 4 written).
void register_device_copy() {
  add_case({"copy", "device_copy", 8.0, [](std::size_t n) -> run_fn {
              auto src = std::make_shared<cf::array<float>>(
                  cf::array<float>::from_host(queue(), random_floats(n, 1)));
              auto dst = std::make_shared<cf::array<float>>(queue(), n);
              return [src, dst] { return device_seconds(src->copy_to(queue(), *dst)); };
            }});
}

struct result {
  std::string job, impl;
  std::size_t n;
  double seconds;  // per run
  double bytes;    // per run
  double gbps() const { return bytes > 0 ? bytes / seconds * 1e-9 : 0; }
};

class collecting_reporter : public benchmark::ConsoleReporter {
 public:
  using ConsoleReporter::ConsoleReporter;
  std::vector<result> results;
  std::map<std::string, std::pair<const case_spec*, std::size_t>> names;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration || run.iterations == 0) continue;
      auto found = names.find(run.run_name.function_name);
      if (found == names.end()) continue;
      const case_spec& c = *found->second.first;
      std::size_t n = found->second.second;
      double seconds = run.real_accumulated_time / static_cast<double>(run.iterations);
      results.push_back({c.job, c.impl, n, seconds, c.bytes_per_element * static_cast<double>(n)});
    }
  }
};

std::string format_n(std::size_t n) {
  int log = 0;
  while ((std::size_t(1) << log) < n) ++log;
  if ((std::size_t(1) << log) == n && n >= 1024) return "2^" + std::to_string(log);
  return std::to_string(n);
}

// With --repetitions a case has several results: the one with the median time stands for it.
std::vector<result> medians(const std::vector<result>& results) {
  std::map<std::tuple<std::string, std::size_t, std::string>, std::vector<result>> runs;
  for (const result& r : results) runs[{r.job, r.n, r.impl}].push_back(r);
  std::vector<result> out;
  for (auto& entry : runs) {
    std::vector<result>& v = entry.second;
    std::sort(v.begin(), v.end(),
              [](const result& a, const result& b) { return a.seconds < b.seconds; });
    out.push_back(v[(v.size() - 1) / 2]);
  }
  return out;
}

// One row per (job, n, impl) with ratios to the references of the same job and n.
std::string ratio_table(const std::vector<result>& all_results, bool markdown) {
  const std::vector<result> results = medians(all_results);
  std::map<std::pair<std::string, std::size_t>, std::map<std::string, const result*>> by_job;
  std::map<std::size_t, double> copy_gbps;
  for (const result& r : results) {
    if (r.job == "copy") copy_gbps[r.n] = r.gbps();
    by_job[{r.job, r.n}][r.impl] = &r;
  }
  std::ostringstream out;
  auto cell = [](double v, const char* fmt) {
    if (!(v > 0) || !std::isfinite(v)) return std::string("-");
    char text[32];
    std::snprintf(text, sizeof text, fmt, v);
    return std::string(text);
  };
  if (markdown) {
    out << "| job | n | impl | time/run | GB/s | × device copy | × handwritten | × openmp |\n"
        << "|---|---:|---|---:|---:|---:|---:|---:|\n";
  } else {
    char header[256];
    std::snprintf(header, sizeof header, "%-24s %8s %-12s %12s %9s %7s %7s %7s\n", "job", "n",
                  "impl", "time/run", "GB/s", "×copy", "×hand", "×omp");
    out << header;
  }
  for (const auto& [key, impls] : by_job) {
    const auto& [job, n] = key;
    auto reference = [&](const char* impl) {
      auto f = impls.find(impl);
      return f == impls.end() ? 0.0 : f->second->gbps();
    };
    auto ref_seconds = [&](const char* impl) {
      auto f = impls.find(impl);
      return f == impls.end() ? 0.0 : f->second->seconds;
    };
    for (const auto& [impl, r] : impls) {
      double copy = copy_gbps.count(n) ? copy_gbps[n] : 0.0;
      // Jobs without bytes (launch, first call) compare times instead: ratio = ref time / time.
      bool by_time = r->bytes <= 0;
      double vs_hand =
          by_time ? ref_seconds("handwritten") / r->seconds : r->gbps() / reference("handwritten");
      double vs_omp =
          by_time ? ref_seconds("openmp") / r->seconds : r->gbps() / reference("openmp");
      double vs_copy = by_time || job == "copy" ? 0.0 : r->gbps() / copy;
      std::string time = r->seconds >= 1e-3 ? cell(r->seconds * 1e3, "%.3f ms")
                                            : cell(r->seconds * 1e6, "%.2f us");
      if (markdown) {
        out << "| " << job << " | " << format_n(n) << " | " << impl << " | " << time << " | "
            << cell(r->gbps(), "%.1f") << " | " << cell(vs_copy, "%.3f") << " | "
            << cell(impl == "handwritten" ? 0 : vs_hand, "%.3f") << " | "
            << cell(impl == "openmp" ? 0 : vs_omp, "%.3f") << " |\n";
      } else {
        char line[256];
        std::snprintf(line, sizeof line, "%-24s %8s %-12s %12s %9s %7s %7s %7s\n", job.c_str(),
                      format_n(n).c_str(), impl.c_str(), time.c_str(),
                      cell(r->gbps(), "%.1f").c_str(), cell(vs_copy, "%.3f").c_str(),
                      cell(impl == "handwritten" ? 0 : vs_hand, "%.3f").c_str(),
                      cell(impl == "openmp" ? 0 : vs_omp, "%.3f").c_str());
        out << line;
      }
    }
  }
  return out.str();
}

// ---- paired comparison ----------------------------------------------------------------------
// The ratio table compares cases that ran one after the other; on a shared or throttling host
// the drift between them can exceed the differences that matter (on the 2-core PoCL host here
// two runs of the same saxpy kernel differed by 15%). This runs, for every job with a clforge
// case and the harness's size sweep, all of its implementations in rounds at the largest size
// (each once per round, the order rotating), and reports the median over rounds of
// time(other) / time(clforge): the speed of clforge relative to each reference, from runs
// taken side by side.
bool selected(const std::string& name) {
  const std::string& f = config().filter;
  if (f.empty()) return true;
  if (f[0] == '-') return !std::regex_search(name, std::regex(f.substr(1)));
  return std::regex_search(name, std::regex(f));
}

std::string paired_report(bool quick) {
  const std::vector<std::size_t> sizes = default_sizes();
  if (sizes.empty()) return "";
  const std::size_t n = sizes.back();
  const int rounds = quick ? 15 : 30;
  std::map<std::string, std::vector<const case_spec*>> jobs;
  for (const case_spec& c : registry()) {
    if (!c.sizes.empty() || (c.cpu_only && !device_is_cpu())) continue;
    if (c.bytes_per_element * n > 0.45 * static_cast<double>(ctx().info().global_mem_bytes))
      continue;
    if (!selected(c.job + "/" + c.impl + "/" + format_n(n))) continue;
    jobs[c.job].push_back(&c);
  }
  std::ostringstream md;
  md << "n = " << format_n(n) << ", " << rounds
     << " rounds; ratio = time(reference) / time(clforge) in the same round, >1: clforge "
        "faster\n\n"
     << "| job | reference | clforge time | reference time | ratio, median of rounds | middle "
        "half of the ratios |\n|---|---|---:|---:|---:|---:|\n";
  bool any = false;
  for (auto& [job, cases] : jobs) {
    auto ours = std::find_if(cases.begin(), cases.end(),
                             [](const case_spec* c) { return c->impl == "clforge"; });
    if (ours == cases.end() || cases.size() < 2) continue;
    std::rotate(cases.begin(), ours, ours + 1);  // clforge first
    std::vector<run_fn> runs;
    try {
      for (const case_spec* c : cases) {
        runs.push_back(c->prepare(n));
        runs.back()();  // warm-up
        runs.back()();
      }
    } catch (const std::exception& e) {
      md << "| " << job << " | (skipped: " << e.what() << ") | | | | |\n";
      continue;
    }
    std::vector<std::vector<double>> times(cases.size());
    for (int r = 0; r < rounds; ++r)
      for (std::size_t k = 0; k < cases.size(); ++k) {
        const std::size_t j = (k + static_cast<std::size_t>(r)) % cases.size();
        times[j].push_back(runs[j]());
      }
    for (std::size_t j = 1; j < cases.size(); ++j) {
      std::vector<double> ratio;
      for (int r = 0; r < rounds; ++r) ratio.push_back(times[j][r] / times[0][r]);
      auto ms = [](double seconds) {
        char text[32];
        std::snprintf(text, sizeof text, seconds >= 1e-3 ? "%.3f ms" : "%.2f us",
                      seconds >= 1e-3 ? seconds * 1e3 : seconds * 1e6);
        return std::string(text);
      };
      char line[256];
      std::snprintf(line, sizeof line, "| %s | %s | %s | %s | %.3f | %.3f … %.3f |\n", job.c_str(),
                    cases[j]->impl.c_str(), ms(median_of(times[0])).c_str(),
                    ms(median_of(times[j])).c_str(), median_of(ratio), quantile_of(ratio, 0.25),
                    quantile_of(ratio, 0.75));
      md << line;
      any = true;
    }
  }
  return any ? md.str() : "";
}

}  // namespace
}  // namespace clforge_bench

int main(int argc, char** argv) {
  using namespace clforge_bench;
#ifdef CLFORGE_BENCH_HAVE_OPENMP
  // OpenMP's idle worker threads spin after each parallel loop (libgomp: for up to milliseconds)
  // and take the cores from a CPU OpenCL device's threads when a clforge case runs next; on the
  // 2-core PoCL host that moved saxpy ratios by +-30% between rounds. libgomp reads
  // OMP_WAIT_POLICY when it is loaded, before main, so the harness sets it and runs itself again.
  // (A value the user sets is kept.)
  if (!std::getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);  // returns only on failure: then go on as we are
  }
#endif
  if (argc >= 2 && std::string(argv[1]) == first_call_child_flag)
    return first_call_child(argc, argv);
  settings& s = config();
  const char* env_device = std::getenv("CLFORGE_DEVICE");
  if (env_device) s.device = env_device;
  std::vector<std::string> passthrough = {argv[0]};
  double min_time = 0.5;
  std::string json_path, repetitions;
  CLI::App app(
      "clforge-bench: clforge against hand-written kernels, OpenMP and library peers, with "
      "ratios measured side by side in one run. Options starting with --benchmark_ go to Google "
      "Benchmark.",
      "clforge-bench");
  clforge_cli::add_version(app);
  app.add_option("--device", s.device, "device (default: $CLFORGE_DEVICE), e.g. gpu, pocl, 0:1");
  app.add_flag("--quick", s.quick, "sizes 2^16, 2^20, 2^24 and short runs (a smoke run)");
  app.add_option("--min-log2", s.min_log2, "smallest n = 2^K")
      ->capture_default_str()
      ->check(CLI::Range(0, 40));
  app.add_option("--max-log2", s.max_log2, "largest n = 2^K")
      ->capture_default_str()
      ->check(CLI::Range(0, 40));
  app.add_option("--filter", s.filter, "only cases whose name job/impl/n matches REGEX");
  app.add_option("--json", json_path, "Google Benchmark's JSON output to FILE");
  app.add_option("--markdown", s.markdown_path, "the ratio table as Markdown to FILE");
  bool no_first_call = false, no_reports = false;
  app.add_flag("--no-first-call", no_first_call, "skip the first-call latency measurement");
  app.add_flag("--no-reports", no_reports, "skip the reports (side-by-side rounds, launches)");
  app.add_option("--repetitions", repetitions,
                 "run every case K times, interleaved in random order; the table shows each "
                 "case's median (steadier on shared hosts)")
      ->check(CLI::PositiveNumber);
  app.add_option("--min-time", min_time, "time each case for at least SECONDS")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  // Google Benchmark's own options pass through; anything else unknown is a usage error.
  app.allow_extras();
  if (int status = clforge_cli::parse(app, argc, argv); status >= 0) return status;
  for (const std::string& extra : app.remaining()) {
    if (extra.rfind("--benchmark_", 0) != 0) {
      std::cerr << "clforge-bench: unknown option " << extra << "\n"
                << "usage: clforge-bench [OPTIONS] [--benchmark_...]   (clforge-bench --help "
                   "lists them)\n";
      return 2;
    }
    passthrough.push_back(extra);
  }
  s.first_call = !no_first_call;
  s.reports = !no_reports;
  if (!s.filter.empty()) passthrough.push_back("--benchmark_filter=" + s.filter);
  if (!json_path.empty()) {
    passthrough.push_back("--benchmark_out=" + json_path);
    passthrough.push_back("--benchmark_out_format=json");
  }
  if (!repetitions.empty()) {
    passthrough.push_back("--benchmark_repetitions=" + repetitions);
    passthrough.push_back("--benchmark_enable_random_interleaving=true");
  }
  if (s.quick) {
    s.min_log2 = std::max(s.min_log2, 16);
    s.max_log2 = std::min(s.max_log2, 24);
    min_time = std::min(min_time, 0.05);
  }
  try {
    const cf::device_info& info = ctx().info();
    std::printf("clforge-bench on %s (%s, driver %s), %u compute units\n", info.name.c_str(),
                info.platform_name.c_str(), info.driver_version.c_str(), info.compute_units);
    if (const char* wait = std::getenv("OMP_WAIT_POLICY"))
      std::printf("OpenMP references with OMP_WAIT_POLICY=%s\n", wait);
    register_device_copy();
    // Colour only on a terminal: redirected output (bench/results/*/console.txt) stays plain.
    collecting_reporter reporter(isatty(fileno(stdout)) ? benchmark::ConsoleReporter::OO_Defaults
                                                        : benchmark::ConsoleReporter::OO_Tabular);
    for (const case_spec& c : registry()) {
      if (c.cpu_only && !device_is_cpu()) continue;
      std::vector<std::size_t> sizes = c.sizes.empty() ? default_sizes() : c.sizes;
      for (std::size_t n : sizes) {
        // Skip sizes the device cannot hold (e.g. 2^28 floats on a small PoCL allocation limit).
        if (c.bytes_per_element * n > 0.45 * static_cast<double>(info.global_mem_bytes)) continue;
        std::string name = c.job + "/" + c.impl + "/" + format_n(n);
        reporter.names[name] = {&c, n};
        benchmark::RegisterBenchmark(
            name.c_str(),
            [&c, n](benchmark::State& state) {
              run_fn run;
              try {
                run = c.prepare(n);
                run();  // warm-up: first launches compile/specialise and touch memory
                run();
              } catch (const std::exception& e) {
                state.SkipWithError(e.what());
                return;
              }
              for (auto _ : state) state.SetIterationTime(run());
              state.counters["bytes_per_second"] = benchmark::Counter(
                  c.bytes_per_element * static_cast<double>(n),
                  benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
            })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond)
            ->MinTime(min_time);
      }
    }
    int bench_argc = static_cast<int>(passthrough.size());
    std::vector<char*> bench_argv;
    for (std::string& p : passthrough) bench_argv.push_back(p.data());
    benchmark::Initialize(&bench_argc, bench_argv.data());
    benchmark::AddCustomContext("clforge_device", info.name + " (" + info.platform_name + ")");
    benchmark::AddCustomContext("clforge_driver", info.driver_version);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();

    std::string table = ratio_table(reporter.results, false);
    std::printf("\nResults on %s: GB/s and ratios to references measured in this run\n%s",
                info.name.c_str(), table.c_str());
    // Reports: the harness's side-by-side rounds first, then those the cases registered.
    std::vector<report_spec> all_reports = {
        {"clforge against each reference, run side by side in rounds", paired_report}};
    all_reports.insert(all_reports.end(), reports().begin(), reports().end());
    std::string reports_md;
    for (const report_spec& r : s.reports ? all_reports : std::vector<report_spec>{}) {
      const std::string body = r.run(s.quick);
      if (body.empty()) continue;
      const std::string table = "## " + r.title + "\n\n" + body + "\n";
      std::printf("\n%s", table.c_str());
      std::fflush(stdout);
      reports_md += table;
    }
    std::string first_call_md;
    if (s.first_call) first_call_md = run_first_call_report(argv[0], s.device, s.quick ? 3 : 7);
    if (!s.markdown_path.empty()) {
      std::ofstream md(s.markdown_path);
      md << "# clforge-bench on " << info.name << " (" << info.platform_name << ", driver "
         << info.driver_version << ")\n\n"
         << ratio_table(reporter.results, true) << '\n'
         << reports_md << first_call_md;
    }
  } catch (const std::exception& e) {
    std::cerr << "clforge-bench: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
