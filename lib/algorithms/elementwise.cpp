// SPDX-License-Identifier: MIT
#include "clforge/algorithms/elementwise.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "clforge/array.hpp"
#include "clforge/detail/codegen.hpp"
#include "template_engine.hpp"
#include "tuning/candidate.hpp"
#include "tuning/store.hpp"
#include "tuning/workload.hpp"
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
  const std::vector<std::string_view> t = source_tokens(op);
  auto at = [&](std::size_t k) { return k < t.size() ? t[k] : std::string_view(); };
  auto is_word = [](std::string_view w) { return !w.empty() && is_identifier_char(w[0]); };
  std::string out;
  bool statement_start = true;
  for (std::size_t k = 0; k < t.size(); ++k) {
    const std::string_view w = t[k];
    // Tokens are joined without their blanks; two words keep one between them.
    if (k > 0 && is_word(w) && is_word(t[k - 1])) out += ' ';
    if (is_identifier_start(w[0])) {
      std::size_t p = 0;
      while (p < params.size() && params[p].name != w) ++p;
      if (p < params.size() && params[p].is_pointer) {
        const parameter& a = params[p];
        if (a.address_space != "global" || a.kind == scalar_kind::other) return {};
        if (!element.empty() && element != a.type) return {};
        element = a.type;
        if (at(k + 1) != "[" || at(k + 2) != "i" || at(k + 3) != "]") return {};
        k += 3;
        const bool assign = at(k + 1) == "=" && at(k + 2) != "=";
        const bool compound = at(k + 1).size() == 1 &&
                              std::string_view("+-*/").find(at(k + 1)) != std::string::npos &&
                              at(k + 2) == "=";
        if ((assign || compound) && !statement_start) return {};
        if (assign || compound) written[p] = true;
        if (!assign) loaded[p] = true;
        used[p] = true;
        out += "clforge_v_" + std::string(w);
      } else if (p < params.size()) {
        if (params[p].kind == scalar_kind::other) return {};
        out += w;
      } else {
        bool function = false;
        for (const char* fn : kFunctions) function = function || w == fn;
        if (!function || at(k + 1) != "(") return {};
        out += w;
      }
      statement_start = false;
    } else if (is_word(w) || w == ".") {  // numbers: 1, 1.5f, 2e-3 (as 2e - 3)
      out += w;
      statement_start = false;
    } else {
      if (std::string_view("+-*/=(),;").find(w) == std::string::npos) return {};
      if ((w == "+" || w == "-" || w == "=") && at(k + 1) == w) return {};
      out += w;
      statement_start = w == ";";
    }
  }
  if (element.empty()) return {};
  if (scalar_type_index(element) < 0) return {};
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

struct elementwise_state : template_state_of<kernel_options, elementwise_kernel> {
  elementwise_policy policy;  // as built: block, interleave, vector_width 0 where unused
  kernel_shape shape;         // shape() (the deprecated kernel_shape's view of the policy)
  bool check_lengths = true;
  kernel contiguous;                   // step 1
  kernel strided;                      // any step
  std::size_t gpu_max_items = 0;       // gpu, groups_per_cu: the fixed number of work-items
  std::size_t group = 0;               // work-items per group, fitted to the kernels
  unsigned block = 1, interleave = 1;  // gpu: indices per work-item (consecutive / a group apart)
  unsigned vector_width = 1;           // > 1: `vector` runs the operation on vectors
  kernel vector;
  std::vector<std::size_t> vector_arrays, vector_stored;
  // what the view variants and the rebuilds under a new tuning are generated from (with the
  // options the base keeps); they are built with the calling queue's context, so the state
  // holds no context handle
  std::string arguments, operation;
};
}  // namespace detail

