// SPDX-License-Identifier: MIT
// clforge::op: parallel loops over unstructured meshes, in the manner of PyOP2 and OP2.
//
//   namespace op = clforge::op;
//   op::set cells(ncell), edges(nedge);
//   op::map pecell(q, edges, cells, 2, edge_cells);         // two cells per edge, checked
//   op::dat<float> q_(q, cells, 4, values), res(q, cells, 4);
//   op::kernel flux("void flux(const float* q0, const float* q1, float* r0, float* r1) {...}",
//                   "flux");
//   op::par_loop(q, flux, edges, q_(op::READ, pecell, 0), q_(op::READ, pecell, 1),
//                res(op::INC, pecell, 0), res(op::INC, pecell, 1));
//
// The user writes what happens to one element; par_loop generates the kernel around it (compiled
// once, through the program cache), gathers each argument's values into private arrays, calls
// the user's function with pointers to them and writes the results back:
//   dat(access)            direct: the dat's `dim` values of the element itself;
//   dat(access, map, k)    indirect: those of the element map[e][k] of the dat's set;
//   dat(access, map.all()) every target of the element: arity x dim values, target by target;
//   global(access)         a value shared by the loop (its `dim` values).
// The function's pointer parameters are plain (`float* x`, `const float* x` or `float x[4]`): they
// point to private memory, which is what the wrapper passes; an address space on one is an error.
// Access modes: READ (the values as they are), WRITE (start at zero, written back), RW (read,
// written back), INC (start at zero, added to the target), MIN and MAX (start at the target's
// value; the target keeps the smaller or larger, like fmin and fmax: a NaN loses to any number).
// A global takes READ, INC, MIN or MAX; INC, MIN and MAX on a global reduce over the loop.
//
// Indirect INC, MIN and MAX never race, whatever the map: elements that share a target either
// add with atomics or run in turns by a colouring (the tuning's `par_loop` row chooses, per
// device). Indirect WRITE and RW run elements that share a target in turns, in an order the
// colouring decides (with no shared target, the result is that of a serial loop). Floating-point
// INC adds in an order that depends on the plan: results agree with a serial loop to rounding.
// The colouring is built on the device and kept with the set, per map and access pattern.
//
// Under MPI (a later layer) a set has owned, exec-halo and non-exec-halo elements: dats store all
// three, maps have rows for the elements a loop may run over (owned and exec halo), and a loop
// that writes through a map also runs over the exec halo (redundant computation, PyOP2's rule).
// On one process every element is owned.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/error.hpp"
#include "clforge/event.hpp"
#include "clforge/export.hpp"
#include "clforge/queue.hpp"
#include "clforge/types.hpp"

// sys/param.h defines MIN and MAX as macros: the access modes below keep their names.
#pragma push_macro("MIN")
#pragma push_macro("MAX")
#undef MIN
#undef MAX

namespace clforge::op {

/// How a loop uses an argument.
enum class access { read, write, rw, inc, min, max };
inline constexpr access READ = access::read;
inline constexpr access WRITE = access::write;
inline constexpr access RW = access::rw;
inline constexpr access INC = access::inc;
inline constexpr access MIN = access::min;
inline constexpr access MAX = access::max;

/// "READ", "WRITE", ...
CLFORGE_API const char* access_name(access a);

namespace detail {
struct set_state;
struct map_state;
struct kernel_state;
struct loop_state;
}  // namespace detail

/// A set of elements (cells, edges, nodes): only a size and a name. Copies are the same set
/// (a shared handle); the colourings of loops over it are kept with it.
class CLFORGE_API set {
 public:
  /// An empty handle.
  set() = default;
  /// `size` owned elements.
  explicit set(std::size_t size, const std::string& name = "set");
  /// Owned, exec-halo and non-exec-halo elements (for the MPI layer; see the top of this file).
  set(std::size_t owned, std::size_t exec_halo, std::size_t nonexec_halo,
      const std::string& name = "set");

  /// Owned elements: what a loop runs over (size() == owned_size()).
  std::size_t size() const;
  /// Elements this process owns (every element on one process).
  std::size_t owned_size() const;
  /// Elements owned by another rank that a loop writing through a map runs over too.
  std::size_t exec_halo_size() const;
  /// Elements owned by another rank that loops only read, through maps.
  std::size_t nonexec_halo_size() const;
  /// Owned and exec halo: the elements a loop may run over, the rows of a map from this set.
  std::size_t iteration_size() const;
  /// Every element: what a dat on this set stores.
  std::size_t total_size() const;
  /// The name given on creation (error messages use it).
  const std::string& name() const;

