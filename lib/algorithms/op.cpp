// SPDX-License-Identifier: MIT
// op::par_loop (kernels/op.cl): sets, maps, the user's element function, the checks of a loop's
// arguments, the generated wrapper, and the launches of its plan (op_plan.cpp). The tuning
// workload, an edge-flux loop, is at the end.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <numeric>
#include <random>

#include "clforge/detail/checks.hpp"
#include "clforge/detail/codegen.hpp"
#include "clforge/op.hpp"
#include "op_plan.hpp"
#include "template_engine.hpp"
#include "tuning/candidate.hpp"
#include "tuning/store.hpp"
#include "tuning/workload.hpp"

namespace clforge::op {

namespace cfd = clforge::detail;
using cfd::loop_plan;
using cfd::par_loop_policy;

const char* access_name(access a) {
  switch (a) {
    case access::read:
      return "READ";
    case access::write:
      return "WRITE";
    case access::rw:
      return "RW";
    case access::inc:
      return "INC";
    case access::min:
      return "MIN";
    case access::max:
      return "MAX";
  }
  return "?";
}

namespace detail {

namespace {
// Values per element a loop copies into private memory: dims beyond this would not fit it.
constexpr std::size_t kMaxDim = 1024;
// Elements of a set and values of a map are counted in 32 bits on the device (map values are
// int, plans uint).
constexpr std::size_t kMaxElements = INT_MAX;

std::atomic<std::uint64_t> next_id{1};
}  // namespace

std::string object_name(const char* kind, const std::string& name) {
  return std::string(kind) + " \"" + name + "\"";
}

void check_values(const std::string& what, std::size_t given, std::size_t expected,
                  const std::string& expected_text) {
  if (given != expected)
    throw error(what + ": " + std::to_string(given) + " values; expected " + expected_text + " = " +
                std::to_string(expected));
}

void check_dim(const std::string& what, std::size_t dim) {
  if (dim == 0 || dim > kMaxDim)
    throw error(what + ": dim " + std::to_string(dim) + "; expected 1 to " +
                std::to_string(kMaxDim));
}

// Made without a context (a user function, not yet a kernel): the loops start_template it on
// theirs (wrapper_of).
struct kernel_state : cfd::template_state {
  std::string code;
  std::vector<std::size_t> extents;  // per parameter: a declared array extent, 0 for a pointer
  std::string parameter_text;        // the list without extents (start_template parses it)
  std::uint64_t id = 0;
};

}  // namespace detail

// ---- set -------------------------------------------------------------------------------------

set::set(std::size_t size, const std::string& name) : set(size, 0, 0, name) {}

set::set(std::size_t owned, std::size_t exec_halo, std::size_t nonexec_halo,
         const std::string& name)
    : state_(std::make_shared<detail::set_state>()) {
  state_->what = detail::object_name("set", name);
  const std::size_t total = owned + exec_halo + nonexec_halo;
  if (total < owned || total > detail::kMaxElements || exec_halo > total || nonexec_halo > total)
    throw error(state_->what + ": " + std::to_string(owned) + " + " + std::to_string(exec_halo) +
                " + " + std::to_string(nonexec_halo) + " elements; at most " +
                std::to_string(detail::kMaxElements) + " in all");
  state_->owned = owned;
  state_->exec_halo = exec_halo;
  state_->nonexec_halo = nonexec_halo;
  state_->name = name;
}

std::size_t set::size() const {
  return detail::handle_state(state_, "op::set").owned;
}
std::size_t set::owned_size() const {
  return detail::handle_state(state_, "op::set").owned;
}
std::size_t set::exec_halo_size() const {
  return detail::handle_state(state_, "op::set").exec_halo;
}
std::size_t set::nonexec_halo_size() const {
  return detail::handle_state(state_, "op::set").nonexec_halo;
}
std::size_t set::iteration_size() const {
  const auto& st = detail::handle_state(state_, "op::set");
  return st.owned + st.exec_halo;
}
std::size_t set::total_size() const {
  const auto& st = detail::handle_state(state_, "op::set");
  return st.owned + st.exec_halo + st.nonexec_halo;
}
const std::string& set::name() const {
  return detail::handle_state(state_, "op::set").name;
}

// ---- map -------------------------------------------------------------------------------------

namespace {

std::shared_ptr<detail::map_state> start_map(const set& from, const set& to, std::size_t arity,
                                             std::size_t given, const std::string& name) {
  auto st = std::make_shared<detail::map_state>();
  st->what = detail::object_name("map", name);
  if (!from || !to) throw error(st->what + ": a set is empty (a default-constructed op::set)");
  if (arity == 0 || arity > detail::kMaxDim)
    throw error(st->what + ": arity " + std::to_string(arity) + "; expected 1 to " +
                std::to_string(detail::kMaxDim));
  detail::check_values(st->what, given, from.iteration_size() * arity,
                       "(owned + exec-halo) elements of " + from.state()->what + " x arity = " +
                           std::to_string(from.iteration_size()) + " x " + std::to_string(arity));
  st->from = from;
  st->to = to;
  st->arity = arity;
  st->name = name;
  st->id = detail::next_id++;
  return st;
}

[[noreturn]] void bad_map_value(const detail::map_state& st, std::size_t at, long long value) {
  throw error(st.what + ": value " + std::to_string(at) + " (element " +
              std::to_string(at / st.arity) + ", index " + std::to_string(at % st.arity) + ") is " +
              std::to_string(value) + ", outside " + st.to.state()->what + " of " +
              std::to_string(st.to.total_size()) + " elements (0 to " +
              std::to_string(static_cast<long long>(st.to.total_size()) - 1) + ")");
}

}  // namespace

map::map(const queue& q, const set& from, const set& to, std::size_t arity,
         const std::vector<cl_int>& values, const std::string& name) {
  auto st = start_map(from, to, arity, values.size(), name);
  const long long limit = static_cast<long long>(to.total_size());
  for (std::size_t k = 0; k < values.size(); ++k)
    if (values[k] < 0 || values[k] >= limit) bad_map_value(*st, k, values[k]);
  st->values = array<cl_int>::from_host(q, values);
  state_ = std::move(st);
}

map::map(const queue& q, const set& from, const set& to, std::size_t arity, array<cl_int> values,
         const std::string& name) {
  auto st = start_map(from, to, arity, values.size(), name);
  if (!values.empty() && values.ctx().identity() != q.ctx().identity())
    throw error(st->what + ": the values belong to another context than the queue");
  const long long bad = detail::first_bad_value(q, values, to.total_size());
  if (bad >= 0) {
    cl_int value = 0;
    values.read(q, &value, static_cast<std::size_t>(bad), 1);
    bad_map_value(*st, static_cast<std::size_t>(bad), value);
  }
  st->values = std::move(values);
  state_ = std::move(st);
}

const set& map::from() const {
  return detail::handle_state(state_, "op::map").from;
}
const set& map::to() const {
  return detail::handle_state(state_, "op::map").to;
}
std::size_t map::arity() const {
  return detail::handle_state(state_, "op::map").arity;
}
const std::string& map::name() const {
  return detail::handle_state(state_, "op::map").name;
}
const array<cl_int>& map::values() const {
  return detail::handle_state(state_, "op::map").values;
}

// ---- kernel ----------------------------------------------------------------------------------

namespace {

bool is_address_space(std::string_view word) {
  if (word.substr(0, 2) == "__") word.remove_prefix(2);
  return word == "global" || word == "local" || word == "constant" || word == "private" ||
         word == "generic";
}

bool all_digits(std::string_view text) {
  return !text.empty() && text.size() <= 6 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

kernel::kernel(const std::string& code, const std::string& name) {
  auto st = std::make_shared<detail::kernel_state>();
  st->who = detail::object_name("op::kernel", name);
  cfd::check_kernel_name(name, "op::kernel");
  st->code = code;
  st->name = name;
  st->id = detail::next_id++;

  // The definition: void NAME ( ... ) { - the first one in the code (a prototype ends in ;).
  const std::vector<std::string_view> t = cfd::source_tokens(code);
  std::size_t open = 0, close = 0;
  for (std::size_t k = 1; k + 1 < t.size() && close == 0; ++k) {
    if (t[k] != name || t[k + 1] != "(" || t[k - 1] != "void") continue;
    int depth = 0;
    for (std::size_t j = k + 1; j < t.size(); ++j) {
      depth += t[j] == "(" ? 1 : t[j] == ")" ? -1 : 0;
      if (depth == 0) {
        if (j + 1 < t.size() && t[j + 1] == "{") open = k + 1, close = j;
        break;
      }
    }
  }
  if (close == 0)
    throw error(st->who + ": the code has no function \"void " + name +
                "(...) { ... }\" (the name op::kernel is given is the function the loop calls)");

  // Parameter by parameter: no address space, an optional [extent], then the engine's parser.
  std::vector<std::vector<std::string_view>> pieces(1);
  for (std::size_t j = open + 1; j < close; ++j) {
    if (t[j] == ",")
      pieces.emplace_back();
    else
      pieces.back().push_back(t[j]);
  }
  if (pieces.size() == 1 &&
      (pieces[0].empty() || (pieces[0].size() == 1 && pieces[0][0] == "void")))
    pieces.clear();
  for (const auto& piece : pieces) {
    std::string text, shown;
    std::size_t extent = 0;
    for (std::size_t j = 0; j < piece.size(); ++j) {
      shown += (shown.empty() ? "" : " ") + std::string(piece[j]);
      if (piece[j] == "[") {
        if (j + 2 < piece.size() && all_digits(piece[j + 1]) && piece[j + 2] == "]" &&
            j + 3 == piece.size()) {
          extent = std::stoul(std::string(piece[j + 1]));
          shown += " " + std::string(piece[j + 1]) + " ]";
          break;
        }
        throw error(st->who + ": parameter \"" + shown +
                    "...\": an array parameter is written NAME[N] with a number N");
      }
      text += (text.empty() ? "" : " ") + std::string(piece[j]);
    }
    for (std::string_view word : piece)
      if (is_address_space(word))
        throw error(st->who + ": parameter \"" + shown +
                    "\" names an address space; the loop passes pointers to private copies of "
                    "the values, so declare it without one (float* x, const float* x or "
                    "float x[4])");
    if (extent == 0 && std::find(piece.begin(), piece.end(), "[") != piece.end())
      throw error(st->who + ": parameter \"" + shown + "\": an array extent of 0");
    std::vector<cfd::parameter> parsed;
    try {
      parsed = cfd::parse_signature(text);
    } catch (const error& failure) {
      throw error(st->who + ": ", failure);
    }
    if (parsed.size() != 1) throw error(st->who + ": cannot read parameter \"" + shown + "\"");
    cfd::parameter p = parsed[0];
    p.declaration = shown;
    if (!p.is_pointer && extent == 0)
      throw error(st->who + ": parameter \"" + shown +
                  "\" is passed by value; the loop passes each argument as a pointer to its "
                  "values (" +
                  p.type + "* " + p.name + ")");
    if (p.kind == cfd::scalar_kind::other)
      throw error(st->who + ": parameter \"" + shown + "\": " + p.type +
                  " is not a scalar type (char, uchar, short, ushort, int, uint, long, ulong, "
                  "float, double)");
    st->params.push_back(p);
    st->extents.push_back(extent);
    st->parameter_text += (st->parameter_text.empty() ? "" : ", ") + text;
  }
  for (std::size_t i = 0; i < st->params.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (st->params[i].name == st->params[j].name)
        throw error(st->who + ": two parameters are called \"" + st->params[i].name + "\"");
  state_ = std::move(st);
}

const std::string& kernel::name() const {
  return detail::handle_state(state_, "op::kernel").name;
}
const std::string& kernel::code() const {
  return detail::handle_state(state_, "op::kernel").code;
}
std::size_t kernel::parameter_count() const {
  return detail::handle_state(state_, "op::kernel").params.size();
}

// ---- the loop --------------------------------------------------------------------------------

namespace detail {

namespace {

enum class plan_kind { direct, atomics, colour, block };

const char* plan_name(plan_kind k) {
  switch (k) {
    case plan_kind::direct:
      return "direct";
    case plan_kind::atomics:
      return "atomics";
    case plan_kind::colour:
      return "colour";
    case plan_kind::block:
      return "block";
  }
  return "?";
}

bool through_map(const argument& a) {
  return a.kind == argument_kind::indirect || a.kind == argument_kind::all;
}
bool writes(const argument& a) {
  return a.mode != access::read;
}
bool reduces(const argument& a) {
  return a.mode == access::inc || a.mode == access::min || a.mode == access::max;
}

// "argument 3 (dat "res", INC through map "pecell" [1])"
std::string describe(const argument& a, std::size_t i) {
  std::string out =
      "argument " + std::to_string(i + 1) + " (" + a.what + ", " + access_name(a.mode);
  const std::string map = a.through ? a.through.state()->what : "an empty map";
  if (a.kind == argument_kind::indirect)
    out += " through " + map + " [" + std::to_string(a.index) + "]";
  else if (a.kind == argument_kind::all)
    out += " through every target of " + map;
  return out + ")";
}

// What the device offers beyond OpenCL 1.2's core, read once per context.
struct device_atomics {
  bool int64 = false;  // cl_khr_int64_base_atomics and _extended_atomics
};
const device_atomics& atomics_of(const context& ctx) {
  return *cfd::per_context_as<device_atomics>(ctx, "clforge.op", "atomics", [&] {
    auto out = std::make_shared<device_atomics>();
    const std::string ext = ctx.device().getInfo<CL_DEVICE_EXTENSIONS>();
    out->int64 = ext.find("cl_khr_int64_base_atomics") != std::string::npos &&
                 ext.find("cl_khr_int64_extended_atomics") != std::string::npos;
    return out;
  });
}

bool has_atomics(const std::string& type, const device_atomics& device) {
  if (type == "int" || type == "uint" || type == "float") return true;
  if (type == "long" || type == "ulong" || type == "double") return device.int64;
  return false;  // 8- and 16-bit types
}

struct wrapper {
  program prog;
  clforge::kernel main, finish;
  std::size_t group = 1;
};

}  // namespace

struct loop_state {
  context ctx;
  op::kernel k;
  set s;
  std::vector<argument> args;
  std::string who;
  std::vector<map> maps;               // the distinct maps, in parameter order
  std::vector<std::size_t> map_param;  // per argument through a map: its map's parameter
  bool writes_through_maps = false;
  bool serial = false;   // WRITE or RW through a map: elements sharing a target run in turns
  bool reduced = false;  // a global is reduced (INC, MIN, MAX)
  plan_kind kind = plan_kind::direct;
  std::size_t group = 1, block = 1;
  bool thread_colours = false, split = false;
  plan_key targets;  // the sources of the plan's targets (the range is set per run)
  std::shared_ptr<const wrapper> w;
  std::string source;
  cfd::tuning_stamp stamp;
  mutable cfd::retuned_cache<loop_state> retuned;
};

namespace {

// The buffer an argument's values are in now, checked: a dat's or global's data() may have been
// given another array (or moved from) since the argument was made; the loop uses the new one.
cl::Buffer values_buffer(const loop_state& st, const argument& a, std::size_t i) {
  if (!a.now) return a.buffer;
  const values_now v = a.now(a.data.get());
  const std::string what = st.who + ": " + describe(a, i);
  const bool global = a.kind == argument_kind::global;
  const std::size_t expected = global ? a.dim : a.dataset.total_size() * a.dim;
  if (v.size != expected || (v.size == 0 && global))
    throw error(what + " holds " + std::to_string(v.size) + " value(s); expected " +
                (global ? "its dim " + std::to_string(a.dim)
                        : "set size x dim = " + std::to_string(a.dataset.total_size()) + " x " +
                              std::to_string(a.dim) + " = " + std::to_string(expected)) +
                " (its data() was given an array of another size, or moved from)");
  if (v.size > 0 && v.context != st.ctx.get())
    throw error(what + " belongs to another context than the queue");
  return v.buffer;
}

// Every check of a loop, before anything is built or run.
void check_loop(loop_state& st) {
  const auto& ks = *st.k.state();
  if (ks.params.size() != st.args.size()) {
    std::string list;
    for (const cfd::parameter& p : ks.params) list += (list.empty() ? "" : ", ") + p.declaration;
    throw error(st.who + ": the function takes " + std::to_string(ks.params.size()) +
                " argument(s) (" + list + "), " + std::to_string(st.args.size()) + " given");
  }
  for (std::size_t i = 0; i < st.args.size(); ++i) {
    const argument& a = st.args[i];
    const cfd::parameter& p = ks.params[i];
    const std::string what = st.who + ": " + describe(a, i);
    values_buffer(st, a, i);
    if (a.context && a.context != st.ctx.get())
      throw error(what + " belongs to another context than the queue");
    if (a.kind == argument_kind::global) {
      if (a.mode == access::write || a.mode == access::rw)
        throw error(what +
                    ": a global is READ, INC, MIN or MAX in a loop (its elements run at "
                    "once: a WRITE would keep one of them)");
    } else if (a.kind == argument_kind::direct) {
      if (a.dataset != st.s)
        throw error(what + " is on " + a.dataset.state()->what + "; the loop runs over " +
                    st.s.state()->what + " (a direct argument is on the loop's set)");
    } else {
      if (!a.through) throw error(what + ": the map is empty (a default-constructed op::map)");
      const map_state& m = *a.through.state();
      if (a.through.values().size() > 0 && a.through.values().ctx().get() != st.ctx.get())
        throw error(what + ": " + m.what + " belongs to another context than the queue");
      if (m.from != st.s)
        throw error(what + ": " + m.what + " maps from " + m.from.state()->what +
                    "; the loop runs over " + st.s.state()->what);
      if (m.to != a.dataset)
        throw error(what + ": " + m.what + " maps to " + m.to.state()->what + "; " + a.what +
                    " is on " + a.dataset.state()->what +
                    " (a map's target set must be the dat's set)");
      if (a.kind == argument_kind::indirect && a.index >= m.arity)
        throw error(what + ": index " + std::to_string(a.index) + " of a map of arity " +
                    std::to_string(m.arity) + " (0 to " + std::to_string(m.arity - 1) + ")");
    }
    // The function's parameter.
    const std::size_t values = a.kind == argument_kind::all ? a.through.arity() * a.dim : a.dim;
    if (p.type != a.type)
      throw error(what + " holds " + a.type + " values; the function's parameter " +
                  std::to_string(i + 1) + " is \"" + p.declaration + "\"");
    if (p.is_const && writes(a))
      throw error(what + " is written; the function's parameter " + std::to_string(i + 1) + " \"" +
                  p.declaration + "\" is const");
    if (ks.extents[i] != 0 && ks.extents[i] != values)
      throw error(what + " passes " + std::to_string(values) + " value(s) per element (" +
                  (a.kind == argument_kind::all ? "arity " + std::to_string(a.through.arity()) +
                                                      " x dim " + std::to_string(a.dim)
                                                : "dim " + std::to_string(a.dim)) +
                  "); the function's parameter " + std::to_string(i + 1) + " \"" + p.declaration +
                  "\" takes " + std::to_string(ks.extents[i]));
  }
  // A dat used twice: the uses must not depend on the order the elements run in.
  for (std::size_t i = 0; i < st.args.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const argument &a = st.args[j], &b = st.args[i];
      if (a.data != b.data || a.kind == argument_kind::global) continue;
      const std::string both = st.who + ": " + describe(a, j) + " and " + describe(b, i);
      if (!writes(a) && !writes(b)) continue;
      const bool a_map = through_map(a), b_map = through_map(b);
      if (a_map && b_map && writes(a) && writes(b)) {
        const bool a_inc = a.mode == access::inc, b_inc = b.mode == access::inc;
        const bool a_set = a.mode == access::write || a.mode == access::rw;
        const bool b_set = b.mode == access::write || b.mode == access::rw;
        if ((a_inc && b_set) || (b_inc && a_set))
          throw error(both +
                      ": WRITE or RW through a map and INC on the same dat in one loop "
                      "(increments of one element would meet the values another writes)");
        if (a.mode != b.mode && !(a_set && b_set))
          throw error(both + ": one dat combined through maps in two ways (" + access_name(a.mode) +
                      " and " + access_name(b.mode) + ")");
        continue;
      }
      if (!a_map && !b_map) {
        if (writes(a) && writes(b)) throw error(both + ": one dat written twice by each element");
        continue;  // READ and a write of the element's own values
      }
      throw error(both +
                  ": one dat used through a map and otherwise while the loop writes "
                  "it; what an element reads would depend on the order the elements run "
                  "in");
    }
}

// The X-macro lists the wrapper is specialised with, and what decides the plan.
void analyse(loop_state& st) {
  for (std::size_t i = 0; i < st.args.size(); ++i) {
    const argument& a = st.args[i];
    std::size_t param = 0;
    if (through_map(a)) {
      auto at = std::find(st.maps.begin(), st.maps.end(), a.through);
      if (at == st.maps.end()) at = st.maps.insert(st.maps.end(), a.through);
      param = static_cast<std::size_t>(at - st.maps.begin());
      if (writes(a)) st.writes_through_maps = true;
      if (a.mode == access::write || a.mode == access::rw) st.serial = true;
    }
    if (a.kind == argument_kind::global && reduces(a)) st.reduced = true;
    st.map_param.push_back(param);
  }
  // The targets a plan keeps apart: one numbering per dat written through a map.
  std::vector<const void*> dats;
  std::vector<std::size_t> offsets;
  for (const argument& a : st.args) {
    if (!through_map(a) || !writes(a)) continue;
    auto at = std::find(dats.begin(), dats.end(), a.data.get());
    std::size_t offset = st.targets.targets;
    if (at == dats.end()) {
      dats.push_back(a.data.get());
      offsets.push_back(offset);
      st.targets.targets += a.dataset.total_size();
    } else {
      offset = offsets[static_cast<std::size_t>(at - dats.begin())];
    }
    plan_key::source src{a.through.state(), a.index, a.kind == argument_kind::all, offset};
    const bool known = std::any_of(st.targets.sources.begin(), st.targets.sources.end(),
                                   [&](const plan_key::source& s) {
                                     return s.through == src.through && s.index == src.index &&
                                            s.all == src.all && s.offset == src.offset;
                                   });
    if (!known) st.targets.sources.push_back(src);
  }
  if (st.targets.targets > 0xfffffffeu)
    throw error(st.who + ": the dats written through maps have " +
                std::to_string(st.targets.targets) + " elements together; at most 2^32 - 2");
}

const char* kind_token(argument_kind k) {
  switch (k) {
    case argument_kind::direct:
      return "DIRECT";
    case argument_kind::indirect:
      return "INDIRECT";
    case argument_kind::all:
      return "ALL";
    case argument_kind::global:
      return "GLOBAL";
  }
  return "?";
}

// The #defines in front of kernels/op.cl.
std::string defines_of(const loop_state& st, std::size_t group, bool fp64, bool atomics64) {
  std::string maps, arguments;
  for (std::size_t j = 0; j < st.maps.size(); ++j) maps += " MAP(" + std::to_string(j) + ")";
  bool atomics = false;
  for (std::size_t i = 0; i < st.args.size(); ++i) {
    const argument& a = st.args[i];
    const bool atomic = st.kind == plan_kind::atomics && through_map(a) && reduces(a);
    atomics |= atomic;
    const std::size_t arity = through_map(a) ? a.through.arity() : 1;
    arguments += " \\\n  ARG(" + std::to_string(i) + ", " + a.type + ", " + std::to_string(a.dim) +
                 ", " + kind_token(a.kind) + ", " + access_name(a.mode) + ", " +
                 std::to_string(st.map_param[i]) + ", " + std::to_string(a.index) + ", " +
                 std::to_string(arity) + ", " + (atomic ? "1" : "0") + ")";
  }
  const int plan = st.kind == plan_kind::colour ? 1 : st.kind == plan_kind::block ? 2 : 0;
  std::string out = "// policy: " + cfd::policy_text(cfd::tuned<par_loop_policy>(st.ctx)) +
                    " (plan run: " + plan_name(st.kind) + ")\n";
  out += "#define CLFORGE_PLAN " + std::to_string(plan) + "\n#define CLFORGE_GROUP " +
         std::to_string(group) + "\n#define CLFORGE_BLOCK " + std::to_string(st.block) +
         "\n#define CLFORGE_THREAD_COLOURS " + (st.thread_colours ? "1" : "0") +
         "\n#define CLFORGE_SPLIT " + (st.split ? "1" : "0") + "\n#define CLFORGE_OP_ATOMICS " +
         (atomics ? "1" : "0") + "\n#define CLFORGE_OP_ATOMICS_64 " +
         (atomics && atomics64 ? "1" : "0") + "\n";
  if (fp64) out += "#define CLFORGE_OP_DOUBLE 1\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  out += "#define CLFORGE_OP_MAPS(MAP)" + maps + "\n#define CLFORGE_OP_ARGUMENTS(ARG)" + arguments +
         "\n";
  return out;
}

// The wrapper of `st` (kept per context), its group fitted to what the device runs.
std::shared_ptr<const wrapper> wrapper_of(const loop_state& st, std::string& source) {
  const kernel_state& ks = *st.k.state();
  const cfd::template_header header =
      cfd::start_template(st.ctx, "op::kernel", ks.name, ks.parameter_text, "");
  bool fp64 = !header.fp64_pragma.empty();
  for (const argument& a : st.args)
    fp64 |= cfd::require_type_support(st.ctx.info(), a.type, st.who);
  const bool atomics64 = atomics_of(st.ctx).int64;
  std::string call;
  for (std::size_t i = 0; i < st.args.size(); ++i)
    call += (i ? ", clforge_v" : "clforge_v") + std::to_string(i);
  const std::string name = "clforge_op_" + ks.name;
  const cfd::template_values values = {{"name", name},
                                       {"finish", name + "_finish"},
                                       {"function", ks.name},
                                       {"call", call},
                                       {"user_code", cfd::snippet(ks.code)}};
  for (std::size_t group = st.group;; group /= 2) {
    const std::string defines = defines_of(st, group, fp64, atomics64);
    const std::string key = std::to_string(ks.id) + "\n" + defines;
    auto made = cfd::per_context_as<wrapper>(st.ctx, "clforge.op", key, [&] {
      auto w = std::make_shared<wrapper>();
      // (build_template with #defines, once the engine takes them)
      const std::string text = defines + cfd::render_kernel("op", values);
      try {
        w->prog = st.ctx.build(text);
      } catch (const error& failure) {
        throw error(st.who + ": ", failure);
      }
      w->main = w->prog.kernel(name);
      w->finish = w->prog.kernel(name + "_finish");
      w->group = group;
      return w;
    });
    // A group the kernels cannot run (registers on a GPU): the next smaller power of two.
    if (cfd::fitted_group(group, {&made->main, &made->finish}) >= group || group == 1) {
      source = made->prog.source();
      return made;
    }
  }
}

std::shared_ptr<const loop_state> make_state(const context& ctx, const op::kernel& k, const set& s,
                                             std::vector<argument> args) {
  auto st = std::make_shared<loop_state>();
  st->ctx = ctx;
  st->k = k;
  st->s = s;
  st->args = std::move(args);
  st->who = "op::par_loop \"" + k.name() + "\" over " + s.state()->what;
  check_loop(*st);
  analyse(*st);

  st->stamp = cfd::tuning_stamp(ctx);
  const par_loop_policy policy = cfd::tuned<par_loop_policy>(ctx);
  st->group = policy.group;
  while (st->group > 1 && st->group > ctx.info().max_work_group_size) st->group /= 2;
  st->block = policy.block;
  if (st->writes_through_maps) {
    switch (policy.plan) {
      case loop_plan::atomics: {
        // WRITE and RW, and types without atomics on the device, take turns by blocks.
        bool atomic = !st->serial;
        for (const argument& a : st->args)
          if (through_map(a) && reduces(a)) atomic &= has_atomics(a.type, atomics_of(ctx));
        st->kind = atomic ? plan_kind::atomics : plan_kind::block;
        break;
      }
      case loop_plan::colour:
        st->kind = plan_kind::colour;
        break;
      case loop_plan::block:
        st->kind = plan_kind::block;
        break;
    }
  }
  st->thread_colours = st->kind == plan_kind::block && st->group > 1;
  st->split = st->thread_colours && st->block == 1 && !st->serial;
  st->w = wrapper_of(*st, st->source);
  // A smaller group the device needed keeps the thread colours the wrapper was generated with.
  st->group = st->w->group;
  st->targets.by_units = st->kind == plan_kind::block;
  st->targets.thread_colours = st->thread_colours;
  st->targets.unit = st->kind == plan_kind::block ? st->group * st->block : 1;
  return st;
}

const loop_state& current(const loop_state& st) {
  if (auto r =
          st.retuned.get(st.stamp, st.ctx, [&] { return make_state(st.ctx, st.k, st.s, st.args); }))
    return *r;
  return st;
}

void check_range(const loop_state& st, const queue& q, std::size_t first, std::size_t end) {
  if (!q.ctx() || q.ctx().identity() != st.ctx.identity())
    throw error(st.who + ": the queue belongs to another context than the loop's arguments");
  if (first > end || end > st.s.iteration_size())
    throw error(st.who + ": the range [" + std::to_string(first) + ", " + std::to_string(end) +
                ") is not within the " + std::to_string(st.s.iteration_size()) +
                " owned and exec-halo elements of " + st.s.state()->what);
}

std::shared_ptr<const plan> plan_for(const loop_state& st, const queue& q, std::size_t first,
                                     std::size_t end, bool& reused) {
  plan_key key = st.targets;
  key.first = first;
  key.count = end - first;
  return find_plan(q, *st.s.state(), key, reused);
}

}  // namespace

}  // namespace detail

loop::loop(const queue& q, const kernel& k, const set& s, std::vector<arg> args) {
  if (!q.ctx()) throw error("op::par_loop: the queue is empty");
  if (!k) throw error("op::par_loop: the kernel is empty (a default-constructed op::kernel)");
  if (!s)
    throw error("op::par_loop \"" + k.name() +
                "\": the set is empty (a default-constructed "
                "op::set)");
  state_ = detail::make_state(q.ctx(), k, s, std::move(args));
}

event loop::run(const queue& q) const {
  const std::size_t owned = state_->s.owned_size();
  event last = run(q, 0, owned);
  if (run_size() > owned) {
    // The exec halo's own plan (the MPI layer puts the halo exchange between the two).
    cfd::order_point(q);
    event halo = run(q, owned, run_size());
    if (halo) last = halo;
  }
  return last;
}

event loop::run(const queue& q, std::size_t first, std::size_t end) const {
  using namespace detail;
  const loop_state& st = current(*state_);
  check_range(st, q, first, end);
  const std::size_t count = end - first;
  if (count == 0) return {};
  const std::size_t unit = st.group * st.block;

  // The launches: (where in the plan's order, the count the kernel sees, groups).
  struct launch {
    std::size_t offset, count, groups;
  };
  std::vector<launch> launches;
  std::shared_ptr<const detail::plan> p;
  if (st.kind == plan_kind::direct || st.kind == plan_kind::atomics) {
    launches.push_back({0, count, (count + unit - 1) / unit});
  } else {
    bool reused = false;
    p = plan_for(st, q, first, end, reused);
    for (std::size_t c = 0; c < p->colours(); ++c) {
      const std::size_t n = p->offsets[c + 1] - p->offsets[c];
      if (st.kind == plan_kind::colour)
        launches.push_back({p->offsets[c], n, (n + unit - 1) / unit});
      else
        launches.push_back({p->offsets[c], count, n});
    }
  }
  std::size_t groups = 0;
  for (const launch& l : launches) groups += l.groups;

  // Maps, then each argument's values (and a global's partials: one per group and value).
  std::vector<cl::Buffer> buffers;
  std::vector<cfd::queue_temporary> partials;
  for (const map& m : st.maps) buffers.push_back(m.values().buffer());
  for (std::size_t i = 0; i < st.args.size(); ++i) {
    const argument& a = st.args[i];
    buffers.push_back(values_buffer(st, a, i));
    if (a.kind != argument_kind::global) continue;
    if (reduces(a)) {
      partials.emplace_back(q, groups * a.dim * a.type_size);
      buffers.push_back(*partials.back());
    } else {
      buffers.push_back(cl::Buffer());
    }
  }
  static const cl::Buffer none;
  const cl::Buffer& order = p ? p->order.buffer() : none;
  const cl::Buffer& thread_colour = p ? p->thread_colour.buffer() : none;
  const cl::Buffer& unit_colours = p ? p->unit_colours.buffer() : none;

  event last;
  std::size_t base = 0;
  cfd::order_point(q);
  for (std::size_t k = 0; k < launches.size(); ++k) {
    const launch& l = launches[k];
    ndrange range = ndrange(l.groups * st.group).with_local(st.group);
    if (k + 1 < launches.size() || st.reduced) range.without_event();
    last = q.launch(st.w->main, range, buffers, cl_ulong(first), cl_ulong(l.count), order,
                    cl_ulong(l.offset), thread_colour, unit_colours, cl_ulong(base));
    base += l.groups;
    cfd::order_point(q);  // colours run one after the other
  }
  if (st.reduced) {
    last = q.launch(st.w->finish, ndrange(st.group).with_local(st.group), buffers, cl_ulong(first),
                    cl_ulong(0), order, cl_ulong(0), thread_colour, unit_colours, cl_ulong(groups));
    cfd::order_point(q);
  }
  return last;
}

plan_info loop::plan(const queue& q, std::size_t first, std::size_t end) const {
  using namespace detail;
  const loop_state& st = current(*state_);
  check_range(st, q, first, end);
  plan_info out;
  out.kind = plan_name(st.kind);
  if (st.kind == plan_kind::direct || st.kind == plan_kind::atomics || first == end) return out;
  const auto p = plan_for(st, q, first, end, out.reused);
  out.colours = p->colours();
  out.build_seconds = out.reused ? 0 : p->build_seconds;
  return out;
}

std::size_t loop::run_size() const {
  return state_->s.owned_size() + (state_->writes_through_maps ? state_->s.exec_halo_size() : 0);
}
bool loop::writes_through_maps() const {
  return state_->writes_through_maps;
}
const std::vector<arg>& loop::arguments() const {
  return state_->args;
}
const std::string& loop::source() const {
  return detail::current(*state_).source;
}

}  // namespace clforge::op

// ---- the tuner's workload: an edge-flux loop in the shape of OP2 Airfoil's res_calc ----------

namespace clforge::detail {

namespace {

// The flux across an edge between two cells of 2-D Euler states (density, momentum, energy),
// incremented into both: float, through two maps (edge -> nodes, edge -> cells).
const char* kEdgeFlux = R"CLC(
#define GM1 0.4f
#define EPS 0.05f
void edge_flux(const float* x1, const float* x2, const float* q1, const float* q2,
               const float* adt1, const float* adt2, float* res1, float* res2) {
  const float dx = x1[0] - x2[0], dy = x1[1] - x2[1];
  float ri = 1.0f / q1[0];
  const float p1 = GM1 * (q1[3] - 0.5f * ri * (q1[1] * q1[1] + q1[2] * q1[2]));
  const float vol1 = ri * (q1[1] * dy - q1[2] * dx);
  ri = 1.0f / q2[0];
  const float p2 = GM1 * (q2[3] - 0.5f * ri * (q2[1] * q2[1] + q2[2] * q2[2]));
  const float vol2 = ri * (q2[1] * dy - q2[2] * dx);
  const float mu = 0.5f * (adt1[0] + adt2[0]) * EPS;
  float f = 0.5f * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]);
  res1[0] += f;
  res2[0] -= f;
  f = 0.5f * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]);
  res1[1] += f;
  res2[1] -= f;
  f = 0.5f * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]);
  res1[2] += f;
  res2[2] -= f;
  f = 0.5f * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3]);
  res1[3] += f;
  res2[3] -= f;
}
)CLC";

