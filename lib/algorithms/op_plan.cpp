// SPDX-License-Identifier: MIT
// op::par_loop's plans: colourings built on the device (kernels/op_plan.cl), ordered by colour
// with the library's sort, kept with the set per map and access pattern.
#include "op_plan.hpp"

#include <algorithm>
#include <chrono>

#include "clforge/algorithms/sort.hpp"
#include "clforge/detail/codegen.hpp"
#include "template_engine.hpp"

namespace clforge::op::detail {

namespace {

constexpr cl_uint kNone = 0xffffffffu;

program plan_program(const context& ctx) {
  // Built once per context (the program cache's memory finds it again).
  return ctx.build(std::string(clforge::detail::embedded_kernel("op_plan")));
}

std::size_t units_of(std::size_t count, std::size_t unit) {
  return (count + unit - 1) / unit;
}

// The colour of each unit (kNone never remains), and how many colours there are.
array<cl_uint> colour_units(const queue& q, const program& prog, const plan_key& key,
                            const array<cl_uint>& conflicts, std::size_t& colours) {
  const std::size_t units = units_of(key.count, key.unit);
  const cl_uint sources = static_cast<cl_uint>(conflicts.size() / key.count);
  array<cl_uint> colour(q, units), deferred(q, units), top(q, key.targets), masks(q, key.targets),
      counters(q, 3);
  colour.fill(q, kNone);
  deferred.fill(q, 0);
  top.fill(q, 0);
  masks.fill(q, 0);
  counters.fill(q, 0);
  const clforge::kernel claim = prog.kernel("clforge_op_claim"),
                        pick = prog.kernel("clforge_op_pick");
  const ndrange range = ndrange::padded(units);
  cl_uint window = 0;
  cl_uint seen[3] = {0, 0, 0};
  for (;;) {
    q.launch(claim, range, conflicts.buffer(), sources, cl_ulong(key.count), cl_uint(key.unit),
             cl_ulong(units), colour.buffer(), deferred.buffer(), top.buffer());
    q.launch(pick, range, conflicts.buffer(), sources, cl_ulong(key.count), cl_uint(key.unit),
             cl_ulong(units), colour.buffer(), deferred.buffer(), top.buffer(), masks.buffer(),
             window, counters.buffer());
    top.fill(q, 0);
    counters.read(q, seen, 0, 3);  // [0] units left in this window, [1] colours, [2] deferred
    counters.fill(q, 0, 0, 1);
    if (seen[0] > 0) continue;
    if (seen[2] == 0) break;
    // Every unit left holds 32 neighbours' colours: the next 32 colours.
    ++window;
    masks.fill(q, 0);
    deferred.fill(q, 0);
    counters.fill(q, 0, 2, 1);
  }
  colours = seen[1];
  return colour;
}

}  // namespace

std::string plan_key::text() const {
  std::string out = std::string(by_units ? "block" : "colour") + (thread_colours ? "+t" : "") +
                    "/" + std::to_string(unit) + "/" + std::to_string(first) + "+" +
                    std::to_string(count) + "/" + std::to_string(targets);
  for (const source& s : sources)
    out += "/" + std::to_string(s.through->id) + (s.all ? "*" : ":" + std::to_string(s.index)) +
           "@" + std::to_string(s.offset);
  return out;
}

std::shared_ptr<const plan> find_plan(const queue& caller, set_state& s, const plan_key& key,
                                      bool& reused) {
  const std::string text = key.text();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.plans.find(text);
    if (it != s.plans.end()) {
      reused = true;
      return it->second;
    }
  }
  // Built by one thread at a time (the others find it when they get the build lock), on a queue
  // of its own: in order whatever `caller` is, and finished before the plan is kept, so that
  // any queue may use it. It reads only the maps, which are complete once made.
  std::lock_guard<std::mutex> building(s.build_mutex);
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.plans.find(text);
    if (it != s.plans.end()) {
      reused = true;
      return it->second;
    }
  }
  reused = false;
  const auto t0 = std::chrono::steady_clock::now();
  const queue q(caller.ctx());
  const program prog = plan_program(q.ctx());
  auto made = std::make_shared<plan>();

  // Each element's targets, side by side.
  std::size_t sources = 0;
  for (const plan_key::source& src : key.sources) sources += src.all ? src.through->arity : 1;
  array<cl_uint> conflicts(q, key.count * sources);
  const clforge::kernel gather = prog.kernel("clforge_op_conflicts");
  cl_uint column = 0;
  for (const plan_key::source& src : key.sources) {
    const std::size_t arity = src.through->arity;
    const std::size_t from = src.all ? 0 : src.index, to = src.all ? arity : src.index + 1;
    for (std::size_t index = from; index < to; ++index)
      q.launch(gather, ndrange::padded(key.count), src.through->values.buffer(), cl_uint(arity),
               cl_uint(index), cl_ulong(key.first), cl_ulong(key.count), cl_uint(sources), column++,
               cl_uint(src.offset), conflicts.buffer());
  }

  std::size_t colours = 0;
  array<cl_uint> colour = colour_units(q, prog, key, conflicts, colours);

  // Units (or elements) in colour order: the sort keeps each colour's in ascending order.
  const std::size_t units = units_of(key.count, key.unit);
  made->order = array<cl_uint>(q, units);
  q.launch(prog.kernel("clforge_op_iota"), ndrange::padded(units), made->order.buffer(),
           cl_ulong(units));
  sort_by_key(q, colour, made->order);
  array<cl_uint> starts(q, colours);
  starts.fill(q, kNone);
  q.launch(prog.kernel("clforge_op_starts"), ndrange::padded(units), colour.buffer(),
           cl_ulong(units), starts.buffer());
  std::vector<cl_uint> start = starts.to_host(q);
  for (cl_uint at : start)
    if (at != kNone) made->offsets.push_back(at);  // colours nobody took are left out
  made->offsets.push_back(units);

  if (key.thread_colours) {
    // Within each unit, colour by colour (units of one colour share no target).
    array<cl_uint> masks(q, key.targets);
    masks.fill(q, 0);
    made->thread_colour = array<cl_uint>(q, key.count);
    made->unit_colours = array<cl_uint>(q, units);
    const clforge::kernel threads = prog.kernel("clforge_op_thread_colours");
    for (std::size_t c = 0; c + 1 < made->offsets.size(); ++c) {
      const std::size_t n = made->offsets[c + 1] - made->offsets[c];
      q.launch(threads, ndrange::padded(n), conflicts.buffer(), cl_uint(sources),
               cl_ulong(key.count), cl_uint(key.unit), made->order.buffer(),
               cl_ulong(made->offsets[c]), cl_ulong(n), masks.buffer(),
               made->thread_colour.buffer(), made->unit_colours.buffer());
    }
  }
  q.finish();
  made->build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::lock_guard<std::mutex> lock(s.mutex);
  auto inserted = s.plans.emplace(text, std::move(made));
  return inserted.first->second;
}

long long first_bad_value(const queue& q, const array<cl_int>& values, std::size_t limit) {
  if (values.empty()) return -1;
  const program prog = plan_program(q.ctx());
  array<cl_uint> first(q, 1);
  first.fill(q, kNone);
  q.launch(prog.kernel("clforge_op_check_map"), ndrange::padded(values.size()), values.buffer(),
           cl_ulong(values.size()), cl_int(limit), first.buffer());
  cl_uint at = kNone;
  first.read(q, &at, 0, 1);
  return at == kNone ? -1 : static_cast<long long>(at);
}

}  // namespace clforge::op::detail
