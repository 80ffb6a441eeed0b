// SPDX-License-Identifier: MIT
#include "clforge/algorithms/common.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "clforge/detail/checks.hpp"
#include "clforge/error.hpp"
#include "template_engine.hpp"

namespace clforge {

kernel_shape kernel_shape::parse(const std::string& text) {
  kernel_shape s;
  std::istringstream in(text);
  std::string field;
  bool first = true;
  while (std::getline(in, field, ',')) {
    while (!field.empty() && std::isspace(static_cast<unsigned char>(field.front())))
      field.erase(0, 1);
    while (!field.empty() && std::isspace(static_cast<unsigned char>(field.back())))
      field.pop_back();
    if (first) {
      first = false;
      if (field == "gpu") {
        s.which = kind::gpu;
        continue;
      }
      if (field == "cpu") {
        s.which = kind::cpu;
        continue;
      }
      if (field == "auto" || field == "automatic" || field.empty()) continue;
    }
    auto eq = field.find('=');
    auto bad = [&] {
      throw error("kernel shape \"" + text +
                  "\": expected gpu|cpu|auto then key=value fields local, unroll, groups_per_cu, "
                  "vec, ilv, vload (powers of two up to 16), single=1, grid=1 (e.g. "
                  "\"gpu,local=256,unroll=8,groups_per_cu=4\"), not \"" +
                  field + "\"");
    };
    if (eq == std::string::npos) bad();
    std::string key = field.substr(0, eq), value = field.substr(eq + 1);
    std::size_t v = 0;
    for (char c : value) {
      if (!std::isdigit(static_cast<unsigned char>(c))) bad();
      if (v <= (std::size_t(1) << 32)) v = v * 10 + static_cast<std::size_t>(c - '0');
    }
    if (value.empty() || v == 0) bad();
    const std::string who = "kernel shape \"" + text + "\"";
    if (key == "local")
      detail::check_bound(who, "local", v, 1, detail::kMaxGroupSize), s.local_size = v;
    else if (key == "unroll")
      detail::check_bound(who, "unroll", v, 1, detail::kMaxUnroll),
          s.unroll = static_cast<unsigned>(v);
    else if (key == "groups_per_cu")
      detail::check_bound(who, "groups_per_cu", v, 1, detail::kMaxGroupsPerCu),
          s.groups_per_cu = static_cast<unsigned>(v);
    else if (key == "single" && v == 1)
      s.single = 1;
    else if (key == "grid" && v == 1)
      s.grid = 1;
    else if ((key == "vec" || key == "ilv" || key == "vload") && v <= 16 && (v & (v - 1)) == 0)
      (key == "vec" ? s.vec : key == "ilv" ? s.ilv : s.vload) = static_cast<unsigned>(v);
    else
      bad();
  }
  return s;
}

std::string kernel_shape::describe() const {
  std::string k = which == kind::gpu ? "gpu" : which == kind::cpu ? "cpu" : "automatic";
  std::string out = k + " local=" + std::to_string(local_size);
  if (unroll) out += " unroll=" + std::to_string(unroll);
  if (groups_per_cu) out += " groups_per_cu=" + std::to_string(groups_per_cu);
  if (vec > 1) out += " vec=" + std::to_string(vec);
  if (ilv > 1) out += " ilv=" + std::to_string(ilv);
  if (vload > 1) out += " vload=" + std::to_string(vload);
  if (single) out += " single=1";
  if (grid) out += " grid=1";
  return out;
}

}  // namespace clforge
