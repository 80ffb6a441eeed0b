// SPDX-License-Identifier: MIT
// The tuner's search: enumeration or sampling of the space, parallel builds, checks, timing.
#include "search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "clforge/error.hpp"

namespace clforge::detail {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// One run's time: from its first command's start to its last command's end where the run
// names them, else from a marker before it to a marker after it (profiling events of `q`), or
// on the host clock when the queue does not profile. The markers also count the host's
// enqueueing of the run, which varies by more than the few percent memory-bound shapes differ.
double time_one_run(const queue& q, tuning_trial& trial) {
  const auto t0 = clock_type::now();
  cl::Event before, after;
  q.cl().enqueueMarkerWithWaitList(nullptr, &before);
  const tuning_trial::commands run = trial.run(q);
  q.cl().enqueueMarkerWithWaitList(nullptr, &after);
  after.wait();
  const double host = seconds_since(t0);
  auto span = [](const cl::Event& first, const cl::Event& last) -> double {
    try {
      const cl_ulong start = first.getProfilingInfo<CL_PROFILING_COMMAND_START>();
      const cl_ulong end = last.getProfilingInfo<CL_PROFILING_COMMAND_END>();
      if (end > start) return static_cast<double>(end - start) * 1e-9;
    } catch (const cl::Error&) {
    }
    return 0;
  };
  double seconds = run.first && run.last ? span(run.first.cl(), run.last.cl()) : 0;
  if (seconds <= 0) seconds = span(before, after);
  return seconds > 0 ? seconds : host;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

using index_point = std::vector<std::size_t>;

tuner::point to_point(const search_space& space, const index_point& at) {
  tuner::point p;
  for (std::size_t k = 0; k < at.size(); ++k)
    p[space.parameters[k].name] = space.parameters[k].values[at[k]];
  return p;
}

struct candidate {
  tuner::point where;
  std::unique_ptr<tuning_trial> trial;
  std::string failure;  // build error
  std::vector<double> times;
};

class searcher {
 public:
  searcher(const queue& q, const search_space& space, const trial_factory& make,
           const tuner::options& opt)
      : q_(q), space_(space), make_(make), opt_(opt), started_(clock_type::now()) {
    threads_ = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
    for (unsigned t = 0; t < threads_; ++t) own_queues_.emplace_back(q.ctx());
  }

  tuner::result run(const tuner::point& baseline) {
    result_.baseline = baseline;
    // The baseline first: its check gives the factory its reference output.
    std::vector<candidate> first(1);
    first[0].where = baseline;
    build(first);
    if (!first[0].trial)
      throw error("clforge::tuner: the baseline " + tuner::to_string(baseline) +
                  " failed: " + first[0].failure);
    const std::string wrong = first[0].trial->check(q_);
    if (!wrong.empty())
      throw error("clforge::tuner: the baseline " + tuner::to_string(baseline) +
                  " gives wrong output: " + wrong);
    time(first);
    baseline_ = std::move(first[0].trial);
    result_.baseline_seconds = median(first[0].times);
    result_.best = baseline;
    result_.best_seconds = result_.baseline_seconds;
    visited_.insert(tuner::to_string(baseline));

    // Seeds first (e.g. the policies of the other tuning tables): known-good points that a
    // sample might miss.
    std::vector<index_point> seeds;
    for (const tuner::point& seed : space_.seeds) {
      index_point at;
      if (index_of(seed, at) && allowed(to_point(space_, at)) &&
          !visited_.count(tuner::to_string(to_point(space_, at))) &&
          std::find(seeds.begin(), seeds.end(), at) == seeds.end())
        seeds.push_back(at);
    }
    std::vector<index_point> valid = enumerate();
    for (const index_point& at : seeds)
      valid.erase(std::remove(valid.begin(), valid.end(), at), valid.end());
    result_.space_size = valid.size() + seeds.size();
    total_ = result_.space_size;
    evaluate_all(seeds, opt_.budget_seconds);
    if (valid.size() <= opt_.exhaustive_limit) {
      result_.exhaustive = evaluate_all(valid, opt_.budget_seconds);
    } else {
      std::mt19937_64 random(opt_.seed);
      std::shuffle(valid.begin(), valid.end(), random);
      evaluate_all(valid, 0.6 * opt_.budget_seconds);
      refine();
    }
    finish_side_by_side();
    result_.wall_seconds = seconds_since(started_);
    for (queue& own : own_queues_) own.finish();
    return result_;
  }

 private:
  bool allowed(const tuner::point& p) const { return !space_.allowed || space_.allowed(p); }
  bool out_of_time(double limit) const { return seconds_since(started_) >= limit; }

  // Every allowed point, or a random sample of them when the product is too large to list.
  std::vector<index_point> enumerate() const {
    const std::size_t dims = space_.parameters.size();
    double product = 1;
    for (const auto& p : space_.parameters) product *= static_cast<double>(p.values.size());
    std::vector<index_point> out;
    std::set<index_point> seen;
    auto consider = [&](const index_point& at) {
      if (!seen.insert(at).second) return;
      const tuner::point p = to_point(space_, at);
      if (allowed(p) && !visited_.count(tuner::to_string(p))) out.push_back(at);
    };
    if (product <= 1e6) {
      index_point at(dims, 0);
      for (;;) {
        consider(at);
        std::size_t k = 0;
        while (k < dims && ++at[k] == space_.parameters[k].values.size()) at[k++] = 0;
        if (k == dims) break;
      }
    } else {
      std::mt19937_64 random(opt_.seed ^ 0x9e3779b97f4a7c15ull);
      index_point at(dims);
      for (int draw = 0; draw < 100000; ++draw) {
        for (std::size_t k = 0; k < dims; ++k)
          at[k] = random() % space_.parameters[k].values.size();
        consider(at);
      }
    }
    return out;
  }

  // Evaluates `points` in batches of one per build thread until done or `limit` seconds have
  // passed since the start; true when all were evaluated.
  bool evaluate_all(const std::vector<index_point>& points, double limit) {
    std::size_t next = 0;
    while (next < points.size()) {
      // The first batch runs even past the budget: a search that tried nothing but the
      // baseline (a slow first build on a loaded host) would answer nothing.
      if (out_of_time(limit) && result_.tried > 0) return false;
      std::vector<candidate> batch;
      while (next < points.size() && batch.size() < threads_) {
        const tuner::point p = to_point(space_, points[next++]);
        if (!visited_.insert(tuner::to_string(p)).second) continue;
        batch.emplace_back();
        batch.back().where = p;
      }
      evaluate(batch);
    }
    return true;
  }

  // Local refinement: the neighbours of the best point (one parameter one value up or down),
  // again from each new best, until none is left or the budget is spent.
  void refine() {
    for (;;) {
      const tuner::point from = result_.best;
      std::vector<index_point> around;
      index_point at;
      // the baseline outside the space stays best: nothing near it
      if (!index_of(from, at)) return;
      for (std::size_t k = 0; k < at.size(); ++k)
        for (int step : {-1, 1}) {
          if ((step < 0 && at[k] == 0) ||
              (step > 0 && at[k] + 1 >= space_.parameters[k].values.size()))
            continue;
          index_point near = at;
          near[k] = step < 0 ? at[k] - 1 : at[k] + 1;
          const tuner::point p = to_point(space_, near);
          if (allowed(p) && !visited_.count(tuner::to_string(p))) around.push_back(near);
        }
      if (around.empty()) return;
      total_ += around.size();
      if (!evaluate_all(around, opt_.budget_seconds)) return;
      if (result_.best == from) return;
    }
  }

  // The indices of `p` in the space; false when a value is not among the candidates.
  bool index_of(const tuner::point& p, index_point& at) const {
    at.assign(space_.parameters.size(), 0);
    for (std::size_t k = 0; k < space_.parameters.size(); ++k) {
      const auto& values = space_.parameters[k].values;
      auto found = p.find(space_.parameters[k].name);
      if (found == p.end()) return false;
      auto it = std::find(values.begin(), values.end(), found->second);
      if (it == values.end()) return false;
      at[k] = static_cast<std::size_t>(it - values.begin());
    }
    return true;
  }

  void build(std::vector<candidate>& batch) {
    std::atomic<std::size_t> next{0};
    auto work = [&](unsigned worker) {
      for (std::size_t k = next++; k < batch.size(); k = next++) {
        try {
          batch[k].trial = make_(batch[k].where, own_queues_[worker]);
        } catch (const std::exception& e) {
          batch[k].failure = e.what();
        }
      }
    };
    const unsigned count = static_cast<unsigned>(std::min<std::size_t>(threads_, batch.size()));
    if (count <= 1) {
      work(0);
      return;
    }
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < count; ++t) pool.emplace_back(work, t);
    for (std::thread& t : pool) t.join();
  }

  // Warm-up, then opt_.repetitions timed runs of each, in rotating order.
  void time(std::vector<candidate>& batch) {
    std::vector<candidate*> live;
    for (candidate& c : batch)
      if (c.trial) live.push_back(&c);
    for (candidate* c : live) c->trial->run(q_);
    q_.finish();
    const unsigned reps = std::max(1u, opt_.repetitions);
    for (unsigned r = 0; r < reps; ++r)
      for (std::size_t j = 0; j < live.size(); ++j) {
        candidate* c = live[(j + r) % live.size()];
        c->times.push_back(time_one_run(q_, *c->trial));
      }
  }

  void evaluate(std::vector<candidate>& batch) {
    if (batch.empty()) return;
    build(batch);
    std::vector<std::string> status(batch.size());
    for (std::size_t k = 0; k < batch.size(); ++k) {
      candidate& c = batch[k];
      if (!c.trial) {
        status[k] = "failed: " + c.failure.substr(0, 200);
        ++result_.failed;
        continue;
      }
      std::string wrong;
      try {
        wrong = c.trial->check(q_);
      } catch (const std::exception& e) {
        status[k] = std::string("failed: ") + e.what();
        ++result_.failed;
        c.trial.reset();
        continue;
      }
      if (!wrong.empty()) {
        status[k] = "rejected: " + wrong;
        ++result_.rejected;
        c.trial.reset();
      }
    }
    time(batch);
    for (std::size_t k = 0; k < batch.size(); ++k) {
      candidate& c = batch[k];
      ++result_.tried;
      double seconds = 0;
      if (c.trial) {
        seconds = median(c.times);
        status[k] = "timed";
        if (seconds < result_.best_seconds) {
          result_.best = c.where;
          result_.best_seconds = seconds;
        }
        keep_if_among_fastest(c.where, seconds, std::move(c.trial));
      }
      if (opt_.on_progress) {
        tuner::progress p;
        p.index = result_.tried;
        p.total = std::max(total_, result_.tried);
        p.candidate = c.where;
        p.status = status[k];
        p.seconds = seconds;
        p.best = result_.best;
        p.best_seconds = result_.best_seconds;
        opt_.on_progress(p);
      }
    }
  }

  // Keeps the trials of the kFinalists fastest candidates for the final round.
  void keep_if_among_fastest(const tuner::point& where, double seconds,
                             std::unique_ptr<tuning_trial> trial) {
    finalists_.push_back({where, seconds, std::move(trial)});
    std::sort(finalists_.begin(), finalists_.end(),
              [](const finalist& a, const finalist& b) { return a.seconds < b.seconds; });
    if (finalists_.size() > kFinalists) finalists_.pop_back();
  }

  // The reported times: the baseline and the fastest few timed again side by side, in rotating
  // order, with more repetitions: one lucky median in a noisy batch does not pick the winner.
  // Where the search left budget (a small space, fast runs), the round uses up to a quarter of
  // the budget for more repetitions: memory-bound shapes often differ by a few percent only.
  // If none beats the baseline here, the baseline stays.
  void finish_side_by_side() {
    if (finalists_.empty()) return;  // nothing timed but the baseline
    std::vector<tuning_trial*> trials = {baseline_.get()};
    double round_seconds = result_.baseline_seconds;
    for (const finalist& f : finalists_) {
      trials.push_back(f.trial.get());
      round_seconds += f.seconds;
    }
    for (tuning_trial* t : trials) t->run(q_);
    q_.finish();
    std::vector<std::vector<double>> times(trials.size());
    const double spare =
        std::min(0.25 * opt_.budget_seconds, opt_.budget_seconds - seconds_since(started_));
    const double affordable = round_seconds > 0 ? spare / round_seconds : 0;
    const unsigned least = std::max(7u, 2 * opt_.repetitions);
    const unsigned reps = static_cast<unsigned>(
        std::clamp(affordable, double(least), double(std::max(least, kMostFinalRounds))));
    for (unsigned r = 0; r < reps; ++r)
      for (std::size_t j = 0; j < trials.size(); ++j) {
        const std::size_t k = (j + r) % trials.size();
        times[k].push_back(time_one_run(q_, *trials[k]));
      }
    result_.baseline_seconds = median(times[0]);
    result_.best = result_.baseline;
    result_.best_seconds = result_.baseline_seconds;
    for (std::size_t k = 1; k < trials.size(); ++k) {
      const double seconds = median(times[k]);
      if (seconds < result_.best_seconds) {
        result_.best = finalists_[k - 1].where;
        result_.best_seconds = seconds;
      }
    }
  }

  const queue& q_;
  const search_space& space_;
  const trial_factory& make_;
  const tuner::options& opt_;
  const clock_type::time_point started_;
  unsigned threads_ = 1;
  std::vector<queue> own_queues_;
  std::set<std::string> visited_;
  std::size_t total_ = 0;
  tuner::result result_;
  struct finalist {
    tuner::point where;
    double seconds;
    std::unique_ptr<tuning_trial> trial;
  };
  static constexpr std::size_t kFinalists = 5;
  static constexpr unsigned kMostFinalRounds = 101;
  std::unique_ptr<tuning_trial> baseline_;
  std::vector<finalist> finalists_;
};

}  // namespace

tuner::result search(const queue& q, const search_space& space, const tuner::point& baseline,
                     const trial_factory& make, const tuner::options& opt) {
  // NaN compares false with every elapsed time, so such a budget never ran out.
  if (!(opt.budget_seconds >= 0)) {
    std::ostringstream given;
    given << opt.budget_seconds;
    throw error("clforge::tuner: budget_seconds is " + given.str() +
                "; expected a number of seconds, 0 or more (0: the baseline and one batch of "
                "candidates)");
  }
  for (const tuner::parameter& p : space.parameters)
    if (p.name.empty() || p.values.empty())
      throw error("clforge::tuner: parameter \"" + p.name + "\" has no name or no values");
  searcher s(q, space, make, opt);
  return s.run(baseline);
}

}  // namespace clforge::detail
