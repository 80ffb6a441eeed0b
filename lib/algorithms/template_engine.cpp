// SPDX-License-Identifier: MIT
#include "template_engine.hpp"

#include <algorithm>

#include "clforge/detail/checks.hpp"
#include "clforge/error.hpp"

namespace clforge::detail {

std::string snippet(std::string_view text) {
  std::string out = "\n";
  out.reserve(text.size() + 3);
  for (std::size_t j = 0; j < text.size(); ++j) {
    if (text[j] != '\r') {
      out += text[j];
    } else if (j + 1 == text.size() || text[j + 1] != '\n') {
      out += '\n';  // a lone CR ends a line (and a // comment) in some compilers, not in others
    }
  }
  // The second line break ends the snippet's last line even when it ends in a backslash, which
  // would join the first one to it.
  return out + "\n\n";
}

namespace {
// Whether tokens[at..] start with NAME [ i ] for an identifier NAME.
bool indexed_at(const std::vector<std::string_view>& t, std::size_t at) {
  return at + 3 < t.size() && is_identifier(t[at]) && t[at + 1] == "[" && t[at + 2] == "i" &&
         t[at + 3] == "]";
}
}  // namespace

namespace {
// NAME when `text` is a plain load "NAME[i]" (optionally in parentheses) or, with `store`, a
// plain store "NAME[i] = item" (an optional ';'); "" otherwise.
std::string_view plain_access(std::string_view text, bool store) {
  const auto t = source_tokens(text);
  if (store) {
    const bool shape = (t.size() == 6 || (t.size() == 7 && t[6] == ";")) && indexed_at(t, 0) &&
                       t[4] == "=" && t[5] == "item";
    return shape ? t[0] : std::string_view();
  }
  if (t.size() == 4 && indexed_at(t, 0)) return t[0];
  if (t.size() == 6 && t[0] == "(" && indexed_at(t, 1) && t[5] == ")") return t[1];
  return {};
}
}  // namespace

std::string plain_array(const std::vector<parameter>& params, std::string_view text,
                        const std::string& element_type, bool store) {
  const std::string_view name = plain_access(text, store);
  for (const parameter& p : params)
    if (!name.empty() && p.name == name && p.is_pointer && p.address_space == "global" &&
        p.kind != scalar_kind::other && p.type == element_type && (!store || !p.is_const))
      return p.name;
  return "";
}

lane_rewrite read_by_lanes(const std::vector<parameter>& params, std::string_view text,
                           const std::string& lane_prefix, bool pass_read_only) {
  const auto t = source_tokens(text);
  lane_rewrite out;
  std::size_t copied = 0;  // text before this offset is in out.text
  for (std::size_t k = 0; k < t.size(); ++k) {
    const auto p = std::find_if(params.begin(), params.end(),
                                [&](const parameter& q) { return q.is_pointer && q.name == t[k]; });
    if (p == params.end()) continue;
    const bool read_at_i =
        p->address_space == "global" && p->kind != scalar_kind::other && indexed_at(t, k) &&
        !(k >= 2 && t[k - 1] == t[k - 2] && (t[k - 1] == "+" || t[k - 1] == "-"));
    const std::string_view after = k + 4 < t.size() ? t[k + 4] : std::string_view();
    const std::string_view after2 = k + 5 < t.size() ? t[k + 5] : std::string_view();
    const std::string_view after3 = k + 6 < t.size() ? t[k + 6] : std::string_view();
    // Stores (=, ++, --, op=, <<=, >>=) and a unary & (the lane's copy has another address, so
    // pointer arithmetic from it would not reach the array) keep the scalar kernel.
    const bool written =
        (after == "=" && after2 != "=") || ((after == "+" || after == "-") && after2 == after) ||
        (after.size() == 1 && std::string_view("+-*/%&|^").find(after) != std::string_view::npos &&
         after2 == "=") ||
        ((after == "<" || after == ">") && after2 == after && after3 == "=");
    const bool address_taken =
        k >= 1 && t[k - 1] == "&" &&
        (k < 2 || !(is_identifier_char(t[k - 2][0]) || t[k - 2] == ")" || t[k - 2] == "]"));
    if (!read_at_i || written || address_taken) {
      // Nothing writes through a const or constant pointer: its other uses may stay as written
      // beside the lanes.
      if (pass_read_only && (p->is_const || p->address_space == "constant")) continue;
      return {};
    }
    const std::size_t from = std::size_t(t[k].data() - text.data());
    const std::size_t to = std::size_t(t[k + 3].data() - text.data()) + 1;
    out.text.append(text.substr(copied, from - copied));
    out.text += lane_prefix + p->name;
    copied = to;
    if (std::none_of(out.arrays.begin(), out.arrays.end(),
                     [&](const parameter& q) { return q.name == p->name; }))
      out.arrays.push_back(*p);
    k += 3;
  }
  if (out.arrays.empty()) return {};
  out.text.append(text.substr(copied));
  return out;
}

bool uses_name(std::string_view text, std::string_view name) {
  for (std::string_view token : source_tokens(text))
    if (token == name) return true;
  return false;
}

bool indexes_with_i(std::string_view text, std::string_view name) {
  const auto t = source_tokens(text);
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
  require_kernel_name_length(what, name, max_template_name_length);
}

template_header start_template(const context& ctx, const std::string& what, const std::string& name,
                               std::string_view arguments, std::string_view reserved,
                               const std::string& value_type, bool value_needs_fp64) {
  if (!ctx) throw error(what + ": the context is empty");
  template_header h;
  h.name = name;
  check_kernel_name(h.name, what);
  h.who = what + " \"" + h.name + "\"";
  h.params = parse_signature(arguments);
  for (const parameter& p : h.params) {
    bool is_reserved = p.name.rfind("clforge_", 0) == 0;
    for (std::string_view word : source_tokens(reserved)) is_reserved |= word == p.name;
    if (is_reserved)
      throw error(h.who + ": the parameter name \"" + p.name + "\" is reserved (" +
                  (reserved.empty() ? std::string() : std::string(reserved) + " and ") +
                  "names starting with clforge_)");
  }
  // The one fp64 check (docs/errors.md row 18), before any source is generated.
  bool uses_double = require_type_support(ctx.info(), h.params, h.who);
  if (value_needs_fp64) {
    require_type_support(ctx.info(), "double", h.who + " (value type " + value_type + ")");
    uses_double = true;
  }
  if (uses_double) h.fp64_pragma = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable";
  return h;
}

template_header template_state::start(const context& ctx, const std::string& what,
                                      const std::string& kernel_name, std::string_view arguments,
                                      std::string_view reserved, const std::string& value_type,
                                      bool value_needs_fp64) {
  template_header header =
      start_template(ctx, what, kernel_name, arguments, reserved, value_type, value_needs_fp64);
  name = header.name;
  who = header.who;
  params = header.params;
  return header;
}

program build_template(const context& ctx, const std::string& who, const template_defines& defines,
                       const std::vector<template_file>& files, const std::string& build_options) {
  std::string source;
  for (const auto& [name, value] : defines) source += "#define " + name + " " + value + "\n";
  for (const template_file& file : files) source += render_kernel(file.name, file.values);
  try {
    return ctx.build(source, build_options);
  } catch (const error& failure) {
    throw error(who + ": ", failure);
  }
}

program build_template(const context& ctx, const template_header& header,
                       std::string_view template_name, const template_values& values,
                       const std::string& build_options, const template_defines& defines) {
  return build_template(ctx, header.who, defines, {{template_name, values}}, build_options);
}

std::size_t fitted_group(std::size_t wanted, std::initializer_list<const kernel*> kernels) {
  std::size_t fits = wanted;
  for (const kernel* k : kernels)
    if (*k) fits = std::min(fits, k->work_group_size());
  return std::max<std::size_t>(1, fits);
}

std::size_t build_for_group(std::size_t group, const std::function<std::size_t(std::size_t)>& build,
                            group_sizes sizes,
                            const std::function<void(std::size_t, std::size_t)>& refuse) {
  // fits < group each round and a group of 1 always fits: the loop ends.
  for (;;) {
    const std::size_t fits = build(group);
    if (fits >= group) return group;
    if (refuse) refuse(group, fits);
    group = fits;
    if (sizes == group_sizes::powers_of_two)
      while (group & (group - 1)) group &= group - 1;  // the highest bit
  }
}

std::string comma_parameters(const std::vector<parameter>& params) {
  return params.empty() ? "" : ", " + parameter_list(params);
}
std::string comma_arguments(const std::vector<parameter>& params) {
  return params.empty() ? "" : ", " + argument_names(params);
}
const char* moved_type_of_size(std::size_t size) {
  switch (size) {
    case 1:
      return "uchar";
    case 2:
      return "ushort";
    case 4:
      return "uint";
    case 8:
      return "ulong";
    default:
      return "ulong2";
  }
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

void check_call(const queue& q, const argument_list& args, const resolved_range& r,
                bool check_lengths) {
  if (check_lengths && r.count > 0)
    args.require_array_lengths(
        static_cast<std::size_t>(r.end_index),
        "the range of this call (largest index " + std::to_string(r.end_index - 1) + ")");
  if (r.count == 0) args.require_context(q.ctx().get());
}

namespace {
// The deprecated shape's fields set in code get the bounds of kernel_shape::parse.
void check_shape(const kernel_shape& s) {
  const std::string who = "kernel shape \"" + s.describe() + "\"";
  check_bound(who, "local", s.local_size, 0, kMaxGroupSize);
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
// The context's policy, or the plain table of the kind a shape names.
template <class Policy>
Policy base_policy(const context& ctx, const kernel_shape& requested) {
  if (requested.which == kernel_shape::kind::automatic) return tuned<Policy>(ctx);
  return table_policy_of<Policy>(requested.which == kernel_shape::kind::gpu ? "generic" : "cpu");
}
std::size_t capped(std::size_t group, const device_info& info) {
  return info.max_work_group_size != 0 ? std::min(group, info.max_work_group_size) : group;
}
template <class T, class U>
T given_or(U given, T otherwise) {
  return given != 0 ? static_cast<T>(given) : otherwise;
}
}  // namespace

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
const kernel_shape& requested_shape(const kernel_options& options) {
  return options.shape;
}
void refuse_shape(const kernel_options& options, const std::string& who) {
  const kernel_shape& s = options.shape;
  const bool set = s.which != kernel_shape::kind::automatic || s.local_size || s.unroll ||
                   s.groups_per_cu || s.vec || s.ilv || s.vload || s.single || s.grid;
  if (set)
    throw error(who + ": kernel_options::shape (\"" + s.describe() +
                "\") applies to elementwise and reduction kernels only; set this template's "
                "tuning with clforge::tuning::set or CLFORGE_TUNE (docs/tuning.md)");
}
#pragma GCC diagnostic pop

elementwise_policy elementwise_policy_for(const context& ctx, const kernel_shape& requested) {
  check_shape(requested);
  elementwise_policy p = base_policy<elementwise_policy>(ctx, requested);
  // A kind asked for stays (the CPU table's elementwise policy is of the GPU kind, with vectors).
  if (requested.which != kernel_shape::kind::automatic) p.kind = work_kind_of(requested.which);
  p.group = capped(given_or(requested.local_size, p.group), ctx.info());
  p.groups_per_cu = given_or(requested.groups_per_cu, p.groups_per_cu);
  p.block = given_or(requested.vec, p.block);
  p.interleave = given_or(requested.ilv, p.interleave);
  p.vector_width = given_or(requested.vload, p.vector_width);
  return p;
}

reduce_policy reduce_policy_for(const context& ctx, const kernel_shape& requested,
                                std::size_t type_size) {
  check_shape(requested);
  reduce_policy p = base_policy<reduce_policy>(ctx, requested);
  p.group = capped(given_or(requested.local_size, p.group), ctx.info());
  p.unroll = given_or(requested.unroll, p.unroll);
  p.groups_per_cu = given_or(requested.groups_per_cu, p.groups_per_cu);
  p.vector_bytes = given_or(requested.vec * type_size, p.vector_bytes);
  p.grid = requested.grid || p.grid;
  p.single_launch = requested.single || p.single_launch;
  return p;
}

kernel_shape shape_of(const elementwise_policy& p) {
  kernel_shape s;
  s.which = kind_of(p.kind);
  s.local_size = p.group;
  s.groups_per_cu = p.groups_per_cu;
  s.vec = p.block;
  s.ilv = p.interleave;
  s.vload = p.vector_width;
  return s;
}

kernel_shape shape_of(const reduce_policy& p, unsigned vector_width) {
  kernel_shape s;
  s.which = kind_of(p.kind);
  s.local_size = p.group;
  s.unroll = p.unroll;
  s.groups_per_cu = p.groups_per_cu;
  s.vec = vector_width > 1 ? vector_width : 0;
  s.grid = p.grid;
  s.single = p.single_launch;
  return s;
}

const cl::Buffer& zeroed_words_per_queue(const queue& q, const std::shared_ptr<const void>& owner,
                                         std::size_t words, const char* what) {
  struct zeroed_words {
    std::once_flag zeroed;
    std::shared_ptr<cl::Buffer> buffer;
  };
  zeroed_words& z = per_queue<zeroed_words>(q, owner);
  std::call_once(z.zeroed, [&] {
    const std::vector<cl_uint> zeros(words, 0);
    z.buffer = q.ctx().pool().allocate(words * sizeof(cl_uint));
    translate_cl_errors(
        [&] {
          q.cl().enqueueWriteBuffer(*z.buffer, CL_TRUE, 0, words * sizeof(cl_uint), zeros.data());
        },
        std::string("zeroing ") + what);
  });
  return *z.buffer;
}

}  // namespace clforge::detail
