// SPDX-License-Identifier: MIT
#include "clforge/detail/codegen.hpp"

#include <algorithm>

#include "clforge/error.hpp"
#include "embedded_kernels.hpp"

namespace clforge::detail {

std::vector<std::string_view> source_tokens(std::string_view text) {
  std::vector<std::string_view> tokens;
  const std::size_t n = text.size();
  for (std::size_t j = 0; j < n;) {
    const char c = text[j];
    std::size_t e = j + 1;  // the end of this token (or of what is skipped)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      j = e;
      continue;
    }
    if (c == '/' && j + 1 < n && text[j + 1] == '/') {
      e = text.find('\n', j);
      j = e == std::string_view::npos ? n : e;
      continue;
    }
    if (c == '/' && j + 1 < n && text[j + 1] == '*') {
      e = text.find("*/", j + 2);
      j = e == std::string_view::npos ? n : e + 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      while (e < n && text[e] != c) e += text[e] == '\\' ? 2 : 1;
      e = std::min(e + 1, n);
    } else if (is_identifier_char(c)) {
      while (e < n && is_identifier_char(text[e])) ++e;
    }
    tokens.push_back(text.substr(j, e - j));
    j = e;
  }
  return tokens;
}

std::string render(std::string_view template_name, std::string_view text,
                   const template_values& values) {
  std::string out;
  out.reserve(text.size() + 256);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t dollar = text.find('$', pos);
    if (dollar == std::string_view::npos) {
      out.append(text.substr(pos));
      break;
    }
    out.append(text.substr(pos, dollar - pos));
    if (dollar + 1 < text.size() && text[dollar + 1] == '$') {
      out.push_back('$');
      pos = dollar + 2;
      continue;
    }
    std::size_t end = dollar + 1;
    if (end < text.size() && is_identifier_start(text[end])) {
      while (end < text.size() && is_identifier_char(text[end])) ++end;
    }
    std::string_view name = text.substr(dollar + 1, end - dollar - 1);
    if (name.empty())
      throw error("template \"" + std::string(template_name) + "\": a '$' not followed by a name");
    auto found = values.find(name);
    if (found == values.end())
      throw error("template \"" + std::string(template_name) + "\": no value for $" +
                  std::string(name));
    out.append(found->second);
    pos = end;
  }
  return out;
}

std::string_view embedded_kernel(std::string_view name) {
  for (std::size_t i = 0; i < embedded_kernel_count; ++i)
    if (embedded_kernels[i].name == name)
      return {embedded_kernels[i].text, embedded_kernels[i].size};
  throw error("no embedded kernel template \"" + std::string(name) + "\"");
}

std::string render_kernel(std::string_view name, const template_values& values) {
  return render(name, embedded_kernel(name), values);
}

}  // namespace clforge::detail
