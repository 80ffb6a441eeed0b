// SPDX-License-Identifier: MIT
// clforge::stencil_kernel: assignments with relative accesses to the neighbours of a point, run
// for every point of an N-D iteration space (pystencils' kernels on fields, for C++).
//
//   cf::field<float, 2> u(q, {ny, nx}, cf::ghost(1)), u_new(q, {ny, nx}, cf::ghost(1));
//   cf::stencil_kernel heat(ctx, "float[2D] u, float[2D] u_new, float k",
//                           "u_new(0,0) = u(0,0) + k * (u(1,0) + u(-1,0) + u(0,1) + u(0,-1)"
//                           " - 4 * u(0,0))");
//   cf::apply_boundaries(q, u, cf::boundary_conditions<float, 2>(cf::boundary<float>::periodic()));
//   heat(q, u, u_new, 0.1f);                           // every interior point
//   heat(q, cf::launch_grid({8, 8}, {2, 2}), u, u_new, 0.1f);   // a grid chosen by hand
//   float r = cf::sum(q, u_new.interior());            // reductions over the interior
//
// Parameters: fields are declared as TYPE[ND] NAME ("float[3D] u", "cfloat_t[2D] z",
// "float4[2D] v"), everything else as in every template ("float k", "global const float* lut").
// Arguments come in the same order: a field<T, D> of that element type and dimension for each
// field, values and arrays for the rest.
//
// Assignments are OpenCL C statements in which NAME(a, b) is the value of field NAME at the
// point's neighbour with offsets (a, b), integer constants, one per dimension in index order (the
// first index is the slowest): in 2-D u(1, 0) is the next row, u(0, 1) the next column. Several
// statements, temporaries ("float lap = u(1,0) + u(-1,0);"), helpers from the preamble and the
// counters of the point are allowed. The counters are ints named from the fastest dimension: x is
// the last index, y the one before it, z the first of three; their value is the interior
// coordinate (0 on the first interior point). A field written by an assignment is written only at
// its point's cells: a field both read and written, or written at two offsets, would race between
// neighbouring points and is refused, unless clforge::in_place is declared and every access of
// that field is at its one written offset (a point-wise update such as "u(0,0) = 2 * u(0,0)").
//
// Iteration space: by default the interior points where every access stays inside the
// allocation: with ghost layers at least as wide as the accesses reach, the whole interior; with
// fewer, the interior shrinks (ghost(0) and a 5-point stencil visit 1 .. n - 2). An
// iteration_slice gives the space by hand, one Python slice per dimension in index order:
//   cf::iteration_slice("1:-1, ::2")    rows 1 .. n-2, every second column
//   cf::iteration_slice(":, y:")        a triangle: in row y, the columns y .. n-1
// Bounds are integers (negative: from the end, clamped into the interior as in Python) or integer
// expressions of the counters of slower dimensions (+ - * / %, parentheses; evaluated as C long,
// then clamped into [0, n]); steps are positive integers. A slice whose accesses would leave the
// allocation is refused with the access and the point.
//
// Launch grid: automatic (the work-group shape, the points per work-item and the local-memory
// tiling of the tuning policy "stencil", clforge/tuning.hpp), or manual: launch_grid(block_size,
// num_blocks), work-items per group and groups per OpenCL dimension, fast dimension first (x, y,
// z). A manual grid runs one work-item per point of the space's compressed index (the k-th point
// of a dimension is start + k * step): a grid smaller than threads_range() covers part of the
// space, a larger one leaves work-items idle. threads_range(arguments...) gives the work-items
// per dimension (fast first) that one point per work-item needs.
//
// Generated and built once, at construction, through the context's program cache; source()
// prints the program (the automatic kernel and the manual grid's kernel, with the policy).
// A stencil_kernel is safe to call from several threads, on several queues of its context.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "clforge/algorithms/common.hpp"
#include "clforge/algorithms/reduce_functions.hpp"
#include "clforge/detail/signature.hpp"
#include "clforge/field.hpp"

