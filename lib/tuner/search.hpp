// SPDX-License-Identifier: MIT
// The search engine under clforge::tuner::tune and tune_template: candidates built in parallel,
// checked, timed in rotating order, the fastest kept (strategy in include/clforge/tuner.hpp).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "clforge/tuner.hpp"
#include "tuning/workload.hpp"

namespace clforge::detail {

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

}  // namespace clforge::detail
