// SPDX-License-Identifier: MIT
// The template renderer. Input: template text, then a NUL, then "name=value" lines.
// Properties: render either succeeds or throws clforge::error (nothing else); with no "$$" in
// the text and no '$' in any value, a successful render leaves no '$' behind; text without
// '$' comes back unchanged.
#include <cstdint>
#include <string>

#include <clforge/detail/codegen.hpp>
#include <clforge/error.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string text = input.substr(0, nul);
  clforge::detail::template_values values;
  bool dollar_in_values = false;
  if (nul != std::string::npos) {
    std::string rest = input.substr(nul + 1);
    std::size_t start = 0;
    while (start < rest.size()) {
      std::size_t end = rest.find('\n', start);
      if (end == std::string::npos) end = rest.size();
      std::string line = rest.substr(start, end - start);
      std::size_t eq = line.find('=');
      if (eq != std::string::npos) {
        values[line.substr(0, eq)] = line.substr(eq + 1);
        dollar_in_values = dollar_in_values || line.find('$', eq) != std::string::npos;
      }
      start = end + 1;
    }
  }
  try {
    std::string out = clforge::detail::render("fuzz", text, values);
    if (text.find('$') == std::string::npos) FUZZ_CHECK(out == text);
    if (text.find("$$") == std::string::npos && !dollar_in_values)
      FUZZ_CHECK(out.find('$') == std::string::npos);
  } catch (const clforge::error&) {
    // a placeholder without a value, or a '$' without a name: the documented errors
  }
  return 0;
}
