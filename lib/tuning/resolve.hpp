// SPDX-License-Identifier: MIT
// The policy a template gets on a context, in this order (later wins): the table of the
// device's class (or the one table=NAME selects), the result clforge-tune stored for the device
// (unless switched off), the overrides of CLFORGE_TUNE, those of clforge::tuning::set, and (in
// the tuner's threads only) the candidate being measured. Also the text forms of policies the
// tuner and the tools use, and tuning_stamp, which tells a built template that this moved.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clforge/context.hpp"
#include "clforge/export.hpp"
#include "policies.hpp"

namespace clforge::detail {

/// The policy `Policy`'s template gets on `ctx` now (every source above applied). A wrong
/// override is a clforge::error naming where it came from.
template <class Policy>
Policy tuned(const context& ctx);
/// The policy of the tuning table `table` ("generic", "cpu", ...), nothing else applied.
template <class Policy>
Policy table_policy_of(const std::string& table);

/// Every key of `template_name`'s policy as "key=value,..." for `ctx`: the table, the stored
/// result when `with_stored` and not switched off, CLFORGE_TUNE, tuning::set and the thread's
/// candidate.
CLFORGE_API std::string resolved_policy(const context& ctx, const std::string& template_name,
                                        bool with_stored);
/// `settings` applied to the defaults of `template_name`'s keys and written out with every key
/// (a clforge::error naming `where` on a wrong template, key or value).
CLFORGE_API std::string normalized_policy(const std::string& template_name,
                                          const std::string& settings, const std::string& where);
/// Every key of `template_name`'s policy in the tuning table `table` ("" when no such table).
CLFORGE_API std::string table_policy(const std::string& table, const std::string& template_name);
/// The names of the tuning tables.
CLFORGE_API std::vector<std::string> table_names();
/// False when CLFORGE_TUNE (off, tuned=off) or tuning::set(ctx, "tuned", "off") switched the
/// stored results off.
CLFORGE_API bool stored_results_enabled(const context& ctx);

struct tuning_state;

/// The tuning of a context at one moment. A template keeps the stamp taken when it resolved its
/// policy; stale() turns true once tuning::set or tuning::reset on that context, or results
/// stored (or removed) in this process, may have changed what it would get now. Two atomic
/// loads: cheap enough for every call. CLFORGE_TUNE is read when a template is built.
class tuning_stamp {
 public:
  /// A stamp that never turns stale (nothing to follow).
  tuning_stamp() = default;
  /// The tuning of `ctx` now.
  explicit tuning_stamp(const context& ctx);
  /// True when the tuning moved since the stamp was taken.
  bool stale() const;

 private:
  std::shared_ptr<const tuning_state> state_;
  std::uint64_t seen_ = 0;
};

}  // namespace clforge::detail