namespace clforge {

/// The points a stencil visits, one Python slice per dimension in index order (see the top of
/// this file): "1:-1, :", ":, y:", "::2, 3". Empty: the default space.
class iteration_slice {
 public:
  /// The default space: the interior points whose accesses stay inside the allocation.
  iteration_slice() = default;
  /// Parses when the stencil is built (it needs the dimensions and counters).
  explicit iteration_slice(std::string text) : text_(std::move(text)) {}
  /// One clforge::slice per dimension (integer bounds; slice_none: left out).
  iteration_slice(std::initializer_list<index_range> per_dimension);
  /// The slice as text.
  const std::string& text() const { return text_; }
  /// True for the default space.
  bool is_default() const { return text_.empty(); }

 private:
  std::string text_;
};

/// A launch grid given by hand: work-items per group and groups per OpenCL dimension, fast first
/// (x, y, z); missing dimensions are 1.
struct CLFORGE_API launch_grid {
  /// block_size work-items per group, num_blocks groups, in up to three dimensions.
  launch_grid(std::initializer_list<std::size_t> block_size,
              std::initializer_list<std::size_t> num_blocks);
  /// Work-items per group (x, y, z).
  std::array<std::size_t, 3> block_size{1, 1, 1};
  /// Groups (x, y, z).
  std::array<std::size_t, 3> num_blocks{1, 1, 1};
};

/// Declares that a stencil may update a field in place, point-wise (every access of the field at
/// its one written offset).
struct in_place_t {};
inline constexpr in_place_t in_place{};

/// Options of a stencil_kernel: the kernel options (a stencil's arrays are lookup tables, read
/// at no point index, so check_array_lengths checks nothing) and where it runs.
struct stencil_options : kernel_options {
  /// The points visited; default: the interior where every access stays inside the allocation.
  iteration_slice slice;
  /// Point-wise updates of a field in place (as passing clforge::in_place).
  bool in_place = false;
};

namespace detail {

struct stencil_state;

/// What a stencil call needs of one field argument.
struct stencil_field_argument {
  cl_mem mem = nullptr;
  cl_context context = nullptr;
  std::string type;  // OpenCL C element type
  field_layout layout;
};

/// The arguments of one call: the fields, which argument positions hold fields, and the other
/// values bound to the non-field parameters.
struct stencil_call {
  std::vector<stencil_field_argument> fields;
  std::vector<bool> is_field;  // per argument
  std::optional<argument_list> values;
};

template <class A>
struct is_field_argument : std::false_type {};
template <class T, std::size_t D>
struct is_field_argument<field<T, D>> : std::true_type {};

template <class A>
void add_stencil_argument(stencil_call& call, const A& a) {
  if constexpr (is_field_argument<A>::value) {
    call.fields.push_back({a.local().get(), a.local().get() ? a.ctx().get() : nullptr,
                           type_name<typename A::value_type>(), a.layout()});
    call.is_field.push_back(true);
  } else {
    call.is_field.push_back(false);
  }
}
// The non-field arguments, as a tuple of references (for argument_list::bind).
template <class A>
auto stencil_value(const A& a) {
  if constexpr (is_field_argument<A>::value)
    return std::tuple<>();
  else
    return std::tuple<const A&>(a);
}

}  // namespace detail

/// Assignments with relative accesses run over an N-D iteration space (see the top of this file).
class CLFORGE_API stencil_kernel {
 public:
  stencil_kernel() = default;
  /// Parses the parameters and assignments, generates the kernels and builds them. Throws
  /// clforge::error for a bad declaration, an access that is not NAME(integer offsets), a field
  /// read and written (unless in place and point-wise), a bad iteration slice, double without
  /// fp64, or a failed build (with the build log and the generated lines around the error).
  stencil_kernel(const context& ctx, const std::string& parameters, const std::string& assignments,
                 const stencil_options& options = {});
  /// The same with clforge::in_place: point-wise updates of a field in place.
  stencil_kernel(const context& ctx, const std::string& parameters, const std::string& assignments,
                 in_place_t, stencil_options options = {});

