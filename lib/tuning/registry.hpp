// SPDX-License-Identifier: MIT
// The tuning registry: one row per kernel template, written beside its policy struct in
// policies.hpp. A row names the template (as tables, CLFORGE_TUNE and tuning::set name it), its
// keys (bounds or choices, defaults), the tuner's workload for it, and its search space with the
// space's constraint. Everything that goes from a template's name to its keys goes through its
// row.
#pragma once

#include <string>
#include <vector>

#include "clforge/export.hpp"
#include "policies.hpp"

namespace clforge::detail {

/// The rows, in the order the tools list them (tuned_policies).
CLFORGE_API const std::vector<const template_row*>& template_rows();
/// The row of `name`; a clforge::error starting with `where` names every template otherwise.
const template_row& row_named(const std::string& name, const std::string& where);
/// "elementwise, reduce, scan, polygon, sort, histogram, stencil, par_loop".
std::string template_names_listed();

/// `full` (a full text of Policy's row) as a typed policy.
template <class Policy>
Policy policy_from_text(const std::string& full, const std::string& where) {
  Policy p{};
  Policy::row().set(p, full, where);
  return p;
}
/// `p` as its full text ("key=value,..." with every key), as generated sources print it.
template <class Policy>
std::string policy_text(const Policy& p) {
  return Policy::row().describe(p);
}

}  // namespace clforge::detail
