// SPDX-License-Identifier: MIT
// The one grammar of tuning text: settings "key=value,key=value" (blanks around each part
// ignored), used by the tables, CLFORGE_TUNE, tuning::set and the stored results.
#pragma once

#include <string>
#include <vector>

namespace clforge::detail {

/// One "key=value" of a settings text.
struct setting {
  std::string text;  // as given (trimmed)
  std::string key;
  std::string value;
  bool has_value = false;  // false: no '='
};

/// The non-empty parts of `settings` separated by ','.
std::vector<setting> split_settings(const std::string& settings);

/// `text` without leading and trailing blanks.
std::string trim(const std::string& text);
/// The parts of `text` separated by `at`, each trimmed (empty ones kept).
std::vector<std::string> split(const std::string& text, char at);
/// `text` for a message: cut after 80 characters.
std::string shown(const std::string& text);

}  // namespace clforge::detail
