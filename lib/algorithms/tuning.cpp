// SPDX-License-Identifier: MIT
// Overrides of the tuning tables: the grammar of CLFORGE_TUNE and clforge::tuning::set, one
// list of keys per template with their bounds.
#include "tuning.hpp"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "../context_state.hpp"
#include "../tuner/policy_hooks.hpp"
#include "clforge/error.hpp"
#include "clforge/tuning.hpp"
#include "template_engine.hpp"

namespace clforge::detail {

namespace {

constexpr const char* kPrimitives =
    "elementwise, reduce, scan, polygon, sort (or table=NAME, tuned=on|off, off)";

// One key of a template's policy: its name, what it takes, and how it sets the policy.
template <class Policy>
struct key {
  const char* name;
  const char* takes;                                     // "1 to 64", "gpu|cpu", ...
  std::function<bool(Policy&, const std::string&)> set;  // false: value out of bounds
  std::function<std::string(const Policy&)> get;         // the value as set would take it
};

bool to_number(const std::string& text, std::size_t lo, std::size_t hi, std::size_t& out) {
  if (text.empty() || text.size() > 12) return false;
  std::size_t v = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  if (v < lo || v > hi) return false;
  out = v;
  return true;
}

template <class Policy, class Field>
key<Policy> number(const char* name, const char* takes, Field Policy::*field, std::size_t lo,
                   std::size_t hi, bool power_of_two = false) {
  return {name, takes,
          [=](Policy& p, const std::string& v) {
            std::size_t n = 0;
            if (!to_number(v, lo, hi, n)) return false;
            if (power_of_two && (n & (n - 1)) != 0) return false;
            p.*field = static_cast<Field>(n);
            return true;
          },
          [=](const Policy& p) { return std::to_string(static_cast<long long>(p.*field)); }};
}

template <class Policy>
key<Policy> flag(const char* name, bool Policy::*field) {
  return {name, "0 or 1",
          [=](Policy& p, const std::string& v) {
            if (v != "0" && v != "1") return false;
            p.*field = v == "1";
            return true;
          },
          [=](const Policy& p) { return std::string(p.*field ? "1" : "0"); }};
}

template <class Policy, class Enum, std::size_t N>
key<Policy> choice(const char* name, const char* takes, Enum Policy::*field,
                   const std::pair<const char*, Enum> (&names)[N]) {
  std::vector<std::pair<std::string, Enum>> list(std::begin(names), std::end(names));
  return {name, takes,
          [=](Policy& p, const std::string& v) {
            for (const auto& n : list)
              if (n.first == v) {
                p.*field = n.second;
                return true;
              }
            return false;
          },
          [=](const Policy& p) {
            for (const auto& n : list)
              if (n.second == p.*field) return n.first;
            return std::string();
          }};
}

constexpr std::pair<const char*, work_kind> kKinds[] = {{"gpu", work_kind::gpu},
                                                        {"cpu", work_kind::cpu}};

const std::vector<key<elementwise_policy>>& elementwise_keys() {
  static const std::vector<key<elementwise_policy>> keys = {
      choice("kind", "gpu|cpu", &elementwise_policy::kind, kKinds),
      number("group", "1 to 4096", &elementwise_policy::group, 1, kMaxGroupSize),
      number("groups_per_cu", "0 to 1024", &elementwise_policy::groups_per_cu, 0, kMaxGroupsPerCu),
      number("block", "0 or a power of two up to 16", &elementwise_policy::block, 0, 16, true),
      number("interleave", "0 or a power of two up to 16", &elementwise_policy::interleave, 0, 16,
             true),
      number("vector_width", "0 or a power of two up to 16", &elementwise_policy::vector_width, 0,
             16, true),
  };
  return keys;
}

const std::vector<key<reduce_policy>>& reduce_keys() {
  static const std::vector<key<reduce_policy>> keys = {
      choice("kind", "gpu|cpu", &reduce_policy::kind, kKinds),
      number("group", "1 to 4096", &reduce_policy::group, 1, kMaxGroupSize),
      number("unroll", "1 to 64", &reduce_policy::unroll, 1, kMaxUnroll),
      number("groups_per_cu", "1 to 1024", &reduce_policy::groups_per_cu, 1, kMaxGroupsPerCu),
      number("vector_bytes", "0 or a power of two up to 128", &reduce_policy::vector_bytes, 0, 128,
             true),
      flag("grid", &reduce_policy::grid),
      flag("single_launch", &reduce_policy::single_launch),
  };
  return keys;
}

constexpr std::pair<const char*, scan_algorithm> kAlgorithms[] = {
    {"lookback", scan_algorithm::lookback}, {"reduce_then_scan", scan_algorithm::reduce_then_scan}};
constexpr std::pair<const char*, scan_layout> kLayouts[] = {
    {"striped", scan_layout::striped}, {"striped_vector", scan_layout::striped_vector}};

const std::vector<key<scan_policy>>& scan_keys() {
  static const std::vector<key<scan_policy>> keys = {
      choice("algorithm", "lookback|reduce_then_scan", &scan_policy::algorithm, kAlgorithms),
      number("items", "0 (by type) to 64", &scan_policy::items, 0, 64),
      number("item_bytes", "1 to 1024", &scan_policy::item_bytes, 1, 1024),
      number("max_items", "1 to 64", &scan_policy::max_items, 1, 64),
      number("group", "1 to 4096", &scan_policy::group, 1, kMaxGroupSize),
      number("window", "1 to 1024", &scan_policy::window, 1, 1024),
      choice("layout", "striped|striped_vector", &scan_policy::layout, kLayouts),
      flag("registers", &scan_policy::in_registers),
      number("groups_per_cu", "0 to 1024", &scan_policy::groups_per_cu, 0, kMaxGroupsPerCu),
      number("granularity", "1 to 16777216", &scan_policy::granularity, 1, 1u << 24),
      number("chunks_per_cu", "0 to 16777216", &scan_policy::chunks_per_cu, 0, 1u << 24),
      number("max_chunks", "1 to 16777216", &scan_policy::max_chunks, 1, 1u << 24),
      number("lanes", "1 to 16", &scan_policy::lanes, 1, 16),
      number("lanes_floating", "1 to 16", &scan_policy::lanes_floating, 1, 16),
      number("rts_group", "1 to 4096", &scan_policy::rts_group, 1, kMaxGroupSize),
  };
  return keys;
}

constexpr std::pair<const char*, polygon_kernel> kPolygonKernels[] = {
    {"pixel", polygon_kernel::pixel},
    {"span", polygon_kernel::span},
    {"fill", polygon_kernel::fill},
    {"row", polygon_kernel::row}};

const std::vector<key<polygon_policy>>& polygon_keys() {
  static const std::vector<key<polygon_policy>> keys = {
      choice("kernel", "pixel|span|fill|row", &polygon_policy::kind, kPolygonKernels),
      number("pixels", "1 to 16384", &polygon_policy::pixels, 1, 16384),
      number("pixels_wide", "1 to 16384", &polygon_policy::pixels_wide, 1, 16384),
      number("wide_from", "0 to 16777216", &polygon_policy::wide_from, 0, 1u << 24),
      number("group", "1 to 4096", &polygon_policy::group, 1, kMaxGroupSize),
      flag("serial", &polygon_policy::serial),
  };
  return keys;
}

// A size that takes one of a few values (a tuner's search space for the field).
template <class Policy>
key<Policy> one_of(const char* name, const char* takes, std::size_t Policy::*field,
                   std::vector<std::size_t> values) {
  return {name, takes, [=](Policy& p, const std::string& v) {
            std::size_t n = 0;
            if (!to_number(v, 0, std::size_t(1) << 32, n)) return false;
            for (std::size_t allowed : values)
              if (n == allowed) {
                p.*field = n;
                return true;
              }
            return false;
          }};
}

constexpr std::pair<const char*, sort_path> kSortPaths[] = {{"onesweep", sort_path::onesweep},
                                                            {"chunked", sort_path::chunked}};
constexpr std::pair<const char*, sort_ranking> kSortRankings[] = {
    {"matrix", sort_ranking::matrix},
    {"lanes", sort_ranking::lanes},
    {"nv_match", sort_ranking::nv_match},
    {"nv_warp", sort_ranking::nv_warp}};

const std::vector<key<sort_policy>>& sort_keys() {
  static const std::vector<key<sort_policy>> keys = {
      choice("path", "onesweep|chunked", &sort_policy::path, kSortPaths),
      one_of("group", "32|64|128|256", &sort_policy::group, {32, 64, 128, 256}),
      one_of("items", "4|8|12|16|20|24|32|40|48|64", &sort_policy::items,
             {4, 8, 12, 16, 20, 24, 32, 40, 48, 64}),
      one_of("portion", "4096|16384|32768", &sort_policy::portion, {4096, 16384, 32768}),
      one_of("hist_group", "64|256|1024", &sort_policy::hist_group, {64, 256, 1024}),
      one_of("hist_groups_per_cu", "1|4|16", &sort_policy::hist_groups_per_cu, {1, 4, 16}),
      one_of("onesweep_value_bytes", "0|1|2|4|8|16", &sort_policy::onesweep_value_bytes,
             {0, 1, 2, 4, 8, 16}),
      one_of("chunks_per_cu", "1|4|8|16", &sort_policy::chunks_per_cu, {1, 4, 8, 16}),
      one_of("min_chunk", "4096|16384|65536", &sort_policy::min_chunk, {4096, 16384, 65536}),
      one_of("chunk_digit_bits", "4|6|8|10|11|12", &sort_policy::chunk_digit_bits,
             {4, 6, 8, 10, 11, 12}),
      choice("ranking", "matrix|lanes|nv_match|nv_warp", &sort_policy::ranking, kSortRankings),
  };
  return keys;
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string& text, char at) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t pos = 0; pos <= text.size(); ++pos)
    if (pos == text.size() || text[pos] == at) {
      parts.push_back(trim(text.substr(start, pos - start)));
      start = pos + 1;
    }
  return parts;
}

