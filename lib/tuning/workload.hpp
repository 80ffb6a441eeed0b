// SPDX-License-Identifier: MIT
// What a template gives the tuner to measure its policies on: a workload (inputs made once, a
// problem class) that builds one trial per candidate policy. Templates implement it in their own
// .cpp as their policy's workload() (declared in policies.hpp); the tuner (lib/tuner) runs them.
#pragma once

#include <cstddef>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "clforge/event.hpp"
#include "clforge/queue.hpp"
#include "registry.hpp"

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
  /// Runs once on `q`, waits, and says what is wrong with the output ("" when right). The
  /// first trial checked is the baseline's: its output is the reference of the others.
  virtual std::string check(const queue& q) = 0;
};

/// A template's problem for the tuner.
class tuning_workload {
 public:
  tuning_workload(std::string problem_class, std::size_t element_bytes)
      : problem(std::move(problem_class)), element_size(element_bytes) {}
  virtual ~tuning_workload() = default;
  /// The problem class, "float32/2^22": element type / size bucket (store.hpp: size_bucket).
  const std::string problem;
  /// Bytes of one element (what the row's constraint checks vector loads and tiles against).
  const std::size_t element_size;
  /// Builds the trial of the whole policy `settings` ("key=value,...") on a build thread;
  /// anything it enqueues goes to `own` (its thread's queue), finished before it returns.
  virtual std::unique_ptr<tuning_trial> make(const std::string& settings,
                                             const queue& own) const = 0;
  /// A table's policy (`table_text`, every key) as a seed of this problem: `seed` holds it
  /// projected onto the searched keys; the polygon's, for one, picks the pixel count its width
  /// takes.
  virtual void adjust_seed(setting_point& seed, const std::string& table_text) const {
    (void)seed, (void)table_text;
  }
};

/// `n` floats uniform in [0, 1), the same for the same `seed`: the workloads' inputs.
inline std::vector<float> tuning_floats(std::size_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(random);
  return v;
}

/// "" when `out` equals `expected` element by element; else the first difference, "what[i] = x,
/// `whose` gave y".
template <class T>
std::string first_difference(const std::vector<T>& out, const std::vector<T>& expected,
                             const char* what, const char* whose) {
  if (out.size() != expected.size())
    return std::string(what) + " has " + std::to_string(out.size()) + " elements, " + whose +
           " gave " + std::to_string(expected.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i] != expected[i])
      return std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(out[i]) + ", " +
             whose + " gave " + std::to_string(expected[i]);
  return "";
}

}  // namespace clforge::detail
