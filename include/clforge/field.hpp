// SPDX-License-Identifier: MIT
// clforge::field<T, D>: a D-dimensional device array (D = 1, 2, 3) with a shape and optional
// ghost layers around its interior, the data that clforge::stencil_kernel works on.
//
//   cf::field<float, 2> u(q, {ny, nx}, cf::ghost(1));     // ny x nx interior, one ghost layer
//   u.write(q, host);                                      // the interior, row-major
//   std::vector<float> all = u.to_host(q, cf::with_ghosts);  // the whole allocation
//   float s = cf::sum(q, u.local());                       // existing templates on its data
//   auto edge = u.boundary(0, cf::side::low);              // the ghost layer below row 0
//
// Layout: row-major, the last index fastest, dense (no padding between rows). The shape, the
// ghost widths and every index are in index order (the first index is the slowest). Interior
// coordinates start at 0 on the first interior point; ghost cells have coordinates -1, -2, ...
// below and n, n + 1, ... above. A new field is all zeros, ghost layers included. local() is the
// whole allocation as an array<T>: array expressions, reductions and every other template run
// on it unchanged (ghost cells included). T is any element type of array<T> that OpenCL knows:
// scalars, complex<float> / complex<double>, and vector types such as cl_float4.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/types.hpp"

namespace clforge {

/// Ghost layers of a field: extra cells on each side of the interior, for the halo of a stencil
/// (boundary conditions fill them, clforge::apply_boundaries). ghost(1): one layer on every side;
/// ghost().with(0, 2, 1): two below and one above in dimension 0, none elsewhere.
class ghost {
 public:
  /// No ghost layers.
  ghost() = default;
  /// `width` layers on every side of every dimension.
  explicit ghost(std::size_t width) {
    low_.fill(width);
    high_.fill(width);
  }
  /// `below` layers below and `above` above the interior in dimension `dim` (0 .. 2; index
  /// order).
  ghost& with(std::size_t dim, std::size_t below, std::size_t above) {
    check(dim);
    low_[dim] = below;
    high_[dim] = above;
    return *this;
  }
  /// Layers below the interior in dimension `dim`.
  std::size_t low(std::size_t dim) const { return dim < 3 ? low_[dim] : 0; }
  /// Layers above the interior in dimension `dim`.
  std::size_t high(std::size_t dim) const { return dim < 3 ? high_[dim] : 0; }