elementwise_kernel::elementwise_kernel(const context& ctx, const std::string& arguments,
                                       const std::string& operation,
                                       const kernel_options& options) {
  auto state = std::make_shared<detail::elementwise_state>();
  const detail::template_header header =
      state->start(ctx, "elementwise_kernel", options, "elementwise", arguments, "i");
  state->stamp = detail::tuning_stamp(ctx);
  detail::elementwise_policy& p = state->policy;
  p = detail::elementwise_policy_for(ctx, detail::requested_shape(options));
  state->check_lengths = options.check_array_lengths;
  state->arguments = arguments;
  state->operation = operation;
  const bool gpu = p.kind == detail::work_kind::gpu;
  // gpu with groups_per_cu: a fixed number of work-items and a grid-stride loop; otherwise one
  // work-item per index.
  const bool grid_stride = gpu && p.groups_per_cu != 0;
  if (!gpu) p.groups_per_cu = 0;
  // gpu one-item-per-index variants: block consecutive indices, or interleave indices a group
  // apart
  if (!gpu || grid_stride) p.block = 0;
  if (p.block > 1 || !gpu || grid_stride) p.interleave = 0;
  state->block = std::max(1u, p.block);
  state->interleave = std::max(1u, p.interleave);
  state->gpu_max_items =
      grid_stride ? p.group * p.groups_per_cu * std::max<std::size_t>(1, ctx.info().compute_units)
                  : 0;

  detail::template_values values{
      {"name", state->name},
      {"strided_name", state->name + "_strided"},
      {"extensions", header.fp64_pragma},
      {"preamble", detail::snippet(options.preamble)},
      {"operation", detail::snippet(operation)},
      {"count_name", detail::count_name(state->params)},
      {"comma_parameters", detail::comma_parameters(state->params)},
      {"comma_arguments", detail::comma_arguments(state->params)},
      {"grid_stride", grid_stride ? "1" : "0"},
      {"block", std::to_string(state->block)},
      {"interleave", std::to_string(state->interleave)},
  };
  // vector_width: the vectorized operation, where it qualifies and compiles (else the scalar
  // kernels)
  detail::vector_form vf;
  if (gpu && !grid_stride && p.vector_width > 1)
    vf = detail::vectorize(operation, state->params, p.vector_width);
  if (!vf.ok) p.vector_width = 0;
  auto set_vector = [&](bool on) {
    if (!on) p.vector_width = 0;
    values["policy"] = detail::policy_text(p);
    values["vector_width"] = on ? std::to_string(p.vector_width) : "0";
    values["vector_name"] = state->name + "_vector";
    values["vector_type"] = on ? vf.type : "none";
    values["vector_loads"] = on ? vf.loads : "";
    values["vector_stores"] = on ? vf.stores : "";
    values["vector_operation"] = on ? detail::snippet(vf.operation) : "";
  };
  set_vector(vf.ok);
  if (vf.ok) {
    try {
      state->prog =
          detail::build_template(ctx, header, "elementwise", values, options.build_options);
      state->vector = state->prog.kernel(state->name + "_vector");
      state->vector_width = p.vector_width;
      state->vector_arrays = vf.arrays;
      state->vector_stored = vf.stored;
    } catch (const error&) {
      set_vector(false);
    }
  }
  if (state->vector_width <= 1)
    state->prog = detail::build_template(ctx, header, "elementwise", values, options.build_options);
  state->contiguous = state->prog.kernel(state->name);
  state->strided = state->prog.kernel(state->name + "_strided");
  state->group =
      detail::fitted_group(p.group, {&state->contiguous, &state->strided, &state->vector});
  state->shape = detail::shape_of(p);
  state_ = std::move(state);
}

