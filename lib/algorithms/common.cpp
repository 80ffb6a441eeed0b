#include "clforge/algorithms/common.hpp"

#include <cctype>
#include <cstdlib>
#include <sstream>

#include "clforge/detail/checks.hpp"
#include "clforge/error.hpp"
#include "snippet_support.hpp"

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

void check_kernel_name(const std::string& name, const std::string& what) {
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) throw error(what + ": the name \"" + name + "\" is not a C identifier");
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
    char* end = nullptr;
    unsigned long v = std::strtoul(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || v == 0 || v > (1ul << 20)) bad();
    if (key == "local")
      s.local_size = v;
    else if (key == "unroll")
      s.unroll = static_cast<unsigned>(v);
    else if (key == "groups_per_cu")
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

kernel_shape kernel_shape::resolved(const device_info& device, std::size_t cpu_local) const {
  kernel_shape s = *this;
  if (s.which == kind::automatic) {
    kernel_shape env;
    if (const char* text = std::getenv("CLFORGE_SHAPE")) env = parse(text);
    if (env.which != kind::automatic) s.which = env.which;
    if (s.local_size == 0) s.local_size = env.local_size;
    if (s.unroll == 0) s.unroll = env.unroll;
    if (s.groups_per_cu == 0) s.groups_per_cu = env.groups_per_cu;
    if (s.vec == 0) s.vec = env.vec;
    if (s.ilv == 0) s.ilv = env.ilv;
    if (s.vload == 0) s.vload = env.vload;
    if (s.single == 0) s.single = env.single;
    if (s.grid == 0) s.grid = env.grid;
    if (s.which == kind::automatic) {
      s.which = device.is_cpu() ? kind::cpu : kind::gpu;
      s.kind_from_device = true;
    }
  }
  const bool gpu = s.which == kind::gpu;
  if (s.local_size == 0) s.local_size = gpu ? 256 : cpu_local;
  if (device.max_work_group_size != 0 && s.local_size > device.max_work_group_size)
    s.local_size = device.max_work_group_size;
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
