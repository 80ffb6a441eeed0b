// SPDX-License-Identifier: MIT
#include "clforge/algorithms/reduction.hpp"
#include "clforge/algorithms/stencil.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "clforge/array.hpp"
#include "clforge/detail/codegen.hpp"
#include "template_engine.hpp"
#include "tuning/candidate.hpp"
#include "tuning/store.hpp"
#include "tuning/workload.hpp"
#include "view_variants.hpp"

namespace clforge::detail {

/// The engine behind reduction_core and the built-in reductions: the built program, its kernels
/// and the launch plan. Shared (shared_from_this) so that its per-queue state can name it.
class reduction_engine : public template_state_of<reduction_options, reduction_engine>,
                         public std::enable_shared_from_this<reduction_engine> {
 public:
  reduction_engine(const context& ctx, const reduction_description& d,
                   const reduction_options& options, const std::string& what);

  /// Reduces over `r` into `result` (at least type_size bytes). Returns the event of the last
  /// command, or an empty event when want_event is false (the caller reads the result with a
  /// blocking read: creating events costs host time).
  event run(const queue& q, const resolved_range& r, const argument_list& args,
            const cl::Buffer& result, bool want_event = true) const;
  /// run(), then a blocking read of the result into `dst` (type_size bytes).
  void run_to_host(const queue& q, const resolved_range& r, const argument_list& args,
                   void* dst) const;

  const kernel_shape& shape() const { return shape_; }
  const std::string& source() const { return prog.source(); }

 private:
  /// run() without the barriers around it: stage 1, then stage 2 where needed.
  event run_stages(const queue& q, const resolved_range& r, const argument_list& args,
                   const cl::Buffer& result, bool want_event) const;
  /// The single-launch shape's zeroed counter on `q` (per queue: calls on one queue run one
  /// after the other, and each call's last group resets it).
  const cl::Buffer& counter_for(const queue& q) const;

  reduce_policy policy_;  // as built: grid off where it does not apply
  kernel_shape shape_;    // shape() (the deprecated kernel_shape's view of the policy)
  bool check_lengths_ = true;
  std::size_t type_size_ = 0;
  std::size_t target_groups_ = 1;
  unsigned vector_width_ = 1;  // elements per vector load in vector_ (1: no vector kernel)
  kernel contiguous_, strided_, final_, vector_;
  // What calls passing array views, and rebuilds under a new tuning, are generated from.
  reduction_description description_;
  std::string what_;
};

namespace {

// CPU shape: a group's chunk is at most this many rounds of local * unroll elements, so each
// of a work-item's `unroll` accumulators adds at most this many values (see the accuracy note).
constexpr std::uint64_t kCpuMaxRounds = 4096;

std::size_t floor_pow2(std::size_t v) {
  std::size_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

// clforge_reduce over the components of a vector v of `width` values, as a pairwise tree.
// clforge_map_vector(k, base, n, ...): the map at the vec indices from base + k * vec, each
// array read as one aligned vector and the map evaluated lane by lane (the same scalar code as
// clforge_map, so the results are those of the scalar kernels).
std::string vector_map_function(const lane_rewrite& lanes, const std::string& type, unsigned vec,
                                const std::vector<parameter>& params) {
  static const char* digits = "0123456789abcdef";
  const std::string width = std::to_string(vec);
  std::string f =
      "static inline clforge_vector_t clforge_map_vector(const ulong clforge_vk, "
      "const ulong clforge_base, const long " +
      count_name(params) + comma_parameters(params) + ")\n{\n";
  for (const parameter& a : lanes.arrays)
    f += "  const " + a.type + width + " clforge_vector_" + a.name + " = ((global const " + a.type +
         width + "*)(" + a.name + " + clforge_base))[clforge_vk];\n";
  f += "  clforge_vector_t clforge_r;\n";
  for (unsigned j = 0; j < vec; ++j) {
    const std::string lane = std::string(".s") + digits[j];
    f += "  {\n    const long i = (long)(clforge_base + clforge_vk * " + width + " + " +
         std::to_string(j) + ");\n";
    for (const parameter& a : lanes.arrays)
      f += "    const " + a.type + " clforge_lane_" + a.name + " = clforge_vector_" + a.name +
           lane + ";\n";
    f += "    clforge_r" + lane + " = (" + type + ")(" + snippet(lanes.text) + ");\n  }\n";
  }
  return f + "  return clforge_r;\n}\n";
}

std::string vector_reduce_expression(unsigned width) {
  static const char* digits = "0123456789abcdef";
  std::vector<std::string> terms;
  for (unsigned j = 0; j < width && j < 16; ++j) terms.push_back(std::string("v.s") + digits[j]);
  if (terms.empty()) return "v";
  while (terms.size() > 1) {
    std::vector<std::string> next;
    for (std::size_t j = 0; j + 1 < terms.size(); j += 2)
      next.push_back("clforge_reduce(" + terms[j] + ", " + terms[j + 1] + ")");
    if (terms.size() % 2) next.push_back(terms.back());
    terms = next;
  }
  return terms[0];
}

}  // namespace

reduction_engine::reduction_engine(const context& ctx, const reduction_description& d,
                                   const reduction_options& options, const std::string& what)
    : description_(d), what_(what) {
  const template_header header =
      start(ctx, what, options, "reduce", d.arguments, "i", d.type_name, d.type_needs_fp64);
  check_lengths_ = options.check_array_lengths;
  type_size_ = d.type_size;
  if (options.compensated) {
    if (!d.type_is_floating)
      throw error(who + ": compensated summation needs a float or double result, not " +
                  d.type_name);
    const std::vector<std::string_view> r = source_tokens(d.reduce);
    const bool sum = r.size() == 3 && r[1] == "+" &&
                     ((r[0] == "a" && r[2] == "b") || (r[0] == "b" && r[2] == "a"));
    if (!sum)
      throw error(who + ": compensated summation needs the reduce expression a + b, not \"" +
                  d.reduce + "\"");
  }

  const device_info& info = ctx.info();
  // The tuned policy (lib/tuning/tables.cpp); vector loads (gpu, a map that reads its arrays
  // only at index i, such as x[i] or x[i] * y[i]) of vector_bytes, grid applying to the vector
  // kernel only.
  stamp = tuning_stamp(ctx);
  policy_ = reduce_policy_for(ctx, requested_shape(options), d.type_size);
  const bool gpu = policy_.kind == work_kind::gpu;
  const unsigned width =
      static_cast<unsigned>(std::max<std::size_t>(1, policy_.vector_bytes / d.type_size));
  const lane_rewrite lanes = gpu && width > 1 && scalar_type_index(d.type_name) >= 0
                                 ? read_by_lanes(params, d.map, "clforge_lane_")
                                 : lane_rewrite{};
  if (lanes.arrays.empty()) policy_.vector_bytes = 0, policy_.grid = false;
  vector_width_ = lanes.arrays.empty() ? 1 : width;
  if (!gpu) policy_.grid = false;
  // The tree needs a power of two; the scratch array must fit in local memory (half of it, to
  // leave room for the implementation).
  std::size_t local = floor_pow2(policy_.group);
  while (local > 1 && info.local_mem_bytes != 0 && local * type_size_ > info.local_mem_bytes / 2)
    local /= 2;
  target_groups_ = std::max<std::size_t>(
      1, std::size_t(policy_.groups_per_cu) * std::max(1u, info.compute_units));

  // Generated for `local` work-items per group, and again for a power of two the built kernels
  // run where they run fewer.
  policy_.group = build_for_group(
      local,
      [&](std::size_t group) {
        policy_.group = group;
        const unsigned vec = vector_width_;
        template_values values{
            {"name", name},
            {"strided_name", name + "_strided"},
            {"final_name", name + "_final"},
            {"vector_name", name + "_vector"},
            {"T", d.type_name},
            {"policy", policy_text(policy_)},
            {"compensated", options.compensated ? "yes (Kahan)" : "no"},
            {"compensated_flag", options.compensated ? "1" : "0"},
            {"extensions", header.fp64_pragma},
            {"preamble", snippet(options.preamble)},
            {"map", snippet(d.map)},
            {"reduce", snippet(d.reduce)},
            {"neutral", snippet(d.neutral)},
            {"group", std::to_string(group)},
            {"unroll", std::to_string(policy_.unroll)},
            {"vector_width", std::to_string(vec)},
            {"single_launch", policy_.single_launch ? "1" : "0"},
            {"grid", policy_.grid ? "1" : "0"},
            {"single_parameters", policy_.single_launch
                                      ? ", global volatile uint* clforge_counter, global " +
                                            d.type_name + "* clforge_result"
                                      : ""},
            {"vector_type", vec > 1 ? d.type_name + std::to_string(vec) : d.type_name},
            {"vector_map",
             vec > 1 ? vector_map_function(lanes, d.type_name, vec, params) : std::string()},
            {"vector_reduce", vector_reduce_expression(vec)},
            {"kind_gpu", gpu ? "1" : "0"},
            {"count_name", count_name(params)},
            {"comma_parameters", comma_parameters(params)},
            {"comma_arguments", comma_arguments(params)},
        };
        prog = build_template(ctx, header, "reduction", values, options.build_options);
        contiguous_ = prog.kernel(name);
        strided_ = prog.kernel(name + "_strided");
        final_ = prog.kernel(name + "_final");
        if (vector_width_ > 1) vector_ = prog.kernel(name + "_vector");
        return fitted_group(group, {&contiguous_, &strided_, &final_, &vector_});
      },
      group_sizes::powers_of_two);
  shape_ = shape_of(policy_, vector_width_);
}

event reduction_engine::run(const queue& q, const resolved_range& r, const argument_list& args,
                            const cl::Buffer& result, bool want_event) const {
  // On an out-of-order queue, barriers around the call (and between its stages) keep its
  // commands in order with each other and with the calls before and after it, as the pooled
  // partials and the single-launch counter need (both are reused by the next call).
  // Memory of another context is refused before anything is enqueued.
  require_same_context(result(), nullptr, q.ctx().get(), who, "the result array");
  if (auto rebuilt = retuned.get(stamp, q.ctx(), [&] {
        return std::make_shared<const reduction_engine>(q.ctx(), description_, options, what_);
      }))
    return rebuilt->run(q, r, args, result, want_event);
  check_call(q, args, r, check_lengths_);
  if (args.has_views()) {
    const std::string pattern = args.view_pattern();
    auto variant = views.get(pattern, [&] {
      view_variant_source v =
          rewrite_for_views(params, pattern, {description_.map, description_.reduce},
                            options.preamble + " " + description_.neutral, who);
      reduction_description d = description_;
      d.arguments = v.arguments;
      d.map = v.snippets[0];
      d.reduce = v.snippets[1];
      return std::make_shared<const reduction_engine>(q.ctx(), d, options, what_);
    });
    return variant->run(q, r, args.expanding_views(), result, want_event);
  }
  order_point(q);
  event last = run_stages(q, r, args, result, want_event);
  order_point(q);
  return last;
}

event reduction_engine::run_stages(const queue& q, const resolved_range& r,
                                   const argument_list& args, const cl::Buffer& result,
                                   bool want_event) const {
  const std::size_t local = policy_.group;
  const std::uint64_t count = r.count;
  auto final_range = [&] {
    ndrange range = ndrange(local).with_local(local);
    return want_event ? range : range.without_event();
  };
  // The final kernel over no partials writes the neutral element.
  if (count == 0) return q.launch(final_, final_range(), cl_ulong(0), result, result);
  // Vector loads need step 1 and the slice start at a multiple of the vector width (buffers
  // start aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least 128 bytes).
  const bool vector = vector_width_ > 1 && r.step == 1 && r.first % vector_width_ == 0;
  const std::uint64_t round = std::uint64_t(local) * policy_.unroll * (vector ? vector_width_ : 1);
  // Spread over target_groups_ groups; chunks stay multiples of `round` (see the accuracy
  // note in reduction.hpp). CPU chunks stop at kCpuMaxRounds rounds, which bounds each
  // work-item's chain of additions.
  const std::uint64_t per_group = (count + target_groups_ - 1) / target_groups_;
  std::uint64_t chunk = (per_group + round - 1) / round * round;
  if (policy_.kind != work_kind::gpu) chunk = std::min(chunk, round * kCpuMaxRounds);
  const std::uint64_t groups = (count + chunk - 1) / chunk;

  // Back to the pool fenced by this queue when the call returns (another queue may be next).
  queue_temporary partials;
  if (groups > 1) partials = queue_temporary(q, static_cast<std::size_t>(groups) * type_size_);
  const cl::Buffer& stage1_out = groups > 1 ? *partials : result;
  ndrange range1 = ndrange(static_cast<std::size_t>(groups) * local).with_local(local);
  // Stage 1. Arguments: first, step (strided kernel only), count, chunk, partials, then for the
  // single-launch shape the counter and result, then the user's arguments.
  const bool strided = r.step != 1;
  const bool one_launch = !strided && policy_.single_launch;  // the last group writes result[0]
  if (!(want_event && (one_launch || groups <= 1))) range1.without_event();
  event last;
  if (strided)
    last = q.launch(strided_, range1, cl_ulong(r.first), cl_ulong(r.step), cl_ulong(count),
                    cl_ulong(chunk), stage1_out, args);
  else if (one_launch)
    last = q.launch(vector ? vector_ : contiguous_, range1, cl_ulong(r.first), cl_ulong(count),
                    cl_ulong(chunk), stage1_out, counter_for(q), result, args);
  else
    last = q.launch(vector ? vector_ : contiguous_, range1, cl_ulong(r.first), cl_ulong(count),
                    cl_ulong(chunk), stage1_out, args);
  if (one_launch || groups <= 1) return last;
  order_point(q);  // stage 2 reads what stage 1 wrote
  return q.launch(final_, final_range(), cl_ulong(groups), stage1_out, result);
}

const cl::Buffer& reduction_engine::counter_for(const queue& q) const {
  return zeroed_words_per_queue(q, shared_from_this(), 1, "a reduction counter");
}

void reduction_engine::run_to_host(const queue& q, const resolved_range& r,
                                   const argument_list& args, void* dst) const {
  const std::shared_ptr<cl::Buffer> result = q.ctx().pool().allocate(type_size_);
  run(q, r, args, *result, false);
  translate_cl_errors([&] { q.cl().enqueueReadBuffer(*result, CL_TRUE, 0, type_size_, dst); },
                      "reading a reduction result");
}

// ---- reduction_core ------------------------------------------------------------------------

reduction_core::reduction_core(const context& ctx, const reduction_description& d,
                               const reduction_options& options, const std::string& what)
    : engine_(std::make_shared<const reduction_engine>(ctx, d, options, what)) {}

const reduction_engine& reduction_core::engine() const {
  if (!engine_) throw error("reduction_kernel: called before construction");
  return *engine_;
}
const std::string& reduction_core::who() const {
  return engine().who;
}
const std::vector<parameter>& reduction_core::parameters() const {
  return engine().params;
}
const std::string& reduction_core::source() const {
  return engine().source();
}
const kernel_shape& reduction_core::shape() const {
  return engine().shape();
}
event reduction_core::into(const queue& q, const resolved_range& r, const argument_list& args,
                           const cl::Buffer& result) const {
  return engine().run(q, r, args, result);
}
void reduction_core::to_host(const queue& q, const resolved_range& r, const argument_list& args,
                             void* dst) const {
  engine().run_to_host(q, r, args, dst);
}

// ---- built-ins -----------------------------------------------------------------------------

namespace {

const char* op_name(builtin_reduction op) {
  switch (op) {
    case builtin_reduction::sum:
      return "sum";
    case builtin_reduction::dot:
      return "dot";
    case builtin_reduction::min:
      return "min";
    case builtin_reduction::max:
      return "max";
    case builtin_reduction::minmax:
      return "minmax";
  }
  return "?";
}

// `box`: the elements are a box of a field (clforge/field.hpp), element i of x at
// x[xo + (i / (n1 * n2)) * xs0 + (i / n2 % n1) * xs1 + i % n2] (y with its own offset and
// strides), instead of x[i].
reduction_description describe_builtin(builtin_reduction op, int element, int result,
                                       bool box = false) {
  const scalar_type& e = scalar_types[element];
  const scalar_type& r = scalar_types[result];
  const std::string t = e.name;
  const bool fp = e.is_floating;
  reduction_description d;
  d.arguments = "global const " + t + "* x";
  if (box) d.arguments += ", long xo, long xs0, long xs1, long n1, long n2";
  const std::string at =
      box ? "[xo + (i / (n1 * n2)) * xs0 + (i / n2 % n1) * xs1 + i % n2]" : "[i]";
  const std::string y_at =
      box ? "[yo + (i / (n1 * n2)) * ys0 + (i / n2 % n1) * ys1 + i % n2]" : "[i]";
  const std::string x_i = "x" + at;
  d.type_name = r.name;
  d.type_size = r.size;
  d.type_is_floating = r.is_floating;
  d.type_needs_fp64 = std::string(r.name) == "double" || t == "double";
  const std::string lo = fp ? "fmin" : "min", hi = fp ? "fmax" : "max";
  switch (op) {
    case builtin_reduction::sum:
      d.map = result == element ? x_i : "(" + std::string(r.name) + ")" + x_i;
      d.reduce = "a + b";
      d.neutral = "0";
      break;
    case builtin_reduction::dot:
      d.arguments += ", global const " + t + "* y";
      if (box) d.arguments += ", long yo, long ys0, long ys1";
      d.map = x_i + " * y" + y_at;
      d.reduce = "a + b";
      d.neutral = "0";
      break;
    case builtin_reduction::min:
      d.map = x_i;
      d.reduce = lo + "(a, b)";
      d.neutral = fp ? "NAN" : e.max_constant;
      break;
    case builtin_reduction::max:
      d.map = x_i;
      d.reduce = hi + "(a, b)";
      d.neutral = fp ? "NAN" : e.min_constant;
      break;
    case builtin_reduction::minmax: {
      const std::string t2 = t + "2";
      d.type_name = t2;
      d.type_size = 2 * e.size;
      d.type_is_floating = false;
      d.map = "(" + t2 + ")(" + x_i + ", " + x_i + ")";
      d.reduce = "(" + t2 + ")(" + lo + "(a.x, b.x), " + hi + "(a.y, b.y))";
      d.neutral = "(" + t2 + ")(" + (fp ? "NAN" : e.max_constant) + ", " +
                  (fp ? "NAN" : e.min_constant) + ")";
      break;
    }
  }
  return d;
}

}  // namespace

const reduction_engine& builtin_engine(const context& ctx, builtin_reduction op, int element,
                                       int result, bool compensated) {
  const std::string name =
      std::string(op_name(op)) + "_" + scalar_types[element].name +
      (result != element ? std::string("_to_") + scalar_types[result].name : "") +
      (compensated ? "_compensated" : "");
  // Kept with the context (released with it), so the engine holds no context handle.
  return *per_context_as<reduction_engine>(ctx, "clforge.reductions", name, [&] {
    reduction_options options;
    options.name = name;
    options.compensated = compensated;
    options.check_array_lengths = false;  // the built-ins check their arrays themselves
    return std::make_shared<reduction_engine>(ctx, describe_builtin(op, element, result), options,
                                              std::string("clforge::") + op_name(op));
  });
}

namespace {
argument_list bind_builtin(const reduction_engine& engine, const cl_mem* buffers,
                           std::size_t buffer_count) {
  const template_state& h = engine;
  const cl::Buffer x(buffers[0], true);
  if (buffer_count == 1) return argument_list::bind(h.who, h.params, x);
  return argument_list::bind(h.who, h.params, x, cl::Buffer(buffers[1], true));
}
}  // namespace

event run_builtin(const queue& q, const reduction_engine& engine, const cl_mem* buffers,
                  std::size_t buffer_count, std::size_t n, const cl::Buffer& result) {
  return engine.run(q, whole_range(n), bind_builtin(engine, buffers, buffer_count), result);
}

void run_builtin_to_host(const queue& q, const reduction_engine& engine, const cl_mem* buffers,
                         std::size_t buffer_count, std::size_t n, void* dst) {
  engine.run_to_host(q, whole_range(n), bind_builtin(engine, buffers, buffer_count), dst);
}

void throw_builtin_error(const char* what, const std::string& detail) {
  throw error(std::string("clforge::") + what + ": " + detail);
}

void reduce_field_box(const queue& q, box_reduction op, int element, const cl::Buffer& x,
                      const field_box& xb, const cl::Buffer* y, const field_box* yb, void* dst) {
  const builtin_reduction builtin = op == box_reduction::sum   ? builtin_reduction::sum
                                    : op == box_reduction::min ? builtin_reduction::min
                                    : op == box_reduction::max ? builtin_reduction::max
                                                               : builtin_reduction::dot;
  const char* what = op_name(builtin);
  if (y && yb->extent != xb.extent)
    throw_builtin_error(what, "the two field views have different shapes");
  if ((op == box_reduction::min || op == box_reduction::max) && xb.points() == 0)
    throw_builtin_error(what, "the field view is empty");
  const std::string name = std::string(what) + "_" + scalar_types[element].name + "_box";
  const context& ctx = q.ctx();
  const auto engine = per_context_as<reduction_engine>(ctx, "clforge.reductions", name, [&] {
    reduction_options options;
    options.name = name;
    options.check_array_lengths = false;  // the box was checked against its field
    return std::make_shared<reduction_engine>(ctx,
                                              describe_builtin(builtin, element, element, true),
                                              options, std::string("clforge::") + what);
  });
  const template_state& h = *engine;
  auto at = [](const field_box& b) { return static_cast<cl_long>(b.offset()); };
  auto stride = [](const field_box& b, int d) { return static_cast<cl_long>(b.layout.strides[d]); };
  const cl_long n1 = static_cast<cl_long>(xb.extent[1]), n2 = static_cast<cl_long>(xb.extent[2]);
  const argument_list args =
      y ? argument_list::bind(h.who, h.params, x, at(xb), stride(xb, 0), stride(xb, 1), n1, n2, *y,
                              at(*yb), stride(*yb, 0), stride(*yb, 1))
        : argument_list::bind(h.who, h.params, x, at(xb), stride(xb, 0), stride(xb, 1), n1, n2);
  engine->run_to_host(q, whole_range(xb.points()), args, dst);
}

}  // namespace clforge::detail

// ---- the tuner's workload: the sum of float32 values, read back ------------------------------

namespace clforge::detail {

namespace {

struct sum_data {
  array<float> x;
  double magnitude = 0;  // the sum of |x|: how far apart shapes' orders of additions may land
  bool have_reference = false;
  float reference = 0;  // the baseline's sum
};

class sum_trial final : public tuning_trial {
 public:
  sum_trial(std::shared_ptr<sum_data> data, reduction_kernel<float> k)
      : data_(std::move(data)), kernel_(std::move(k)) {}
  commands run(const queue& q) override {
    volatile float s = kernel_(q, data_->x);  // with the read-back: markers time it
    (void)s;
    return {};
  }
  std::string check(const queue& q) override {
    const float s = kernel_(q, data_->x);
    if (!data_->have_reference) {
      data_->have_reference = true;
      data_->reference = s;
      return "";
    }
    if (!(std::fabs(static_cast<double>(s) - data_->reference) <=
          1e-4 * std::max(1.0, data_->magnitude)))
      return "sum " + std::to_string(s) + ", the baseline gave " + std::to_string(data_->reference);
    return "";
  }

 private:
  std::shared_ptr<sum_data> data_;
  reduction_kernel<float> kernel_;
};

class sum_workload final : public tuning_workload {
 public:
  sum_workload(const queue& q, std::size_t n)
      : tuning_workload("float32/" + size_bucket(n), sizeof(float)),
        ctx_(q.ctx()),
        data_(std::make_shared<sum_data>()) {
    const std::vector<float> x = tuning_floats(n, 3);
    for (float v : x) data_->magnitude += std::fabs(v);
    data_->x = array<float>::from_host(q, x);
  }
  std::unique_ptr<tuning_trial> make(const std::string& settings, const queue&) const override {
    candidate_scope scope("reduce", settings);
    reduction_options o;
    o.name = "tune_sum";
    return std::make_unique<sum_trial>(
        data_, reduction_kernel<float>(ctx_, "global const float* x", "x[i]", "a + b", "0.0f", o));
  }

 private:
  context ctx_;
  std::shared_ptr<sum_data> data_;
};

}  // namespace

std::unique_ptr<tuning_workload> reduce_policy::workload(const queue& q, std::size_t size) {
  return std::make_unique<sum_workload>(q, size);
}

}  // namespace clforge::detail