const std::string& elementwise_kernel::source() const {
  return state_->prog.source();
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
  if (auto retuned = s.retuned.get(s.stamp, q.ctx(), [&] {
        return std::make_shared<const elementwise_kernel>(q.ctx(), s.arguments, s.operation,
                                                          s.options);
      }))
    return retuned->run(q, r, bound);
  detail::check_call(q, bound, r, s.check_lengths);
  if (r.count == 0) return {};
  if (bound.has_views()) {
    const std::string pattern = bound.view_pattern();
    auto variant = s.views.get(pattern, [&] {
      detail::view_variant_source v =
          detail::rewrite_for_views(s.params, pattern, {s.operation}, s.options.preamble, s.who);
      return std::make_shared<const elementwise_kernel>(q.ctx(), v.arguments, v.snippets[0],
                                                        s.options);
    });
    return variant->run(q, r, bound.expanding_views());
  }
  std::size_t items = static_cast<std::size_t>(r.count);
  if (s.gpu_max_items != 0) items = std::min(items, s.gpu_max_items);
  if (s.block > 1) items = (items + s.block - 1) / s.block;
  if (s.interleave > 1) {
    const std::size_t per_group = s.group * s.interleave;
    items = (items + per_group - 1) / per_group * s.group;
  }
  // The kernels guard with the count: the launch may be padded to whole groups.
  const ndrange range = ndrange::padded(items).with_local(s.group);
  if (s.vector_width > 1 && r.step == 1 && r.first % s.vector_width == 0 && vector_safe(s, bound)) {
    const std::size_t vectors =
        (static_cast<std::size_t>(r.count) + s.vector_width - 1) / s.vector_width;
    return q.launch(s.vector, ndrange::padded(vectors).with_local(s.group),
                    static_cast<cl_ulong>(r.first), static_cast<cl_ulong>(r.count), bound);
  }
  if (r.step == 1)
    return q.launch(s.contiguous, range, static_cast<cl_ulong>(r.first),
                    static_cast<cl_ulong>(r.count), bound);
  return q.launch(s.strided, range, static_cast<cl_ulong>(r.first), static_cast<cl_ulong>(r.step),
                  static_cast<cl_ulong>(r.count), bound);
}

}  // namespace clforge

// ---- the tuner's workload: saxpy on float32 ---------------------------------------------------

namespace clforge::detail {

namespace {

struct saxpy_data {
  array<float> x, y, y0;
  std::vector<float> reference;  // the baseline's output
};

class saxpy_trial final : public tuning_trial {
 public:
  saxpy_trial(std::shared_ptr<saxpy_data> data, elementwise_kernel k)
      : data_(std::move(data)), kernel_(std::move(k)) {}
  commands run(const queue& q) override {
    const event e = kernel_(q, 2.0f, data_->x, data_->y);
    return {e, e};
  }
  std::string check(const queue& q) override {
    data_->y0.copy_to(q, data_->y);
    run(q);
    const std::vector<float> out = data_->y.to_host(q);
    if (data_->reference.empty()) {
      data_->reference = out;
      return "";
    }
    const std::vector<float>& ref = data_->reference;
    for (std::size_t i = 0; i < out.size(); ++i)
      if (!(std::fabs(out[i] - ref[i]) <= 1e-5f * std::max(1.0f, std::fabs(ref[i]))))
        return "y[" + std::to_string(i) + "] = " + std::to_string(out[i]) + ", the baseline gave " +
               std::to_string(ref[i]);
    return "";
  }

 private:
  std::shared_ptr<saxpy_data> data_;
  elementwise_kernel kernel_;
};

class saxpy_workload final : public tuning_workload {
 public:
  saxpy_workload(const queue& q, std::size_t n)
      : tuning_workload("float32/" + size_bucket(n), sizeof(float)),
        ctx_(q.ctx()),
        data_(std::make_shared<saxpy_data>()) {
    data_->x = array<float>::from_host(q, tuning_floats(n, 1));
    data_->y0 = array<float>::from_host(q, tuning_floats(n, 2));
    data_->y = data_->y0.clone(q);
  }
  std::unique_ptr<tuning_trial> make(const std::string& settings, const queue&) const override {
    candidate_scope scope("elementwise", settings);
    kernel_options o;
    o.name = "tune_saxpy";
    return std::make_unique<saxpy_trial>(
        data_, elementwise_kernel(ctx_, "const float a, global const float* x, global float* y",
                                  "y[i] = a * x[i] + y[i]", o));
  }

 private:
  context ctx_;
  std::shared_ptr<saxpy_data> data_;
};

}  // namespace

std::unique_ptr<tuning_workload> elementwise_policy::workload(const queue& q, std::size_t size) {
  return std::make_unique<saxpy_workload>(q, size);
}

}  // namespace clforge::detail
