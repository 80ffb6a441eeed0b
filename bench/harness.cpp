// SPDX-License-Identifier: MIT
// clforge-bench: registers every case from bench/bench_*.cpp for every size under Google
// Benchmark (manual time = what the case's runner returns), adds the device-copy reference,
// then prints one table of GB/s and ratios to the references measured in this same run, and the
// reports (side-by-side rounds, launch overhead, first call). --markdown and --json files are
// rewritten as results arrive, so a run cut short leaves what it measured.
#include "harness.hpp"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
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
  std::string markdown_path, json_path;
  bool first_call = true;
  bool reports = true;
  std::string filter;  // --filter, applied to the paired comparison too
};
// --quick: a smoke run (CI keeps one) that finishes within 2 minutes on a 2-core PoCL host with
// a warm program cache: sizes up to 2^20, one warm-up run, short timings, few side-by-side
// rounds. The sizes where the full run's figures mean something (2^24 and up) are left out.
constexpr int quick_max_log2 = 20;
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

void progress(const std::string& what) {
  using clock = std::chrono::steady_clock;
  static const clock::time_point start = clock::now();
  const double seconds = std::chrono::duration<double>(clock::now() - start).count();
  std::fprintf(stderr, "clforge-bench [%.0f s]: %s\n", seconds, what.c_str());
  std::fflush(stderr);
}

std::string format(const char* fmt, double value) {
  char text[64];
  std::snprintf(text, sizeof text, fmt, value);
  return text;
}

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

// Warm-up runs before a case is timed: the first compiles or specialises and touches memory.
int warm_up_runs() {
  return config().quick ? 1 : 2;
}

std::vector<float> random_floats(std::size_t n, std::uint32_t seed, float lo, float hi) {
  std::vector<float> v(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& x : v) x = dist(rng);
  return v;
}

