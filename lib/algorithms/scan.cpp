// SPDX-License-Identifier: MIT
// scan_kernel: the template (checks, the values both algorithms share, algorithm choice), its
// calls (view variants, rebuilds under a new tuning), the shared scans behind inclusive_scan,
// copy_if, ... and the tuner's workload. The algorithms: scan_lookback.cpp, scan_rts.cpp.
#include "clforge/algorithms/scan.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <random>
#include <unordered_map>

#include "clforge/detail/checks.hpp"
#include "clforge/detail/codegen.hpp"
#include "scan_engine.hpp"
#include "tuning/candidate.hpp"
#include "tuning/store.hpp"
#include "tuning/workload.hpp"

namespace clforge {
namespace detail {

namespace {

constexpr std::size_t npos = static_cast<std::size_t>(-1);

// scan_options::tile specs: "ITEMSxGROUP[wWINDOW][l][s][pGROUPS_PER_CU]", e.g. "40x256",
// "40x256w32lp8", "32x256w32s".
struct env_tile {
  std::size_t items = 0, group = 0, window = 0, groups_per_cu = 0;
  bool in_local = false;
  bool vector = false;  // s: scan_layout::striped_vector
};
void tile_from_string(const std::string& v, env_tile& t, const char* where) {
  auto bad = [&](const std::string& why) {
    throw error(std::string(where) + "\"" + (v.size() > 64 ? v.substr(0, 64) + "..." : v) +
                "\": " + why);
  };
  auto grammar = [&] {
    bad("expected ITEMSxGROUP[wWINDOW][l][s][pGROUPS_PER_CU], e.g. 40x256, 40x256w32lp8 "
        "or 32x256w32s");
  };
  std::size_t pos = 0;
  // A number of the field `name`, from 1 to `most`.
  auto number = [&](const char* name, std::size_t most) {
    const std::size_t start = pos;
    std::size_t value = 0;
    while (pos < v.size() && std::isdigit(static_cast<unsigned char>(v[pos]))) {
      if (value <= most) value = value * 10 + static_cast<std::size_t>(v[pos] - '0');
      ++pos;
    }
    if (pos == start) grammar();
    if (value < 1 || value > most)
      bad(std::string(name) + " must be from 1 to " + std::to_string(most));
    return value;
  };
  t = env_tile{};
  t.items = number("items", kMaxScanItems);
  if (pos >= v.size() || v[pos] != 'x') grammar();
  ++pos;
  t.group = number("group", kMaxGroupSize);
  if (pos < v.size() && v[pos] == 'w') ++pos, t.window = number("window", kMaxScanWindow);
  if (pos < v.size() && v[pos] == 'l') ++pos, t.in_local = true;
  if (pos < v.size() && v[pos] == 's') ++pos, t.vector = true;
  // The blocked layouts b, v and a lost to the striped ones on every device measured and were
  // removed.
  if (pos < v.size() && std::string("bva").find(v[pos]) != std::string::npos)
    bad(std::string("there is no layout '") + v[pos] +
        "' (the layouts are s: striped with 4-vector loads and stores, or none: striped)");
  if (pos < v.size() && v[pos] == 'p')
    ++pos, t.groups_per_cu = number("groups_per_cu", kMaxGroupsPerCu);
  if (pos != v.size()) grammar();
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
requested_tile requested(const scan_options& o) {
  return {o.items_per_thread,  o.group_size, o.lookback_window, o.lookback_groups_per_cu,
          o.chunk_granularity, o.max_chunks, o.lanes,           o.lookback_in_registers,
          o.lookback_layout};
}
#pragma GCC diagnostic pop

std::string user_parameter_list(const std::vector<parameter>& params) {
  std::string list = parameter_list(params);
  return list.empty() ? "" : list + ", ";
}

}  // namespace

scan_core::scan_core(const context& ctx, const scan_value_type& type, std::string_view arguments,
                     std::string_view input_expr, std::string_view scan_expr,
                     std::string_view neutral, std::string_view output_stmt, scan_kind kind,
                     const scan_options& options)
    : scan_core(ctx, type, arguments, input_expr, scan_expr, neutral, output_stmt, kind, options,
                scan_use::plain) {}

scan_core::scan_core(const context& ctx, const scan_value_type& type, std::string_view arguments,
                     std::string_view input_expr, std::string_view scan_expr,
                     std::string_view neutral, std::string_view output_stmt, scan_kind kind,
                     const scan_options& options, scan_use use) {
  auto e = std::make_shared<scan_engine>();
  e->fp64_pragma = e->start(ctx, "scan_kernel", options, "scan", arguments,
                            "i, n, item, prev_item, last_item", type.name, type.needs_fp64)
                       .fp64_pragma;
  e->owner = ctx.get();
  e->compute_units = std::max<std::size_t>(1, ctx.info().compute_units);
  e->type = type;
  e->kind = kind;
  e->use = use;
  e->segmented = !options.is_segment_start.empty();
  e->uses_last_item = uses_name(output_stmt, "last_item");
  e->packed = type.size <= 4;
  e->commutative = options.commutative || known_commutative(type.name, scan_expr);
  e->arguments = arguments;
  e->input_expr = input_expr;
  e->scan_expr = scan_expr;
  e->neutral = neutral;
  e->output_stmt = output_stmt;
  for (std::string_view s : {input_expr, scan_expr, neutral})
    if (s.find_first_not_of(" \t\r\n") == std::string_view::npos)
      throw error(e->who + ": the input, scan and neutral expressions must not be empty");

  const std::string snippets =
      std::string(input_expr) + "\n" + std::string(output_stmt) + "\n" + options.is_segment_start;
  for (const parameter& p : e->params)
    e->indexed.push_back(options.check_array_lengths && p.is_pointer &&
                         p.address_space != "local" && indexes_with_i(snippets, p.name));

  e->stamp = tuning_stamp(ctx);
  const scan_policy policy = tuned<scan_policy>(ctx);
  const requested_tile asked = requested(options);
  e->algorithm = options.algorithm != scan_algorithm::automatic ? options.algorithm
                 : policy.algorithm == scan_method::lookback    ? scan_algorithm::lookback
                                                                : scan_algorithm::reduce_then_scan;

  template_values values{
      {"name", e->name},
      {"preamble", snippet(options.preamble)},
      {"value_type", type.name},
      {"neutral", snippet(neutral)},
      {"scan_expr", snippet(scan_expr)},
      {"input_expr", snippet(input_expr)},
      {"output_statement", snippet(output_stmt)},
      {"is_segment_start", e->segmented ? snippet(options.is_segment_start) : "0"},
      {"segmented", e->segmented ? "1" : "0"},
      {"inclusive", kind == scan_kind::inclusive ? "1" : "0"},
      {"user_parameters", user_parameter_list(e->params)},
  };
  if (!e->fp64_pragma.empty()) values["preamble"] = e->fp64_pragma + snippet(options.preamble);

  if (e->algorithm == scan_algorithm::lookback) {
    build_lookback(ctx, *e, asked, policy, values, input_expr, output_stmt, options);
  } else {
    build_rts(ctx, *e, asked, policy, values, options);
  }
  engine_ = std::move(e);
}

const std::vector<parameter>& scan_core::parameters() const {
  return engine_->params;
}
const std::string& scan_core::who() const {
  return engine_->who;
}
scan_algorithm scan_core::algorithm() const {
  return engine_->algorithm;
}
std::size_t scan_core::tile_size() const {
  return engine_->algorithm == scan_algorithm::lookback ? engine_->tile() : engine_->granularity;
}
std::string scan_core::source() const {
  std::string s = engine_->prog.source();
  if (engine_->total_program)
    s += "\n// ---- last_item pass ----\n" + engine_->total_program.source();
  return s;
}

void scan_core::check_lengths(std::size_t n, const std::vector<std::size_t>& lengths) const {
  const scan_engine& e = *engine_;
  for (std::size_t k = 0; k < lengths.size() && k < e.indexed.size(); ++k)
    if (e.indexed[k] && lengths[k] != npos && lengths[k] < n)
      throw error(e.who + ": array argument " + std::to_string(k + 1) + " (" + e.params[k].name +
                  ") has " + std::to_string(lengths[k]) + " elements, but the scan runs over " +
                  std::to_string(n) +
                  " indices and indexes it with [i] (scan_options::check_array_lengths)");
}

std::size_t scan_core::length_of(const index_range& r) const {
  if (r.is_slice || r.step != 1 || r.start != 0 || r.stop < 0)
    throw error(who() + ": a scan runs over the indices [0, n); pass clforge::range(n)");
  return static_cast<std::size_t>(r.stop);
}

scan_core::events scan_core::launch(const queue& q, std::size_t n,
                                    const argument_list& args) const {
  const scan_engine& e = *engine_;
  if (q.ctx().get() != e.owner)
    throw error(e.who + ": the queue belongs to another context than the kernel");
  if (auto retuned = e.retuned.get(e.stamp, q.ctx(), [&] {
        return std::make_shared<const scan_core>(q.ctx(), e.type, e.arguments, e.input_expr,
                                                 e.scan_expr, e.neutral, e.output_stmt, e.kind,
                                                 e.options, e.use);
      }))
    return retuned->launch(q, n, args);
  events out;
  if (n == 0) {
    args.require_context(q.ctx().get());  // (a launch checks that)
    return out;
  }
  if (args.has_views()) {
    const std::string pattern = args.view_pattern();
    auto variant = e.views.get(pattern, [&] {
      view_variant_source v = rewrite_for_views(
          e.params, pattern,
          {e.input_expr, e.scan_expr, e.neutral, e.output_stmt, e.options.is_segment_start},
          e.options.preamble, e.who);
      scan_options o = e.options;
      o.is_segment_start = v.snippets[4];
      return std::make_shared<const scan_core>(q.ctx(), e.type, v.arguments, v.snippets[0],
                                               v.snippets[1], v.snippets[2], v.snippets[3], e.kind,
                                               o, e.use);
    });
    return variant->launch(q, n, args.expanding_views());
  }
  // On an out-of-order queue: barriers before, between and after the commands, which depend
  // on each other and reuse per-queue state and pooled temporaries.
  order_point(q);
  out.last = e.algorithm == scan_algorithm::lookback ? e.run_lookback(q, n, args, &out.first)
                                                     : e.run_rts(q, n, args, &out.first);
  order_point(q);
  return out;
}

}  // namespace detail

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
scan_options& scan_options::tile(const std::string& spec) {
  detail::env_tile t;
  detail::tile_from_string(spec, t, "scan tile ");
  items_per_thread = t.items;
  group_size = t.group;
  lookback_window = t.window;
  lookback_in_registers = t.in_local ? 0 : 1;
  lookback_groups_per_cu = t.groups_per_cu;
  lookback_layout = t.vector ? scan_layout::striped_vector : scan_layout::striped;
  return *this;
}
#pragma GCC diagnostic pop

namespace detail {

// ---- the scans behind inclusive_scan, copy_if, ... ------------------------------------------

scan_core shared_scan(const context& ctx, const scan_value_type& type, const std::string& arguments,
                      const std::string& input_expr, const std::string& scan_expr,
                      const std::string& neutral, const std::string& output_stmt, scan_kind kind,
                      const std::string& name, const std::string& preamble) {
  const std::string key = type.name + '\x1f' + std::to_string(type.size) + '\x1f' + arguments +
                          '\x1f' + input_expr + '\x1f' + scan_expr + '\x1f' + neutral + '\x1f' +
                          output_stmt + '\x1f' + (kind == scan_kind::inclusive ? "i" : "e") +
                          '\x1f' + name + '\x1f' + preamble;
  return *per_context_as<scan_core>(ctx, "clforge.scans", key, [&] {
    scan_options options;
    options.name = name;
    options.preamble = preamble;
    return std::make_shared<scan_core>(ctx, type, arguments, input_expr, scan_expr, neutral,
                                       output_stmt, kind, options);
  });
}

bool known_commutative(std::string_view type, std::string_view scan_expr) {
  const int index = scalar_type_index(type);
  if (index < 0 || scalar_types[index].is_floating) return false;
  std::string text;
  for (char c : scan_expr)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') text += c;
  for (const char* known : {"a+b", "b+a", "min(a,b)", "min(b,a)", "max(a,b)", "max(b,a)"})
    if (text == known) return true;
  return false;
}

}  // namespace detail
}  // namespace clforge

// ---- the tuner's workload: an inclusive scan of int32 ----------------------------------------

namespace clforge::detail {

namespace {

struct scan_data {
  array<std::int32_t> in, out;
  std::vector<std::int32_t> reference;  // the inclusive sums, computed on the host
};

class scan_trial final : public tuning_trial {
 public:
  scan_trial(std::shared_ptr<scan_data> data, scan_kernel<std::int32_t> k)
      : data_(std::move(data)), kernel_(std::move(k)) {}
  commands run(const queue& q) override {
    const auto e = kernel_.launch(q, data_->in, data_->out);
    return {e.first, e.last};
  }
  std::string check(const queue& q) override {
    data_->out.fill(q, -1);
    run(q);
    return first_difference(data_->out.to_host(q), data_->reference, "out", "the host");
  }

