// SPDX-License-Identifier: MIT
// scan_kernel: generation (kernels/scan_lookback.cl, kernels/scan_rts.cl), algorithm choice,
// tile shapes, per-queue look-back state and launches.
#include "clforge/algorithms/scan.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <random>
#include <unordered_map>

#include "clforge/detail/checks.hpp"
#include "clforge/detail/codegen.hpp"
#include "template_engine.hpp"
#include "tuning/candidate.hpp"
#include "tuning/store.hpp"
#include "view_variants.hpp"
#include "workloads.hpp"

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

std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

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

}  // namespace

// Per-queue state of the look-back (queue::attachment): tile statuses (never cleared, see the
// epoch in the kernel) and the two tile counters.
struct lookback_state {
  std::mutex mutex;  // epochs must follow the order of enqueueing
  std::shared_ptr<cl::Buffer> counters, state, aggregate, inclusive;
  std::size_t tiles = 0;
  std::uint32_t epoch = 0;
};

// Holds no context handle (kept with the context by shared_scan); a call takes the queue's.
struct scan_engine : std::enable_shared_from_this<scan_engine> {
  template_header header;
  cl_context owner = nullptr;  // of the built programs, which retain it
  std::size_t compute_units = 1;
  const std::string& who() const { return header.who; }
  std::vector<bool> indexed;  // per parameter: indexed with [i] by a snippet
  scan_value_type type;
  scan_kind kind = scan_kind::inclusive;
  scan_algorithm algorithm = scan_algorithm::automatic;
  bool segmented = false, uses_last_item = false, packed = false;
  std::size_t items = 0, group = 0;             // look-back tile shape
  std::size_t window = 1;                       // look-back work-items
  bool registers = true;                        // a work-item's items between its passes
  std::size_t groups_per_cu = 0;                // look-back: 0 one group per tile, else persistent
  tile_layout layout = tile_layout::striped;    // look-back
  std::size_t granularity = 0, max_chunks = 0;  // reduce-then-scan
  std::size_t rts_local = 1;
  std::size_t lanes = 1;  // chunks per work-item, walked side by side
  program main_program, total_program;
  kernel main, total, reduce, spine;

  // What calls passing array views, and rebuilds under a new tuning, are generated from.
  std::string arguments, input_expr, scan_expr, neutral, output_stmt;
  scan_options options;
  mutable view_variant_cache<scan_core> views;
  tuning_stamp stamp;
  mutable retuned_cache<scan_core> retuned;

  std::size_t tile() const { return items * group; }
  // On an out-of-order queue, order_point puts barriers between dependent commands.
  event run_lookback(const queue& q, std::size_t n, const argument_list& args, event* first) const;
  event run_rts(const queue& q, std::size_t n, const argument_list& args, event* first) const;
};

