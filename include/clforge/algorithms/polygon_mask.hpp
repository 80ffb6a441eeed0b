// SPDX-License-Identifier: MIT
// clforge::polygon_mask: which pixels of a width x height image lie inside a polygon (or many).
//
//   cf::polygon_mask masker(ctx);
//   std::vector<cf::point2f> v = {{10, 10}, {900, 40}, {500, 800}};
//   cf::array<std::uint8_t> mask = masker(q, v, 1024, 1024);        // 1 inside, 0 outside
//   masker(q, v, image, 1024, 1024, 0.0f);                          // zero the pixels inside
//   cf::array<std::uint32_t> labels = masker.labels(q, {a, b, c}, 1024, 1024);
//
// Pixel convention (exactly that of polygon_reference.hpp, which tests compare every pixel to):
// pixel (x, y) of a row-major image is the point (x, y) at integer coordinates. A ray from it to
// the right crosses edge a -> b when y lies in the half-open range [min(ya, yb), max(ya, yb))
// and the point lies left of the edge; even-odd (default) or non-zero winding decides inside.
// Points exactly on an edge follow the half-open rule, so two polygons sharing an edge never
// both claim a pixel. width and height are at most 2^24 (pixel coordinates exact in float).
//
// Code generation: the number of edges, the fill rule, the output type and what is stored are
// baked into a generated kernel (edges in __constant memory when they fit, the edge loop
// unrolled up to 64 edges); rows outside a polygon's bounding rows skip its edges (on GPUs, where
// a group tests one polygon's edges side by side, only when there are several polygons); the
// program comes from the cache on later calls of the same shape. CLFORGE_DUMP_SOURCE=1 prints it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "clforge/algorithms/polygon_reference.hpp"
#include "clforge/array.hpp"
#include "clforge/types.hpp"

namespace clforge {

// The implicitly defined members copy the deprecated `shape`: no warning for them, only where
// code names it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/// How polygon_mask fills: the fill rule (and, deprecated, the kernel formulation). A call over
/// built-in kernels with no snippet, so not a kernel_options.
struct polygon_mask_options {
  // User-provided, so not an aggregate: `= {}` at a call site does not name the deprecated field.
  polygon_mask_options() {}
  /// Even-odd (default) or non-zero winding.
  fill_rule rule = fill_rule::even_odd;
  /// Deprecated (0.2; goes in 0.3): tuning, set with clforge::tuning::set(ctx, "polygon", ...)
  /// or CLFORGE_TUNE="polygon:..." (docs/tuning.md). Until then a shape given here still wins.
  /// Kernel formulation; empty: the context's tuning (clforge/tuning.hpp, the "polygon" keys
  /// kernel, pixels, pixels_wide, wide_from, group, serial name the same choices).
  ///   "pixel[:P]"   one work-item per P consecutive pixels of a row, testing every edge
  ///   "span[:P[:G[:serial|atomic]]]"  a work-group of G per G*P pixels of a row lists the
  ///                 row's edge crossings once in local memory with where each one's "left of
  ///                 the edge" prefix ends (all items testing one edge each and appending
  ///                 atomically, or one item serially); each item then compares its pixels
  ///                 (runs of 16 consecutive ones when P is a multiple of 16) with those ends
  ///   "fill[:P[:G]]"  a work-group per G*P pixels; one item marks where each crossing's
  ///                 "left of the edge" prefix ends and prefix-sums the marks (local memory)
  ///   "row[:P]"     the same in one work-item per P pixels of a row, private memory, the sum
  ///                 written as it goes (CPUs: no barriers); work per row: edges + pixels
  /// Every shape gives the same pixels; only speed differs.
  [[deprecated(
      "set the polygon tuning with clforge::tuning::set(ctx, \"polygon\", ...) or CLFORGE_TUNE "
      "(docs/tuning.md)")]] std::string shape;
};
#pragma GCC diagnostic pop

namespace detail {
/// The deprecated polygon_mask_options::shape, read without the warning (0.2 honours it).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
inline const std::string& requested_shape(const polygon_mask_options& options) {
  return options.shape;
}
#pragma GCC diagnostic pop

template <class T>
struct same {
  using type = T;
};
/// T in a non-deduced context: the value's type follows the image's.
template <class T>
using same_t = typename same<T>::type;

/// What a launch writes into each pixel, from its label (0: outside all, else polygon index+1).
enum class polygon_store {
  mask,   ///< every pixel: label ? value : 0
  paint,  ///< only pixels inside: value; the others keep their contents
  label   ///< every pixel: the label
};

/// The polygons of one launch: host vertex lists, or one polygon's vertices on the device.
struct polygon_input {
  std::vector<const std::vector<point2f>*> host;
  const array<float>* device = nullptr;  // x0, y0, x1, y1, ...
};

/// The image of one launch and what goes into it: `value` (the bytes of one element of OpenCL
/// type `type`) inside, as `store` says.
struct polygon_target {
  const cl::Buffer* image = nullptr;
  std::size_t size = 0;  // elements
  std::size_t width = 0, height = 0;
  std::string type;
  const void* value = nullptr;
  std::size_t value_size = 0;
  polygon_store store = polygon_store::mask;
};

struct polygon_mask_state;
}  // namespace detail

/// Rasterises polygons into device images: 1 (or a value) inside, untouched outside.
class CLFORGE_API polygon_mask {
 public:
  polygon_mask() = default;
  /// A mask generator for `ctx`; kernels are built on first use and cached.
  explicit polygon_mask(const context& ctx);

  // ---- one polygon, vertices on the host ({x, y} pairs, closed implicitly) ----

