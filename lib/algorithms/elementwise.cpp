// SPDX-License-Identifier: MIT
#include "clforge/algorithms/elementwise.hpp"

#include <algorithm>
#include <cctype>

#include "clforge/detail/codegen.hpp"
#include "snippet_support.hpp"
#include "view_variants.hpp"

namespace clforge {

namespace detail {

namespace {

// The operation rewritten for `width`-wide vectors, when it qualifies (kernel_shape::vload).
struct vector_form {
  bool ok = false;
  std::string type;       // vector type, e.g. float4
  std::string operation;  // name[i] replaced by clforge_v_name
  std::string loads, stores;
  std::vector<std::size_t> arrays;  // parameter indices of the arrays used
  std::vector<std::size_t> stored;  // ... of those written
};

vector_form vectorize(const std::string& op, const std::vector<parameter>& params, unsigned width) {
  static const char* const kFunctions[] = {
      "fma",        "mad",        "sqrt",        "rsqrt",        "cbrt",         "exp",
      "exp2",       "log",        "log2",        "log10",        "sin",          "cos",
      "tan",        "tanh",       "fabs",        "fmin",         "fmax",         "pow",
      "floor",      "ceil",       "trunc",       "round",        "copysign",     "hypot",
      "native_exp", "native_log", "native_sqrt", "native_rsqrt", "native_recip", "native_divide",
      "native_sin", "native_cos"};
  vector_form f;
  std::string element;
  std::vector<bool> loaded(params.size(), false), used(params.size(), false),
      written(params.size(), false);
  auto skip = [&](std::size_t j) {
    while (j < op.size() && std::isspace(static_cast<unsigned char>(op[j]))) ++j;
    return j;
  };
  auto is_ident = [](char c, bool first) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
           (!first && std::isdigit(static_cast<unsigned char>(c)));
  };
  std::string out;
  bool statement_start = true;
  for (std::size_t j = 0; j < op.size();) {
    const char c = op[j];
    if (std::isspace(static_cast<unsigned char>(c))) {
      out += c;
      ++j;
      continue;
    }
    if (is_ident(c, true)) {
      std::size_t e = j;
      while (e < op.size() && is_ident(op[e], false)) ++e;
      const std::string word = op.substr(j, e - j);
      std::size_t p = 0;
      while (p < params.size() && params[p].name != word) ++p;
      if (p < params.size() && params[p].is_pointer) {
        const parameter& a = params[p];
        if (a.address_space != "global" || a.kind == scalar_kind::other) return {};
        if (!element.empty() && element != a.type) return {};
        element = a.type;
        std::size_t k = skip(e);
        if (k >= op.size() || op[k] != '[') return {};
        k = skip(k + 1);
        if (k >= op.size() || op[k] != 'i') return {};
        k = skip(k + 1);
        if (k >= op.size() || op[k] != ']') return {};
        e = k + 1;
        k = skip(e);
        const bool assign =
            k < op.size() && op[k] == '=' && (k + 1 >= op.size() || op[k + 1] != '=');
        const bool compound = k + 1 < op.size() &&
                              std::string("+-*/").find(op[k]) != std::string::npos &&
                              op[k + 1] == '=';
        if ((assign || compound) && !statement_start) return {};
        if (assign || compound) written[p] = true;
        if (!assign) loaded[p] = true;
        used[p] = true;
        out += "clforge_v_" + word;
      } else if (p < params.size()) {
        if (params[p].kind == scalar_kind::other) return {};
        out += word;
      } else {
        bool function = false;
        for (const char* fn : kFunctions) function = function || word == fn;
        const std::size_t k = skip(e);
        if (!function || k >= op.size() || op[k] != '(') return {};
        out += word;
      }
      statement_start = false;
      j = e;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      std::size_t e = j;
      while (e < op.size() &&
             (std::isalnum(static_cast<unsigned char>(op[e])) || op[e] == '.' ||
              ((op[e] == '+' || op[e] == '-') && (op[e - 1] == 'e' || op[e - 1] == 'E'))))
        ++e;
      out += op.substr(j, e - j);
      statement_start = false;
      j = e;
      continue;
    }
    if (std::string("+-*/=(),;").find(c) == std::string::npos) return {};
    if ((c == '+' || c == '-' || c == '=') && j + 1 < op.size() && op[j + 1] == c) return {};
    out += c;
    statement_start = c == ';';
    ++j;
  }
  if (element.empty()) return {};
  if (!(element == "float" || element == "double" || element == "int" || element == "uint" ||
        element == "long" || element == "ulong" || element == "short" || element == "ushort" ||
        element == "char" || element == "uchar"))
    return {};
  f.type = element + std::to_string(width);
  f.operation = out;
  for (std::size_t p = 0; p < params.size(); ++p) {
    if (!used[p]) continue;
    f.arrays.push_back(p);
    const std::string& name = params[p].name;
    if (loaded[p])
      f.loads += "    " + f.type + " clforge_v_" + name + " = *(global const " + f.type + "*)(" +
                 name + " + clforge_base);\n";
    else
      f.loads += "    " + f.type + " clforge_v_" + name + ";\n";
    if (written[p]) {
      if (params[p].is_const) return {};
      f.stored.push_back(p);
      f.stores +=
          "    *(global " + f.type + "*)(" + name + " + clforge_base) = clforge_v_" + name + ";\n";
    }
  }
  f.ok = true;
  return f;
}

}  // namespace

struct elementwise_state {
  std::string who;  // `elementwise_kernel "name"`, for messages
  std::string name;
  std::vector<parameter> params;
  kernel_shape shape;
  bool check_lengths = true;
  program built;
  kernel contiguous;              // step 1
  kernel strided;                 // any step
  std::size_t gpu_max_items = 0;  // gpu shape: the fixed number of work-items
  std::size_t local_size = 0;
  unsigned vec = 1, ilv = 1;  // gpu shape: indices per work-item (consecutive / a group apart)
  unsigned vload = 1;         // > 1: `vector` runs the operation on vectors of this width
  kernel vector;
  std::vector<std::size_t> vector_arrays, vector_stored;
  // what the view variants are generated from (view_variants.hpp)
  context ctx;
  std::string operation;
  kernel_options options;
  mutable view_variant_cache<elementwise_kernel> views;
};
}  // namespace detail