template <class Policy>
std::string valid_keys(const std::vector<key<Policy>>& keys) {
  std::string out;
  for (const auto& k : keys)
    out += std::string(out.empty() ? "" : ", ") + k.name + " (" + k.takes + ")";
  return out;
}

// Applies "key=value,key=value" to `p`; `where` names the source in errors.
template <class Policy>
void apply(Policy& p, const std::vector<key<Policy>>& keys, const std::string& primitive,
           const std::string& settings, const std::string& where) {
  for (const std::string& field : split(settings, ',')) {
    if (field.empty()) continue;
    const std::size_t eq = field.find('=');
    const std::string name = trim(field.substr(0, eq));
    const key<Policy>* found = nullptr;
    for (const auto& k : keys)
      if (name == k.name) found = &k;
    const std::string shown = field.size() > 80 ? field.substr(0, 80) + "..." : field;
    if (eq == std::string::npos || !found)
      throw error(where + ": \"" + shown + "\" is not a " + primitive + " setting; the keys are " +
                  valid_keys(keys));
    if (!found->set(p, trim(field.substr(eq + 1))))
      throw error(where + ": " + primitive + " " + found->name + " takes " + found->takes +
                  ", not \"" + shown.substr(shown.find('=') + 1) + "\"");
  }
}

const policy_table& table_named(const std::string& name, const std::string& where) {
  std::size_t count = 0;
  const policy_table* tables = policy_tables(count);
  std::string names;
  for (std::size_t k = 0; k < count; ++k) {
    if (name == tables[k].name) return tables[k];
    names += std::string(names.empty() ? "" : ", ") + tables[k].name;
  }
  throw error(where + ": no tuning table \"" + name + "\"; the tables are " + names + " (or auto)");
}

