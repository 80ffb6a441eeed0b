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

namespace detail {

resolved_range resolve_range(const index_range& r, bool has_length, std::size_t length,
                             const std::string& who) {
  if (r.step == 0) throw error(who + ": a range or slice step of 0");
  resolved_range out;
  std::int64_t start = r.start, stop = r.stop;
  // An omitted slice step is 1, as in Python's slice(start, stop, None).
  const std::int64_t step = r.is_slice && r.step == index_range::none ? 1 : r.step;
  if (r.is_slice) {
    if (!has_length) throw error(who + ": a slice needs an array argument to take its length from");
    // Python's slice.indices(length).
    const std::int64_t len = static_cast<std::int64_t>(length);
    const std::int64_t lower = step > 0 ? 0 : -1;
    const std::int64_t upper = step > 0 ? len : len - 1;
    auto clamp = [&](std::int64_t v, std::int64_t omitted) {
      if (v == index_range::none) return omitted;
      if (v < 0) {
        v += len;
        if (v < lower) v = lower;
      } else if (v > upper) {
        v = upper;
      }
      return v;
    };
    start = clamp(start, step > 0 ? lower : upper);
    stop = clamp(stop, step > 0 ? upper : lower);
  } else {
    if (start == index_range::none || stop == index_range::none)
      throw error(who + ": clforge::range needs explicit start and stop (use slice to omit them)");
    if (start < 0 || (step < 0 && stop < -1))
      throw error(who + ": clforge::range(" + std::to_string(start) + ", " + std::to_string(stop) +
                  ", " + std::to_string(step) + ") would visit negative indices");
  }
  // Differences and the step's magnitude in 64-bit unsigned: range(INT64_MAX, -1, -1) spans
  // 2^63 indices and a step of INT64_MIN has no int64 magnitude.
  const auto distance = [](std::int64_t from, std::int64_t to) {
    return static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from);
  };
  std::uint64_t count = 0;
  if (step > 0 && stop > start)
    count = (distance(start, stop) - 1) / static_cast<std::uint64_t>(step) + 1;
  if (step < 0 && start > stop)
    count = (distance(stop, start) - 1) / (0 - static_cast<std::uint64_t>(step)) + 1;
  out.first = static_cast<std::uint64_t>(start);
  out.step = static_cast<std::uint64_t>(step);
  out.count = count;
  if (count > 0) out.end_index = (step > 0 ? out.first + (count - 1) * out.step : out.first) + 1;
  return out;
}

}  // namespace detail

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