elementwise_kernel::elementwise_kernel(const context& ctx, const std::string& arguments,
                                       const std::string& operation,
                                       const kernel_options& options) {
  auto state = std::make_shared<detail::elementwise_state>();
  state->name = options.name.empty() ? "elementwise" : options.name;
  detail::check_kernel_name(state->name, "elementwise_kernel");
  state->who = "elementwise_kernel \"" + state->name + "\"";
  state->params = detail::parse_signature(arguments);
  detail::check_parameter_names(state->params, state->who);
  state->shape = detail::elementwise_shape(ctx, options.shape);
  state->check_lengths = options.check_array_lengths;
  state->ctx = ctx;
  state->operation = operation;
  state->options = options;
  // gpu with groups_per_cu: a fixed number of work-items and a grid-stride loop; otherwise one
  // work-item per index.
  const bool grid_stride =
      state->shape.which == kernel_shape::kind::gpu && state->shape.groups_per_cu != 0;
  // gpu one-item-per-index variants: vec consecutive indices, or ilv indices a group apart
  if (state->shape.which != kernel_shape::kind::gpu || grid_stride) state->shape.vec = 0;
  if (state->shape.vec > 1 || state->shape.which != kernel_shape::kind::gpu || grid_stride)
    state->shape.ilv = 0;
  state->vec = std::max(1u, state->shape.vec);
  state->ilv = std::max(1u, state->shape.ilv);
  state->gpu_max_items = grid_stride ? state->shape.local_size * state->shape.groups_per_cu *
                                           std::max<std::size_t>(1, ctx.info().compute_units)
                                     : 0;

  detail::template_values values{
      {"name", state->name},
      {"strided_name", state->name + "_strided"},
      {"shape", state->shape.describe()},
      {"extensions", detail::fp64_pragma(ctx, state->params, false, state->who)},
      {"preamble", options.preamble},
      {"operation", detail::snippet(operation)},
      {"count_name", detail::count_name(state->params)},
      {"comma_parameters", detail::comma_parameters(state->params)},
      {"comma_arguments", detail::comma_arguments(state->params)},
      {"grid_stride", grid_stride ? "1" : "0"},
      {"vec", std::to_string(state->vec)},
      {"ilv", std::to_string(state->ilv)},
  };
  // vload: the vectorized operation, where it qualifies and compiles (else the scalar kernels)
  detail::vector_form vf;
  if (state->shape.which == kernel_shape::kind::gpu && !grid_stride && state->shape.vload > 1)
    vf = detail::vectorize(operation, state->params, state->shape.vload);
  if (!vf.ok) state->shape.vload = 0;
  values["shape"] = state->shape.describe();
  auto set_vector = [&](bool on) {
    values["vload"] = on ? std::to_string(state->shape.vload) : "0";
    values["vector_name"] = state->name + "_vector";
    values["vector_type"] = on ? vf.type : "none";
    values["vector_loads"] = on ? vf.loads : "";
    values["vector_stores"] = on ? vf.stores : "";
    values["vector_operation"] = on ? detail::snippet(vf.operation) : "";
  };
  set_vector(vf.ok);
  if (vf.ok) {
    try {
      state->built = ctx.build(detail::render_kernel("elementwise", values), options.build_options);
      state->vector = state->built.kernel(state->name + "_vector");
      state->vload = state->shape.vload;
      state->vector_arrays = vf.arrays;
      state->vector_stored = vf.stored;
    } catch (const error&) {
      state->shape.vload = 0;
      values["shape"] = state->shape.describe();
      set_vector(false);
    }
  }
  if (state->vload <= 1)
    state->built = ctx.build(detail::render_kernel("elementwise", values), options.build_options);
  state->contiguous = state->built.kernel(state->name);
  state->strided = state->built.kernel(state->name + "_strided");
  state->local_size = std::max<std::size_t>(
      1, std::min({state->shape.local_size, state->contiguous.work_group_size(),
                   state->strided.work_group_size()}));
  if (state->vector)
    state->local_size = std::min(state->local_size, state->vector.work_group_size());
  state_ = std::move(state);
}

