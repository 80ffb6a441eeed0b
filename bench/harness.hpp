// SPDX-License-Identifier: MIT
// clforge-bench harness: each bench/bench_*.cpp registers cases; the harness runs them under
// Google Benchmark, adds the device-copy reference for every size, and prints each clforge
// result as GB/s and as ratios to the references measured in the same run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <clforge/clforge.hpp>

namespace clforge_bench {
namespace cf = clforge;

/// The device chosen by --device or CLFORGE_DEVICE, created once for the whole run.
cf::context& ctx();
cf::queue& queue();
bool device_is_cpu();

/// One timed run of a case. Returns the seconds to report: device time from profiling events
/// for device work (cf::event::elapsed_ns / elapsed_ns_until), host wall time (steady clock)
/// for host work such as OpenMP loops or "result back on the host" cases.
using run_fn = std::function<double()>;

struct case_spec {
  std::string job;           // what is computed: "saxpy", "sum", "scan_int32", "mask_1024_v24"
  std::string impl;          // who computes it: "clforge", "handwritten", "openmp", "boost"
  double bytes_per_element;  // bytes moved per element, for GB/s (saxpy 12, sum 4, scan 8)
  /// Allocates random inputs for n elements and returns the runner. Called once per size,
  /// outside the timed region; the harness does the warm-up runs.
  std::function<run_fn(std::size_t n)> prepare;
  /// Sizes to run. Empty: the harness's sweep (2^16 .. 2^28, narrowed by --min-log2,
  /// --max-log2 or --quick).
  std::vector<std::size_t> sizes = {};
  /// Only on CPU devices (e.g. the OpenMP reference, which competes for the same cores).
  bool cpu_only = false;
};

/// Registers a case; call from a static registrar (CLFORGE_BENCH_REGISTER).
void add_case(case_spec spec);

/// A report's result: a table with a note above it. Printed and written to the --markdown
/// summary as Markdown, and to the --json file with one object per row (cells that are numbers
/// become JSON numbers).
struct report_table {
  std::string note;  // Markdown text above the table (may be empty)
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // cells as shown; rows.size() == 0: nothing to say
};

/// A measurement that does not fit one Google Benchmark case per (job, impl, n), e.g. one that
/// must interleave two implementations. Runs after the cases, each report in turn.
struct report_spec {
  std::string title;
  std::function<report_table(bool quick)> run;
};
void add_report(report_spec spec);

/// A progress line on stderr for long phases ("clforge-bench [12 s]: ..."), so a run is never
/// silent for minutes.
void progress(const std::string& what);

/// "%.3f"-style formatting into a std::string, for table cells.
std::string format(const char* fmt, double value);

/// The harness's sweep of sizes for cases that give none.
std::vector<std::size_t> default_sizes();

/// Deterministic random inputs (never all zeros).
std::vector<float> random_floats(std::size_t n, std::uint32_t seed, float lo = -1.0f,
                                 float hi = 1.0f);
std::vector<std::int32_t> random_ints(std::size_t n, std::uint32_t seed, std::int32_t lo = -100,
                                      std::int32_t hi = 100);

/// The kernel of clforge::histogram(q, x, bins, lo, hi) alone (numpy's bins, the kernel built for
/// q's context), adding x's counts into `counts`: its event. Where the call's time goes without
/// the counts array it allocates, fills and returns.
cf::event histogram_kernel_only(const cf::queue& q, cf::array<cl_uint>& counts,
                                const cf::array<float>& x, std::size_t bins, float lo, float hi);

/// Median and q-quantile (nearest rank) of a sample; empty samples are the caller's bug.
double median_of(std::vector<double> v);
double quantile_of(std::vector<double> v, double q);

/// Seconds between the start of `first` and the end of `last` (device profiling clock).
inline double device_seconds(const cf::event& first, const cf::event& last) {
  return static_cast<double>(first.elapsed_ns_until(last)) * 1e-9;
}
inline double device_seconds(const cf::event& only) {
  return device_seconds(only, only);
}

}  // namespace clforge_bench

#define CLFORGE_BENCH_CONCAT2(a, b) a##b
#define CLFORGE_BENCH_CONCAT(a, b) CLFORGE_BENCH_CONCAT2(a, b)
/// CLFORGE_BENCH_REGISTER(fn): runs `void fn()` (which calls add_case) before main.
#define CLFORGE_BENCH_REGISTER(fn) \
  static const bool CLFORGE_BENCH_CONCAT(clforge_bench_registered_, __LINE__) = (fn(), true)
