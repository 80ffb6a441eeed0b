// SPDX-License-Identifier: MIT
// Views as arguments of the snippet templates. A template builds its whole-array kernels at
// construction; a call that passes an array_view (other than a plain array's x.view(0, n)) runs
// a variant generated on first use: each view parameter `x` gains `long x_view_first` (and, for
// a step other than 1, `long x_view_step`), and every x[e] in the snippets becomes
// x[x_view_first + (long)(e) * x_view_step]. Whole-array calls never see the variant, so their
// kernels and speed are unchanged; the program cache keys variants by their source.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "clforge/detail/signature.hpp"

namespace clforge::detail {

/// The parameter list and snippets of the variant for `pattern` (argument_list::view_pattern).
struct view_variant_source {
  std::string arguments;
  std::vector<std::string> snippets;  // the given snippets, rewritten, in order
};

/// Rewrites `snippets` for the views of `pattern`. `other_text` (preamble, ...) is only searched
/// so that the added parameter names collide with nothing. Throws clforge::error (naming `who`)
/// when a snippet uses a view parameter other than as name[index].
view_variant_source rewrite_for_views(const std::vector<parameter>& params,
                                      const std::string& pattern,
                                      const std::vector<std::string>& snippets,
                                      const std::string& other_text, const std::string& who);

/// The variants of one template object, built once per pattern (thread-safe).
template <class Variant>
class view_variant_cache {
 public:
  /// The variant for `pattern`; make() (returning a std::shared_ptr<const Variant>) builds it
  /// the first time. A failed build is not remembered: the next call tries again.
  template <class Make>
  std::shared_ptr<const Variant> get(const std::string& pattern, Make&& make) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = variants_.find(pattern);
    if (found != variants_.end()) return found->second;
    std::shared_ptr<const Variant> built = make();
    variants_.emplace(pattern, built);
    return built;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Variant>> variants_;
};

}  // namespace clforge::detail