const std::string& elementwise_kernel::source() const {
  return state_->built.source();
}
const std::string& elementwise_kernel::name() const {
  return state_->name;
}
const kernel_shape& elementwise_kernel::shape() const {
  return state_->shape;
}
const std::string& elementwise_kernel::who() const {
  if (!state_) throw error("elementwise_kernel: called before construction");
  return state_->who;
}
const std::vector<detail::parameter>& elementwise_kernel::parameters() const {
  if (!state_) throw error("elementwise_kernel: called before construction");
  return state_->params;
}

namespace {
// The vector kernel loads every array before and stores after the operation: exact unless a
// written array is also passed as another array argument (or they share a parent buffer).
bool vector_safe(const detail::elementwise_state& s, const detail::argument_list& bound) {
  if (s.vector_stored.empty() || s.vector_arrays.size() < 2) return true;
  std::vector<cl_mem> roots;
  for (std::size_t p : s.vector_arrays) {
    cl_mem m = bound.memory(p), parent = nullptr;
    if (clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, nullptr) ==
            CL_SUCCESS &&
        parent != nullptr)
      return false;  // a sub-buffer: may overlap another argument
    roots.push_back(m);
  }
  for (std::size_t a = 0; a < roots.size(); ++a)
    for (std::size_t b = a + 1; b < roots.size(); ++b)
      if (roots[a] == roots[b]) return false;
  return true;
}
}  // namespace

event elementwise_kernel::run(const queue& q, const detail::resolved_range& r,
                              const detail::argument_list& bound) const {
  const detail::elementwise_state& s = *state_;
  detail::check_lengths(bound, r, s.check_lengths);
  if (r.count == 0) return {};
  if (bound.has_views()) {
    const std::string pattern = bound.view_pattern();
    auto variant = s.views.get(pattern, [&] {
      detail::view_variant_source v =
          detail::rewrite_for_views(s.params, pattern, {s.operation}, s.options.preamble, s.who);
      return std::make_shared<const elementwise_kernel>(s.ctx, v.arguments, v.snippets[0],
                                                        s.options);
    });
    return variant->run(q, r, bound.expanding_views());
  }
  std::size_t items = static_cast<std::size_t>(r.count);
  if (s.gpu_max_items != 0) items = std::min(items, s.gpu_max_items);
  if (s.vec > 1) items = (items + s.vec - 1) / s.vec;
  if (s.ilv > 1) {
    const std::size_t per_group = s.local_size * s.ilv;
    items = (items + per_group - 1) / per_group * s.local_size;
  }
  // The kernels guard with the count: the launch may be padded to whole groups.
  const ndrange range = ndrange::padded(items).with_local(s.local_size);
  if (s.vload > 1 && r.step == 1 && r.first % s.vload == 0 && vector_safe(s, bound)) {
    const std::size_t vectors = (static_cast<std::size_t>(r.count) + s.vload - 1) / s.vload;
    return detail::launch_with(q, s.vector, ndrange::padded(vectors).with_local(s.local_size),
                               [&](detail::kernel_state& k) {
                                 detail::set_arg(k, 0, static_cast<cl_ulong>(r.first));
                                 detail::set_arg(k, 1, static_cast<cl_ulong>(r.count));
                                 bound.set_on(k.handle(), 2);
                               });
  }
  if (r.step == 1) {
    return detail::launch_with(q, s.contiguous, range, [&](detail::kernel_state& k) {
      detail::set_arg(k, 0, static_cast<cl_ulong>(r.first));
      detail::set_arg(k, 1, static_cast<cl_ulong>(r.count));
      bound.set_on(k.handle(), 2);
    });
  }
  return detail::launch_with(q, s.strided, range, [&](detail::kernel_state& k) {
    detail::set_arg(k, 0, static_cast<cl_ulong>(r.first));
    detail::set_arg(k, 1, static_cast<cl_ulong>(r.step));
    detail::set_arg(k, 2, static_cast<cl_ulong>(r.count));
    bound.set_on(k.handle(), 3);
  });
}

}  // namespace clforge