  /// Runs over the iteration space with the automatic launch grid. The arguments follow the
  /// parameters (fields of equal shape, then or between them the values).
  template <class... Args>
  event operator()(const queue& q, const Args&... args) const {
    return run(q, nullptr, collect(args...));
  }
  /// Runs with a launch grid given by hand (see launch_grid).
  template <class... Args>
  event operator()(const queue& q, const launch_grid& grid, const Args&... args) const {
    return run(q, &grid, collect(args...));
  }
  /// The work-items per OpenCL dimension (x, y, z) that one point per work-item needs for these
  /// arguments (the bounding box of a space with dependent bounds); 1 beyond the dimensions.
  template <class... Args>
  std::array<std::size_t, 3> threads_range(const Args&... args) const {
    return threads_of(collect(args...));
  }

  /// The generated OpenCL C source (both kernels, with the policy they were built with).
  const std::string& source() const;
  /// The kernel name (options.name, or "stencil").
  const std::string& name() const;
  /// The policy the automatic kernel was built with, as "key=value,...".
  const std::string& policy() const;

 private:
  template <class... Args>
  detail::stencil_call collect(const Args&... args) const {
    detail::stencil_call call;
    (detail::add_stencil_argument(call, args), ...);
    check_kinds(call);  // fields where fields are declared, before binding the values
    call.values.emplace(std::apply(
        [&](const auto&... v) {
          return detail::argument_list::bind(who(), value_parameters(), v...);
        },
        std::tuple_cat(detail::stencil_value(args)...)));
    return call;
  }
  const std::string& who() const;
  const std::vector<detail::parameter>& value_parameters() const;
  void check_kinds(const detail::stencil_call& call) const;
  event run(const queue& q, const launch_grid* grid, const detail::stencil_call& call) const;
  std::array<std::size_t, 3> threads_of(const detail::stencil_call& call) const;
  std::shared_ptr<const detail::stencil_state> state_;
};

// ---- boundary conditions on the ghost layers ------------------------------------------------

/// What fills the ghost layers on one side of a dimension.
enum class boundary_kind {
  periodic,  ///< the interior from the other end (on both sides of the dimension)
  constant,  ///< a constant value (Dirichlet)
  neumann,   ///< a copy of the nearest interior value (zero gradient)
};

/// A boundary condition for fields of T.
template <class T>
struct boundary {
  /// What fills the ghost layers (a copy of the nearest interior value unless set).
  boundary_kind kind = boundary_kind::neumann;
  T value{};  ///< constant: the value
  /// The interior from the other end of the dimension.
  static boundary periodic() { return {boundary_kind::periodic, T{}}; }
  /// The value `v` in every ghost cell (Dirichlet).
  static boundary constant(const T& v) { return {boundary_kind::constant, v}; }
  /// A copy of the nearest interior value (zero gradient).
  static boundary neumann() { return {boundary_kind::neumann, T{}}; }
};

/// The boundary condition of every side of a D-dimensional field.
template <class T, std::size_t D>
class boundary_conditions {
 public:
  /// `every_side` on every side.
  explicit boundary_conditions(const boundary<T>& every_side) {
    low_.fill(every_side);
    high_.fill(every_side);
  }
  /// `b` on side `s` of dimension `dim` (index order).
  boundary_conditions& set(std::size_t dim, side s, const boundary<T>& b) {
    if (dim >= D) detail::throw_field_error("boundary_conditions::set: " + dimension_text(dim));
    (s == side::low ? low_ : high_)[dim] = b;
    return *this;
  }
  /// `b` on both sides of dimension `dim`.
  boundary_conditions& set(std::size_t dim, const boundary<T>& b) {
    set(dim, side::low, b);
    return set(dim, side::high, b);
  }
  /// The condition on side `s` of dimension `dim`.
  const boundary<T>& at(std::size_t dim, side s) const {
    if (dim >= D) detail::throw_field_error("boundary_conditions::at: " + dimension_text(dim));
    return (s == side::low ? low_ : high_)[dim];
  }