  /// The same set (not merely the same size).
  bool operator==(const set& other) const { return state_ == other.state_; }
  /// Not the same set.
  bool operator!=(const set& other) const { return state_ != other.state_; }
  /// False for an empty (default-constructed) handle.
  explicit operator bool() const { return state_ != nullptr; }
  /// The shared state behind the handle (for clforge's own use).
  const std::shared_ptr<detail::set_state>& state() const { return state_; }

 private:
  std::shared_ptr<detail::set_state> state_;
};

struct map_all;

/// A map from each element of `from` (its owned and exec-halo elements) to `arity` elements of
/// `to`, on the device. Every value is checked on creation: inside `to` (0 to
/// to.total_size() - 1). Immutable; copies share the values.
class CLFORGE_API map {
 public:
  map() = default;
  /// From host values, element by element: values[e * arity + k] is the k-th target of e.
  map(const queue& q, const set& from, const set& to, std::size_t arity,
      const std::vector<cl_int>& values, const std::string& name = "map");
  /// From values already on the device (taken over; checked on the device).
  map(const queue& q, const set& from, const set& to, std::size_t arity, array<cl_int> values,
      const std::string& name = "map");

  /// The set whose elements the map goes from.
  const set& from() const;
  /// The set the targets are elements of.
  const set& to() const;
  /// Targets per element.
  std::size_t arity() const;
  /// The name given on creation (error messages use it).
  const std::string& name() const;
  /// The values (from.iteration_size() * arity()).
  const array<cl_int>& values() const;
  /// An argument through every target of each element: dat(access, m.all()).
  map_all all() const;

  /// The same map (not merely the same values).
  bool operator==(const map& other) const { return state_ == other.state_; }
  /// False for an empty (default-constructed) handle.
  explicit operator bool() const { return state_ != nullptr; }
  /// The shared state behind the handle (for clforge's own use).
  const std::shared_ptr<const detail::map_state>& state() const { return state_; }

 private:
  std::shared_ptr<const detail::map_state> state_;
};

/// map.all(): an argument over every target of each element.
struct map_all {
  /// The map whose targets the argument goes through.
  map of;
};
inline map_all map::all() const {
  return map_all{*this};
}

namespace detail {

enum class argument_kind { direct, indirect, all, global };

/// A dat's or global's values as they are now: its data() may have been given another array
/// since the argument was made, which a loop uses (and checks) when it runs.
struct values_now {
  cl::Buffer buffer;
  std::size_t size = 0;  // elements
  cl_context context = nullptr;
};
template <class T>
values_now values_now_of(const array<T>& v) {
  return {v.buffer(), v.size(), v.ctx() ? v.ctx().get() : nullptr};  // no context once moved from
}

/// One argument of a loop, as par_loop sees it (type-erased; made by dat and global).
struct argument {
  argument_kind kind = argument_kind::direct;
  access mode = access::read;
  std::string type;           // OpenCL C name of the element type
  std::size_t type_size = 0;  // bytes
  std::size_t dim = 1;        // values per element (a global: its values)
  std::string what;           // "dat \"res\"", "global \"rms\"", for messages
  cl::Buffer buffer;          // the values when the argument was made
  cl_context context = nullptr;
  std::shared_ptr<const void> data;  // the dat or global (identity; kept alive by the loop)
  values_now (*now)(const void* data) = nullptr;  // the values of `data` now
  set dataset;                                    // a dat's set
  map through;                                    // indirect and all
  std::size_t index = 0;                          // indirect: which target
};

CLFORGE_API void check_values(const std::string& what, std::size_t given, std::size_t expected,
                              const std::string& expected_text);
CLFORGE_API void check_dim(const std::string& what, std::size_t dim);
CLFORGE_API std::string object_name(const char* kind, const std::string& name);
/// The state behind a handle: a clforge::error naming `what` for an empty (default-constructed)
/// one, which has none.
template <class State>
State& handle_state(const std::shared_ptr<State>& p, const char* what) {
  if (!p) throw error(std::string(what) + ": an empty handle (default-constructed)");
  return *p;
}

}  // namespace detail

/// An argument of par_loop.
using arg = detail::argument;

/// `dim` values of T per element of a set, on the device (element e's values at e * dim ...).
/// Copies share the values (a handle, as sets and maps).
template <class T>
class dat {
  static_assert(type_traits<T>::is_scalar,
                "clforge::op::dat<T>: T is a scalar type (char ... double)");

 public:
  dat() = default;
  /// Zeros.
  dat(const queue& q, const set& s, std::size_t dim, const std::string& name = "dat")
      : state_(make(q, s, dim, name)) {
    self().values.fill(q, T{});
  }
  /// From host values, element by element (s.total_size() * dim of them).
  dat(const queue& q, const set& s, std::size_t dim, const std::vector<T>& values,
      const std::string& name = "dat")
      : state_(make(q, s, dim, name)) {
    detail::check_values(
        self().what, values.size(), s.total_size() * dim,
        "set size x dim = " + std::to_string(s.total_size()) + " x " + std::to_string(dim));
    self().values.write(q, values.data(), 0, values.size());
  }