 private:
  static void check(std::size_t dim);
  std::array<std::size_t, 3> low_{}, high_{};
};

/// One end of a dimension: below the interior (low) or above it (high).
enum class side { low, high };

/// Tag for the transfers of a whole allocation, ghost layers included.
struct with_ghosts_t {};
inline constexpr with_ghosts_t with_ghosts{};

namespace detail {

/// The geometry of a field, in index order (unused dimensions: size 1, no ghosts).
struct CLFORGE_API field_layout {
  std::size_t dims = 0;
  std::array<std::size_t, 3> shape{1, 1, 1};       // interior
  std::array<std::size_t, 3> low{0, 0, 0};         // ghost layers below
  std::array<std::size_t, 3> high{0, 0, 0};        // ghost layers above
  std::array<std::size_t, 3> allocation{1, 1, 1};  // low + shape + high
  std::array<std::size_t, 3> strides{1, 1, 1};     // elements between neighbours
  std::size_t origin = 0;  // index of the first interior point in the allocation
  std::size_t total = 0;   // elements allocated
  std::size_t interior_points() const { return shape[0] * shape[1] * shape[2]; }
};

/// Checks a shape (no dimension of size 0, sizes below 2^31, an allocation that fits size_t)
/// and computes the layout. `what` names the caller in errors.
CLFORGE_API field_layout make_field_layout(const std::size_t* shape, std::size_t dims,
                                           const ghost& g, const char* what);

/// A box of a field's allocation: `extent` points from `begin` (allocation coordinates, index
/// order) of an allocation laid out as `layout`.
struct field_box {
  field_layout layout;
  std::array<std::size_t, 3> begin{0, 0, 0};
  std::array<std::size_t, 3> extent{1, 1, 1};
  std::size_t points() const { return extent[0] * extent[1] * extent[2]; }
  /// Index of the box's first point in the allocation.
  std::size_t offset() const {
    return begin[0] * layout.strides[0] + begin[1] * layout.strides[1] + begin[2];
  }
};

/// The box of interior coordinates [begin, begin + extent) (ghost cells: negative or >= the
/// shape; padded to three dimensions in front, as the layout); throws when it leaves the
/// allocation. An extent of 0 gives an empty box.
CLFORGE_API field_box make_field_box(const field_layout& layout,
                                     const std::array<long long, 3>& begin,
                                     const std::array<std::size_t, 3>& extent, const char* what);

/// Blocking copies between the box of `buffer` and `host` (box.points() elements of
/// `element_size` bytes, row-major).
CLFORGE_API void read_field_box(const queue& q, const cl::Buffer& buffer, std::size_t element_size,
                                const field_box& box, void* host);
CLFORGE_API void write_field_box(const queue& q, const cl::Buffer& buffer, std::size_t element_size,
                                 const field_box& box, const void* host);

[[noreturn]] CLFORGE_API void throw_field_error(const std::string& message);

}  // namespace detail

/// A box of a field's cells (no copy): the interior, a ghost layer, or any box of the
/// allocation. Shares the field's buffer and keeps it alive.
template <class T, std::size_t D>
class field_view {
 public:
  /// Points in each dimension (index order).
  std::array<std::size_t, D> shape() const {
    std::array<std::size_t, D> s{};
    for (std::size_t d = 0; d < D; ++d) s[d] = box_.extent[3 - D + d];
    return s;
  }
  /// Number of points.
  std::size_t size() const { return box_.points(); }
  /// Blocking download, row-major (the last index fastest).
  std::vector<T> to_host(const queue& q) const {
    std::vector<T> out(size());
    detail::read_field_box(q, all_.buffer(), sizeof(T), box_, out.data());
    return out;
  }
  /// Blocking upload of size() values, row-major.
  void write(const queue& q, const std::vector<T>& host) const {
    if (host.size() != size())
      detail::throw_field_error("field_view::write: " + std::to_string(host.size()) +
                                " values for a box of " + std::to_string(size()) + " points");
    detail::write_field_box(q, all_.buffer(), sizeof(T), box_, host.data());
  }
  /// Sets every point of the box to `value`.
  void fill(const queue& q, const T& value) const { write(q, std::vector<T>(size(), value)); }
  /// The geometry (for the templates that take views).
  const detail::field_box& box() const { return box_; }
  /// The field's buffer (the whole allocation).
  const cl::Buffer& buffer() const { return all_.buffer(); }
  /// The context of the field's buffer.
  const context& ctx() const { return all_.ctx(); }

 private:
  template <class, std::size_t>
  friend class field;
  field_view(array_view<T> all, detail::field_box box) : all_(std::move(all)), box_(box) {}
  array_view<T> all_;  // the whole allocation
  detail::field_box box_;
};

/// A D-dimensional field of T with ghost layers (see the top of this file). Move-only, like
/// array<T>.
template <class T, std::size_t D>
class field {
  static_assert(D >= 1 && D <= 3, "clforge::field<T, D>: D is 1, 2 or 3");
  static_assert(std::is_trivially_copyable_v<T>, "clforge::field<T, D> needs trivially copyable T");

 public:
  /// The element type.
  using value_type = T;
  /// Points per dimension, index order.
  using shape_type = std::array<std::size_t, D>;
  /// Number of dimensions.
  static constexpr std::size_t dims = D;

  field() = default;
  /// A zero field of `shape` (every dimension at least 1) with ghost layers `g`; `q` is the home
  /// queue of local() and the queue the zeros are written on.
  field(const queue& q, const shape_type& shape, const ghost& g = ghost())
      : layout_(detail::make_field_layout(shape.data(), D, g, "field")), data_(q, layout_.total) {
    data_.fill(q, T{});
  }
  /// A field of `shape` holding `interior` (row-major) with zero ghost layers.
  static field from_host(const queue& q, const shape_type& shape, const std::vector<T>& interior,
                         const ghost& g = ghost()) {
    field f(q, shape, g);
    f.write(q, interior);
    return f;
  }
  /// A field of `shape` whose whole allocation (ghost layers included, row-major) is `all`.
  static field from_host(const queue& q, const shape_type& shape, const std::vector<T>& all,
                         const ghost& g, with_ghosts_t) {
    field f(q, shape, g);
    f.write(q, all, with_ghosts);
    return f;
  }

