// SPDX-License-Identifier: MIT
// Where the tuning tables (lib/algorithms/tuning.cpp) and the autotuner (lib/tuner/) meet:
// the policy lookup asks the tuner for a stored result and for the candidate under test, and
// the tuner asks the lookup for the policy in effect, as "key=value,..." text.
#pragma once

#include <string>
#include <vector>

#include "clforge/context.hpp"
#include "clforge/export.hpp"

namespace clforge::detail {

// --- defined in lib/algorithms/tuning.cpp ---

/// Every key of `primitive`'s policy ("elementwise", "reduce", "scan", "polygon") as
/// "key=value,..." for `ctx`: the table, the stored result when `with_stored` and not switched
/// off, CLFORGE_TUNE and tuning::set.
CLFORGE_API std::string resolved_policy(const context& ctx, const std::string& primitive,
                                        bool with_stored);
/// `settings` applied to a default policy and written out with every key (throws
/// clforge::error naming `where` on a wrong key or value).
CLFORGE_API std::string normalized_policy(const std::string& primitive, const std::string& settings,
                                          const std::string& where);
/// Every key of `primitive`'s policy in the tuning table `table` ("" when no such table).
CLFORGE_API std::string table_policy(const std::string& table, const std::string& primitive);
/// The names of the tuning tables.
CLFORGE_API std::vector<std::string> table_names();
/// False when CLFORGE_TUNE (off, tuned=off) or tuning::set(ctx, "tuned", "off") switched the
/// stored results off.
CLFORGE_API bool stored_results_enabled(const context& ctx);

// --- defined in lib/tuner/ ---

/// The stored autotuned policy of `primitive` for `ctx`'s device ("" when none).
std::string stored_policy(const context& ctx, const std::string& primitive);

/// The candidate policy the calling thread is measuring for `primitive`, or null.
const std::string* candidate_policy(const std::string& primitive);

/// Makes `settings` the calling thread's candidate for `primitive` while it lives.
class CLFORGE_API candidate_scope {
 public:
  candidate_scope(const std::string& primitive, const std::string& settings);
  ~candidate_scope();
  candidate_scope(const candidate_scope&) = delete;
  candidate_scope& operator=(const candidate_scope&) = delete;

 private:
  std::string primitive_;
  std::string settings_;
  const std::string* previous_primitive_;
  const std::string* previous_settings_;
};

}  // namespace clforge::detail
