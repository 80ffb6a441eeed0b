// SPDX-License-Identifier: MIT
#include "clforge/detail/checks.hpp"

#include <string>

#include "clforge/error.hpp"

namespace clforge::detail {

namespace {
// "double", "double2" ... "double16"; not "doubleword" (a user struct name).
bool is_double_type(std::string_view type) {
  if (type.substr(0, 6) != "double") return false;
  std::string_view width = type.substr(6);
  return width.empty() || width == "2" || width == "3" || width == "4" || width == "8" ||
         width == "16";
}

[[noreturn]] void throw_no_fp64(const device_info& info, std::string_view type,
                                std::string_view who, const std::string& where) {
  throw error(std::string(who) + ": type " + std::string(type) + where +
              " needs a device with double precision (cl_khr_fp64); " + info.name +
              " has none. Use float, or choose another device with CLFORGE_DEVICE.");
}
}  // namespace

bool require_type_support(const device_info& info, std::string_view type, std::string_view who) {
  if (!is_double_type(type)) return false;
  if (!info.has_fp64) throw_no_fp64(info, type, who, "");
  return true;
}

bool require_type_support(const device_info& info, const std::vector<parameter>& params,
                          std::string_view who) {
  bool any = false;
  for (const parameter& p : params) {
    if (!is_double_type(p.type)) continue;
    if (!info.has_fp64) throw_no_fp64(info, p.type, who, " (parameter \"" + p.declaration + "\")");
    any = true;
  }
  return any;
}

void require_kernel_name_length(std::string_view who, const std::string& name, std::size_t limit) {
  if (name.size() <= limit) return;
  throw error(std::string(who) + ": a kernel name of " + std::to_string(name.size()) +
              " characters; clforge accepts at most " + std::to_string(limit) + " (\"" +
              name.substr(0, 40) + "...\")");
}

}  // namespace clforge::detail
