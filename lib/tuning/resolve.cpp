// SPDX-License-Identifier: MIT
// The policy lookup (resolve.hpp), the grammar of CLFORGE_TUNE and clforge::tuning::set, and the
// per-context tuning state they fill.
#include "resolve.hpp"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include "candidate.hpp"
#include "clforge/error.hpp"
#include "clforge/tuning.hpp"
#include "grammar.hpp"
#include "registry.hpp"
#include "store.hpp"
#include "tables.hpp"

namespace clforge::detail {

/// What tuning::set and tuning::reset left on a context (an attachment of it).
struct tuning_state {
  std::mutex mutex;
  std::string table;  // "" or "auto": by device
  int stored = -1;    // the results clforge-tune stored: -1 not said (on), 0 off, 1 on
  std::vector<std::pair<std::string, std::string>> settings;  // template, "k=v,..."
  std::atomic<std::uint64_t> generation{0};                   // moves with every set and reset
};

namespace {

std::shared_ptr<tuning_state> tuning_state_of(const context& ctx) {
  // The context keeps the attachment alive as long as the context itself.
  return std::static_pointer_cast<tuning_state>(ctx.attachment("clforge.tuning", [] {
    return std::static_pointer_cast<void>(std::make_shared<tuning_state>());
  }));
}

std::string switches() {
  return template_names_listed() + " (or table=NAME, tuned=on|off, off)";
}

const template_row* find_row(const std::string& name) {
  for (const template_row* row : template_rows())
    if (name == row->name()) return row;
  return nullptr;
}

// The overrides in effect for a context: CLFORGE_TUNE, then tuning::set, in order.
struct override_list {
  std::string table;                                          // "" or "auto": by device
  int stored = -1;                                            // as tuning_state::stored
  std::vector<std::pair<std::string, std::string>> settings;  // template, "k=v,..."
  std::vector<std::string> sources;                           // where each came from
};

// One part of CLFORGE_TUNE or one tuning::set: checked now, so that a wrong override fails
// where it is given.
void add_spec(override_list& out, const std::string& what, const std::string& settings,
              const std::string& where) {
  if (what == "table") {
    const std::string name = trim(settings);
    if (name != "auto" && !name.empty()) table_named(name, where);
    out.table = name;
    return;
  }
  if (what == "tuned") {
    const std::string value = trim(settings);
    if (value != "on" && value != "off")
      throw error(where + ": tuned takes on or off (the results clforge-tune stored), not \"" +
                  shown(value) + "\"");
    out.stored = value == "on" ? 1 : 0;
    return;
  }
  const template_row* row = find_row(what);
  if (!row)
    throw error(where + ": no template \"" + shown(what) + "\" to tune; the templates are " +
                switches());
  row->apply("", settings, where);
  out.settings.emplace_back(what, settings);
  out.sources.push_back(where);
}

// "table=NAME;scan:items=32,group=256;reduce:unroll=8"
void parse_tune_variable(const std::string& text, override_list& out) {
  const std::string where = "CLFORGE_TUNE";
  for (const std::string& part : split(text, ';')) {
    if (part.empty()) continue;
    const std::size_t colon = part.find(':');
    if (colon == std::string::npos) {
      if (part.rfind("table=", 0) == 0) {
        add_spec(out, "table", part.substr(6), where);
        continue;
      }
      if (part.rfind("tuned=", 0) == 0) {
        add_spec(out, "tuned", part.substr(6), where);
        continue;
      }
      if (part == "off") {
        add_spec(out, "tuned", "off", where);
        continue;
      }
      throw error(where + ": \"" + shown(part) +
                  "\": expected table=NAME, tuned=on|off, off, or PRIMITIVE:key=value,... with "
                  "PRIMITIVE one of " +
                  switches());
    }
    add_spec(out, trim(part.substr(0, colon)), part.substr(colon + 1), where);
  }
}

override_list overrides_of(const context& ctx) {
  override_list list;
  if (const char* text = std::getenv("CLFORGE_TUNE")) parse_tune_variable(text, list);
  const std::shared_ptr<tuning_state> state = tuning_state_of(ctx);
  std::lock_guard<std::mutex> lock(state->mutex);
  if (!state->table.empty()) list.table = state->table;
  if (state->stored >= 0) list.stored = state->stored;
  for (const auto& s : state->settings) {
    list.settings.push_back(s);
    list.sources.push_back("clforge::tuning::set");
  }
  return list;
}

const tuning_table& table_of(const context& ctx, const override_list& list) {
  if (list.table.empty() || list.table == "auto") return device_table(ctx.info());
  return table_named(list.table, "tuning table");
}

// The full text of `row`'s policy on `ctx`: every source in order.
std::string resolve(const context& ctx, const template_row& row, bool with_stored) {
  const override_list list = overrides_of(ctx);
  std::string text = table_of(ctx, list).text.at(row.name());
  if (with_stored && list.stored != 0) {
    const std::string stored = stored_policy(ctx, row.name());
    if (!stored.empty()) {
      try {
        text = row.apply(text, stored, "tuned results");
      } catch (const error&) {
        // A stored policy this version cannot read: the table stays (the file's key carries the
        // clforge version, so this takes a hand-edited file).
      }
    }
  }
  for (std::size_t k = 0; k < list.settings.size(); ++k)
    if (list.settings[k].first == row.name())
      text = row.apply(text, list.settings[k].second, list.sources[k]);
  if (const std::string* candidate = candidate_policy(row.name()))
    text = row.apply(text, *candidate, "tuner candidate");
  return text;
}

// `full` as a typed policy, remembered: templates that read their policy per call (sort,
// polygon) mostly see the same few texts.
template <class Policy>
Policy parsed(const std::string& full) {
  static std::mutex mutex;
  static std::map<std::string, Policy> seen;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = seen.find(full);
  if (found != seen.end()) return found->second;
  const Policy p = policy_from_text<Policy>(full, "tuning");
  if (seen.size() >= 64) seen.clear();  // bounded: tuner candidates are many texts
  seen.emplace(full, p);
  return p;
}

}  // namespace

template <class Policy>
Policy tuned(const context& ctx) {
  const template_row& row = row_named(Policy::template_name, "tuning");
  return parsed<Policy>(resolve(ctx, row, true));
}

template <class Policy>
Policy table_policy_of(const std::string& table) {
  return policy_from_text<Policy>(table_named(table, "tuning").text.at(Policy::template_name),
                                  "tuning table " + table);
}

#define CLFORGE_TUNED_POLICY(P)        \
  template P tuned<P>(const context&); \
  template P table_policy_of<P>(const std::string&);
CLFORGE_TUNED_POLICY(elementwise_policy)
CLFORGE_TUNED_POLICY(reduce_policy)
CLFORGE_TUNED_POLICY(scan_policy)
CLFORGE_TUNED_POLICY(polygon_policy)
CLFORGE_TUNED_POLICY(sort_policy)
CLFORGE_TUNED_POLICY(histogram_policy)
CLFORGE_TUNED_POLICY(stencil_policy)
CLFORGE_TUNED_POLICY(par_loop_policy)
#undef CLFORGE_TUNED_POLICY

std::string resolved_policy(const context& ctx, const std::string& template_name,
                            bool with_stored) {
  return resolve(ctx, row_named(template_name, "tuning"), with_stored);
}

std::string normalized_policy(const std::string& template_name, const std::string& settings,
                              const std::string& where) {
  return row_named(template_name, where).apply("", settings, where);
}

std::string table_policy(const std::string& table, const std::string& template_name) {
  for (const tuning_table& t : tuning_tables())
    if (t.name == table) return t.text.at(row_named(template_name, "tuning").name());
  return "";
}

std::vector<std::string> table_names() {
  std::vector<std::string> names;
  for (const tuning_table& t : tuning_tables()) names.push_back(t.name);
  return names;
}

bool stored_results_enabled(const context& ctx) {
  return overrides_of(ctx).stored != 0;
}

tuning_stamp::tuning_stamp(const context& ctx)
    : state_(tuning_state_of(ctx)),
      seen_(state_->generation.load(std::memory_order_acquire) + stored_generation()) {}

bool tuning_stamp::stale() const {
  return state_ &&
         state_->generation.load(std::memory_order_acquire) + stored_generation() != seen_;
}

}  // namespace clforge::detail

