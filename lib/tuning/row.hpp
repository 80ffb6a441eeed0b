// SPDX-License-Identifier: MIT
// What a tuning registry row is made of: its keys (each a name, what it takes, and how it sets
// and reads its policy field), the typed row over a policy struct, and the helpers a row's
// search-space constraint reads a point with. policies.hpp writes each template's row with them,
// beside its policy struct.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "clforge/device.hpp"
#include "clforge/error.hpp"
#include "clforge/export.hpp"
#include "grammar.hpp"

namespace clforge::detail {

/// A point of a search space or a set of settings: key -> value (the same type as
/// clforge::tuner::point).
using setting_point = std::map<std::string, std::string>;

/// A key the tuner searches and its candidate values (the first is the one a pinned key keeps).
struct search_parameter {
  std::string key;
  std::vector<std::string> values;
};

class template_row;

/// Which points of a row's space a device allows for elements of `element_size` bytes (the
/// workload's): limits of the device (work-group size, local memory) and keys that mean nothing
/// for a point's choice pinned to their first value, so that equivalent points are tried once.
using space_constraint = bool (*)(const template_row& row, const setting_point& point,
                                  const device_info& info, std::size_t element_size);

/// One template's row (type-erased; row_of<Policy> is the typed one). Text forms are
/// "key=value,..."; a policy's full text names every key.
class template_row {
 public:
  template_row(const char* name, const char* workload, std::vector<search_parameter> space,
               space_constraint constraint)
      : name_(name), workload_(workload), space_(std::move(space)), allowed_(constraint) {}
  virtual ~template_row() = default;
  template_row(const template_row&) = delete;
  template_row& operator=(const template_row&) = delete;

  /// The template: "elementwise", "reduce", "scan", "polygon", "sort", "histogram", "stencil",
  /// "par_loop".
  const char* name() const { return name_; }
  /// The tuner's workload for it: "saxpy", "sum", "scan", "polygon", "sort", "histogram",
  /// "stencil", "edge_flux".
  const char* workload() const { return workload_; }
  /// The keys and what each takes, for messages: "kind (gpu|cpu), group (1 to 4096), ...".
  virtual std::string keys_described() const = 0;
  /// The keys, in order.
  virtual std::vector<std::string> key_names() const = 0;
  /// `settings` applied over `base` (a full text, or "" for the defaults): the full text. A wrong
  /// key or value is a clforge::error starting with `where`.
  virtual std::string apply(const std::string& base, const std::string& settings,
                            const std::string& where) const = 0;
  /// Every key at its default.
  std::string defaults() const { return apply("", "", "defaults"); }

  /// The search space.
  const std::vector<search_parameter>& space() const { return space_; }
  /// Whether `point` is in the space on `info` for elements of `element_size` bytes.
  bool allowed(const setting_point& point, const device_info& info,
               std::size_t element_size) const {
    return allowed_ == nullptr || allowed_(*this, point, info, element_size);
  }
  /// True when every key in `keys` holds the first value of its parameter in the space.
  bool pinned(const setting_point& point, std::initializer_list<const char*> keys) const;

