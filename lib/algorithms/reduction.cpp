// SPDX-License-Identifier: MIT
#include "clforge/algorithms/reduction.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>

#include "clforge/detail/codegen.hpp"
#include "snippet_support.hpp"
#include "view_variants.hpp"

namespace clforge::detail {

namespace {

// CPU shape: a group's chunk is at most this many rounds of local * unroll elements, so each
// of a work-item's `unroll` accumulators adds at most this many values (see the accuracy note).
constexpr std::uint64_t kCpuMaxRounds = 4096;

std::size_t floor_pow2(std::size_t v) {
  std::size_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

std::string without_spaces(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// The array parameter when the map expression is a plain load "x[i]" of a global array whose
// element type is the result type; "" otherwise.
std::string plain_load(const std::vector<parameter>& params,
                       const reduction_engine::description& d) {
  const std::string name = plain_load_name(d.map);
  for (const parameter& p : params)
    if (!name.empty() && p.is_pointer && p.address_space == "global" &&
        p.kind != scalar_kind::other && p.type == d.type_name && p.name == name)
      return p.name;
  return "";
}

// clforge_reduce over the components of a vector v of `width` values, as a pairwise tree.
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

reduction_engine::reduction_engine(const context& ctx, const description& d,
                                   const reduction_options& options, const std::string& what)
    : ctx_(ctx),
      description_(d),
      options_(options),
      what_(what),
      views_(std::make_shared<view_variant_cache<reduction_engine>>()) {
  const std::string name = options.name.empty() ? "reduce" : options.name;
  check_kernel_name(name, what);
  who_ = what + " \"" + name + "\"";
  params_ = parse_signature(d.arguments);
  check_parameter_names(params_, who_);
  check_lengths_ = options.check_array_lengths;
  type_size_ = d.type_size;
  if (options.compensated) {
    if (!d.type_is_floating)
      throw error(who_ + ": compensated summation needs a float or double result, not " +
                  d.type_name);
    const std::string r = without_spaces(d.reduce);
    if (r != "a+b" && r != "b+a")
      throw error(who_ + ": compensated summation needs the reduce expression a + b, not \"" +
                  d.reduce + "\"");
  }

  const device_info& info = ctx.info();
  // The tuned shape (tuning_tables.cpp); vector loads (gpu, a map that is a plain load x[i] of
  // an array of T) of vec elements, grid applying to the vector kernel only.
  shape_ = reduction_shape(ctx, options.shape, d.type_size);
  const bool gpu = shape_.which == kernel_shape::kind::gpu;
  const std::string vec_param = gpu && shape_.vec > 1 ? plain_load(params_, d) : std::string();
  if (vec_param.empty()) shape_.vec = shape_.grid = 0;
  vec_ = vec_param.empty() ? 1 : shape_.vec;
  if (!gpu) shape_.single = shape_.grid = 0;
  single_ = shape_.single != 0;
  // The tree needs a power of two; the scratch array must fit in local memory (half of it, to
  // leave room for the implementation).
  std::size_t local = floor_pow2(shape_.local_size);
  while (local > 1 && info.local_mem_bytes != 0 && local * type_size_ > info.local_mem_bytes / 2)
    local /= 2;
  target_groups_ = std::max<std::size_t>(
      1, std::size_t(shape_.groups_per_cu) * std::max(1u, info.compute_units));

  // Generated for `local` work-items per group; when a built kernel can run fewer (registers
  // limit it, e.g. NVIDIA), regenerated for the largest power of two that fits.
  for (int attempt = 0;; ++attempt) {
    shape_.local_size = local;
    template_values values{
        {"name", name},
        {"strided_name", name + "_strided"},
        {"final_name", name + "_final"},
        {"vec_name", name + "_vec"},
        {"T", d.type_name},
        {"shape", shape_.describe()},
        {"compensated", options.compensated ? "yes (Kahan)" : "no"},
        {"compensated_flag", options.compensated ? "1" : "0"},
        {"extensions", fp64_pragma(ctx, params_, d.type_needs_fp64, who_)},
        {"preamble", options.preamble},
        {"map", snippet(d.map)},
        {"reduce", snippet(d.reduce)},
        {"neutral", snippet(d.neutral)},
        {"local", std::to_string(local)},
        {"unroll", std::to_string(shape_.unroll)},
        {"vec", std::to_string(vec_)},
        {"single", single_ ? "1" : "0"},
        {"grid", shape_.grid ? "1" : "0"},
        {"single_parameters", single_ ? ", global volatile uint* clforge_counter, global " +
                                            d.type_name + "* clforge_result"
                                      : ""},
        {"vec_type", vec_ > 1 ? d.type_name + std::to_string(vec_) : d.type_name},
        {"vec_param", vec_ > 1 ? vec_param : "0"},
        {"vec_reduce", vector_reduce_expression(vec_)},
        {"gpu_shape", shape_.which == kernel_shape::kind::gpu ? "1" : "0"},
        {"count_name", count_name(params_)},
        {"comma_parameters", comma_parameters(params_)},
        {"comma_arguments", comma_arguments(params_)},
    };
    built_ = ctx.build(render_kernel("reduction", values), options.build_options);
    contiguous_ = built_.kernel(name);
    strided_ = built_.kernel(name + "_strided");
    final_ = built_.kernel(name + "_final");
    if (vec_ > 1) vector_ = built_.kernel(name + "_vec");
    std::size_t fits = local;
    for (const kernel* k : {&contiguous_, &strided_, &final_, &vector_})
      if (*k) fits = std::min(fits, k->work_group_size());
    if (fits >= local) break;
    if (attempt >= 4 || fits == 0)
      throw error(who_ + ": the kernels can run at most " + std::to_string(fits) +
                  " work-items per group on " + info.name + ", the shape needs " +
                  std::to_string(local));
    local = floor_pow2(fits);
  }
}

void reduction_engine::user_arguments::set_on(cl_kernel k, cl_uint first) const {
  if (list) {
    list->set_on(k, first);
    return;
  }
  for (std::size_t j = 0; j < buffer_count; ++j) {
    cl_int code = clSetKernelArg(k, first + static_cast<cl_uint>(j), sizeof(cl_mem), &buffers[j]);
    if (code != CL_SUCCESS) throw_cl_error("clSetKernelArg", code, "a built-in reduction");
  }
}

event reduction_engine::run(const queue& q, const resolved_range& r, const user_arguments& args,
                            cl_mem result, bool want_event) const {
  // On an out-of-order queue, barriers around the call (and between its stages) keep its
  // commands in order with each other and with the calls before and after it, as the pooled
  // partials and the single-launch counter need (both are reused by the next call).
  // Memory of another context is refused before anything is enqueued.
  const cl_context owner = q.ctx().get();
  require_same_context(result, nullptr, owner, who_, "the result array");
  if (!args.list)
    for (std::size_t j = 0; j < args.buffer_count; ++j)
      require_same_context(args.buffers[j], nullptr, owner, who_,
                           "input array " + std::to_string(j + 1));
  if (args.list && args.list->has_views()) {
    const std::string pattern = args.list->view_pattern();
    auto variant = views_->get(pattern, [&] {
      view_variant_source v =
          rewrite_for_views(params_, pattern, {description_.map, description_.reduce},
                            options_.preamble + " " + description_.neutral, who_);
      description d = description_;
      d.arguments = v.arguments;
      d.map = v.snippets[0];
      d.reduce = v.snippets[1];
      return std::make_shared<const reduction_engine>(ctx_, d, options_, what_);
    });
    const argument_list expanded = args.list->expanding_views();
    user_arguments with_views = args;
    with_views.list = &expanded;
    return variant->run(q, r, with_views, result, want_event);
  }
  order_point(q);
  event last = run_stages(q, r, args, result, want_event);
  order_point(q);
  return last;
}

event reduction_engine::run_stages(const queue& q, const resolved_range& r,
                                   const user_arguments& args, cl_mem result,
                                   bool want_event) const {
  const std::size_t local = shape_.local_size;
  const std::uint64_t count = r.count;
  if (count == 0) {
    // The final kernel over no partials writes the neutral element.
    return launch_with(
        q, final_, ndrange(local).with_local(local),
        [&](kernel_state& k) {
          set_arg(k, 0, cl_ulong(0));
          check(clSetKernelArg(k.handle(), 1, sizeof(cl_mem), &result), "clSetKernelArg");
          check(clSetKernelArg(k.handle(), 2, sizeof(cl_mem), &result), "clSetKernelArg");
        },
        want_event);
  }
  // Vector loads need step 1 and the slice start at a multiple of the vector width (buffers
  // start aligned to CL_DEVICE_MEM_BASE_ADDR_ALIGN, at least 128 bytes).
  const bool vector = vec_ > 1 && r.step == 1 && r.first % vec_ == 0;
  const std::uint64_t round = std::uint64_t(local) * shape_.unroll * (vector ? vec_ : 1);
  // Spread over target_groups_ groups; chunks stay multiples of `round` (see the accuracy
  // note in reduction.hpp). CPU chunks stop at kCpuMaxRounds rounds, which bounds each
  // work-item's chain of additions.
  const std::uint64_t per_group = (count + target_groups_ - 1) / target_groups_;
  std::uint64_t chunk = (per_group + round - 1) / round * round;
  if (shape_.which != kernel_shape::kind::gpu) chunk = std::min(chunk, round * kCpuMaxRounds);
  const std::uint64_t groups = (count + chunk - 1) / chunk;

  // Back to the pool fenced by this queue when the call returns (another queue may be next).
  queue_temporary partials;
  cl_mem stage1_out = result;
  if (groups > 1) {
    partials = queue_temporary(q, static_cast<std::size_t>(groups) * type_size_);
    stage1_out = partials.get();
  }
  const ndrange range1 = ndrange(static_cast<std::size_t>(groups) * local).with_local(local);
  // Stage 1. Arguments: first, step (strided kernel only), count, chunk, partials, then for the
  // single-launch shape the counter and result, then the user's arguments.
  const bool strided = r.step != 1;
  const bool one_launch = !strided && single_;  // the last group writes result[0]
  const cl_mem counter = one_launch ? counter_for(q) : nullptr;
  const kernel& stage1 = strided ? strided_ : vector ? vector_ : contiguous_;
  event last = launch_with(
      q, stage1, range1,
      [&](kernel_state& k) {
        cl_uint index = 0;
        auto set_mem = [&](cl_mem m) {
          check(clSetKernelArg(k.handle(), index++, sizeof(cl_mem), &m), "clSetKernelArg");
        };
        set_arg(k, index++, cl_ulong(r.first));
        if (strided) set_arg(k, index++, cl_ulong(r.step));
        set_arg(k, index++, cl_ulong(count));
        set_arg(k, index++, cl_ulong(chunk));
        set_mem(stage1_out);
        if (one_launch) {
          set_mem(counter);
          set_mem(result);
        }
        args.set_on(k.handle(), index);
      },
      want_event && (one_launch || groups <= 1));
  if (one_launch) return last;
  if (groups > 1) {
    order_point(q);  // stage 2 reads what stage 1 wrote
    last = launch_with(
        q, final_, ndrange(local).with_local(local),
        [&](kernel_state& k) {
          set_arg(k, 0, cl_ulong(groups));
          check(clSetKernelArg(k.handle(), 1, sizeof(cl_mem), &stage1_out), "clSetKernelArg");
          check(clSetKernelArg(k.handle(), 2, sizeof(cl_mem), &result), "clSetKernelArg");
        },
        want_event);
  }
  return last;
}

cl_mem reduction_engine::counter_for(const queue& q) const {
  // One zeroed counter per queue: calls on one queue run one after the other (in order, or
  // between barriers on an out-of-order queue), and each call's last group resets it.
  cl_command_queue handle = q.cl()();
  std::lock_guard<std::mutex> lock(counters_mutex_);
  for (const auto& c : counters_)
    if (c.first == handle) return (*c.second)();
  auto buffer = ctx_.pool().allocate(sizeof(cl_uint));
  const cl_uint zero = 0;
  translate_cl_errors([&] { q.cl().enqueueWriteBuffer(*buffer, CL_TRUE, 0, sizeof zero, &zero); },
                      "zeroing a reduction counter");
  counters_.emplace_back(handle, buffer);
  return (*buffer)();
}

std::shared_ptr<cl::Buffer> result_buffer(const context& ctx, std::size_t bytes) {
  return ctx.pool().allocate(bytes);
}

void read_result(const queue& q, const cl::Buffer& buffer, void* dst, std::size_t bytes) {
  translate_cl_errors([&] { q.cl().enqueueReadBuffer(buffer, CL_TRUE, 0, bytes, dst); },
                      "reading a reduction result");
}

// ---- built-ins -----------------------------------------------------------------------------

namespace {

struct scalar_row {
  const char* name;
  std::size_t size;
  bool floating;
  const char* min_value;  // OpenCL C constants
  const char* max_value;
};
constexpr scalar_row kScalars[] = {
    {"char", 1, false, "CHAR_MIN", "CHAR_MAX"},
    {"uchar", 1, false, "0", "UCHAR_MAX"},
    {"short", 2, false, "SHRT_MIN", "SHRT_MAX"},
    {"ushort", 2, false, "0", "USHRT_MAX"},
    {"int", 4, false, "INT_MIN", "INT_MAX"},
    {"uint", 4, false, "0", "UINT_MAX"},
    {"long", 8, false, "LONG_MIN", "LONG_MAX"},
    {"ulong", 8, false, "0", "ULONG_MAX"},
    {"float", 4, true, "NAN", "NAN"},
    {"double", 8, true, "NAN", "NAN"},
};

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

reduction_engine::description describe_builtin(builtin_reduction op, int element, int result) {
  const scalar_row& e = kScalars[element];
  const scalar_row& r = kScalars[result];
  const std::string t = e.name;
  const bool fp = e.floating;
  reduction_engine::description d;
  d.arguments = "global const " + t + "* x";
  d.type_name = r.name;
  d.type_size = r.size;
  d.type_is_floating = r.floating;
  d.type_needs_fp64 = std::string(r.name) == "double" || t == "double";
  const std::string lo = fp ? "fmin" : "min", hi = fp ? "fmax" : "max";
  switch (op) {
    case builtin_reduction::sum:
      d.map = result == element ? "x[i]" : "(" + std::string(r.name) + ")x[i]";
      d.reduce = "a + b";
      d.neutral = "0";
      break;
    case builtin_reduction::dot:
      d.arguments += ", global const " + t + "* y";
      d.map = "x[i] * y[i]";
      d.reduce = "a + b";
      d.neutral = "0";
      break;
    case builtin_reduction::min:
      d.map = "x[i]";
      d.reduce = lo + "(a, b)";
      d.neutral = fp ? "NAN" : e.max_value;
      break;
    case builtin_reduction::max:
      d.map = "x[i]";
      d.reduce = hi + "(a, b)";
      d.neutral = fp ? "NAN" : e.min_value;
      break;
    case builtin_reduction::minmax: {
      const std::string t2 = t + "2";
      d.type_name = t2;
      d.type_size = 2 * e.size;
      d.type_is_floating = false;
      d.map = "(" + t2 + ")(x[i], x[i])";
      d.reduce = "(" + t2 + ")(" + lo + "(a.x, b.x), " + hi + "(a.y, b.y))";
      d.neutral =
          "(" + t2 + ")(" + (fp ? "NAN" : e.max_value) + ", " + (fp ? "NAN" : e.min_value) + ")";
      break;
    }
  }
  return d;
}

struct builtin_entry {
  context keep;  // keeps identity() unique while the entry lives
  const void* identity;
  builtin_reduction op;
  int element, result;
  bool compensated;
  std::unique_ptr<reduction_engine> engine;
};

}  // namespace

const reduction_engine& builtin_engine(const context& ctx, builtin_reduction op, int element,
                                       int result, bool compensated) {
  // Never destroyed: the engines hold OpenCL objects that must not be released after the
  // driver has shut down at exit.
  static std::mutex* mutex = new std::mutex;
  static auto* entries = new std::vector<std::unique_ptr<builtin_entry>>;
  const void* id = ctx.identity();
  std::lock_guard<std::mutex> lock(*mutex);
  for (const auto& e : *entries)
    if (e->identity == id && e->op == op && e->element == element && e->result == result &&
        e->compensated == compensated)
      return *e->engine;

  reduction_options options;
  options.name = std::string(op_name(op)) + "_" + kScalars[element].name +
                 (result != element ? std::string("_to_") + kScalars[result].name : "") +
                 (compensated ? "_compensated" : "");
  options.compensated = compensated;
  options.check_array_lengths = false;  // run_builtin checks
  auto entry = std::make_unique<builtin_entry>();
  entry->keep = ctx;
  entry->identity = id;
  entry->op = op;
  entry->element = element;
  entry->result = result;
  entry->compensated = compensated;
  entry->engine = std::make_unique<reduction_engine>(
      ctx, describe_builtin(op, element, result), options, std::string("clforge::") + op_name(op));
  entries->push_back(std::move(entry));
  return *entries->back()->engine;
}

event run_builtin(const queue& q, const reduction_engine& engine, const cl_mem* buffers,
                  std::size_t buffer_count, std::size_t n, cl_mem result, bool want_event) {
  reduction_engine::user_arguments args;
  args.buffers = buffers;
  args.buffer_count = buffer_count;
  return engine.run(q, whole_range(n), args, result, want_event);
}

void run_builtin_to_host(const queue& q, const reduction_engine& engine, const cl_mem* buffers,
                         std::size_t buffer_count, std::size_t n, void* dst, std::size_t bytes) {
  auto buffer = result_buffer(q.ctx(), bytes);
  run_builtin(q, engine, buffers, buffer_count, n, (*buffer)(), false);
  read_result(q, *buffer, dst, bytes);
}

void throw_builtin_error(const char* what, const std::string& detail) {
  throw error(std::string("clforge::") + what + ": " + detail);
}

}  // namespace clforge::detail
