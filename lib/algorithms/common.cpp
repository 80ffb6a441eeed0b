// SPDX-License-Identifier: MIT
#include "clforge/algorithms/common.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "clforge/detail/checks.hpp"
#include "clforge/error.hpp"
#include "snippet_support.hpp"
#include "tuning.hpp"

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
  std::uint64_t count = 0;
  if (step > 0 && stop > start)
    count = (static_cast<std::uint64_t>(stop - start) - 1) / static_cast<std::uint64_t>(step) + 1;
  if (step < 0 && start > stop)
    count =
        (static_cast<std::uint64_t>(start - stop) - 1) / (0 - static_cast<std::uint64_t>(step)) + 1;
  out.first = static_cast<std::uint64_t>(start);
  out.step = static_cast<std::uint64_t>(step);
  out.count = count;
  if (count > 0) out.end_index = (step > 0 ? out.first + (count - 1) * out.step : out.first) + 1;
  return out;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::vector<std::string_view> snippet_tokens(std::string_view text) {
  std::vector<std::string_view> tokens;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t j = 0; j < text.size();) {
    const char c = text[j];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++j;
    } else if (c == '/' && j + 1 < text.size() && text[j + 1] == '/') {
      j = text.find('\n', j);
      if (j == std::string_view::npos) j = text.size();
    } else if (c == '/' && j + 1 < text.size() && text[j + 1] == '*') {
      j = text.find("*/", j + 2);
      j = j == std::string_view::npos ? text.size() : j + 2;
    } else if (word(c)) {
      std::size_t e = j;
      while (e < text.size() && word(text[e])) ++e;
      tokens.push_back(text.substr(j, e - j));
      j = e;
    } else {
      tokens.push_back(text.substr(j, 1));
      ++j;
    }
  }
  return tokens;
}

namespace {
// Whether tokens[at..] start with NAME [ i ] for an identifier NAME.
bool indexed_at(const std::vector<std::string_view>& t, std::size_t at) {
  return at + 3 < t.size() && is_identifier(t[at]) && t[at + 1] == "[" && t[at + 2] == "i" &&
         t[at + 3] == "]";
}
}  // namespace

std::string plain_load_name(std::string_view text) {
  const auto t = snippet_tokens(text);
  if (t.size() == 4 && indexed_at(t, 0)) return std::string(t[0]);
  if (t.size() == 6 && t[0] == "(" && indexed_at(t, 1) && t[5] == ")") return std::string(t[1]);
  return "";
}

std::string plain_store_name(std::string_view text) {
  const auto t = snippet_tokens(text);
  const bool shape = (t.size() == 6 || (t.size() == 7 && t[6] == ";")) && indexed_at(t, 0) &&
                     t[4] == "=" && t[5] == "item";
  return shape ? std::string(t[0]) : "";
}

bool indexes_with_i(std::string_view text, std::string_view name) {
  const auto t = snippet_tokens(text);
  for (std::size_t k = 0; k < t.size(); ++k)
    if (t[k] == name && indexed_at(t, k)) return true;
  return false;
}

void check_bound(const std::string& who, const char* name, std::size_t value, std::size_t lo,
                 std::size_t hi) {
  if (value < lo || value > hi)
    throw error(who + ": " + name + " must be from " + std::to_string(lo) + " to " +
                std::to_string(hi) + ", not " + std::to_string(value));
}

void check_kernel_name(const std::string& name, const std::string& what) {
  if (!is_identifier(name)) throw error(what + ": the name \"" + name + "\" is not a C identifier");
  if (name.size() > max_template_name_length)
    throw error(what + ": a kernel name of " + std::to_string(name.size()) +
                " characters; clforge accepts at most " + std::to_string(max_template_name_length) +
                " (\"" + name.substr(0, 40) + "...\")");
}

void check_parameter_names(const std::vector<parameter>& params, const std::string& who) {
  for (const parameter& p : params) {
    if (p.name == "i") throw error(who + ": a parameter may not be called i (that is the index)");
    if (p.name.rfind("clforge_", 0) == 0)
      throw error(who + ": parameter names starting with clforge_ are reserved (" + p.name + ")");
  }
}