 private:
  const char* name_;
  const char* workload_;
  std::vector<search_parameter> space_;
  space_constraint allowed_;
};

/// The policies of the registry's rows, in the order the tools list them (policies.hpp).
template <class... Policy>
struct policy_list {};

/// Bounds of the tuning values shared by the templates: a larger value would only make a huge
/// program or launch (or a compile that never ends).
constexpr std::size_t kMaxGroupSize = 4096;    // work-items per group
constexpr std::size_t kMaxGroupsPerCu = 1024;  // groups per compute unit
constexpr std::size_t kMaxUnroll = 64;         // elements per work-item per loop round

/// What a row is written with: its keys' builders and, for its constraint, a point's values.
namespace row_keys {

// One key of a policy: its name, what it takes, and how it sets and reads the policy.
template <class Policy>
struct policy_key {
  const char* name;
  std::string takes;                                     // "1 to 64", "gpu|cpu", ...
  std::function<bool(Policy&, const std::string&)> set;  // false: value out of bounds
  std::function<std::string(const Policy&)> get;         // the value as set would take it
};

inline bool to_number(const std::string& text, std::size_t lo, std::size_t hi, std::size_t& out) {
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
policy_key<Policy> number(const char* name, const char* takes, Field Policy::*field, std::size_t lo,
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

// A size that takes one of a few values.
template <class Policy>
policy_key<Policy> one_of(const char* name, std::size_t Policy::*field,
                          std::vector<std::size_t> values) {
  std::string takes;
  for (std::size_t v : values) takes += (takes.empty() ? "" : "|") + std::to_string(v);
  return {name, takes,
          [=](Policy& p, const std::string& v) {
            std::size_t n = 0;
            if (!to_number(v, 0, std::size_t(1) << 32, n)) return false;
            if (std::find(values.begin(), values.end(), n) == values.end()) return false;
            p.*field = n;
            return true;
          },
          [=](const Policy& p) { return std::to_string(p.*field); }};
}

template <class Policy>
policy_key<Policy> flag(const char* name, bool Policy::*field) {
  return {name, "0 or 1",
          [=](Policy& p, const std::string& v) {
            if (v != "0" && v != "1") return false;
            p.*field = v == "1";
            return true;
          },
          [=](const Policy& p) { return std::string(p.*field ? "1" : "0"); }};
}

template <class Policy, class Enum, std::size_t N>
policy_key<Policy> choice(const char* name, Enum Policy::*field,
                          const std::pair<const char*, Enum> (&names)[N]) {
  std::vector<std::pair<std::string, Enum>> list(std::begin(names), std::end(names));
  std::string takes;
  for (const auto& n : list) takes += (takes.empty() ? "" : "|") + n.first;
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

inline std::string value_of(const setting_point& p, const char* key) {
  auto it = p.find(key);
  return it == p.end() ? std::string() : it->second;
}
inline std::size_t number_of(const setting_point& p, const char* key) {
  auto it = p.find(key);
  std::size_t n = 0;
  return it != p.end() && to_number(it->second, 0, std::size_t(1) << 40, n) ? n : 0;
}

}  // namespace row_keys

/// The typed row of a template whose policy is `Policy`: `Policy::row()` (policies.hpp).
template <class Policy>
class row_of final : public template_row {
 public:
  row_of(const char* workload, std::vector<row_keys::policy_key<Policy>> keys,
         std::vector<search_parameter> space, space_constraint constraint)
      : template_row(Policy::template_name, workload, std::move(space), constraint),
        keys_(std::move(keys)) {}

  std::string keys_described() const override {
    std::string out;
    for (const auto& k : keys_)
      out += std::string(out.empty() ? "" : ", ") + k.name + " (" + k.takes + ")";
    return out;
  }
  std::vector<std::string> key_names() const override {
    std::vector<std::string> out;
    for (const auto& k : keys_) out.push_back(k.name);
    return out;
  }
  std::string apply(const std::string& base, const std::string& settings,
                    const std::string& where) const override {
    Policy p{};
    set(p, base, where);
    set(p, settings, where);
    return describe(p);
  }

  // Applies "key=value,key=value" to `p`; `where` names the source in errors.
  void set(Policy& p, const std::string& settings, const std::string& where) const {
    for (const setting& s : split_settings(settings)) {
      const row_keys::policy_key<Policy>* found = nullptr;
      for (const auto& k : keys_)
        if (s.key == k.name) found = &k;
      if (!s.has_value || !found)
        throw error(where + ": \"" + shown(s.text) + "\" is not a " + name() +
                    " setting; the keys are " + keys_described());
      if (!found->set(p, s.value))
        throw error(where + ": " + name() + " " + found->name + " takes " + found->takes +
                    ", not \"" + shown(s.value) + "\"");
    }
  }
  std::string describe(const Policy& p) const {
    std::string out;
    for (const auto& k : keys_)
      out += std::string(out.empty() ? "" : ",") + k.name + "=" + k.get(p);
    return out;
  }

 private:
  std::vector<row_keys::policy_key<Policy>> keys_;
};

}  // namespace clforge::detail
