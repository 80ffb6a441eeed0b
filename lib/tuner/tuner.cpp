// SPDX-License-Identifier: MIT
// clforge::tuner for users' kernels and the stored-results queries.
#include "clforge/tuner.hpp"

#include "clforge/detail/checks.hpp"
#include "clforge/detail/codegen.hpp"
#include "clforge/error.hpp"
#include "search.hpp"
#include "tuning/store.hpp"

namespace clforge::detail {

namespace {

class kernel_trial : public tuning_trial {
 public:
  kernel_trial(const tuner::kernel_space& space, tuner::point where, kernel k)
      : space_(space), where_(std::move(where)), kernel_(std::move(k)) {}
  commands run(const queue& q) override {
    const event e = space_.launch(q, kernel_, where_);
    return {e, e};
  }
  std::string check(const queue& q) override {
    run(q);
    q.finish();
    return space_.check(q, where_) ? "" : "the check function found the output wrong";
  }

 private:
  const tuner::kernel_space& space_;
  tuner::point where_;
  kernel kernel_;
};

}  // namespace

}  // namespace clforge::detail

namespace clforge::tuner {

std::string to_string(const point& p) {
  std::string out;
  for (const auto& [name, value] : p) out += (out.empty() ? "" : ",") + name + "=" + value;
  return out;
}

std::string define_options(const point& p) {
  std::string out;
  for (const auto& [name, value] : p) out += (out.empty() ? "-D " : " -D ") + name + "=" + value;
  return out;
}

result tune(const queue& q, const kernel_space& space, const options& opt) {
  if (!q.ctx()) throw error("clforge::tuner::tune: the queue is empty");
  if (space.parameters.empty()) throw error("clforge::tuner::tune: the space has no parameters");
  if (space.kernel_name.empty()) throw error("clforge::tuner::tune: no kernel name");
  detail::require_kernel_name_length("clforge::tuner::tune", space.kernel_name,
                                     max_kernel_name_length);
  if (!space.launch || !space.check)
    throw error("clforge::tuner::tune: the space needs a launch and a check function");
  for (const parameter& p : space.parameters) {
    if (p.values.empty())
      throw error("clforge::tuner::tune: parameter \"" + p.name + "\" has no values");
    if (!detail::is_identifier(p.name))
      throw error("clforge::tuner::tune: parameter \"" + p.name +
                  "\" is not a macro name (letters, digits, _; not starting with a digit)");
    for (const std::string& v : p.values)
      if (v.empty() || v.find_first_of(" \t\n\"'\\") != std::string::npos)
        throw error("clforge::tuner::tune: parameter " + p.name + " value \"" + v +
                    "\" is empty or holds spaces, quotes or backslashes");
  }
  const context ctx = q.ctx();
  detail::search_space s;
  s.parameters = space.parameters;
  if (space.allowed) {
    const device_info info = ctx.info();
    s.allowed = [&space, info](const point& p) { return space.allowed(p, info); };
  }
  point baseline;
  for (const parameter& p : space.parameters) baseline[p.name] = p.values.front();
  detail::trial_factory make = [&](const point& p, const queue&) {
    std::string build = define_options(p);
    if (!space.build_options.empty()) build += " " + space.build_options;
    kernel k = ctx.build(space.source, build).kernel(space.kernel_name);
    return std::unique_ptr<detail::tuning_trial>(new detail::kernel_trial(space, p, k));
  };
  return detail::search(q, s, baseline, make, opt);
}

std::vector<stored_result> stored(const context& ctx) {
  if (!ctx) throw error("clforge::tuner::stored: the context is empty");
  return stored(ctx.info());
}

std::vector<stored_result> stored(const device_info& info) {
  std::vector<stored_result> out;
  for (const detail::tuned_entry& e : detail::load_tuned(info))
    out.push_back({e.template_name, e.problem, e.settings, e.default_seconds, e.tuned_seconds});
  return out;
}

std::string results_file(const context& ctx) {
  if (!ctx) throw error("clforge::tuner::results_file: the context is empty");
  return detail::tuned_results_path(ctx.info());
}

bool reset_stored(const context& ctx) {
  if (!ctx) throw error("clforge::tuner::reset_stored: the context is empty");
  return detail::remove_tuned(ctx.info());
}

}  // namespace clforge::tuner
