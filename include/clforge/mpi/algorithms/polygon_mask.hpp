// SPDX-License-Identifier: MIT
// Polygon masks over images split in row blocks (distributed_array::rows): mask_into and
// labels_into, the same pixels as one device's whole image.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "clforge/array.hpp"
#include "clforge/error.hpp"
#include "clforge/mpi/collective.hpp"
#include "clforge/mpi/distributed_array.hpp"
#include "clforge/mpi/local.hpp"
#include "clforge/queue.hpp"
#include "clforge/types.hpp"

namespace clforge::mpi {

// ---- polygon masks over row blocks ----------------------------------------------------------

namespace detail {
/// The largest first row t <= first_row such that every vertex y - t is exact in float, so the
/// polygons moved up by t give the pixels of the whole image bit for bit.
CLFORGE_MPI_API std::size_t exact_row_shift(
    const std::vector<const std::vector<point2f>*>& polygons, std::size_t first_row);

inline std::vector<std::vector<point2f>> shifted(
    const std::vector<const std::vector<point2f>*>& polygons, std::size_t rows_up) {
  std::vector<std::vector<point2f>> out;
  for (const auto* p : polygons) {
    std::vector<point2f> v(*p);
    for (auto& pt : v)
      pt.y = static_cast<float>(static_cast<double>(pt.y) - static_cast<double>(rows_up));
    out.push_back(std::move(v));
  }
  return out;
}

/// Runs `draw(polygons in block coordinates, target, rows)` for this rank's rows of `image`,
/// bit-identical to the whole image: when moving the polygons up to the block's first row is
/// not exact in float, it draws from an earlier row into a scratch image and copies the block.
template <class T, class Draw>
void draw_row_block(const char* who, const queue& q,
                    const std::vector<const std::vector<point2f>*>& polygons,
                    distributed_array<T>& image, std::size_t width, std::size_t height,
                    const Draw& draw) {
  if (image.size() != width * height || (width > 0 && image.layout().granule != width))
    throw error(std::string("clforge::mpi::") + who + ": the image must be a " +
                std::to_string(width) + " x " + std::to_string(height) +
                " distributed_array::rows (its length is " + std::to_string(image.size()) +
                ", its rows " + std::to_string(image.layout().granule) + " elements)");
  if (image.local_size() == 0) return;
  const std::size_t first_row = image.local_offset() / width;
  const std::size_t rows = image.local_size() / width;
  const std::size_t start = exact_row_shift(polygons, first_row);
  const auto moved = shifted(polygons, start);
  if (start == first_row) {
    draw(moved, image.local(), rows);
  } else {
    array<T> scratch(q, (first_row - start + rows) * width);
    draw(moved, scratch, first_row - start + rows);
    scratch.copy_to(q, image.local(), (first_row - start) * width, 0, rows * width);
  }
}

/// What every rank must agree on for a mask or label step: the pixel type, the polygons (their
/// bytes), the width and the options.
template <class T>
std::uint64_t polygon_fingerprint(const std::string& polygons, std::size_t width,
                                  const polygon_mask_options& options) {
  return fingerprint({type_tag<T>(), polygons, std::to_string(width),
                      options.rule == fill_rule::non_zero ? "non_zero" : "even_odd",
                      clforge::detail::requested_shape(options)});
}

}  // namespace detail

/// polygon_mask::mask_into over an image split in row blocks (distributed_array::rows): every
/// pixel `value` inside the polygon, 0 outside, the same pixels as one device's whole image.
/// Collective.
template <class T>
void mask_into(const queue& q, const polygon_mask& masker, const std::vector<point2f>& vertices,
               distributed_array<T>& image, std::size_t width, std::size_t height,
               clforge::detail::same_t<T> value = T(1), const polygon_mask_options& options = {}) {
  std::string fp;
  for (const auto& v : vertices) fp.append(reinterpret_cast<const char*>(&v), sizeof v);
  detail::collective_step(image.comm(),
                          {"mask_into<" + type_name<T>() + ">",
                           detail::polygon_fingerprint<T>(fp, width, options), image.size()},
                          [&] {
                            detail::draw_row_block(
                                "mask_into", q, {&vertices}, image, width, height,
                                [&](const std::vector<std::vector<point2f>>& moved,
                                    array<T>& target, std::size_t rows) {
                                  local::mask_rows(masker, q, moved[0], target, width, rows, value,
                                                   options);
                                });
                          });
}

/// polygon_mask::labels_into over an image split in row blocks. Collective.
template <class T>
void labels_into(const queue& q, const polygon_mask& masker,
                 const std::vector<std::vector<point2f>>& polygons, distributed_array<T>& image,
                 std::size_t width, std::size_t height, const polygon_mask_options& options = {}) {
  std::string fp;
  std::vector<const std::vector<point2f>*> list;
  for (const auto& p : polygons) {
    list.push_back(&p);
    fp.append(std::to_string(p.size()) + ":");
    for (const auto& v : p) fp.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  detail::collective_step(image.comm(),
                          {"labels_into<" + type_name<T>() + ">",
                           detail::polygon_fingerprint<T>(fp, width, options), image.size()},
                          [&] {
                            detail::draw_row_block(
                                "labels_into", q, list, image, width, height,
                                [&](const std::vector<std::vector<point2f>>& moved,
                                    array<T>& target, std::size_t rows) {
                                  local::label_rows(masker, q, moved, target, width, rows, options);
                                });
                          });
}

}  // namespace clforge::mpi