cf::event histogram_kernel_only(const cf::queue& q, cf::array<cl_uint>& counts,
                                const cf::array<float>& x, std::size_t bins, float lo, float hi) {
  const auto a = cf::detail::equal_width_arguments_of(q.ctx(), bins, lo, hi);
  return cf::detail::equal_width_histogram(q.ctx(), "float", bins)
      .accumulate(q, counts, x.size(), x, lo, hi, a.scale, a.margin, *a.edges);
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

// One row of the ratio table: a (job, n, impl) with its ratios to the references of the same
// job and n (0 where there is none).
struct ratio_row {
  result r;
  double vs_copy = 0, vs_hand = 0, vs_omp = 0;
};

std::vector<ratio_row> ratio_rows(const std::vector<result>& all_results) {
  const std::vector<result> results = medians(all_results);
  std::map<std::pair<std::string, std::size_t>, std::map<std::string, const result*>> by_job;
  std::map<std::size_t, double> copy_gbps;
  for (const result& r : results) {
    if (r.job == "copy") copy_gbps[r.n] = r.gbps();
    by_job[{r.job, r.n}][r.impl] = &r;
  }
  std::vector<ratio_row> rows;
  for (const auto& [key, impls] : by_job) {
    const auto& [job, n] = key;
    auto find = [&](const char* impl) {
      auto f = impls.find(impl);
      return f == impls.end() ? nullptr : f->second;
    };
    for (const auto& [impl, r] : impls) {
      ratio_row row{*r};
      const double copy = copy_gbps.count(n) ? copy_gbps[n] : 0.0;
      // Jobs without bytes (launch, first call) compare times instead: ratio = ref time / time.
      const bool by_time = r->bytes <= 0;
      auto versus = [&](const char* reference) {
        const result* ref = find(reference);
        if (!ref || impl == reference) return 0.0;
        return by_time ? ref->seconds / r->seconds : r->gbps() / ref->gbps();
      };
      row.vs_hand = versus("handwritten");
      row.vs_omp = versus("openmp");
      row.vs_copy = by_time || job == "copy" || copy <= 0 ? 0.0 : r->gbps() / copy;
      rows.push_back(row);
    }
  }
  return rows;
}

std::string cell(double v, const char* fmt) {
  if (!(v > 0) || !std::isfinite(v)) return "-";
  return format(fmt, v);
}
std::string time_cell(double seconds) {
  return seconds >= 1e-3 ? cell(seconds * 1e3, "%.3f ms") : cell(seconds * 1e6, "%.2f us");
}

std::string ratio_table(const std::vector<result>& results, bool markdown) {
  std::ostringstream out;
  char line[256];
  if (markdown) {
    out << "| job | n | impl | time/run | GB/s | × device copy | × handwritten | × openmp |\n"
        << "|---|---:|---|---:|---:|---:|---:|---:|\n";
  } else {
    std::snprintf(line, sizeof line, "%-24s %8s %-12s %12s %9s %7s %7s %7s\n", "job", "n", "impl",
                  "time/run", "GB/s", "×copy", "×hand", "×omp");
    out << line;
  }
  for (const ratio_row& row : ratio_rows(results)) {
    const result& r = row.r;
    const std::string cells[] = {time_cell(r.seconds), cell(r.gbps(), "%.1f"),
                                 cell(row.vs_copy, "%.3f"), cell(row.vs_hand, "%.3f"),
                                 cell(row.vs_omp, "%.3f")};
    if (markdown) {
      out << "| " << r.job << " | " << format_n(r.n) << " | " << r.impl;
      for (const std::string& c : cells) out << " | " << c;
      out << " |\n";
    } else {
      std::snprintf(line, sizeof line, "%-24s %8s %-12s %12s %9s %7s %7s %7s\n", r.job.c_str(),
                    format_n(r.n).c_str(), r.impl.c_str(), cells[0].c_str(), cells[1].c_str(),
                    cells[2].c_str(), cells[3].c_str(), cells[4].c_str());
      out << line;
    }
  }
  return out.str();
}

std::string markdown_of(const report_table& t) {
  std::ostringstream md;
  if (!t.note.empty()) md << t.note << "\n\n";
  if (t.rows.empty()) return md.str();
  md << "|";
  for (const std::string& c : t.columns) md << ' ' << c << " |";
  md << "\n|";
  for (std::size_t k = 0; k < t.columns.size(); ++k) md << (k ? "---:|" : "---|");
  md << '\n';
  for (const auto& row : t.rows) {
    md << "|";
    for (const std::string& c : row) md << ' ' << c << " |";
    md << '\n';
  }
  return md.str();
}

// A cell as JSON: a number where the whole cell is one, else the text.
nlohmann::json json_cell(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end != begin && *end == '\0' && std::isfinite(v)) return v;
  return text;
}

// What the run has measured so far, and the --markdown and --json files written from it after
// every result: a run that is stopped, or dies, leaves what it had.
class outputs {
 public:
  void start(const cf::device_info& info) {
    info_ = info;
    write();
  }
  void add_result(const result& r, const std::string& name, std::int64_t iterations) {
    results_.push_back(r);
    // Google Benchmark's own field names, so bench/plot.py reads this file as it read theirs.
    benchmarks_.push_back({{"name", name},
                           {"run_name", name},
                           {"run_type", "iteration"},
                           {"job", r.job},
                           {"impl", r.impl},
                           {"n", r.n},
                           {"iterations", iterations},
                           {"real_time", r.seconds * 1e6},
                           {"time_unit", "us"},
                           {"seconds_per_run", r.seconds},
                           {"bytes_per_second", r.bytes > 0 ? r.bytes / r.seconds : 0.0}});
    write();
  }
  const std::vector<result>& results() const { return results_; }
  void add_report(const std::string& title, const report_table& table) {
    reports_.emplace_back(title, table);
    write();
  }
  void finish() {
    complete_ = true;
    write();
  }