 private:
  static std::string dimension_text(std::size_t dim) {
    return "dimension " + std::to_string(dim) + " of a " + std::to_string(D) + "-D field";
  }
  std::array<boundary<T>, D> low_, high_;
};

namespace detail {
/// One side's condition, type-erased: the kind and the constant's bytes.
struct ghost_side {
  boundary_kind kind = boundary_kind::neumann;
  std::string value;  // sizeof(T) bytes
};
CLFORGE_API event fill_ghost_layers(const queue& q, const cl::Buffer& buffer,
                                    const std::string& type, std::size_t type_size,
                                    const field_layout& layout,
                                    const std::array<ghost_side, 3>& low,
                                    const std::array<ghost_side, 3>& high);
}  // namespace detail

/// Fills the ghost layers of `f` by `conditions`, one generated kernel per dimension, in index
/// order, each across the whole allocation of the other dimensions (so corners take the
/// condition of the last dimension that has ghost layers there). Sides without ghost layers are
/// left alone. Returns the event of the last kernel (empty when there are no ghost layers).
template <class T, std::size_t D>
event apply_boundaries(const queue& q, field<T, D>& f,
                       const boundary_conditions<T, D>& conditions) {
  std::array<detail::ghost_side, 3> low, high;
  for (std::size_t d = 0; d < D; ++d)
    for (side s : {side::low, side::high}) {
      const boundary<T>& b = conditions.at(d, s);
      detail::ghost_side& g = (s == side::low ? low : high)[3 - D + d];
      g.kind = b.kind;
      g.value.assign(reinterpret_cast<const char*>(&b.value), sizeof(T));
    }
  return detail::fill_ghost_layers(q, f.local().buffer(), type_name<T>(), sizeof(T), f.layout(),
                                   low, high);
}

// ---- reductions over boxes of a field (no copy) ---------------------------------------------

namespace detail {
enum class box_reduction { sum, min, max, dot };
/// Reduces the box of `x` (and of `y`, same extent, for dot) into `dst` (one value of the
/// scalar type with index `element` in scalar_types).
CLFORGE_API void reduce_field_box(const queue& q, box_reduction op, int element,
                                  const cl::Buffer& x, const field_box& xb, const cl::Buffer* y,
                                  const field_box* yb, void* dst);
}  // namespace detail

namespace detail {
template <class T, std::size_t D>
T reduce_view(const queue& q, box_reduction op, const field_view<T, D>& v) {
  T out{};
  reduce_field_box(q, op, checked_scalar_index<T>(), v.buffer(), v.box(), nullptr, nullptr, &out);
  return out;
}
}  // namespace detail

/// Sum of the points of a field view (e.g. u.interior()), in T; the rules of clforge::sum.
template <class T, std::size_t D>
T sum(const queue& q, const field_view<T, D>& v) {
  return detail::reduce_view(q, detail::box_reduction::sum, v);
}
/// Smallest point of a field view (NaN ignored; throws for an empty view).
template <class T, std::size_t D>
T min(const queue& q, const field_view<T, D>& v) {
  return detail::reduce_view(q, detail::box_reduction::min, v);
}
/// Largest point of a field view (NaN ignored; throws for an empty view).
template <class T, std::size_t D>
T max(const queue& q, const field_view<T, D>& v) {
  return detail::reduce_view(q, detail::box_reduction::max, v);
}
/// Sum of a[p] * b[p] over two views of equal shape (e.g. a residual norm: dot(q, r, r)).
template <class T, std::size_t D>
T dot(const queue& q, const field_view<T, D>& a, const field_view<T, D>& b) {
  T out{};
  detail::reduce_field_box(q, detail::box_reduction::dot, detail::checked_scalar_index<T>(),
                           a.buffer(), a.box(), &b.buffer(), &b.box(), &out);
  return out;
}

}  // namespace clforge