// The overrides in effect for a context: CLFORGE_TUNE, then tuning::set, in order.
struct override_list {
  std::string table;  // "" or "auto": by device
  int stored = -1;    // autotuned results (clforge-tune): -1 not said (on), 0 off, 1 on
  std::vector<std::pair<std::string, std::string>> settings;  // primitive, "k=v,..."
  std::vector<std::string> sources;                           // where each came from
};

void add_spec(override_list& out, const std::string& primitive, const std::string& settings,
              const std::string& where);

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
      throw error(where + ": \"" + (part.size() > 80 ? part.substr(0, 80) + "..." : part) +
                  "\": expected table=NAME, tuned=on|off, off, or PRIMITIVE:key=value,... with "
                  "PRIMITIVE one of " +
                  kPrimitives);
    }
    add_spec(out, trim(part.substr(0, colon)), part.substr(colon + 1), where);
  }
}

void add_spec(override_list& out, const std::string& primitive, const std::string& settings,
              const std::string& where) {
  if (primitive == "table") {
    const std::string name = trim(settings);
    if (name != "auto" && !name.empty()) table_named(name, where);
    out.table = name;
    return;
  }
  if (primitive == "tuned") {
    const std::string value = trim(settings);
    if (value != "on" && value != "off")
      throw error(where + ": tuned takes on or off (the results clforge-tune stored), not \"" +
                  (value.size() > 80 ? value.substr(0, 80) + "..." : value) + "\"");
    out.stored = value == "on" ? 1 : 0;
    return;
  }
  // Checked now, so that a wrong override fails where it is given.
  if (primitive == "elementwise") {
    elementwise_policy p;
    apply(p, elementwise_keys(), primitive, settings, where);
  } else if (primitive == "reduce") {
    reduce_policy p;
    apply(p, reduce_keys(), primitive, settings, where);
  } else if (primitive == "scan") {
    scan_policy p;
    apply(p, scan_keys(), primitive, settings, where);
  } else if (primitive == "polygon") {
    polygon_policy p;
    apply(p, polygon_keys(), primitive, settings, where);
  } else if (primitive == "sort") {
    sort_policy p;
    apply(p, sort_keys(), primitive, settings, where);
  } else {
    throw error(where + ": no template \"" + primitive + "\" to tune; the templates are " +
                kPrimitives);
  }
  out.settings.emplace_back(primitive, settings);
  out.sources.push_back(where);
}

