// SPDX-License-Identifier: MIT
#include "grammar.hpp"

#include <cctype>

namespace clforge::detail {

std::string trim(const std::string& text) {
  std::size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  return text.substr(b, e - b);
}

std::vector<std::string> split(const std::string& text, char at) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t pos = 0; pos <= text.size(); ++pos)
    if (pos == text.size() || text[pos] == at) {
      parts.push_back(trim(text.substr(start, pos - start)));
      start = pos + 1;
    }
  return parts;
}

std::vector<setting> split_settings(const std::string& settings) {
  std::vector<setting> out;
  for (const std::string& part : split(settings, ',')) {
    if (part.empty()) continue;
    setting s;
    s.text = part;
    const std::size_t eq = part.find('=');
    s.has_value = eq != std::string::npos;
    s.key = trim(part.substr(0, eq));
    if (s.has_value) s.value = trim(part.substr(eq + 1));
    out.push_back(s);
  }
  return out;
}

std::string shown(const std::string& text) {
  return text.size() > 80 ? text.substr(0, 80) + "..." : text;
}

}  // namespace clforge::detail
