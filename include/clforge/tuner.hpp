// SPDX-License-Identifier: MIT
// clforge::tuner: run-time autotuning. A search space is a set of parameters, each with its
// candidate values; the tuner builds candidates in parallel (one thread per core: distinct
// programs build independently), rejects those whose output is wrong, times the others with
// events (several repetitions, median, in rotating order) and returns the fastest.
//
// Small spaces (at most options::exhaustive_limit valid points) are searched exhaustively;
// larger ones by random sampling for 60% of the budget, then by local refinement: the
// neighbours of the best point (one parameter one value up or down) until none is faster or
// the budget is spent.
//
// Every kernel template of the tuning registry (lib/tuning/policies.hpp: its keys and search
// space) is tuned on its workload (saxpy: elementwise, sum: reduce, scan, polygon, sort,
// histogram, stencil: a 7-point Jacobi sweep); tune_template stores the winner in the cache
// directory, and the templates on that device use it from then on (CLFORGE_TUNE=off or tuned=off
// ignores it; see docs/tuning.md). Users tune their own kernels with tune().
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "clforge/event.hpp"
#include "clforge/export.hpp"
#include "clforge/program.hpp"
#include "clforge/queue.hpp"

namespace clforge::tuner {

/// One point of a search space: parameter name -> value.
using point = std::map<std::string, std::string>;

/// A parameter and its candidate values; the first value is the baseline.
struct parameter {
  /// The name (for kernel spaces: the \#define it sets).
  std::string name;
  /// The values to try, as text.
  std::vector<std::string> values;
};

/// What the tuner reports after each candidate (on the calling thread).
struct progress {
  /// 1-based number of this candidate.
  std::size_t index = 0;
  /// How many candidates the search plans (an estimate when sampling under a budget).
  std::size_t total = 0;
  /// The candidate.
  point candidate;
  /// "timed", "rejected: <why>" or "failed: <why>".
  std::string status;
  /// Its median time in seconds (0 unless timed).
  double seconds = 0;
  /// The fastest so far.
  point best;
  /// Its median time in seconds.
  double best_seconds = 0;
};

/// How to search.
struct options {
  /// Wall-clock budget for the whole search, in seconds (building, checking and timing). The
  /// baseline and one batch of candidates (`threads` of them) run even where they take longer.
  /// 0 or more: NaN or a negative budget is a clforge::error.
  double budget_seconds = 30;
  /// Build threads; 0: one per core (std::thread::hardware_concurrency).
  unsigned threads = 0;
  /// Timed runs per candidate (the median counts), after one untimed warm-up run.
  unsigned repetitions = 5;
  /// Spaces with at most this many valid points are searched exhaustively.
  std::size_t exhaustive_limit = 32;
  /// Seed of the random sampling (the same seed, the same order).
  std::uint64_t seed = 1;
  /// Called after each candidate; may be empty.
  std::function<void(const progress&)> on_progress;
};

/// The outcome of a search.
struct result {
  /// The baseline (default) point.
  point baseline;
  /// Its median time in seconds.
  double baseline_seconds = 0;
  /// The fastest point that gave the right output.
  point best;
  /// Its median time in seconds.
  double best_seconds = 0;
  /// Valid points in the space.
  std::size_t space_size = 0;
  /// Candidates tried.
  std::size_t tried = 0;
  /// Candidates rejected (wrong output).
  std::size_t rejected = 0;
  /// Candidates that failed (build or launch error).
  std::size_t failed = 0;
  /// True when every valid point was tried.
  bool exhaustive = false;
  /// Wall time of the search in seconds.
  double wall_seconds = 0;
  /// baseline_seconds / best_seconds.
  double speedup() const { return best_seconds > 0 ? baseline_seconds / best_seconds : 0; }
};

/// A user's kernel to tune: OpenCL C whose parameters are \#define names.
struct kernel_space {
  /// Program source; each parameter is passed as -D NAME=VALUE.
  std::string source;
  /// The kernel to launch.
  std::string kernel_name;
  /// Further build options (e.g. "-cl-fast-relaxed-math").
  std::string build_options;
  /// The parameters; the first value of each forms the baseline point.
  std::vector<parameter> parameters;
  /// Which points are allowed on a device (e.g. a work-group limit, local memory); may be empty
  /// (every point is).
  std::function<bool(const point&, const device_info&)> allowed;
  /// Enqueues one run of `k` built for `p` on `q` and returns its last event (or an empty
  /// event). Called from the tuner's thread only.
  std::function<event(const queue& q, const kernel& k, const point& p)> launch;
  /// After one launch has finished: true when the output is right. Required.
  std::function<bool(const queue& q, const point& p)> check;
};

/// Searches `space` on `q`'s device. Throws clforge::error when the space is empty, a
/// parameter has no values, a function is missing, or the baseline point fails or is rejected.
CLFORGE_API result tune(const queue& q, const kernel_space& space, const options& opt = {});

/// "NAME=VALUE,..." in name order.
CLFORGE_API std::string to_string(const point& p);
/// "-D NAME=VALUE ..." for a build.
CLFORGE_API std::string define_options(const point& p);

/// The workloads of the registry's templates: saxpy, sum, scan, polygon, sort, histogram,
/// stencil.
CLFORGE_API std::vector<std::string> template_names();

/// The outcome of tuning one template.
struct template_result {
  /// The workload: saxpy, sum, scan, polygon, sort, histogram or stencil.
  std::string name;
  /// The template whose policy it tunes (elementwise, reduce, scan, polygon, sort, histogram,
  /// stencil).
  std::string primitive;
  /// The problem class, "float32/2^22": element type / size bucket.
  std::string problem;
  /// The search; points are policy keys.
  result search;
  /// The whole tuned policy ("key=value,..."), as stored.
  std::string policy;
  /// True when it was written to the results file.
  bool stored = false;
};

/// Tunes template `name` (a workload, "saxpy", or a template, "elementwise") on `q`'s device
/// for problems of about `size` elements (polygon: pixels), starting from the policy in effect
/// without stored results (the table, CLFORGE_TUNE, tuning::set), and stores the winner when
/// `store` is true. Candidates whose output is wrong are rejected: scan, sort and histogram
/// against the host's result, the polygon exactly against the baseline's, saxpy within a
/// relative 1e-5 of it, float sums within 1e-4 of the sum of magnitudes (the order of additions
/// differs between shapes).
CLFORGE_API template_result tune_template(const queue& q, const std::string& name, std::size_t size,
                                          const options& opt = {}, bool store = true);

/// One stored result of a device.
struct stored_result {
  /// The template: elementwise, reduce, scan, polygon, sort, histogram or stencil.
  std::string primitive;
  /// Problem class.
  std::string problem;
  /// The whole policy.
  std::string policy;
  /// Median time the tuner measured for the baseline.
  double default_seconds = 0;
  /// Median time the tuner measured for the policy.
  double tuned_seconds = 0;
};

/// The results stored for `ctx`'s device (ignored files give none).
CLFORGE_API std::vector<stored_result> stored(const context& ctx);
/// The same for a device found with list_devices (no context needed).
CLFORGE_API std::vector<stored_result> stored(const device_info& info);
/// The results file of `ctx`'s device ("" when the cache directory is off).
CLFORGE_API std::string results_file(const context& ctx);
/// Deletes the stored results of `ctx`'s device; false when there were none.
CLFORGE_API bool reset_stored(const context& ctx);

}  // namespace clforge::tuner