std::string fp64_pragma(const context& ctx, const std::vector<parameter>& params, bool needs_double,
                        const std::string& who) {
  // The one fp64 check (docs/errors.md row 18), before any source is generated.
  bool uses_double = require_type_support(ctx.info(), params, who);
  if (needs_double) {
    require_type_support(ctx.info(), "double", who + " (its result type)");
    uses_double = true;
  }
  return uses_double ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable" : "";
}

std::string comma_parameters(const std::vector<parameter>& params) {
  return params.empty() ? "" : ", " + parameter_list(params);
}
std::string comma_arguments(const std::vector<parameter>& params) {
  return params.empty() ? "" : ", " + argument_names(params);
}
std::string count_name(const std::vector<parameter>& params) {
  for (const parameter& p : params)
    if (p.name == "n") return "clforge_n";
  return "n";
}

void order_point(const queue& q) {
  if (q.out_of_order())
    check(clEnqueueBarrierWithWaitList(q.get(), 0, nullptr, nullptr),
          "clEnqueueBarrierWithWaitList");
}

void check_lengths(const argument_list& args, const resolved_range& r, bool enabled) {
  if (enabled && r.count > 0)
    args.require_array_lengths(
        static_cast<std::size_t>(r.end_index),
        "the range of this call (largest index " + std::to_string(r.end_index - 1) + ")");
}

namespace {
void check_shape(const kernel_shape& s) {
  // Fields set in code get the bounds of kernel_shape::parse.
  const std::string who = "kernel shape \"" + s.describe() + "\"";
  check_bound(who, "local", s.local_size, 1, kMaxGroupSize);
  check_bound(who, "unroll", s.unroll, 0, kMaxUnroll);
  check_bound(who, "groups_per_cu", s.groups_per_cu, 0, kMaxGroupsPerCu);
  for (unsigned width : {s.vec, s.ilv, s.vload})
    if (width > 16 || (width & (width - 1)) != 0)
      throw error(who + ": vec, ilv and vload must be 0 or a power of two up to 16");
}
kernel_shape::kind kind_of(work_kind k) {
  return k == work_kind::gpu ? kernel_shape::kind::gpu : kernel_shape::kind::cpu;
}
work_kind work_kind_of(kernel_shape::kind k) {
  return k == kernel_shape::kind::gpu ? work_kind::gpu : work_kind::cpu;
}
std::size_t capped(std::size_t local, const device_info& info) {
  return info.max_work_group_size != 0 ? std::min(local, info.max_work_group_size) : local;
}
template <class T>
T given_or(T given, T otherwise) {
  return given != 0 ? given : otherwise;
}
}  // namespace

kernel_shape elementwise_shape(const context& ctx, const kernel_shape& requested) {
  const elementwise_policy p = requested.which == kernel_shape::kind::automatic
                                   ? tuned_elementwise(ctx)
                                   : kind_table(work_kind_of(requested.which)).elementwise;
  kernel_shape s = requested;
  s.which = kind_of(p.kind);
  s.local_size = given_or(requested.local_size, p.group);
  s.groups_per_cu = given_or(requested.groups_per_cu, p.groups_per_cu);
  s.vec = given_or(requested.vec, p.block);
  s.ilv = given_or(requested.ilv, p.interleave);
  s.vload = given_or(requested.vload, p.vector_width);
  check_shape(s);
  s.local_size = capped(s.local_size, ctx.info());
  return s;
}

kernel_shape reduction_shape(const context& ctx, const kernel_shape& requested,
                             std::size_t type_size) {
  const reduce_policy p = requested.which == kernel_shape::kind::automatic
                              ? tuned_reduce(ctx)
                              : kind_table(work_kind_of(requested.which)).reduce;
  kernel_shape s = requested;
  s.which = kind_of(p.kind);
  s.local_size = given_or(requested.local_size, p.group);
  s.unroll = given_or(requested.unroll, p.unroll);
  s.groups_per_cu = given_or(requested.groups_per_cu, p.groups_per_cu);
  if (s.vec == 0 && p.vector_bytes != 0)
    s.vec = static_cast<unsigned>(std::max<std::size_t>(1, p.vector_bytes / type_size));
  s.grid = requested.grid || p.grid;
  s.single = requested.single || p.single_launch;
  check_shape(s);
  s.local_size = capped(s.local_size, ctx.info());
  return s;
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
