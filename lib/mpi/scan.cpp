// SPDX-License-Identifier: MIT
// clforge::mpi scans: the snippets of the three local kernels behind a scan across ranks.
#include "clforge/mpi/algorithms/scan.hpp"

#include <cctype>

namespace clforge::mpi::detail {

namespace {
bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
}  // namespace

std::string replace_identifier(const std::string& text, const std::string& name,
                               const std::string& replacement) {
  std::string out;
  std::size_t k = 0;
  while (k < text.size()) {
    if (identifier_char(text[k])) {
      std::size_t end = k;
      while (end < text.size() && identifier_char(text[end])) ++end;
      const std::string word = text.substr(k, end - k);
      out += word == name ? replacement : word;
      k = end;
    } else {
      out += text[k++];
    }
  }
  return out;
}

bool uses_identifier(const std::string& text, const std::string& name) {
  return replace_identifier(text, name, "\x01") != text;
}

bool commutes(const std::string& scan) {
  std::string s;
  for (char c : scan)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  if (s.size() > 2 && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
  for (const char* op : {"+", "*", "|", "&", "^"})
    if (s == std::string("a") + op + "b" || s == std::string("b") + op + "a") return true;
  for (const char* f : {"min", "max", "fmin", "fmax"})
    if (s == std::string(f) + "(a,b)" || s == std::string(f) + "(b,a)") return true;
  return false;
}

std::string scan_output_across_ranks(const std::string& type, const std::string& output) {
  // The user's statement sees the global values under the usual names; the local scan's item,
  // prev_item and last_item are renamed away so its own last_item pass is not triggered.
  std::string user = replace_identifier(output, "item", "clforge_mpi_item");
  user = replace_identifier(user, "prev_item", "clforge_mpi_prev");
  user = replace_identifier(user, "last_item", "clforge_mpi_last");
  std::string s = "{ ";
  if (uses_identifier(user, "clforge_mpi_item"))
    s += "const " + type + " clforge_mpi_item = clforge_mpi_op(cfmpi_carry[0], item); ";
  if (uses_identifier(user, "clforge_mpi_prev"))
    s += "const " + type + " clforge_mpi_prev = clforge_mpi_op(cfmpi_carry[0], prev_item); ";
  if (uses_identifier(user, "clforge_mpi_last"))
    s += "const " + type + " clforge_mpi_last = cfmpi_carry[1]; ";
  return s + "\n" + user + ";\n}";  // the statement may come without its semicolon
}

scan_options scan_part_options(const scan_options& options, const std::string& suffix,
                               const std::string& type, const std::string& scan) {
  scan_options o = options;
  o.name = (options.name.empty() ? std::string("scan") : options.name) + suffix;
  // The carry-in joins on the left: the ranks before come first, so order is kept.
  o.preamble = options.preamble + "\nstatic inline " + type + " clforge_mpi_op(" + type + " a, " +
               type + " b) {\n  return (" + scan + ");\n}\n";
  return o;
}

}  // namespace clforge::mpi::detail
