// SPDX-License-Identifier: MIT
#include "view_variants.hpp"

#include <cctype>

namespace clforge::detail {

namespace {

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

struct view_parameter {
  std::string name, first, step;  // step empty: unit step
};

// Index of the character after the literal starting at s[j] (a quote).
std::size_t skip_literal(const std::string& s, std::size_t j) {
  const char quote = s[j++];
  while (j < s.size() && s[j] != quote) j += s[j] == '\\' ? 2 : 1;
  return j < s.size() ? j + 1 : s.size();
}

std::size_t skip_comment(const std::string& s, std::size_t j) {
  if (s.compare(j, 2, "//") == 0) {
    const std::size_t e = s.find('\n', j);
    return e == std::string::npos ? s.size() : e;
  }
  const std::size_t e = s.find("*/", j + 2);
  return e == std::string::npos ? s.size() : e + 2;
}

bool starts_comment(const std::string& s, std::size_t j) {
  return s.compare(j, 2, "//") == 0 || s.compare(j, 2, "/*") == 0;
}

// True when the identifier at j follows '.' or "->" (a struct member, not the parameter).
bool is_member(const std::string& s, std::size_t j) {
  while (j > 0 && std::isspace(static_cast<unsigned char>(s[j - 1]))) --j;
  if (j >= 1 && s[j - 1] == '.') return true;
  return j >= 2 && s[j - 1] == '>' && s[j - 2] == '-';
}

std::string rewrite(const std::string& s, const std::vector<view_parameter>& views,
                    const std::string& who) {
  std::string out;
  out.reserve(s.size() + 64);
  for (std::size_t j = 0; j < s.size();) {
    const char c = s[j];
    if (c == '"' || c == '\'') {
      const std::size_t e = skip_literal(s, j);
      out.append(s, j, e - j);
      j = e;
      continue;
    }
    if (starts_comment(s, j)) {
      const std::size_t e = skip_comment(s, j);
      out.append(s, j, e - j);
      j = e;
      continue;
    }
    if (!is_identifier_char(c) || (j > 0 && is_identifier_char(s[j - 1]))) {
      out += c;
      ++j;
      continue;
    }
    std::size_t e = j;
    while (e < s.size() && is_identifier_char(s[e])) ++e;
    const std::string word = s.substr(j, e - j);
    const view_parameter* view = nullptr;
    for (const view_parameter& v : views)
      if (v.name == word) view = &v;
    if (!view || is_member(s, j)) {
      out += word;
      j = e;
      continue;
    }
    std::size_t open = e;
    while (open < s.size() && std::isspace(static_cast<unsigned char>(s[open]))) ++open;
    std::size_t close = std::string::npos;
    if (open < s.size() && s[open] == '[') {
      int depth = 0;
      for (std::size_t k = open; k < s.size();) {
        if (s[k] == '"' || s[k] == '\'') {
          k = skip_literal(s, k);
          continue;
        }
        if (s[k] == '[' || s[k] == '(') ++depth;
        if (s[k] == ']' || s[k] == ')') --depth;
        if (depth == 0) {
          close = k;
          break;
        }
        ++k;
      }
    }
    if (close == std::string::npos || s[close] != ']')
      throw error(who + ": parameter " + word +
                  " is given an array_view, so the snippets may use it only as " + word +
                  "[index] (as in \"" + s + "\")");
    const std::string index = rewrite(s.substr(open + 1, close - open - 1), views, who);
    out += word + "[" + view->first + " + (long)(" + index + ")" +
           (view->step.empty() ? "" : " * " + view->step) + "]";
    j = close + 1;
  }
  return out;
}

}  // namespace

view_variant_source rewrite_for_views(const std::vector<parameter>& params,
                                      const std::string& pattern,
                                      const std::vector<std::string>& snippets,
                                      const std::string& other_text, const std::string& who) {
  std::string all = other_text;
  for (const parameter& p : params) all += " " + p.name;
  for (const std::string& s : snippets) all += " " + s;
  // A name not found anywhere in the user's text (not reserved: it does not start with clforge_)
  auto fresh = [&](const std::string& base) {
    std::string name = base;
    for (int k = 2; all.find(name) != std::string::npos; ++k) name = base + std::to_string(k);
    all += " " + name;
    return name;
  };
  view_variant_source out;
  std::vector<view_parameter> views;
  for (std::size_t k = 0; k < params.size(); ++k) {
    const parameter& p = params[k];
    out.arguments += (k ? ", " : "") + p.declaration;
    const char how = k < pattern.size() ? pattern[k] : '-';
    if (how == '-') continue;
    view_parameter v{p.name, fresh(p.name + "_view_first"), ""};
    out.arguments += ", long " + v.first;
    if (how == 's') {
      v.step = fresh(p.name + "_view_step");
      out.arguments += ", long " + v.step;
    }
    views.push_back(v);
  }
  for (const std::string& s : snippets) out.snippets.push_back(rewrite(s, views, who));
  return out;
}

}  // namespace clforge::detail
