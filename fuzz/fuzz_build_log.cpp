// SPDX-License-Identifier: MIT
// The build-log reader that quotes the user's source around reported lines
// (quote_error_lines). Input: a build log, a NUL, then the source. Properties: no crash, no
// exception, and every quoted line is a line of the source.
#include <cstdint>
#include <set>
#include <sstream>
#include <string>

#include "fuzz_common.hpp"
#include "program_cache.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string log = input.substr(0, nul);
  const std::string source = nul == std::string::npos ? std::string() : input.substr(nul + 1);
  const std::string quoted = clforge::detail::quote_error_lines(log, source);
  if (source.empty()) FUZZ_CHECK(quoted.empty());
  std::set<std::string> lines;
  std::istringstream in(source);
  for (std::string line; std::getline(in, line);) lines.insert(line);
  std::istringstream out(quoted);
  for (std::string line; std::getline(out, line);) {
    if (line == "      ...") continue;
    const std::size_t bar = line.find(" | ");
    FUZZ_CHECK(bar != std::string::npos && lines.count(line.substr(bar + 3)) == 1);
  }
  return 0;
}