namespace {

// Local memory the look-back kernel needs for a tile shape.
std::size_t lookback_local_bytes(const scan_engine& e, std::size_t items, std::size_t group) {
  const std::size_t tile = items * group;
  // values (padded), work-item sums (ping-pong), tile prefix, look-back window, small scalars
  std::size_t bytes = 2 * group * e.type.size + e.type.size + e.window * (e.type.size + 4) + 64;
  bytes += (tile + tile / 32) * e.type.size;
  if (e.segmented) bytes += tile + 2 * group;
  return bytes;
}

// What the deprecated tile and chunk fields of scan_options ask for (0, -1, automatic: the
// tuning), read in one place without the deprecation warning.
struct requested_tile {
  std::size_t items, group, window, groups_per_cu, granularity, max_chunks, lanes;
  int registers;
  scan_layout layout;
};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
requested_tile requested(const scan_options& o) {
  return {o.items_per_thread,  o.group_size, o.lookback_window, o.lookback_groups_per_cu,
          o.chunk_granularity, o.max_chunks, o.lanes,           o.lookback_in_registers,
          o.lookback_layout};
}
#pragma GCC diagnostic pop

// The look-back tile: the deprecated scan_options fields where set, else the tuned policy.
void choose_tile(const context& ctx, scan_engine& e, const requested_tile& asked,
                 const scan_policy& policy) {
  const device_info& info = ctx.info();
  e.window = asked.window ? asked.window : policy.window;
  std::size_t items = asked.items, group = asked.group;
  const bool from_options = items || group;
  e.groups_per_cu = asked.groups_per_cu ? asked.groups_per_cu : policy.groups_per_cu;
  e.registers = asked.registers >= 0 ? asked.registers != 0 : policy.registers;
  switch (asked.layout) {
    case scan_layout::automatic:
      e.layout = policy.layout;
      break;
    case scan_layout::striped:
      e.layout = tile_layout::striped;
      break;
    case scan_layout::striped_vector:
      e.layout = tile_layout::striped_vector;
      break;
    default:
      throw error(e.who() + ": lookback_layout must be automatic, striped or striped_vector, not " +
                  std::to_string(static_cast<int>(asked.layout)));
  }
  if (!items)
    items = policy.items
                ? policy.items
                : std::clamp<std::size_t>(policy.item_bytes / e.type.size, 1, policy.max_items);
  if (!group) group = policy.group;
  check_bound(e.who(), "items (items_per_thread)", items, 1, kMaxScanItems);
  check_bound(e.who(), "group (group_size)", group, 1, kMaxGroupSize);
  check_bound(e.who(), "window (lookback_window)", e.window, 1, kMaxScanWindow);
  check_bound(e.who(), "groups_per_cu (lookback_groups_per_cu)", e.groups_per_cu, 0,
              kMaxGroupsPerCu);
  group = std::min(group, info.max_work_group_size);
  const std::string origin = from_options ? "scan_options" : "";
  // Shrink the default to fit local memory; refuse a shape the user asked for.
  while (lookback_local_bytes(e, items, group) > info.local_mem_bytes) {
    if (!origin.empty() || items == 1)
      throw error(e.who() + ": a look-back tile of " + std::to_string(items) + " x " +
                  std::to_string(group) + " " + e.type.name + " needs " +
                  std::to_string(lookback_local_bytes(e, items, group)) +
                  " bytes of local memory, " + info.name + " has " +
                  std::to_string(info.local_mem_bytes) +
                  (origin.empty() ? "" : " (tile shape from " + origin + ")"));
    items = std::max<std::size_t>(1, items * 3 / 4);
  }
  e.items = items;
  e.group = group;

  e.window = std::min(e.window, group);
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
  auto e = std::make_shared<scan_engine>();
  e->header =
      start_template(ctx, "scan_kernel", options.name.empty() ? "scan" : options.name, arguments,
                     "i, n, item, prev_item, last_item", type.name, type.needs_fp64);
  e->owner = ctx.get();
  e->compute_units = std::max<std::size_t>(1, ctx.info().compute_units);
  e->type = type;
  e->kind = kind;
  e->segmented = !options.is_segment_start.empty();
  e->uses_last_item = uses_name(output_stmt, "last_item");
  e->packed = type.size <= 4;
  e->arguments = arguments;
  e->input_expr = input_expr;
  e->scan_expr = scan_expr;
  e->neutral = neutral;
  e->output_stmt = output_stmt;
  e->options = options;
  for (std::string_view s : {input_expr, scan_expr, neutral})
    if (s.find_first_not_of(" \t\r\n") == std::string_view::npos)
      throw error(e->who() + ": the input, scan and neutral expressions must not be empty");

  const std::string snippets =
      std::string(input_expr) + "\n" + std::string(output_stmt) + "\n" + options.is_segment_start;
  for (const parameter& p : e->header.params)
    e->indexed.push_back(options.check_array_lengths && p.is_pointer &&
                         p.address_space != "local" && indexes_with_i(snippets, p.name));

  const device_info& info = ctx.info();
  e->stamp = tuning_stamp(ctx);
  const scan_policy policy = tuned<scan_policy>(ctx);
  const requested_tile asked = requested(options);
  e->algorithm = options.algorithm != scan_algorithm::automatic ? options.algorithm
                 : policy.algorithm == scan_method::lookback    ? scan_algorithm::lookback
                                                                : scan_algorithm::reduce_then_scan;

  template_values values{
      {"name", e->header.name},
      {"preamble", snippet(options.preamble)},
      {"value_type", type.name},
      {"neutral", snippet(neutral)},
      {"scan_expr", snippet(scan_expr)},
      {"input_expr", snippet(input_expr)},
      {"output_statement", snippet(output_stmt)},
      {"is_segment_start", e->segmented ? snippet(options.is_segment_start) : "0"},
      {"segmented", e->segmented ? "1" : "0"},
      {"inclusive", kind == scan_kind::inclusive ? "1" : "0"},
      {"user_parameters", user_parameter_list(e->header.params)},
  };
  if (!e->header.fp64_pragma.empty())
    values["preamble"] = e->header.fp64_pragma + snippet(options.preamble);

  if (e->algorithm == scan_algorithm::lookback) {
    choose_tile(ctx, *e, asked, policy);
    values["group"] = std::to_string(e->group);
    values["items"] = std::to_string(e->items);
    values["window"] = std::to_string(e->window);
    values["persistent"] = e->groups_per_cu ? "1" : "0";
    // striped_vector: a plain load NAME[i] / store NAME[i] = item of a global array of the value
    // type moves whole tiles as 4-vectors (other snippets, partial tiles: the scalar path).
    const bool vector = e->layout == tile_layout::striped_vector && e->items % 4 == 0 &&
                        !e->segmented && scalar_type_index(type.name) >= 0;
    const std::string in_array = vector ? plain_array(e->header.params, input_expr, type.name) : "";
    const std::string out_array = vector && kind == scan_kind::inclusive
                                      ? plain_array(e->header.params, output_stmt, type.name, true)
                                      : "";
    values["registers"] = e->registers ? "1" : "0";
    values["vector_in"] = in_array.empty() ? "0" : "1";
    values["vector_input"] = in_array.empty() ? "clforge_unused" : in_array;
    values["vector_out"] = out_array.empty() ? "0" : "1";
    values["vector_output"] = out_array.empty() ? "clforge_unused" : out_array;
    values["vector_type"] = type.name + "4";
    values["packed"] = e->packed ? "1" : "0";
    values["has_last_item"] = e->uses_last_item ? "1" : "0";
    values["total_only"] = "0";
    e->main_program =
        build_template(ctx, e->header, "scan_lookback", values, options.build_options);
    e->main = e->main_program.kernel(e->header.name);
    if (e->uses_last_item) {
      values["name"] = e->header.name + "_last_item";
      values["has_last_item"] = "0";
      values["total_only"] = "1";
      e->total_program =
          build_template(ctx, e->header, "scan_lookback", values, options.build_options);
      e->total = e->total_program.kernel(e->header.name + "_last_item");
    }
    // The tile's group is compiled in: a kernel the compiler gave fewer work-items (registers)
    // cannot run it, whatever the device's limit.
    for (const kernel* k : {&e->main, &e->total})
      if (*k && k->work_group_size() < e->group)
        throw error(e->who() + ": a look-back tile of " + std::to_string(e->group) +
                    " work-items, the built kernel allows at most " +
                    std::to_string(k->work_group_size()) + " on " + info.name +
                    " (lower the tuning's scan:group)");
  } else {
    check_bound(e->who(), "chunk_granularity", asked.granularity, 0, kMaxChunkValue);
    check_bound(e->who(), "max_chunks", asked.max_chunks, 0, kMaxChunkValue);
    check_bound(e->who(), "lanes", asked.lanes, 0, kMaxLanes);
    e->granularity = asked.granularity ? asked.granularity : policy.granularity;
    const bool floating = type.name == "float" || type.name == "double" || type.name == "half";
    e->lanes = asked.lanes ? asked.lanes : floating ? policy.lanes_floating : policy.lanes;
    e->max_chunks =
        asked.max_chunks ? asked.max_chunks
        : policy.chunks_per_cu
            ? std::max<std::size_t>(1, policy.chunks_per_cu * info.compute_units) * e->lanes
            : policy.max_chunks;
    e->rts_local = policy.rts_group;
    values["lanes"] = std::to_string(e->lanes);
    values["reduce_name"] = e->header.name + "_reduce";
    values["spine_name"] = e->header.name + "_spine";
    e->main_program = build_template(ctx, e->header, "scan_rts", values, options.build_options);
    e->main = e->main_program.kernel(e->header.name);
    e->reduce = e->main_program.kernel(e->header.name + "_reduce");
    e->spine = e->main_program.kernel(e->header.name + "_spine");
  }
  engine_ = std::move(e);
}

const std::vector<parameter>& scan_core::parameters() const {
  return engine_->header.params;
}
const std::string& scan_core::who() const {
  return engine_->who();
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
      throw error(e.who() + ": array argument " + std::to_string(k + 1) + " (" +
                  e.header.params[k].name + ") has " + std::to_string(lengths[k]) +
                  " elements, but the scan runs over " + std::to_string(n) +
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
    throw error(e.who() + ": the queue belongs to another context than the kernel");
  if (auto retuned = e.retuned.get(e.stamp, q.ctx(), [&] {
        return std::make_shared<const scan_core>(q.ctx(), e.type, e.arguments, e.input_expr,
                                                 e.scan_expr, e.neutral, e.output_stmt, e.kind,
                                                 e.options);
      }))
    return retuned->launch(q, n, args);
  events out;
  if (n == 0) return out;
  if (args.has_views()) {
    const std::string pattern = args.view_pattern();
    auto variant = e.views.get(pattern, [&] {
      view_variant_source v = rewrite_for_views(
          e.header.params, pattern,
          {e.input_expr, e.scan_expr, e.neutral, e.output_stmt, e.options.is_segment_start},
          e.options.preamble, e.who());
      scan_options o = e.options;
      o.is_segment_start = v.snippets[4];
      return std::make_shared<const scan_core>(q.ctx(), e.type, v.arguments, v.snippets[0],
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
std::shared_ptr<cl::Buffer> allocate(const queue& q, std::size_t bytes) {
  return q.ctx().pool().allocate(std::max<std::size_t>(bytes, 8));
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
    throw error(who() + ": " + std::to_string(n) + " elements are more than 2^32 tiles of " +
                std::to_string(tile()));
  lookback_state& st = per_queue<lookback_state>(q, shared_from_this());
  std::lock_guard<std::mutex> lock(st.mutex);  // epochs must follow the order of enqueueing
  bool fresh = false;
  if (!st.counters) {
    st.counters = allocate(q, 2 * sizeof(cl_uint));
    *first = fill_zero(q, *st.counters, 2 * sizeof(cl_uint));
  }
  if (st.tiles < tiles) {
    const std::size_t want = std::max(tiles, st.tiles + st.tiles / 2);
    // The smaller buffers may still be in use by this queue's earlier calls.
    for (auto* old : {&st.state, &st.aggregate, &st.inclusive})
      memory_pool::release_after(*old, q.cl(), !q.out_of_order());
    if (packed) {
      st.state = allocate(q, want * sizeof(cl_ulong));
    } else {
      st.state = allocate(q, want * sizeof(cl_uint));
      st.aggregate = allocate(q, want * type.size);
      st.inclusive = allocate(q, want * type.size);
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

  const std::size_t groups = groups_per_cu ? std::min(tiles, groups_per_cu * compute_units) : tiles;
  ndrange range = ndrange(groups * group).with_local(group);
  // Arguments: the user's, n, the epoch, the tile counters and statuses (unpacked: also the
  // aggregates and inclusive values), and the total where the output uses last_item.
  auto launch_pass = [&](const kernel& k) {
    const cl_uint epoch = ++st.epoch;
    const cl_ulong count = n;
    if (packed && uses_last_item)
      return q.launch(k, range, args, count, epoch, *st.counters, *st.state, *total_buffer);
    if (packed) return q.launch(k, range, args, count, epoch, *st.counters, *st.state);
    if (uses_last_item)
      return q.launch(k, range, args, count, epoch, *st.counters, *st.state, *st.aggregate,
                      *st.inclusive, *total_buffer);
    return q.launch(k, range, args, count, epoch, *st.counters, *st.state, *st.aggregate,
                    *st.inclusive);
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
  const cl_ulong count = n, chunk_size = chunk, chunk_count = chunks;
  *first = q.launch(reduce, range, args, count, chunk_size, chunk_count, *sums, *heads);
  order_point(q);
  q.launch(spine, ndrange(1).with_local(1), chunk_count, *sums, *heads);
  order_point(q);
  return q.launch(main, range, args, count, chunk_size, chunk_count, *sums);
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

std::unique_ptr<tuning_workload> make_scan_workload(const queue& q, std::size_t size) {
  return std::make_unique<scan_workload>(q, size);
}

}  // namespace clforge::detail