  /// A new width x height mask: 1 inside, 0 outside.
  array<std::uint8_t> operator()(const queue& q, const std::vector<point2f>& vertices,
                                 std::size_t width, std::size_t height,
                                 const polygon_mask_options& options = {}) const {
    array<std::uint8_t> mask(q, width * height);
    mask_into(q, vertices, mask, width, height, std::uint8_t{1}, options);
    return mask;
  }
  /// Writes `value` into the pixels of `image` (width x height, row-major) inside the polygon
  /// and leaves the others as they are (apply a mask in place). Returns the kernel's event.
  template <class T>
  event operator()(const queue& q, const std::vector<point2f>& vertices, array<T>& image,
                   std::size_t width, std::size_t height, detail::same_t<T> value,
                   const polygon_mask_options& options = {}) const {
    return run(q, host_one(vertices), image, value, detail::polygon_store::paint, width, height,
               options);
  }
  /// Writes every pixel of `image`: `value` inside, 0 outside. Returns the kernel's event.
  template <class T>
  event mask_into(const queue& q, const std::vector<point2f>& vertices, array<T>& image,
                  std::size_t width, std::size_t height, detail::same_t<T> value = T(1),
                  const polygon_mask_options& options = {}) const {
    return run(q, host_one(vertices), image, value, detail::polygon_store::mask, width, height,
               options);
  }

  // ---- one polygon, vertices on the device: array<float> of x0, y0, x1, y1, ... ----
  // The edge table is made on the device (a second small kernel); every row tests the edges
  // (no bounding-row skip, the host does not see the vertices), and coordinates are not
  // checked for NaN.

  /// A new width x height mask from device vertices (x0, y0, x1, y1, ...): 1 inside, 0 outside.
  array<std::uint8_t> operator()(const queue& q, const array<float>& vertices, std::size_t width,
                                 std::size_t height,
                                 const polygon_mask_options& options = {}) const {
    array<std::uint8_t> mask(q, width * height);
    mask_into(q, vertices, mask, width, height, std::uint8_t{1}, options);
    return mask;
  }
  /// Writes `value` into the pixels of `image` inside the polygon given by device vertices; leaves
  /// the others.
  template <class T>
  event operator()(const queue& q, const array<float>& vertices, array<T>& image, std::size_t width,
                   std::size_t height, detail::same_t<T> value,
                   const polygon_mask_options& options = {}) const {
    return run(q, device_input(vertices), image, value, detail::polygon_store::paint, width, height,
               options);
  }
  /// Writes every pixel of `image` from device vertices: `value` inside, 0 outside.
  template <class T>
  event mask_into(const queue& q, const array<float>& vertices, array<T>& image, std::size_t width,
                  std::size_t height, detail::same_t<T> value = T(1),
                  const polygon_mask_options& options = {}) const {
    return run(q, device_input(vertices), image, value, detail::polygon_store::mask, width, height,
               options);
  }

  // ---- many polygons in one launch ----

  /// Label image: polygon index + 1 of the last polygon containing the pixel, 0 for none.
  array<std::uint32_t> labels(const queue& q, const std::vector<std::vector<point2f>>& polygons,
                              std::size_t width, std::size_t height,
                              const polygon_mask_options& options = {}) const {
    array<std::uint32_t> out(q, width * height);
    labels_into(q, polygons, out, width, height, options);
    return out;
  }
  /// As labels(), into an existing image of width x height elements. Returns the kernel's event.
  template <class T>
  event labels_into(const queue& q, const std::vector<std::vector<point2f>>& polygons,
                    array<T>& image, std::size_t width, std::size_t height,
                    const polygon_mask_options& options = {}) const {
    return run(q, host_input(polygons), image, T(0), detail::polygon_store::label, width, height,
               options);
  }
  /// Union of the polygons: 1 where any polygon contains the pixel, else 0.
  array<std::uint8_t> union_mask(const queue& q, const std::vector<std::vector<point2f>>& polygons,
                                 std::size_t width, std::size_t height,
                                 const polygon_mask_options& options = {}) const {
    array<std::uint8_t> out(q, width * height);
    run(q, host_input(polygons), out, std::uint8_t{1}, detail::polygon_store::mask, width, height,
        options);
    return out;
  }
  /// Writes `value` into the pixels inside any of the polygons.
  template <class T>
  event operator()(const queue& q, const std::vector<std::vector<point2f>>& polygons,
                   array<T>& image, std::size_t width, std::size_t height, detail::same_t<T> value,
                   const polygon_mask_options& options = {}) const {
    return run(q, host_input(polygons), image, value, detail::polygon_store::paint, width, height,
               options);
  }

  /// The context the masks are made in.
  const context& ctx() const;

 private:
  static detail::polygon_input host_one(const std::vector<point2f>& vertices) {
    detail::polygon_input in;
    in.host.push_back(&vertices);
    return in;
  }
  static detail::polygon_input host_input(const std::vector<std::vector<point2f>>& polygons) {
    detail::polygon_input in;
    for (const auto& p : polygons) in.host.push_back(&p);
    return in;
  }
  static detail::polygon_input device_input(const array<float>& vertices) {
    detail::polygon_input in;
    in.device = &vertices;
    return in;
  }
  template <class T>
  event run(const queue& q, const detail::polygon_input& in, array<T>& image, T value,
            detail::polygon_store store, std::size_t width, std::size_t height,
            const polygon_mask_options& options) const {
    return run(
        q, in,
        {&image.buffer(), image.size(), width, height, type_name<T>(), &value, sizeof(T), store},
        options);
  }
  /// Validates, generates (or finds) the program and launches it; returns the kernel's event.
  event run(const queue& q, const detail::polygon_input& in, const detail::polygon_target& out,
            const polygon_mask_options& options) const;
  detail::polygon_mask_state* checked_state() const;

  std::shared_ptr<detail::polygon_mask_state> state_;
};

}  // namespace clforge