// tuning::set(ctx, "tuned", "on|off"), kept beside the context (-1: not set).
std::atomic<int>& stored_switch(const context& ctx) {
  std::shared_ptr<void> slot = ctx.attachment("clforge.tuning.stored", [] {
    return std::static_pointer_cast<void>(std::make_shared<std::atomic<int>>(-1));
  });
  // The context keeps the attachment alive as long as the context itself.
  return *static_cast<std::atomic<int>*>(slot.get());
}

override_list overrides_of(const context& ctx) {
  override_list list;
  if (const char* text = std::getenv("CLFORGE_TUNE")) parse_tune_variable(text, list);
  context_state& state = state_of(ctx);
  std::lock_guard<std::mutex> lock(state.tuning_mutex);
  if (!state.tuning_table.empty()) list.table = state.tuning_table;
  const int stored_by_set = stored_switch(ctx).load();
  if (stored_by_set >= 0) list.stored = stored_by_set;
  for (const auto& s : state.tuning_settings) {
    list.settings.push_back(s);
    list.sources.push_back("clforge::tuning::set");
  }
  return list;
}

const policy_table& table_of(const context& ctx, const override_list& list) {
  if (list.table.empty() || list.table == "auto") return device_table(ctx.info());
  return table_named(list.table, "tuning table");
}

template <class Policy>
std::string describe(const Policy& p, const std::vector<key<Policy>>& keys) {
  std::string out;
  for (const auto& k : keys) {
    // A table value outside a key's bounds (0 in a field its choice leaves unused) is left out:
    // applied over a table, the text keeps that table's value.
    Policy probe = p;
    const std::string value = k.get(p);
    if (k.set(probe, value)) out += std::string(out.empty() ? "" : ",") + k.name + "=" + value;
  }
  return out;
}

// The policy a template gets: the table, then the autotuned result stored for the device
// (unless tuned=off), then the overrides of CLFORGE_TUNE and tuning::set, then (in the tuner's
// own threads only) the candidate being measured.
template <class Policy>
Policy tuned(const context& ctx, Policy policy_table::*field, const std::vector<key<Policy>>& keys,
             const char* primitive, bool with_stored = true) {
  const override_list list = overrides_of(ctx);
  Policy p = table_of(ctx, list).*field;
  if (with_stored && list.stored != 0) {
    const std::string stored = stored_policy(ctx, primitive);
    if (!stored.empty()) {
      try {
        Policy from_store = p;
        apply(from_store, keys, primitive, stored, "tuned results");
        p = from_store;
      } catch (const error&) {
        // A stored policy this version cannot read: the table stays (the file's key carries the
        // clforge version, so this takes a hand-edited file).
      }
    }
  }
  for (std::size_t k = 0; k < list.settings.size(); ++k)
    if (list.settings[k].first == primitive)
      apply(p, keys, primitive, list.settings[k].second, list.sources[k]);
  if (const std::string* candidate = candidate_policy(primitive))
    apply(p, keys, primitive, *candidate, "tuner candidate");
  return p;
}

}  // namespace

elementwise_policy tuned_elementwise(const context& ctx) {
  return tuned(ctx, &policy_table::elementwise, elementwise_keys(), "elementwise");
}
reduce_policy tuned_reduce(const context& ctx) {
  return tuned(ctx, &policy_table::reduce, reduce_keys(), "reduce");
}
scan_policy tuned_scan(const context& ctx) {
  return tuned(ctx, &policy_table::scan, scan_keys(), "scan");
}
polygon_policy tuned_polygon(const context& ctx) {
  return tuned(ctx, &policy_table::polygon, polygon_keys(), "polygon");
}
sort_policy tuned_sort(const context& ctx) {
  return tuned(ctx, &policy_table::sort, sort_keys(), "sort");
}

