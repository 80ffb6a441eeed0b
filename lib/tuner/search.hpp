// SPDX-License-Identifier: MIT
// The search engine under clforge::tuner::tune and tune_template: candidates built in parallel,
// checked, timed in rotating order, the fastest kept (strategy in include/clforge/tuner.hpp).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "clforge/tuner.hpp"

namespace clforge::detail {

/// One built candidate.
class tuning_trial {
 public:
  virtual ~tuning_trial() = default;
  /// The first and last command of a run, where the run knows them: their profiling times
  /// time it, as the benchmarks do. Empty: markers around the run time it, which also counts
  /// the host's enqueueing between them.
  struct commands {
    event first, last;
  };
  /// Enqueues one run on `q` (may block, e.g. to read a result back).
  virtual commands run(const queue& q) = 0;
  /// Runs once on `q`, waits, and says what is wrong with the output ("" when right).
  virtual std::string check(const queue& q) = 0;
};

/// Builds the candidate for a point; runs on a build thread, with that thread's own queue for
/// anything it enqueues (it finishes that queue before returning). Throws on a failed build.
using trial_factory =
    std::function<std::unique_ptr<tuning_trial>(const tuner::point&, const queue& own_queue)>;

/// A space: parameters with values, and which points are allowed.
struct search_space {
  std::vector<tuner::parameter> parameters;
  std::function<bool(const tuner::point&)> allowed;  // may be empty
  std::vector<tuner::point> seeds;                   // tried first, when in the space and allowed
};

/// Searches `space` from `baseline` (checked and timed first; it may lie outside the space).
/// The baseline trial's check runs first, so a factory can take the reference output from it.
tuner::result search(const queue& q, const search_space& space, const tuner::point& baseline,
                     const trial_factory& make, const tuner::options& opt);

/// Every (policy, "key=value") the built-in templates' search spaces can try, so that tests can
/// check each is a setting its policy takes.
std::vector<std::pair<std::string, std::string>> builtin_space_settings();

}  // namespace clforge::detail