 private:
  void write() const {
    const settings& s = config();
    if (!s.markdown_path.empty()) replace_file(s.markdown_path, markdown());
    if (!s.json_path.empty()) replace_file(s.json_path, json().dump(2) + "\n");
  }
  std::string markdown() const {
    std::ostringstream md;
    md << "# clforge-bench on " << info_.name << " (" << info_.platform_name << ", driver "
       << info_.driver_version << ")\n\n";
    if (!complete_) md << "(run in progress: the results so far)\n\n";
    if (!results_.empty()) md << ratio_table(results_, true) << '\n';
    for (const auto& [title, table] : reports_)
      md << "## " << title << "\n\n" << markdown_of(table) << '\n';
    return md.str();
  }
  nlohmann::json json() const {
    nlohmann::json out;
    out["context"] = {{"clforge_version", CLFORGE_VERSION_STRING},
                      {"clforge_device", info_.name + " (" + info_.platform_name + ")"},
                      {"clforge_driver", info_.driver_version},
                      {"quick", config().quick}};
    out["complete"] = complete_;
    out["benchmarks"] = benchmarks_;
    nlohmann::json ratios = nlohmann::json::array();
    for (const ratio_row& row : ratio_rows(results_)) {
      auto ratio = [](double v) { return v > 0 && std::isfinite(v) ? nlohmann::json(v) : nullptr; };
      ratios.push_back({{"job", row.r.job},
                        {"n", row.r.n},
                        {"impl", row.r.impl},
                        {"seconds_per_run", row.r.seconds},
                        {"gb_per_second", ratio(row.r.gbps())},
                        {"vs_device_copy", ratio(row.vs_copy)},
                        {"vs_handwritten", ratio(row.vs_hand)},
                        {"vs_openmp", ratio(row.vs_omp)}});
    }
    out["ratios"] = ratios;
    nlohmann::json reports = nlohmann::json::array();
    for (const auto& [title, table] : reports_) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& row : table.rows) {
        nlohmann::json object = nlohmann::json::object();
        for (std::size_t k = 0; k < row.size() && k < table.columns.size(); ++k)
          object[table.columns[k]] = json_cell(row[k]);
        rows.push_back(object);
      }
      reports.push_back({{"title", title}, {"note", table.note}, {"rows", rows}});
    }
    out["reports"] = reports;
    return out;
  }
  // Written beside the target and renamed over it: a reader never sees half a file.
  static void replace_file(const std::string& path, const std::string& text) {
    const std::string temporary = path + ".tmp";
    {
      std::ofstream file(temporary, std::ios::trunc);
      file << text;
      if (!file.flush()) throw cf::error("clforge-bench: cannot write " + temporary);
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
      throw cf::error("clforge-bench: cannot replace " + path);
  }

  cf::device_info info_;
  std::vector<result> results_;
  nlohmann::json benchmarks_ = nlohmann::json::array();
  std::vector<std::pair<std::string, report_table>> reports_;
  bool complete_ = false;
};

class collecting_reporter : public benchmark::ConsoleReporter {
 public:
  collecting_reporter(OutputOptions options, outputs& out) : ConsoleReporter(options), out_(out) {}
  std::map<std::string, std::pair<const case_spec*, std::size_t>> names;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration || run.iterations == 0) continue;
      auto found = names.find(run.run_name.function_name);
      if (found == names.end()) continue;
      const case_spec& c = *found->second.first;
      const std::size_t n = found->second.second;
      const double seconds = run.real_accumulated_time / static_cast<double>(run.iterations);
      out_.add_result({c.job, c.impl, n, seconds, c.bytes_per_element * static_cast<double>(n)},
                      run.run_name.function_name, run.iterations);
    }
  }

 private:
  outputs& out_;
};

// ---- paired comparison ----------------------------------------------------------------------
// The ratio table compares cases that ran one after the other; on a shared or throttling host
// the drift between them can exceed the differences that matter (on the 2-core PoCL host here
// two runs of the same saxpy kernel differed by 15%). This runs, for every job with a clforge
// case and the harness's size sweep, all of its implementations in rounds at the largest size
// (each once per round, the order rotating), and reports the median over rounds of
// time(other) / time(clforge): the speed of clforge relative to each reference, from runs
// taken side by side. A job stops adding rounds once it has used its time budget (after a few
// rounds at least): a reference hundreds of times slower than clforge on this device (a CPU
// sorting with a GPU algorithm) must not hold the whole run for minutes.
bool selected(const std::string& name) {
  const std::string& f = config().filter;
  if (f.empty()) return true;
  if (f[0] == '-') return !std::regex_search(name, std::regex(f.substr(1)));
  return std::regex_search(name, std::regex(f));
}