namespace clforge::tuning {

void set(const context& ctx, const std::string& template_name, const std::string& settings) {
  if (!ctx) throw error("clforge::tuning::set: the context is empty");
  const std::string what = detail::trim(template_name);
  detail::override_list checked;
  detail::add_spec(checked, what, settings, "clforge::tuning::set");
  const std::shared_ptr<detail::tuning_state> state = detail::tuning_state_of(ctx);
  std::lock_guard<std::mutex> lock(state->mutex);
  if (what == "tuned")
    state->stored = checked.stored;
  else if (what == "table")
    state->table = checked.table;
  else
    state->settings.emplace_back(what, settings);
  state->generation.fetch_add(1, std::memory_order_acq_rel);
}

void reset(const context& ctx) {
  if (!ctx) throw error("clforge::tuning::reset: the context is empty");
  const std::shared_ptr<detail::tuning_state> state = detail::tuning_state_of(ctx);
  std::lock_guard<std::mutex> lock(state->mutex);
  state->table.clear();
  state->settings.clear();
  state->stored = -1;
  state->generation.fetch_add(1, std::memory_order_acq_rel);
}

std::string table(const context& ctx) {
  if (!ctx) throw error("clforge::tuning::table: the context is empty");
  return detail::table_of(ctx, detail::overrides_of(ctx)).name;
}

}  // namespace clforge::tuning
