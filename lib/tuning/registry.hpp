// SPDX-License-Identifier: MIT
// The tuning registry: one row per kernel template. A row names the template (as tables,
// CLFORGE_TUNE and tuning::set name it), its keys (bounds or choices, defaults), the tuner's
// workload for it, and its search space with the space's constraint. Everything that goes from
// a template's name to its keys goes through its row.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "clforge/device.hpp"
#include "clforge/export.hpp"
#include "policies.hpp"

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

/// The typed row of a template whose policy is `Policy` (registry.cpp defines one per policy).
template <class Policy>
class row_of;

/// The rows, in the order the tools list them.
CLFORGE_API const std::vector<const template_row*>& template_rows();
/// The row of `name`; a clforge::error starting with `where` names every template otherwise.
const template_row& row_named(const std::string& name, const std::string& where);
/// "elementwise, reduce, scan, polygon, sort, histogram, stencil, par_loop".
std::string template_names_listed();

/// `full` (a full text of Policy's row) as a typed policy.
template <class Policy>
Policy policy_from_text(const std::string& full, const std::string& where);
/// `p` as its full text ("key=value,..." with every key), as generated sources print it.
template <class Policy>
std::string policy_text(const Policy& p);

/// Bytes of local memory a onesweep sort tile of `group` x `items` keys of `key_size` bytes
/// (with values of `value_size` bytes, 0: none) takes with `ranking` (kernels/sort.cl's layout).
/// The sort fits its tile with it; the sort row's constraint skips points it would refit.
std::size_t onesweep_local_bytes(sort_ranking ranking, std::size_t group, std::size_t items,
                                 std::size_t key_size, std::size_t value_size);

/// Bounds of the tuning values shared by the templates: a larger value would only make a huge
/// program or launch (or a compile that never ends).
constexpr std::size_t kMaxGroupSize = 4096;    // work-items per group
constexpr std::size_t kMaxGroupsPerCu = 1024;  // groups per compute unit
constexpr std::size_t kMaxUnroll = 64;         // elements per work-item per loop round

}  // namespace clforge::detail