  /// Blocking upload of the interior, row-major.
  void write(const queue& q, const std::vector<T>& interior) { interior_view().write(q, interior); }
  /// Blocking upload of the whole allocation, ghost layers included.
  void write(const queue& q, const std::vector<T>& all, with_ghosts_t) {
    if (all.size() != layout_.total)
      detail::throw_field_error("field::write: " + std::to_string(all.size()) +
                                " values for an allocation of " + std::to_string(layout_.total));
    data_.write(q, all.data(), 0, all.size());
  }
  /// Blocking download of the interior, row-major.
  std::vector<T> to_host(const queue& q) const { return interior_view().to_host(q); }
  /// Blocking download of the whole allocation, ghost layers included.
  std::vector<T> to_host(const queue& q, with_ghosts_t) const { return data_.to_host(q); }

  /// The interior.
  field_view<T, D> interior() const { return interior_view(); }
  /// The ghost layer(s) on one side of dimension `dim`, across the interior of the other
  /// dimensions. Empty (size 0) where that side has no ghost layers.
  field_view<T, D> boundary(std::size_t dim, side s) const {
    if (dim >= D)
      detail::throw_field_error("field::boundary: dimension " + std::to_string(dim) + " of a " +
                                std::to_string(D) + "-D field");
    const std::size_t d = 3 - D + dim;
    std::array<long long, 3> begin{0, 0, 0};
    std::array<std::size_t, 3> extent = layout_.shape;
    if (s == side::low) {
      begin[d] = -static_cast<long long>(layout_.low[d]);
      extent[d] = layout_.low[d];
    } else {
      begin[d] = static_cast<long long>(layout_.shape[d]);
      extent[d] = layout_.high[d];
    }
    return view_of(begin, extent, "field::boundary");
  }
  /// The box of `extent` points from `begin` (interior coordinates, index order; ghost cells
  /// are negative or at least the shape).
  field_view<T, D> view(const std::array<long long, D>& begin,
                        const std::array<std::size_t, D>& extent) const {
    std::array<long long, 3> b{0, 0, 0};
    std::array<std::size_t, 3> e{1, 1, 1};
    for (std::size_t d = 0; d < D; ++d) {
      b[3 - D + d] = begin[d];
      e[3 - D + d] = extent[d];
    }
    return view_of(b, e, "field::view");
  }

  /// The interior's points per dimension.
  shape_type shape() const { return pick(layout_.shape); }
  /// Ghost layers below the interior per dimension.
  shape_type ghosts_low() const { return pick(layout_.low); }
  /// Ghost layers above the interior per dimension.
  shape_type ghosts_high() const { return pick(layout_.high); }
  /// Points of the allocation per dimension (interior and ghost layers).
  shape_type allocation() const { return pick(layout_.allocation); }
  /// Elements between neighbours per dimension in local() (the last one is 1).
  shape_type strides() const { return pick(layout_.strides); }
  /// Index in local() of the first interior point.
  std::size_t origin() const { return layout_.origin; }
  /// Interior points.
  std::size_t size() const { return layout_.interior_points(); }
  /// The geometry, padded to three dimensions in front (for the templates).
  const detail::field_layout& layout() const { return layout_; }

  /// The whole allocation as an array (row-major, ghost layers included): for array
  /// expressions, reductions and the other templates.
  array<T>& local() { return data_; }
  /// The whole allocation, read-only.
  const array<T>& local() const { return data_; }
  /// The context of the data.
  const context& ctx() const { return data_.ctx(); }

  /// A new field with the same shape, ghost layers and contents.
  field clone(const queue& q) const {
    field out;
    out.layout_ = layout_;
    out.data_ = data_.clone(q);
    return out;
  }
  /// Sets every cell, ghost layers included, to `value`.
  event fill(const queue& q, const T& value) { return data_.fill(q, value); }

 private:
  static shape_type pick(const std::array<std::size_t, 3>& a) {
    shape_type s{};
    for (std::size_t d = 0; d < D; ++d) s[d] = a[3 - D + d];
    return s;
  }
  field_view<T, D> interior_view() const {
    return view_of({0, 0, 0}, layout_.shape, "field::interior");
  }
  field_view<T, D> view_of(const std::array<long long, 3>& begin,
                           const std::array<std::size_t, 3>& extent, const char* what) const {
    if (data_.empty()) detail::throw_field_error(std::string(what) + ": the field is empty");
    return field_view<T, D>(data_.view(0, slice_none),
                            detail::make_field_box(layout_, begin, extent, what));
  }

  detail::field_layout layout_;
  array<T> data_;
};

}  // namespace clforge