struct edge_flux_data {
  op::set nodes, cells, edges;
  op::map edge_nodes, edge_cells;
  op::dat<float> x, q, adt, res;
  std::vector<float> expected, magnitude;  // the host's result, and the sum of |terms| per value
};

class edge_flux_trial final : public tuning_trial {
 public:
  edge_flux_trial(std::shared_ptr<edge_flux_data> data, op::loop l)
      : data_(std::move(data)), loop_(std::move(l)) {}
  commands run(const queue& q) override {
    loop_.run(q);  // increments add up over runs; only check() reads them
    return {};
  }
  std::string check(const queue& q) override {
    data_->res.data().fill(q, 0.0f);
    loop_.run(q);
    const std::vector<float> res = data_->res.to_host(q);
    for (std::size_t i = 0; i < res.size(); ++i)
      if (!(std::fabs(res[i] - data_->expected[i]) <= 1e-5f * data_->magnitude[i] + 1e-30f))
        return "res[" + std::to_string(i) + "] = " + std::to_string(res[i]) + ", the host gave " +
               std::to_string(data_->expected[i]);
    return "";
  }

 private:
  std::shared_ptr<edge_flux_data> data_;
  op::loop loop_;
};

class edge_flux_workload final : public tuning_workload {
 public:
  edge_flux_workload(const queue& q, std::size_t edges)
      : tuning_workload("float32/" + size_bucket(edges), sizeof(float)),
        data_(std::make_shared<edge_flux_data>()) {
    // An n x n quad mesh: 2n(n - 1) interior edges, row by row; nodes numbered at random.
    const std::size_t n = std::max<std::size_t>(
        2, static_cast<std::size_t>(std::sqrt(static_cast<double>(edges) / 2.0)));
    const std::size_t nodes = (n + 1) * (n + 1), cells = n * n;
    std::vector<cl_int> number(nodes);
    std::iota(number.begin(), number.end(), 0);
    std::mt19937 random(7);
    std::shuffle(number.begin(), number.end(), random);
    std::vector<float> x(2 * nodes);
    for (std::size_t j = 0; j <= n; ++j)
      for (std::size_t i = 0; i <= n; ++i) {
        const std::size_t at = 2 * static_cast<std::size_t>(number[j * (n + 1) + i]);
        x[at] = static_cast<float>(i) / n;
        x[at + 1] = static_cast<float>(j) / n;
      }
    const auto node = [&](std::size_t i, std::size_t j) { return number[j * (n + 1) + i]; };
    const auto cell = [&](std::size_t i, std::size_t j) { return cl_int(j * n + i); };
    std::vector<cl_int> en, ec;
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t i = 0; i < n; ++i) {
        if (i + 1 < n) {  // the east edge
          en.insert(en.end(), {node(i + 1, j), node(i + 1, j + 1)});
          ec.insert(ec.end(), {cell(i, j), cell(i + 1, j)});
        }
        if (j + 1 < n) {  // the north edge
          en.insert(en.end(), {node(i + 1, j + 1), node(i, j + 1)});
          ec.insert(ec.end(), {cell(i, j), cell(i, j + 1)});
        }
      }
    const std::vector<float> noise = tuning_floats(5 * cells, 9);
    std::vector<float> qv(4 * cells), adt(cells);
    for (std::size_t c = 0; c < cells; ++c) {
      const float* r = &noise[5 * c];
      qv[4 * c] = 1.0f + 0.1f * r[0];
      qv[4 * c + 1] = 0.5f + 0.1f * r[1];
      qv[4 * c + 2] = 0.05f * r[2];
      qv[4 * c + 3] = 2.5f + 0.1f * r[3];
      adt[c] = 1.0f + r[4];
    }
    edge_flux_data& d = *data_;
    d.nodes = op::set(nodes, "nodes");
    d.cells = op::set(cells, "cells");
    d.edges = op::set(ec.size() / 2, "edges");
    d.edge_nodes = op::map(q, d.edges, d.nodes, 2, en, "edge_nodes");
    d.edge_cells = op::map(q, d.edges, d.cells, 2, ec, "edge_cells");
    d.x = op::dat<float>(q, d.nodes, 2, x, "x");
    d.q = op::dat<float>(q, d.cells, 4, qv, "q");
    d.adt = op::dat<float>(q, d.cells, 1, adt, "adt");
    d.res = op::dat<float>(q, d.cells, 4, "res");
    host_result(en, ec, x, qv, adt);
  }

  std::unique_ptr<tuning_trial> make(const std::string& settings, const queue& own) const override {
    candidate_scope scope("par_loop", settings);
    const edge_flux_data& d = *data_;
    op::loop l(own, op::kernel(kEdgeFlux, "edge_flux"), d.edges, d.x(op::READ, d.edge_nodes, 0),
               d.x(op::READ, d.edge_nodes, 1), d.q(op::READ, d.edge_cells, 0),
               d.q(op::READ, d.edge_cells, 1), d.adt(op::READ, d.edge_cells, 0),
               d.adt(op::READ, d.edge_cells, 1), d.res(op::INC, d.edge_cells, 0),
               d.res(op::INC, d.edge_cells, 1));
    return std::make_unique<edge_flux_trial>(data_, std::move(l));
  }

 private:
  // The same arithmetic in float, edge after edge; magnitude bounds the rounding of the sums.
  void host_result(const std::vector<cl_int>& en, const std::vector<cl_int>& ec,
                   const std::vector<float>& x, const std::vector<float>& qv,
                   const std::vector<float>& adt) {
    edge_flux_data& d = *data_;
    d.expected.assign(qv.size(), 0.0f);
    d.magnitude.assign(qv.size(), 0.0f);
    for (std::size_t e = 0; e < ec.size() / 2; ++e) {
      const float* x1 = &x[2 * en[2 * e]];
      const float* x2 = &x[2 * en[2 * e + 1]];
      const std::size_t c1 = ec[2 * e], c2 = ec[2 * e + 1];
      const float* q1 = &qv[4 * c1];
      const float* q2 = &qv[4 * c2];
      const float dx = x1[0] - x2[0], dy = x1[1] - x2[1];
      float ri = 1.0f / q1[0];
      const float p1 = 0.4f * (q1[3] - 0.5f * ri * (q1[1] * q1[1] + q1[2] * q1[2]));
      const float vol1 = ri * (q1[1] * dy - q1[2] * dx);
      ri = 1.0f / q2[0];
      const float p2 = 0.4f * (q2[3] - 0.5f * ri * (q2[1] * q2[1] + q2[2] * q2[2]));
      const float vol2 = ri * (q2[1] * dy - q2[2] * dx);
      const float mu = 0.5f * (adt[c1] + adt[c2]) * 0.05f;
      const float f[4] = {
          0.5f * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]),
          0.5f * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]),
          0.5f * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]),
          0.5f * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3])};
      for (std::size_t k = 0; k < 4; ++k) {
        d.expected[4 * c1 + k] += f[k];
        d.expected[4 * c2 + k] -= f[k];
        d.magnitude[4 * c1 + k] += std::fabs(f[k]);
        d.magnitude[4 * c2 + k] += std::fabs(f[k]);
      }
    }
  }

  std::shared_ptr<edge_flux_data> data_;
};

}  // namespace

std::unique_ptr<tuning_workload> par_loop_policy::workload(const queue& q, std::size_t size) {
  return std::make_unique<edge_flux_workload>(q, size);
}

}  // namespace clforge::detail
