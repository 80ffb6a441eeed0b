// SPDX-License-Identifier: MIT
#include "view_variants.hpp"

#include <algorithm>

#include "clforge/detail/codegen.hpp"
#include "clforge/error.hpp"

namespace clforge::detail {

namespace {

struct view_parameter {
  std::string name, first, step;  // step empty: unit step
};

// `s` with every NAME[index] of a view parameter NAME made NAME[first + (long)(index) * step]
// (the index rewritten too); the text between the tokens (blanks, comments) kept as it is.
std::string rewrite(std::string_view s, const std::vector<view_parameter>& views,
                    const std::string& who) {
  const std::vector<std::string_view> t = source_tokens(s);
  const auto at = [&](std::string_view token) { return std::size_t(token.data() - s.data()); };
  std::string out;
  out.reserve(s.size() + 64);
  std::size_t copied = 0;  // s before this offset is in out
  for (std::size_t k = 0; k < t.size(); ++k) {
    const auto view = std::find_if(views.begin(), views.end(),
                                   [&](const view_parameter& v) { return v.name == t[k]; });
    // A struct member (after '.' or "->") is not the parameter.
    const bool member =
        k >= 1 && (t[k - 1] == "." || (t[k - 1] == ">" && k >= 2 && t[k - 2] == "-"));
    if (view == views.end() || member) continue;
    std::size_t close = 0;  // the token of the ']' that closes the '[' after the name
    if (k + 1 < t.size() && t[k + 1] == "[") {
      int depth = 0;
      for (std::size_t m = k + 1; m < t.size() && close == 0; ++m) {
        if (t[m] == "[" || t[m] == "(") ++depth;
        if (t[m] == "]" || t[m] == ")") --depth;
        if (depth == 0) close = m;
      }
    }
    if (close == 0 || t[close] != "]")
      throw error(who + ": parameter " + view->name +
                  " is given an array_view, so the snippets may use it only as " + view->name +
                  "[index] (as in \"" + std::string(s) + "\")");
    const std::size_t from = at(t[k + 1]) + 1, to = at(t[close]);
    const std::string index = rewrite(s.substr(from, to - from), views, who);
    out.append(s.substr(copied, at(t[k]) - copied));
    out += view->name + "[" + view->first + " + (long)(" + index + ")" +
           (view->step.empty() ? "" : " * " + view->step) + "]";
    copied = to + 1;
    k = close;
  }
  out.append(s.substr(copied));
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