report_table paired_report(bool quick) {
  report_table t;
  const std::vector<std::size_t> sizes = default_sizes();
  if (sizes.empty()) return t;
  const std::size_t n = sizes.back();
  const int rounds = quick ? 5 : 30, min_rounds = quick ? 3 : 5;
  const double budget_seconds = quick ? 2.0 : 120.0;  // per job
  std::map<std::string, std::vector<const case_spec*>> jobs;
  for (const case_spec& c : registry()) {
    if (!c.sizes.empty() || (c.cpu_only && !device_is_cpu())) continue;
    if (c.bytes_per_element * n > 0.45 * static_cast<double>(ctx().info().global_mem_bytes))
      continue;
    if (!selected(c.job + "/" + c.impl + "/" + format_n(n))) continue;
    jobs[c.job].push_back(&c);
  }
  t.note = "n = " + format_n(n) + ", up to " + std::to_string(rounds) +
           " rounds (fewer where a job used its " + format("%g", budget_seconds) +
           " s budget); ratio = time(reference) / time(clforge) in the same round, >1: clforge "
           "faster";
  t.columns = {"job",
               "reference",
               "rounds",
               "clforge time",
               "reference time",
               "ratio, median of rounds",
               "middle half of the ratios"};
  int index = 0;
  for (auto& [job, cases] : jobs) {
    ++index;
    auto ours = std::find_if(cases.begin(), cases.end(),
                             [](const case_spec* c) { return c->impl == "clforge"; });
    if (ours == cases.end() || cases.size() < 2) continue;
    progress("side by side: " + job + " (job " + std::to_string(index) + " of " +
             std::to_string(jobs.size()) + ", " + std::to_string(cases.size()) +
             " implementations at n = " + format_n(n) + ")");
    std::rotate(cases.begin(), ours, ours + 1);  // clforge first
    std::vector<run_fn> runs;
    try {
      for (const case_spec* c : cases) {
        runs.push_back(c->prepare(n));
        for (int w = 0; w < warm_up_runs(); ++w) runs.back()();
      }
    } catch (const std::exception& e) {
      t.rows.push_back({job, std::string("(skipped: ") + e.what() + ")", "", "", "", "", ""});
      continue;
    }
    std::vector<std::vector<double>> times(cases.size());
    const auto start = std::chrono::steady_clock::now();
    int done = 0;
    for (; done < rounds; ++done) {
      if (done >= min_rounds &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
              budget_seconds)
        break;
      for (std::size_t k = 0; k < cases.size(); ++k) {
        const std::size_t j = (k + static_cast<std::size_t>(done)) % cases.size();
        times[j].push_back(runs[j]());
      }
    }
    for (std::size_t j = 1; j < cases.size(); ++j) {
      std::vector<double> ratio;
      for (int r = 0; r < done; ++r) ratio.push_back(times[j][r] / times[0][r]);
      t.rows.push_back({job, cases[j]->impl, std::to_string(done), time_cell(median_of(times[0])),
                        time_cell(median_of(times[j])), format("%.3f", median_of(ratio)),
                        format("%.3f", quantile_of(ratio, 0.25)) + " … " +
                            format("%.3f", quantile_of(ratio, 0.75))});
    }
  }
  return t;
}

// The --filter text as a regex (a leading '-' excludes): a bad one is a usage error before any
// device work, not an exception in the middle of the run.
std::string check_filter(const std::string& filter) {
  try {
    std::regex(filter.size() > 0 && filter[0] == '-' ? filter.substr(1) : filter);
    return {};
  } catch (const std::regex_error& e) {
    return "--filter '" + filter + "' is not a valid regular expression (" + e.what() + ")";
  }
}

