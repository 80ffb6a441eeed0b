// SPDX-License-Identifier: MIT
// The policy the calling thread is measuring (the tuner's candidate): applied last, over every
// other source, to the templates this thread builds or runs while the scope lives.
#pragma once

#include <string>

#include "clforge/export.hpp"

namespace clforge::detail {

/// The candidate policy the calling thread is measuring for `template_name`, or null.
const std::string* candidate_policy(const std::string& template_name);

/// Makes `settings` the calling thread's candidate for `template_name` while it lives.
class CLFORGE_API candidate_scope {
 public:
  candidate_scope(const std::string& template_name, const std::string& settings);
  ~candidate_scope();
  candidate_scope(const candidate_scope&) = delete;
  candidate_scope& operator=(const candidate_scope&) = delete;

 private:
  std::string template_name_;
  std::string settings_;
  const std::string* previous_template_;
  const std::string* previous_settings_;
};

}  // namespace clforge::detail
