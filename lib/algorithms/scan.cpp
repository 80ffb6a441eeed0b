// SPDX-License-Identifier: MIT
// scan_kernel: generation (kernels/scan_lookback.cl, kernels/scan_rts.cl), algorithm choice,
// tile shapes, per-queue look-back state and launches.
#include "clforge/algorithms/scan.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <unordered_map>

#include "clforge/detail/checks.hpp"
#include "clforge/detail/codegen.hpp"
#include "snippet_support.hpp"
#include "tuning.hpp"
#include "view_variants.hpp"

namespace clforge {
namespace detail {

namespace {

constexpr std::size_t npos = static_cast<std::size_t>(-1);
constexpr std::uint32_t kMaxEpoch = (1u << 30) - 1;
// Bounds of the tuning values (a larger one only makes a huge program or launch).
constexpr std::size_t kMaxScanItems = 64;
constexpr std::size_t kMaxScanWindow = 1024;
constexpr std::size_t kMaxLanes = 16;
constexpr std::size_t kMaxChunkValue = std::size_t(1) << 24;

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Whether `text` uses the identifier `name` (a whole word).
bool uses_identifier(std::string_view text, std::string_view name) {
  for (std::size_t pos = text.find(name); pos != std::string_view::npos;
       pos = text.find(name, pos + 1)) {
    const bool left = pos == 0 || !is_word_char(text[pos - 1]);
    const std::size_t end = pos + name.size();
    const bool right = end >= text.size() || !is_word_char(text[end]);
    if (left && right) return true;
  }
  return false;
}

std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// scan_options::tile specs: "ITEMSxGROUP[wWINDOW][l][b|v|a|s][pGROUPS_PER_CU]", e.g. "40x256",
// "40x256w32lp8", "32x256w32v", "32x256w32s".
struct env_tile {
  std::size_t items = 0, group = 0, window = 0, groups_per_cu = 0;
  bool in_local = false;
  int blocked = 0;  // 1: b, 2: v, 3: a, 4: s
};
void tile_from_string(const std::string& v, env_tile& t, const char* where) {
  auto bad = [&](const std::string& why) {
    throw error(std::string(where) + "\"" + (v.size() > 64 ? v.substr(0, 64) + "..." : v) +
                "\": " + why);
  };
  auto grammar = [&] {
    bad("expected ITEMSxGROUP[wWINDOW][l][b|v|a|s][pGROUPS_PER_CU], e.g. 40x256, 40x256w32lp8 "
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
  if (pos < v.size()) {
    const std::size_t layout = std::string("bvas").find(v[pos]);
    if (layout != std::string::npos) ++pos, t.blocked = static_cast<int>(layout) + 1;
  }
  if (pos < v.size() && v[pos] == 'p')
    ++pos, t.groups_per_cu = number("groups_per_cu", kMaxGroupsPerCu);
  if (pos != v.size()) grammar();
}

}  // namespace

// Per-queue state of the look-back: tile statuses (never cleared, see the epoch in the kernel)
// and the two tile counters.
struct lookback_state {
  std::shared_ptr<cl::Buffer> counters, state, aggregate, inclusive;
  std::size_t tiles = 0;
  std::uint32_t epoch = 0;
};

struct scan_engine {
  context ctx;
  std::string name, who;
  std::vector<parameter> params;
  std::vector<bool> indexed;  // per parameter: indexed with [i] by a snippet
  scan_value_type type;
  scan_kind kind = scan_kind::inclusive;
  scan_algorithm algorithm = scan_algorithm::automatic;
  bool segmented = false, uses_last_item = false, packed = false;
  std::size_t items = 0, group = 0;  // look-back tile shape
  std::size_t window = 1;            // look-back work-items
  bool in_registers = true;          // a work-item's items between its passes
  std::size_t groups_per_cu = 0;     // look-back: 0 one group per tile, else persistent
  // look-back layout: 0 striped through local memory, 1 blocked, 2 blocked + vload4, 3 blocked +
  // 4-vector casts, 4 striped through local memory with 4-vector casts
  int blocked = 0;
  std::size_t granularity = 0, max_chunks = 0;  // reduce-then-scan
  std::size_t rts_local = 1;
  std::size_t lanes = 1;  // chunks per work-item, walked side by side
  program main_program, total_program;
  kernel main, total, reduce, spine;

  mutable std::mutex mutex;
  mutable std::map<cl_command_queue, lookback_state> states;

  // What calls passing array views are generated from (view_variants.hpp).
  std::string input_expr, scan_expr, neutral, output_stmt;
  scan_options options;
  mutable view_variant_cache<scan_core> views;

  std::size_t tile() const { return items * group; }
  // On an out-of-order queue, order_point puts barriers between dependent commands.
  event run_lookback(const queue& q, std::size_t n, const argument_list& args, event* first) const;
  event run_rts(const queue& q, std::size_t n, const argument_list& args, event* first) const;
};

namespace {

void validate(const scan_engine& e) {
  if (!is_identifier(e.name))
    throw error("scan_kernel: the name \"" + e.name + "\" is not a C identifier");
  check_kernel_name(e.name, "scan_kernel");  // its length
  static const char* const reserved[] = {"i", "n", "item", "prev_item", "last_item"};
  for (const parameter& p : e.params) {
    for (const char* r : reserved)
      if (p.name == r)
        throw error(e.who + ": the parameter name \"" + p.name +
                    "\" is reserved (i, n, item, prev_item, last_item)");
    if (p.name.rfind("clforge_", 0) == 0)
      throw error(e.who + ": parameter names starting with clforge_ are reserved");
  }
  // The one fp64 check (docs/errors.md row 18), before any source is generated.
  require_type_support(e.ctx.info(), e.params, e.who);
  if (e.type.needs_fp64)
    require_type_support(e.ctx.info(), "double", e.who + " (value type " + e.type.name + ")");
}

// Local memory the look-back kernel needs for a tile shape.
std::size_t lookback_local_bytes(const scan_engine& e, std::size_t items, std::size_t group) {
  const std::size_t tile = items * group;
  // values (padded), work-item sums (ping-pong), tile prefix, look-back window, small scalars
  std::size_t bytes = 2 * group * e.type.size + e.type.size + e.window * (e.type.size + 4) + 64;
  const bool tile_in_local = e.blocked == 0 || e.blocked == 4;
  if (tile_in_local) bytes += (tile + tile / 32) * e.type.size;
  if (e.segmented) bytes += (tile_in_local ? tile : 0) + 2 * group;
  return bytes;
}

// The look-back tile: scan_options where set, else the tuned policy (tuning_tables.cpp).
void choose_tile(scan_engine& e, const scan_options& options, const scan_policy& policy) {
  const device_info& info = e.ctx.info();
  e.window = options.lookback_window ? options.lookback_window : policy.window;
  std::size_t items = options.items_per_thread, group = options.group_size;
  const bool from_options = items || group;
  e.groups_per_cu =
      options.lookback_groups_per_cu ? options.lookback_groups_per_cu : policy.groups_per_cu;
  e.in_registers =
      options.lookback_in_registers >= 0 ? options.lookback_in_registers != 0 : policy.in_registers;
  e.blocked =
      options.lookback_blocked >= 0 ? options.lookback_blocked : static_cast<int>(policy.layout);
  if (e.blocked < 0 || e.blocked > 4)
    throw error(e.who + ": lookback_blocked must be from -1 to 4, not " +
                std::to_string(e.blocked));
  if (!items)
    items = policy.items
                ? policy.items
                : std::clamp<std::size_t>(policy.item_bytes / e.type.size, 1, policy.max_items);
  if (!group) group = policy.group;
  check_bound(e.who, "items (items_per_thread)", items, 1, kMaxScanItems);
  check_bound(e.who, "group (group_size)", group, 1, kMaxGroupSize);
  check_bound(e.who, "window (lookback_window)", e.window, 1, kMaxScanWindow);
  check_bound(e.who, "groups_per_cu (lookback_groups_per_cu)", e.groups_per_cu, 0, kMaxGroupsPerCu);
  group = std::min(group, info.max_work_group_size);
  const std::string origin = from_options ? "scan_options" : "";
  // Shrink the default to fit local memory; refuse a shape the user asked for.
  while (lookback_local_bytes(e, items, group) > info.local_mem_bytes) {
    if (!origin.empty() || items == 1)
      throw error(
          e.who + ": a look-back tile of " + std::to_string(items) + " x " + std::to_string(group) +
          " " + e.type.name + " needs " + std::to_string(lookback_local_bytes(e, items, group)) +
          " bytes of local memory, " + info.name + " has " + std::to_string(info.local_mem_bytes) +
          (origin.empty() ? "" : " (tile shape from " + origin + ")"));
    items = std::max<std::size_t>(1, items * 3 / 4);
  }
  e.items = items;
  e.group = group;

  e.window = std::min(e.window, group);
}

bool is_vector_scalar(const std::string& t) {
  static const char* const names[] = {"char", "uchar", "short", "ushort", "int",
                                      "uint", "long",  "ulong", "float",  "double"};
  for (const char* name : names)
    if (t == name) return true;
  return false;
}

// The array NAME when the snippet is a plain load "NAME[i]" (or, with `store`, a plain store
// "NAME[i] = item") and NAME is a global pointer parameter to the scan's value type (writable
// when `store`); else "".
std::string plain_array(const scan_engine& e, std::string_view snippet, const std::string& type,
                        bool store = false) {
  const std::string name = store ? plain_store_name(snippet) : plain_load_name(snippet);
  for (const parameter& p : e.params)
    if (!name.empty() && p.name == name && p.is_pointer && p.address_space == "global" &&
        p.type == type && (!store || !p.is_const))
      return p.name;
  return "";
}

program build(const scan_engine& e, const std::string& source, const std::string& options) {
  try {
    return e.ctx.build(source, options);
  } catch (const error& failure) {
    throw error(e.who + ": ", failure);
  }
}

std::string user_parameter_list(const std::vector<parameter>& params) {
  std::string list = parameter_list(params);
  return list.empty() ? "" : list + ", ";
}

}  // namespace

scan_core::scan_core(const context& ctx, const scan_value_type& type, std::string_view arguments,
                     std::string_view input_expr, std::string_view scan_expr,
                     std::string_view neutral, std::string_view output_stmt, scan_kind kind,
                     const scan_options& options) {
  if (!ctx) throw error("scan_kernel: the context is empty");
  auto e = std::make_shared<scan_engine>();
  e->ctx = ctx;
  e->name = options.name.empty() ? "scan" : options.name;
  e->who = "scan_kernel \"" + e->name + "\"";
  e->type = type;
  e->kind = kind;
  e->params = parse_signature(arguments);
  e->segmented = !options.is_segment_start.empty();
  e->uses_last_item = uses_identifier(output_stmt, "last_item");
  e->packed = type.size <= 4;
  e->input_expr = input_expr;
  e->scan_expr = scan_expr;
  e->neutral = neutral;
  e->output_stmt = output_stmt;
  e->options = options;
  validate(*e);
  for (std::string_view s : {input_expr, scan_expr, neutral})
    if (s.find_first_not_of(" \t\r\n") == std::string_view::npos)
      throw error(e->who + ": the input, scan and neutral expressions must not be empty");

  const std::string snippets =
      std::string(input_expr) + "\n" + std::string(output_stmt) + "\n" + options.is_segment_start;
  for (const parameter& p : e->params)
    e->indexed.push_back(options.check_array_lengths && p.is_pointer &&
                         p.address_space != "local" && indexes_with_i(snippets, p.name));

  const device_info& info = ctx.info();
  const scan_policy policy = tuned_scan(ctx);
  e->algorithm =
      options.algorithm != scan_algorithm::automatic ? options.algorithm : policy.algorithm;

  template_values values{
      {"name", e->name},
      {"preamble", options.preamble},
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
  if (type.needs_fp64)
    values["preamble"] = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + options.preamble;

  if (e->algorithm == scan_algorithm::lookback) {
    choose_tile(*e, options, policy);
    values["group_size"] = std::to_string(e->group);
    values["items_per_thread"] = std::to_string(e->items);
    values["lookback_window"] = std::to_string(e->window);
    values["persistent"] = e->groups_per_cu ? "1" : "0";
    values["blocked"] = e->blocked >= 1 && e->blocked <= 3 ? "1" : "0";
    // v: a plain load NAME[i] / store NAME[i] = item of a global array of the value type moves
    // whole tiles with vload4/vstore4 (other snippets, partial tiles: the scalar path).
    const bool vector =
        e->blocked >= 2 && e->items % 4 == 0 && !e->segmented && is_vector_scalar(type.name);
    const std::string in_array = vector ? plain_array(*e, input_expr, type.name) : "";
    const std::string out_array =
        vector && kind == scan_kind::inclusive ? plain_array(*e, output_stmt, type.name, true) : "";
    values["in_registers"] = e->in_registers ? "1" : "0";
    values["vector_in"] = in_array.empty() ? "0" : "1";
    values["vector_input"] = in_array.empty() ? "clforge_unused" : in_array;
    values["vector_out"] = out_array.empty() ? "0" : "1";
    values["vector_output"] = out_array.empty() ? "clforge_unused" : out_array;
    values["vector_type"] = type.name + "4";
    values["vector_aligned"] = e->blocked >= 3 ? "1" : "0";
    values["packed"] = e->packed ? "1" : "0";
    values["has_last_item"] = e->uses_last_item ? "1" : "0";
    values["total_only"] = "0";
    e->main_program = build(*e, render_kernel("scan_lookback", values), options.build_options);
    e->main = e->main_program.kernel(e->name);
    if (e->uses_last_item) {
      values["name"] = e->name + "_last_item";
      values["has_last_item"] = "0";
      values["total_only"] = "1";
      e->total_program = build(*e, render_kernel("scan_lookback", values), options.build_options);
      e->total = e->total_program.kernel(e->name + "_last_item");
    }
  } else {
    check_bound(e->who, "chunk_granularity", options.chunk_granularity, 0, kMaxChunkValue);
    check_bound(e->who, "max_chunks", options.max_chunks, 0, kMaxChunkValue);
    check_bound(e->who, "lanes", options.lanes, 0, kMaxLanes);
    e->granularity = options.chunk_granularity ? options.chunk_granularity : policy.granularity;
    const bool floating = type.name == "float" || type.name == "double" || type.name == "half";
    e->lanes = options.lanes ? options.lanes : floating ? policy.lanes_floating : policy.lanes;
    e->max_chunks =
        options.max_chunks ? options.max_chunks
        : policy.chunks_per_cu
            ? std::max<std::size_t>(1, policy.chunks_per_cu * info.compute_units) * e->lanes
            : policy.max_chunks;
    e->rts_local = policy.rts_group;
    values["lanes"] = std::to_string(e->lanes);
    values["reduce_name"] = e->name + "_reduce";
    values["spine_name"] = e->name + "_spine";
    e->main_program = build(*e, render_kernel("scan_rts", values), options.build_options);
    e->main = e->main_program.kernel(e->name);
    e->reduce = e->main_program.kernel(e->name + "_reduce");
    e->spine = e->main_program.kernel(e->name + "_spine");
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
  std::string s = engine_->main_program.source();
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

event scan_core::run(const queue& q, std::size_t n, const argument_list& args) const {
  return launch(q, n, args).last;
}

scan_core::events scan_core::launch(const queue& q, std::size_t n,
                                    const argument_list& args) const {
  const scan_engine& e = *engine_;
  if (q.ctx().identity() != e.ctx.identity())
    throw error(e.who + ": the queue belongs to another context than the kernel");
  events out;
  if (n == 0) return out;
  if (args.has_views()) {
    const std::string pattern = args.view_pattern();
    auto variant = e.views.get(pattern, [&] {
      view_variant_source v = rewrite_for_views(
          e.params, pattern,
          {e.input_expr, e.scan_expr, e.neutral, e.output_stmt, e.options.is_segment_start},
          e.options.preamble, e.who);
      scan_options o = e.options;
      o.is_segment_start = v.snippets[4];
      return std::make_shared<const scan_core>(e.ctx, e.type, v.arguments, v.snippets[0],
                                               v.snippets[1], v.snippets[2], v.snippets[3], e.kind,
                                               o);
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

namespace {
std::shared_ptr<cl::Buffer> allocate(const context& ctx, std::size_t bytes) {
  return ctx.pool().allocate(std::max<std::size_t>(bytes, 8));
}
event fill_zero(const queue& q, const cl::Buffer& buffer, std::size_t bytes) {
  return translate_cl_errors([&] {
    cl::Event ev;
    q.cl().enqueueFillBuffer(buffer, cl_uint(0), 0, round_up(bytes, 4), nullptr, &ev);
    return event(ev);
  });
}
}  // namespace

event scan_engine::run_lookback(const queue& q, std::size_t n, const argument_list& args,
                                event* first) const {
  const std::size_t tiles = (n + tile() - 1) / tile();
  if (tiles > 0xfffffff0u)
    throw error(who + ": " + std::to_string(n) + " elements are more than 2^32 tiles of " +
                std::to_string(tile()));
  std::lock_guard<std::mutex> lock(mutex);  // epochs must follow the order of enqueueing
  lookback_state& st = states[q.get()];
  bool fresh = false;
  if (!st.counters) {
    st.counters = allocate(ctx, 2 * sizeof(cl_uint));
    *first = fill_zero(q, *st.counters, 2 * sizeof(cl_uint));
  }
  if (st.tiles < tiles) {
    const std::size_t want = std::max(tiles, st.tiles + st.tiles / 2);
    // The smaller buffers may still be in use by this queue's earlier calls.
    for (auto* old : {&st.state, &st.aggregate, &st.inclusive})
      memory_pool::release_after(*old, q.cl(), !q.out_of_order());
    if (packed) {
      st.state = allocate(ctx, want * sizeof(cl_ulong));
    } else {
      st.state = allocate(ctx, want * sizeof(cl_uint));
      st.aggregate = allocate(ctx, want * type.size);
      st.inclusive = allocate(ctx, want * type.size);
    }
    st.tiles = want;
    fresh = true;
  }
  const std::size_t passes = uses_last_item ? 2 : 1;
  if (fresh || st.epoch + passes > kMaxEpoch) {
    // A new buffer may hold anything, and epochs wrap after 2^30 calls: clear once.
    event e = fill_zero(q, *st.state, st.tiles * (packed ? sizeof(cl_ulong) : sizeof(cl_uint)));
    if (!*first) *first = e;
    if (st.epoch + passes > kMaxEpoch) {
      fill_zero(q, *st.counters, 2 * sizeof(cl_uint));
      st.epoch = 0;
    }
  }
  order_point(q);  // the fills above before the passes
  queue_temporary total_buffer;
  if (uses_last_item) total_buffer = queue_temporary(q, std::max<std::size_t>(type.size, 8));

  const std::size_t groups =
      groups_per_cu
          ? std::min(tiles, groups_per_cu * std::max<std::size_t>(1, ctx.info().compute_units))
          : tiles;
  ndrange range = ndrange(groups * group).with_local(group);
  auto launch_pass = [&](const kernel& k) {
    const cl_uint epoch = ++st.epoch;
    return launch_with(q, k, range, [&](kernel_state& ks) {
      args.set_on(ks.handle(), 0);
      cl_uint index = static_cast<cl_uint>(args.count());
      set_arg(ks, index++, static_cast<cl_ulong>(n));
      set_arg(ks, index++, epoch);
      set_arg(ks, index++, *st.counters);
      set_arg(ks, index++, *st.state);
      if (!packed) {
        set_arg(ks, index++, *st.aggregate);
        set_arg(ks, index++, *st.inclusive);
      }
      if (uses_last_item) set_arg(ks, index++, *total_buffer);
    });
  };
  event last;
  if (uses_last_item) {
    last = launch_pass(total);
    if (!*first) *first = last;
    order_point(q);
  }
  last = launch_pass(main);
  if (!*first) *first = last;
  return last;
}

event scan_engine::run_rts(const queue& q, std::size_t n, const argument_list& args,
                           event* first) const {
  std::size_t chunk = round_up((n + max_chunks - 1) / max_chunks, granularity);
  const std::size_t chunks = (n + chunk - 1) / chunk;
  // Back to the pool fenced by this queue when the call returns (another queue may be next).
  const queue_temporary sums(q, std::max<std::size_t>((chunks + 1) * type.size, 8));
  const queue_temporary heads(q, std::max<std::size_t>(chunks, 8));
  const ndrange range = ndrange::padded((chunks + lanes - 1) / lanes).with_local(rts_local);
  // The reduce and main kernels both take the user's arguments, then n, chunk, chunks, sums.
  auto set_chunk_args = [&](kernel_state& ks) {
    args.set_on(ks.handle(), 0);
    cl_uint index = static_cast<cl_uint>(args.count());
    set_arg(ks, index++, static_cast<cl_ulong>(n));
    set_arg(ks, index++, static_cast<cl_ulong>(chunk));
    set_arg(ks, index++, static_cast<cl_ulong>(chunks));
    set_arg(ks, index++, *sums);
    return index;
  };
  *first = launch_with(q, reduce, range,
                       [&](kernel_state& ks) { set_arg(ks, set_chunk_args(ks), *heads); });
  order_point(q);
  launch_with(q, spine, ndrange(1).with_local(1), [&](kernel_state& ks) {
    set_arg(ks, 0, static_cast<cl_ulong>(chunks));
    set_arg(ks, 1, *sums);
    set_arg(ks, 2, *heads);
  });
  order_point(q);
  return launch_with(q, main, range, [&](kernel_state& ks) { set_chunk_args(ks); });
}

}  // namespace detail

scan_options& scan_options::tile(const std::string& spec) {
  detail::env_tile t;
  detail::tile_from_string(spec, t, "scan tile ");
  items_per_thread = t.items;
  group_size = t.group;
  lookback_window = t.window;
  lookback_in_registers = t.in_local ? 0 : 1;
  lookback_groups_per_cu = t.groups_per_cu;
  lookback_blocked = t.blocked;
  return *this;
}

namespace detail {

// ---- caches of the algorithms built on scan_kernel ------------------------------------------

std::shared_ptr<void> cached_scan(const context& ctx, const std::string& key,
                                  std::shared_ptr<void> (*make)(const context&, const void*),
                                  const void* make_argument) {
  // Kernels keep their context alive, so a context's identity is never reused while cached.
  static std::mutex mutex;
  static std::map<std::pair<const void*, std::string>, std::shared_ptr<void>> cache;
  const auto full_key = std::make_pair(ctx.identity(), key);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = cache.find(full_key);
    if (found != cache.end()) return found->second;
  }
  std::shared_ptr<void> made = make(ctx, make_argument);  // builds outside the lock
  std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(full_key, std::move(made)).first->second;
}

std::string selection_preamble(const std::string& type, const std::string& predicate,
                               const std::string& preamble) {
  return preamble + "\nstatic inline int clforge_keep(" + type + " x, long i) {\n  return (" +
         snippet(predicate) + ");\n}\n";
}

void check_selection(const char* who, std::size_t in_size, std::size_t out_size, bool same) {
  if (out_size < in_size)
    throw error(std::string(who) + ": the output has " + std::to_string(out_size) +
                " elements, the input " + std::to_string(in_size) + " (it must hold them all)");
  if (same) throw error(std::string(who) + ": the output must be another array than the input");
}

}  // namespace detail
}  // namespace clforge
