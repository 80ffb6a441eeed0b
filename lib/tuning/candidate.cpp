// SPDX-License-Identifier: MIT
#include "candidate.hpp"

namespace clforge::detail {

namespace {
thread_local const std::string* t_candidate_template = nullptr;
thread_local const std::string* t_candidate_settings = nullptr;
}  // namespace

candidate_scope::candidate_scope(const std::string& template_name, const std::string& settings)
    : template_name_(template_name),
      settings_(settings),
      previous_template_(t_candidate_template),
      previous_settings_(t_candidate_settings) {
  t_candidate_template = &template_name_;
  t_candidate_settings = &settings_;
}

candidate_scope::~candidate_scope() {
  t_candidate_template = previous_template_;
  t_candidate_settings = previous_settings_;
}

const std::string* candidate_policy(const std::string& template_name) {
  if (t_candidate_template && *t_candidate_template == template_name) return t_candidate_settings;
  return nullptr;
}

}  // namespace clforge::detail
