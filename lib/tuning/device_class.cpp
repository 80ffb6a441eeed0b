// SPDX-License-Identifier: MIT
#include "device_class.hpp"

#include <string>

namespace clforge::detail {

device_vendor vendor_of(const device_info& info) {
  std::string vendor;
  for (char c : info.vendor) vendor += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  const auto has = [&](const char* word) { return vendor.find(word) != std::string::npos; };
  if (has("nvidia")) return device_vendor::nvidia;
  if (has("advanced micro devices") || has("amd")) return device_vendor::amd;
  if (has("intel")) return device_vendor::intel;
  return device_vendor::other;
}

}  // namespace clforge::detail
