// SPDX-License-Identifier: MIT
// clforge::tuner::tune_template: searches a registry row's space (lib/tuning/policies.hpp) on
// the template's own workload (its policy's workload(), defined in the template's .cpp),
// seeded with every table's policy, and stores the winner.
#include <memory>

#include "clforge/error.hpp"
#include "clforge/tuner.hpp"
#include "search.hpp"
#include "tuning/candidate.hpp"
#include "tuning/grammar.hpp"
#include "tuning/registry.hpp"
#include "tuning/resolve.hpp"
#include "tuning/store.hpp"
#include "tuning/tables.hpp"
#include "tuning/workload.hpp"

namespace clforge::detail {

namespace {

std::string workload_names() {
  std::string names;
  for (const template_row* row : template_rows())
    names += std::string(names.empty() ? "" : ", ") + row->workload();
  return names;
}

// The row `name` tunes: by its workload ("saxpy") or the template ("elementwise").
const template_row& row_to_tune(const std::string& name) {
  for (const template_row* row : template_rows())
    if (name == row->workload() || name == row->name()) return *row;
  throw error("clforge::tuner: no template \"" + shown(name) + "\" to tune; the templates are " +
              workload_names() + " (or their policies: " + template_names_listed() + ")");
}

using workload_factory = std::unique_ptr<tuning_workload> (*)(const queue& q, std::size_t size);

// The tuner is above the templates: it calls their workloads, defined in their own .cpp.
template <class... Policy>
workload_factory factory_of(const template_row& row, policy_list<Policy...>) {
  workload_factory found = nullptr;
  ((std::string(Policy::template_name) == row.name() ? void(found = &Policy::workload) : void()),
   ...);
  return found;
}

workload_factory factory_of(const template_row& row) {
  if (workload_factory f = factory_of(row, tuned_policies{})) return f;
  throw error(std::string("clforge::tuner: the template ") + row.name() +
              " has no policy in tuned_policies (lib/tuning/policies.hpp)");
}

setting_point point_of(const std::string& settings) {
  setting_point p;
  for (const setting& s : split_settings(settings)) p[s.key] = s.value;
  return p;
}

// The candidate's whole policy: the baseline's, with the point's keys replaced.
std::string candidate_settings(const std::string& baseline, const tuner::point& p) {
  std::string out = baseline;
  for (const auto& [key, value] : p) out += "," + key + "=" + value;
  return out;
}

}  // namespace

}  // namespace clforge::detail

namespace clforge::tuner {

std::vector<std::string> template_names() {
  std::vector<std::string> names;
  for (const detail::template_row* row : detail::template_rows()) names.push_back(row->workload());
  return names;
}

template_result tune_template(const queue& q, const std::string& name, std::size_t size,
                              const options& opt, bool store) {
  const detail::template_row& row = detail::row_to_tune(name);
  if (!q.ctx()) throw error("clforge::tuner::tune_template: the queue is empty");
  if (size == 0) throw error("clforge::tuner::tune_template: the problem size is 0");
  const context ctx = q.ctx();
  const device_info& info = ctx.info();
  const std::shared_ptr<const detail::tuning_workload> work = detail::factory_of(row)(q, size);
  template_result out;
  out.name = row.workload();
  out.primitive = row.name();
  out.problem = work->problem;

  // The baseline: the policy in effect without stored results, on the searched keys.
  const std::string baseline_settings = detail::resolved_policy(ctx, row.name(), false);
  const detail::setting_point in_effect = detail::point_of(baseline_settings);
  point baseline;
  detail::search_space s;
  for (const detail::search_parameter& p : row.space()) {
    s.parameters.push_back({p.key, p.values});
    baseline[p.key] = in_effect.at(p.key);
  }
  const std::size_t element_size = work->element_size;
  s.allowed = [&row, info, element_size](const point& p) {
    return row.allowed(p, info, element_size);
  };
  // Seeds: every tuning table's policy, projected onto the searched keys; the device's own
  // table first (where a run is slow, the budget may allow only the first few).
  std::vector<std::string> tables = {detail::device_table(info).name};
  for (const std::string& table : detail::table_names())
    if (table != tables.front()) tables.push_back(table);
  for (const std::string& table : tables) {
    const std::string text = detail::table_policy(table, row.name());
    const detail::setting_point all = detail::point_of(text);
    point seed;
    for (const detail::search_parameter& p : row.space()) seed[p.key] = all.at(p.key);
    work->adjust_seed(seed, text);
    // A key the table sets that means nothing for its choice may be pinned in the space:
    // back to the first value, last keys first, until the constraint allows the seed.
    for (std::size_t k = row.space().size(); k-- > 0 && !s.allowed(seed);)
      seed[row.space()[k].key] = row.space()[k].values.front();
    s.seeds.push_back(seed);
  }
  const detail::trial_factory make = [work, baseline_settings](const point& p, const queue& own) {
    return work->make(detail::candidate_settings(baseline_settings, p), own);
  };
  out.search = detail::search(q, s, baseline, make, opt);
  q.finish();
  {
    // The policy exactly as the measured template got it (the table in effect under it).
    detail::candidate_scope scope(row.name(),
                                  detail::candidate_settings(baseline_settings, out.search.best));
    out.policy = detail::resolved_policy(ctx, row.name(), false);
  }
  if (store) {
    detail::store_tuned(info, {{row.name(), out.problem, out.policy, out.search.baseline_seconds,
                                out.search.best_seconds}});
    out.stored = true;
  }
  return out;
}

}  // namespace clforge::tuner