std::string resolved_policy(const context& ctx, const std::string& primitive, bool with_stored) {
  if (primitive == "elementwise")
    return describe(
        tuned(ctx, &policy_table::elementwise, elementwise_keys(), "elementwise", with_stored),
        elementwise_keys());
  if (primitive == "reduce")
    return describe(tuned(ctx, &policy_table::reduce, reduce_keys(), "reduce", with_stored),
                    reduce_keys());
  if (primitive == "scan")
    return describe(tuned(ctx, &policy_table::scan, scan_keys(), "scan", with_stored), scan_keys());
  if (primitive == "polygon")
    return describe(tuned(ctx, &policy_table::polygon, polygon_keys(), "polygon", with_stored),
                    polygon_keys());
  if (primitive == "sort")
    return describe(tuned(ctx, &policy_table::sort, sort_keys(), "sort", with_stored), sort_keys());
  throw error("no template \"" + primitive + "\" to tune; the templates are " + kPrimitives);
}

std::string normalized_policy(const std::string& primitive, const std::string& settings,
                              const std::string& where) {
  auto run = [&](auto policy, const auto& keys) {
    apply(policy, keys, primitive, settings, where);
    return describe(policy, keys);
  };
  if (primitive == "elementwise") return run(elementwise_policy{}, elementwise_keys());
  if (primitive == "reduce") return run(reduce_policy{}, reduce_keys());
  if (primitive == "scan") return run(scan_policy{}, scan_keys());
  if (primitive == "polygon") return run(polygon_policy{}, polygon_keys());
  if (primitive == "sort") return run(sort_policy{}, sort_keys());
  throw error(where + ": no template \"" + primitive + "\" to tune; the templates are " +
              kPrimitives);
}

std::string table_policy(const std::string& table, const std::string& primitive) {
  std::size_t count = 0;
  const policy_table* tables = policy_tables(count);
  for (std::size_t k = 0; k < count; ++k) {
    if (table != tables[k].name) continue;
    if (primitive == "elementwise") return describe(tables[k].elementwise, elementwise_keys());
    if (primitive == "reduce") return describe(tables[k].reduce, reduce_keys());
    if (primitive == "scan") return describe(tables[k].scan, scan_keys());
    if (primitive == "polygon") return describe(tables[k].polygon, polygon_keys());
    if (primitive == "sort") return describe(tables[k].sort, sort_keys());
  }
  return "";
}

std::vector<std::string> table_names() {
  std::size_t count = 0;
  const policy_table* tables = policy_tables(count);
  std::vector<std::string> names;
  for (std::size_t k = 0; k < count; ++k) names.push_back(tables[k].name);
  return names;
}

bool stored_results_enabled(const context& ctx) {
  return overrides_of(ctx).stored != 0;
}

}  // namespace clforge::detail

namespace clforge::tuning {

void set(const context& ctx, const std::string& primitive, const std::string& settings) {
  if (!ctx) throw error("clforge::tuning::set: the context is empty");
  detail::override_list checked;
  detail::add_spec(checked, detail::trim(primitive), settings, "clforge::tuning::set");
  detail::context_state& state = detail::state_of(ctx);
  std::lock_guard<std::mutex> lock(state.tuning_mutex);
  if (detail::trim(primitive) == "tuned")
    detail::stored_switch(ctx).store(checked.stored);
  else if (detail::trim(primitive) == "table")
    state.tuning_table = checked.table;
  else
    state.tuning_settings.emplace_back(detail::trim(primitive), settings);
}

void reset(const context& ctx) {
  if (!ctx) throw error("clforge::tuning::reset: the context is empty");
  detail::context_state& state = detail::state_of(ctx);
  std::lock_guard<std::mutex> lock(state.tuning_mutex);
  state.tuning_table.clear();
  state.tuning_settings.clear();
  detail::stored_switch(ctx).store(-1);
}

std::string table(const context& ctx) {
  if (!ctx) throw error("clforge::tuning::table: the context is empty");
  const detail::override_list list = detail::overrides_of(ctx);
  return detail::table_of(ctx, list).name;
}

}  // namespace clforge::tuning
