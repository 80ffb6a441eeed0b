// SPDX-License-Identifier: MIT
// The snippet parameter-list parser. Properties: parse_signature either succeeds or throws
// clforge::error; every parsed parameter has a non-empty type and a unique identifier name, a
// pointer always has an address space; and the list joined back (parameter_list) parses to the
// same parameters.
#include <cctype>
#include <cstdint>
#include <string>

#include <clforge/detail/signature.hpp>
#include <clforge/error.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<clforge::detail::parameter> params;
  try {
    params = clforge::detail::parse_signature(text);
  } catch (const clforge::error&) {
    return 0;
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto& p = params[i];
    FUZZ_CHECK(!p.type.empty());
    FUZZ_CHECK(!p.name.empty() && !std::isdigit(static_cast<unsigned char>(p.name[0])));
    FUZZ_CHECK(p.is_pointer == !p.address_space.empty());
    for (std::size_t j = 0; j < i; ++j) FUZZ_CHECK(params[j].name != p.name);
  }
  const auto again = clforge::detail::parse_signature(clforge::detail::parameter_list(params));
  FUZZ_CHECK(again.size() == params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    FUZZ_CHECK(again[i].type == params[i].type && again[i].name == params[i].name);
    FUZZ_CHECK(again[i].is_pointer == params[i].is_pointer);
    FUZZ_CHECK(again[i].address_space == params[i].address_space);
    FUZZ_CHECK(again[i].is_const == params[i].is_const && again[i].kind == params[i].kind);
  }
  return 0;
}