 private:
  std::shared_ptr<scan_data> data_;
  scan_kernel<std::int32_t> kernel_;
};

class scan_workload final : public tuning_workload {
 public:
  scan_workload(const queue& q, std::size_t n)
      : tuning_workload("int32/" + size_bucket(n), sizeof(std::int32_t)),
        ctx_(q.ctx()),
        data_(std::make_shared<scan_data>()) {
    // Values 0 to 3: the sums stay below 2^31 up to 2^29 elements.
    std::mt19937 random(4);
    std::vector<std::int32_t> in(n);
    for (auto& v : in) v = static_cast<std::int32_t>(random() % 4);
    data_->reference.resize(n);
    std::int32_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) data_->reference[i] = sum += in[i];
    data_->in = array<std::int32_t>::from_host(q, in);
    data_->out = array<std::int32_t>(q, n);
  }
  std::unique_ptr<tuning_trial> make(const std::string& settings, const queue&) const override {
    candidate_scope scope("scan", settings);
    scan_options o;
    o.name = "tune_scan";
    return std::make_unique<scan_trial>(
        data_, scan_kernel<std::int32_t>(ctx_, "global const int* in, global int* out", "in[i]",
                                         "a + b", "0", "out[i] = item", scan_kind::inclusive, o));
  }

 private:
  context ctx_;
  std::shared_ptr<scan_data> data_;
};

}  // namespace

std::unique_ptr<tuning_workload> scan_policy::workload(const queue& q, std::size_t size) {
  return std::make_unique<scan_workload>(q, size);
}

}  // namespace clforge::detail