  /// Values per element.
  std::size_t dim() const { return self().dim; }
  /// The set the dat is on.
  const set& dataset() const { return self().dataset; }
  /// The name given on creation (error messages use it).
  const std::string& name() const { return self().name; }
  /// The values (dataset().total_size() * dim()). Loops run on the array this holds when they
  /// run; one of another size given to it makes them throw.
  array<T>& data() { return self().values; }
  /// The values, read-only.
  const array<T>& data() const { return self().values; }
  /// Blocking download of every value (owned and halo elements), element by element.
  std::vector<T> to_host(const queue& q) const { return self().values.to_host(q); }
  /// Replaces every value (total_size() * dim() of them).
  void write(const queue& q, const std::vector<T>& values) {
    detail::check_values(self().what, values.size(), self().values.size(), "set size x dim");
    self().values.write(q, values.data(), 0, values.size());
  }

  /// Direct: the element's own values.
  arg operator()(access mode) const { return make_arg(detail::argument_kind::direct, mode, {}, 0); }
  /// Indirect: the values of target `index` of the element through `through`.
  arg operator()(access mode, const map& through, std::size_t index) const {
    return make_arg(detail::argument_kind::indirect, mode, through, index);
  }
  /// Every target of the element: arity x dim values.
  arg operator()(access mode, const map_all& all) const {
    return make_arg(detail::argument_kind::all, mode, all.of, 0);
  }

 private:
  struct state {
    set dataset;
    std::size_t dim = 1;
    std::string name, what;
    array<T> values;
  };
  static std::shared_ptr<state> make(const queue& q, const set& s, std::size_t dim,
                                     const std::string& name) {
    auto st = std::make_shared<state>();
    st->what = detail::object_name("dat", name);
    if (!s) throw error(st->what + ": the set is empty (a default-constructed op::set)");
    detail::check_dim(st->what, dim);
    st->dataset = s;
    st->dim = dim;
    st->name = name;
    st->values = array<T>(q, s.total_size() * dim);
    return st;
  }
  arg make_arg(detail::argument_kind kind, access mode, const map& through,
               std::size_t index) const {
    if (!state_) throw error("op::dat: an empty dat (default-constructed) given to a loop");
    arg a;
    a.kind = kind;
    a.mode = mode;
    a.type = type_name<T>();
    a.type_size = sizeof(T);
    a.dim = self().dim;
    a.what = self().what;
    const detail::values_now v = values_of(state_.get());
    a.buffer = v.buffer;
    a.context = v.context;
    a.data = state_;
    a.now = &values_of;
    a.dataset = self().dataset;
    a.through = through;
    a.index = index;
    return a;
  }
  static detail::values_now values_of(const void* data) {
    return detail::values_now_of(static_cast<const state*>(data)->values);
  }
  state& self() const { return detail::handle_state(state_, "op::dat"); }
  std::shared_ptr<state> state_;
};

/// A value shared by every element of a loop: READ as a constant, INC, MIN or MAX as a
/// reduction over the loop (added to, or combined with, the value it holds). `dim` values of T
/// on the device.
template <class T>
class global {
  static_assert(type_traits<T>::is_scalar,
                "clforge::op::global<T>: T is a scalar type (char ... double)");

 public:
  global() = default;
  /// `dim` zeros.
  global(const queue& q, std::size_t dim, const std::string& name = "global")
      : global(q, std::vector<T>(dim, T{}), name) {}
  /// These values (their count is the dim).
  global(const queue& q, const std::vector<T>& values, const std::string& name = "global")
      : state_(std::make_shared<state>()) {
    self().what = detail::object_name("global", name);
    detail::check_dim(self().what, values.size());
    self().name = name;
    self().values = array<T>::from_host(q, values);
  }

  /// Number of values.
  std::size_t dim() const { return self().values.size(); }
  /// The name given on creation (error messages use it).
  const std::string& name() const { return self().name; }
  /// The values now (blocking read).
  std::vector<T> value(const queue& q) const { return self().values.to_host(q); }
  /// Replaces the values (dim() of them).
  void assign(const queue& q, const std::vector<T>& values) {
    detail::check_values(self().what, values.size(), dim(), "its dim");
    self().values.write(q, values.data(), 0, values.size());
  }
  /// The values on the device (dim() of them). Loops run on the array this holds when they run;
  /// one of another size than their dim makes them throw.
  array<T>& data() { return self().values; }
  /// The values on the device, read-only.
  const array<T>& data() const { return self().values; }

