// SPDX-License-Identifier: MIT
// Template rendering: kernels/*.cl are OpenCL C with $name placeholders, embedded at build time.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "clforge/export.hpp"

namespace clforge::detail {

/// The one identifier rule of clforge (kernel and parameter names, placeholders, snippet
/// words): [A-Za-z_][A-Za-z0-9_]*.
inline bool is_identifier_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool is_identifier_char(char c) {
  return is_identifier_start(c) || (c >= '0' && c <= '9');
}
inline bool is_identifier(std::string_view s) {
  if (s.empty() || !is_identifier_start(s[0])) return false;
  for (char c : s)
    if (!is_identifier_char(c)) return false;
  return true;
}

/// The one scanner of OpenCL C text (snippets, and whole sources for their kernel names): the
/// tokens of `text`, as views into it. Identifiers and numbers whole, string and character
/// literals whole (quotes included), every other character on its own; blanks and comments
/// dropped. Linear in the text, whatever its length.
CLFORGE_API std::vector<std::string_view> source_tokens(std::string_view text);

using template_values = std::map<std::string, std::string, std::less<>>;

/// Replaces every `$name` (name = [A-Za-z_][A-Za-z0-9_]*) in `text` by values[name]; `$$` is a
/// literal `$`. Values are pasted as given, never re-scanned. A placeholder without a value is a
/// clforge::error naming the template and the placeholder, so a typo never reaches the compiler.
CLFORGE_API std::string render(std::string_view template_name, std::string_view text,
                               const template_values& values);

/// The text of kernels/<name>.cl as embedded into the library at build time, with
/// kernels/common.cl in front (the device code the kernels share; "common" alone is that file).
CLFORGE_API std::string_view embedded_kernel(std::string_view name);

/// render(name, embedded_kernel(name), values).
CLFORGE_API std::string render_kernel(std::string_view name, const template_values& values);

}  // namespace clforge::detail
