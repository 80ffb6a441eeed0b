// SPDX-License-Identifier: MIT
// scan_kernel's look-back algorithm (kernels/scan_lookback.cl; GPUs): the tile shape, the build
// and the launches, with the tile statuses kept per queue.
#include <algorithm>

#include "clforge/detail/checks.hpp"
#include "scan_engine.hpp"

namespace clforge::detail {

namespace {

constexpr std::uint32_t kMaxEpoch = (1u << 30) - 1;

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

// Per-queue state of the look-back (queue::attachment): tile statuses (never cleared, see the
// epoch in the kernel) and the two tile counters.
struct lookback_state {
  std::mutex mutex;  // epochs must follow the order of enqueueing
  std::shared_ptr<cl::Buffer> counters, state, aggregate, inclusive;
  std::size_t tiles = 0;
  std::uint32_t epoch = 0;
};

// Local memory the look-back kernel needs for a tile shape.
std::size_t lookback_local_bytes(const scan_engine& e, std::size_t items, std::size_t group) {
  const std::size_t tile = items * group;
  // values (padded), work-item sums (ping-pong), tile prefix, look-back window, small scalars
  std::size_t bytes = 2 * group * e.type.size + e.type.size + e.window * (e.type.size + 4) + 64;
  bytes += (tile + tile / 32) * e.type.size;
  if (e.segmented) bytes += tile + 2 * group;
  return bytes;
}

// The look-back tile: the deprecated scan_options fields where set, else the tuned policy.
void choose_tile(const context& ctx, scan_engine& e, const requested_tile& asked,
                 const scan_policy& policy) {
  const device_info& info = ctx.info();
  e.window = asked.window ? asked.window : policy.window;
  std::size_t items = asked.items, group = asked.group;
  const bool from_options = items || group;
  e.groups_per_cu = asked.groups_per_cu ? asked.groups_per_cu : policy.groups_per_cu;
  // A selection's stores from registers are faster than a plain scan's on some devices.
  const bool tuned_registers =
      e.use == scan_use::selection ? policy.selection_registers : policy.registers;
  e.registers = asked.registers >= 0 ? asked.registers != 0 : tuned_registers;
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
      throw error(e.who + ": lookback_layout must be automatic, striped or striped_vector, not " +
                  std::to_string(static_cast<int>(asked.layout)));
  }
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
}

}  // namespace

void build_lookback(const context& ctx, scan_engine& e, const requested_tile& asked,
                    const scan_policy& policy, template_values& values, std::string_view input_expr,
                    std::string_view output_stmt, const scan_options& options) {
  const scan_value_type& type = e.type;
  const scan_kind kind = e.kind;
  choose_tile(ctx, e, asked, policy);
  values["items"] = std::to_string(e.items);
  values["persistent"] = e.groups_per_cu ? "1" : "0";
  // striped_vector: a plain load NAME[i] / store NAME[i] = item of a global array of the value
  // type moves whole tiles as 4-vectors (other snippets, partial tiles: the scalar path).
  const bool vector = e.layout == tile_layout::striped_vector && e.items % 4 == 0 && !e.segmented &&
                      scalar_type_index(type.name) >= 0;
  const std::string in_array = vector ? plain_array(e.params, input_expr, type.name) : "";
  const std::string out_array = vector && kind == scan_kind::inclusive
                                    ? plain_array(e.params, output_stmt, type.name, true)
                                    : "";
  values["registers"] = e.registers ? "1" : "0";
  values["vector_in"] = in_array.empty() ? "0" : "1";
  values["vector_input"] = in_array.empty() ? "clforge_unused" : in_array;
  values["vector_out"] = out_array.empty() ? "0" : "1";
  values["vector_output"] = out_array.empty() ? "clforge_unused" : out_array;
  values["vector_type"] = type.name + "4";
  values["packed"] = e.packed ? "1" : "0";
  values["early_aggregate"] = e.commutative && !e.segmented ? "1" : "0";
  const std::string main_name = values["name"];
  // A tuned group is lowered to what the built kernels run; one scan_options asked for is
  // refused.
  e.group = build_for_group(
      e.group,
      [&](std::size_t group) {
        values["group"] = std::to_string(group);
        values["window"] = std::to_string(std::min(e.window, group));
        values["name"] = main_name;
        values["has_last_item"] = e.uses_last_item ? "1" : "0";
        values["total_only"] = "0";
        e.prog = build_template(ctx, e.who, {}, {{"scan_lookback", values}}, options.build_options);
        e.main = e.prog.kernel(e.name);
        if (e.uses_last_item) {
          values["name"] = e.name + "_last_item";
          values["has_last_item"] = "0";
          values["total_only"] = "1";
          e.total_program =
              build_template(ctx, e.who, {}, {{"scan_lookback", values}}, options.build_options);
          e.total = e.total_program.kernel(e.name + "_last_item");
        }
        return fitted_group(group, {&e.main, &e.total});
      },
      group_sizes::any,
      [&](std::size_t group, std::size_t fits) {
        if (asked.group)
          throw error(e.who + ": a look-back tile of " + std::to_string(group) +
                      " work-items, the built kernel allows at most " + std::to_string(fits) +
                      " on " + ctx.info().name + " (lower scan_options::group_size)");
      });
  e.window = std::min(e.window, e.group);
}

event scan_engine::run_lookback(const queue& q, std::size_t n, const argument_list& args,
                                event* first) const {
  const std::size_t tiles = (n + tile() - 1) / tile();
  if (tiles > 0xfffffff0u)
    throw error(who + ": " + std::to_string(n) + " elements are more than 2^32 tiles of " +
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

}  // namespace clforge::detail