  /// The global as a loop argument: READ, INC, MIN or MAX (the loop throws on WRITE and RW).
  arg operator()(access mode) const {
    if (!state_) throw error("op::global: an empty global (default-constructed) given to a loop");
    arg a;
    a.kind = detail::argument_kind::global;
    a.mode = mode;
    a.type = type_name<T>();
    a.type_size = sizeof(T);
    a.dim = dim();
    a.what = self().what;
    const detail::values_now v = values_of(state_.get());
    a.buffer = v.buffer;
    a.context = v.context;
    a.data = state_;
    a.now = &values_of;
    return a;
  }

 private:
  struct state {
    std::string name, what;
    array<T> values;
  };
  static detail::values_now values_of(const void* data) {
    return detail::values_now_of(static_cast<const state*>(data)->values);
  }
  state& self() const { return detail::handle_state(state_, "op::global"); }
  std::shared_ptr<state> state_;
};

/// The user's function for one element: OpenCL C text (it may hold helper functions and
/// \#defines too) and the name of the function the loop calls (returning void). Its signature is
/// read here; the wrapper is generated for each pattern of arguments it is called with and
/// built once per context.
class CLFORGE_API kernel {
 public:
  kernel() = default;
  /// Throws clforge::error when `name` is not a function of `code` (void name(...) { ... }) or
  /// a parameter is not a plain pointer or array of a scalar type.
  kernel(const std::string& code, const std::string& name);

  /// The name of the function the loop calls.
  const std::string& name() const;
  /// The OpenCL C text, as given.
  const std::string& code() const;
  /// The number of parameters of the function.
  std::size_t parameter_count() const;
  /// False for an empty (default-constructed) kernel.
  explicit operator bool() const { return state_ != nullptr; }
  /// The shared state behind the handle (for clforge's own use).
  const std::shared_ptr<const detail::kernel_state>& state() const { return state_; }

 private:
  std::shared_ptr<const detail::kernel_state> state_;
};

/// What a loop's plan is (loop::plan).
struct plan_info {
  /// "direct" (no argument written through a map), "atomics", "colour" or "block".
  std::string kind;
  /// Colours the plan runs in turns (0 for direct and atomics).
  std::size_t colours = 0;
  /// Seconds the device took to build the plan (0 when it was found built).
  double build_seconds = 0;
  /// True when the plan was built by an earlier call (on this set, for this map and pattern).
  bool reused = false;
};

/// A par_loop checked and built once: `loop l(q, k, s, args...); l.run(q);` is par_loop. Every
/// check of par_loop happens in the constructor, before anything runs.
class CLFORGE_API loop {
 public:
  /// Checks `args` against the set and the function's parameters (clforge::error on the first
  /// mismatch), then generates and builds the wrapper on `q`'s context.
  loop(const queue& q, const kernel& k, const set& s, std::vector<arg> args);
  /// The same with the arguments listed: loop(q, k, s, a, b, ...).
  template <class... Args>
  loop(const queue& q, const kernel& k, const set& s, const arg& first, const Args&... rest)
      : loop(q, k, s, std::vector<arg>{first, rest...}) {}

  /// Runs over the owned elements, then, where the loop writes through a map, over the exec
  /// halo. Returns the event of the last command.
  event run(const queue& q) const;
  /// Runs over the elements [first, end) of the set (at most its iteration_size()), with a plan
  /// of its own for that range: the MPI layer runs the owned elements, then the halo.
  event run(const queue& q, std::size_t first, std::size_t end) const;
  /// The plan of [first, end) on `q`'s context (built now if it was not).
  plan_info plan(const queue& q, std::size_t first, std::size_t end) const;
  /// The range run() covers: the owned elements, and the exec halo where the loop writes
  /// through a map.
  std::size_t run_size() const;
  /// True when an argument is written (WRITE, RW, INC, MIN, MAX) through a map.
  bool writes_through_maps() const;
  /// The arguments as given.
  const std::vector<arg>& arguments() const;
  /// The generated OpenCL C source.
  const std::string& source() const;

 private:
  std::shared_ptr<const detail::loop_state> state_;
};

/// Runs `k` over every element of `s` with `args` (see the top of this file). Returns the event
/// of the last command.
template <class... Args>
event par_loop(const queue& q, const kernel& k, const set& s, const Args&... args) {
  static_assert((std::is_same_v<Args, arg> && ...),
                "clforge::op::par_loop: arguments are dat(access), dat(access, map, index), "
                "dat(access, map.all()) or global(access)");
  return loop(q, k, s, std::vector<arg>{args...}).run(q);
}

}  // namespace clforge::op

#pragma pop_macro("MAX")
#pragma pop_macro("MIN")