int usage_error(const std::string& message) {
  std::cerr << "clforge-bench: " << message << "\n"
            << "usage: clforge-bench [OPTIONS] [--benchmark_...]   (clforge-bench --help lists "
               "them)\n";
  return 2;
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
  int repetitions = 0;
  CLI::App app(
      "clforge-bench: clforge against hand-written kernels, OpenMP and library peers, with "
      "ratios measured side by side in one run. Options starting with --benchmark_ go to Google "
      "Benchmark.",
      "clforge-bench");
  clforge_cli::add_version(app);
  app.add_option("--device", s.device, "device (default: $CLFORGE_DEVICE), e.g. gpu, pocl, 0:1");
  app.add_flag("--quick", s.quick,
               "a smoke run: sizes 2^16 and 2^20 (within --min-log2/--max-log2), short timings, "
               "few side-by-side rounds");
  app.add_option("--min-log2", s.min_log2, "smallest n = 2^K")
      ->capture_default_str()
      ->check(CLI::Range(0, 40));
  app.add_option("--max-log2", s.max_log2, "largest n = 2^K")
      ->capture_default_str()
      ->check(CLI::Range(0, 40));
  app.add_option("--filter", s.filter,
                 "only cases whose name job/impl/n matches REGEX (a leading '-' excludes)");
  app.add_option("--json", s.json_path,
                 "results, ratios and reports as JSON to FILE (rewritten as they arrive)");
  app.add_option("--markdown", s.markdown_path,
                 "the ratio table and the reports as Markdown to FILE (rewritten as they arrive)");
  bool no_first_call = false, no_reports = false;
  app.add_flag("--no-first-call", no_first_call, "skip the first-call latency measurement");
  app.add_flag("--no-reports", no_reports, "skip the reports (side-by-side rounds, launches)");
  app.add_option("--repetitions", repetitions,
                 "run every case K times, interleaved in random order; the table shows each "
                 "case's median (steadier on shared hosts)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--min-time", min_time, "time each case for at least SECONDS")
      ->capture_default_str()
      ->check(clforge_cli::finite_number(1e-4, 3600));
  // Google Benchmark's own options pass through (and are checked by it below); anything else
  // unknown is a usage error.
  app.allow_extras();
  if (int status = clforge_cli::parse(app, argc, argv); status >= 0) return status;
  for (const std::string& extra : app.remaining()) {
    if (extra.rfind("--benchmark_", 0) != 0) return usage_error("unknown option " + extra);
    passthrough.push_back(extra);
  }
  if (s.min_log2 > s.max_log2)
    return usage_error("--min-log2 " + std::to_string(s.min_log2) + " is above --max-log2 " +
                       std::to_string(s.max_log2) + ": no size to run");
  if (const std::string bad = check_filter(s.filter); !bad.empty()) return usage_error(bad);
  s.first_call = !no_first_call;
  s.reports = !no_reports;
  if (!s.filter.empty()) passthrough.push_back("--benchmark_filter=" + s.filter);
  if (repetitions > 0) {
    passthrough.push_back("--benchmark_repetitions=" + std::to_string(repetitions));
    passthrough.push_back("--benchmark_enable_random_interleaving=true");
  }
  if (s.quick) {
    s.min_log2 = std::max(s.min_log2, 16);
    s.max_log2 = std::min(s.max_log2, quick_max_log2);
    if (s.min_log2 > s.max_log2) s.min_log2 = s.max_log2;
    min_time = std::min(min_time, 0.02);
  }
  // Google Benchmark takes its options now, before any device work: one it does not know is a
  // usage error here (it would otherwise ignore it silently).
  int bench_argc = static_cast<int>(passthrough.size());
  std::vector<char*> bench_argv;
  for (std::string& p : passthrough) bench_argv.push_back(p.data());
  bench_argv.push_back(nullptr);
  benchmark::Initialize(&bench_argc, bench_argv.data());
  if (bench_argc > 1) return usage_error(std::string("unknown option ") + bench_argv[1]);
  try {
    const cf::device_info& info = ctx().info();
    std::printf("clforge-bench on %s (%s, driver %s), %u compute units\n", info.name.c_str(),
                info.platform_name.c_str(), info.driver_version.c_str(), info.compute_units);
    if (const char* wait = std::getenv("OMP_WAIT_POLICY"))
      std::printf("OpenMP references with OMP_WAIT_POLICY=%s\n", wait);
    std::fflush(stdout);
    outputs out;
    out.start(info);
    register_device_copy();
    // Colour only on a terminal: redirected output (bench/results/*/console.txt) stays plain.
    collecting_reporter reporter(isatty(fileno(stdout)) ? benchmark::ConsoleReporter::OO_Defaults
                                                        : benchmark::ConsoleReporter::OO_Tabular,
                                 out);
    std::size_t registered = 0;
    for (const case_spec& c : registry()) {
      if (c.cpu_only && !device_is_cpu()) continue;
      std::vector<std::size_t> sizes = c.sizes.empty() ? default_sizes() : c.sizes;
      for (std::size_t n : sizes) {
        // Skip sizes the device cannot hold (e.g. 2^28 floats on a small PoCL allocation limit).
        if (c.bytes_per_element * n > 0.45 * static_cast<double>(info.global_mem_bytes)) continue;
        // --quick leaves out the cases with sizes of their own above its largest size.
        if (s.quick && n > (std::size_t(1) << quick_max_log2)) continue;
        std::string name = c.job + "/" + c.impl + "/" + format_n(n);
        reporter.names[name] = {&c, n};
        ++registered;
        benchmark::RegisterBenchmark(name.c_str(),
                                     [&c, n](benchmark::State& state) {
                                       run_fn run;
                                       try {
                                         run = c.prepare(n);
                                         for (int w = 0; w < warm_up_runs(); ++w) run();
                                       } catch (const std::exception& e) {
                                         state.SkipWithError(e.what());
                                         return;
                                       }
                                       for (auto _ : state) state.SetIterationTime(run());
                                       state.counters["bytes_per_second"] = benchmark::Counter(
                                           c.bytes_per_element * static_cast<double>(n),
                                           benchmark::Counter::kIsIterationInvariantRate,
                                           benchmark::Counter::kIs1000);
                                     })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond)
            ->MinTime(min_time);
      }
    }
    benchmark::AddCustomContext("clforge_device", info.name + " (" + info.platform_name + ")");
    benchmark::AddCustomContext("clforge_driver", info.driver_version);
    progress("timing " + std::to_string(registered) + " cases (each prints a line)");
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();

    std::string table = ratio_table(out.results(), false);
    std::printf("\nResults on %s: GB/s and ratios to references measured in this run\n%s",
                info.name.c_str(), table.c_str());
    std::fflush(stdout);
    // Reports: the harness's side-by-side rounds first, then those the cases registered.
    std::vector<report_spec> all_reports = {
        {"clforge against each reference, run side by side in rounds", paired_report}};
    all_reports.insert(all_reports.end(), reports().begin(), reports().end());
    if (!s.reports) all_reports.clear();
    for (std::size_t k = 0; k < all_reports.size(); ++k) {
      const report_spec& r = all_reports[k];
      progress("report " + std::to_string(k + 1) + " of " + std::to_string(all_reports.size()) +
               ": " + r.title);
      const report_table t = r.run(s.quick);
      if (t.rows.empty() && t.note.empty()) continue;
      std::printf("\n## %s\n\n%s", r.title.c_str(), markdown_of(t).c_str());
      std::fflush(stdout);
      out.add_report(r.title, t);
    }
    if (s.first_call) {
      const char* title = "First call of a new kernel";
      progress(std::string("report: ") + title);
      const report_table t = run_first_call_report(argv[0], s.device, s.quick ? 3 : 7);
      std::printf("\n## %s\n\n%s", title, markdown_of(t).c_str());
      std::fflush(stdout);
      out.add_report(title, t);
    }
    out.finish();
    progress("done");
  } catch (const std::exception& e) {
    std::cerr << "clforge-bench: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
