// SPDX-License-Identifier: MIT
// clforge::mpi polygon masks: where a rank's row block can start drawing bit-exactly.
#include "clforge/mpi/algorithms/polygon_mask.hpp"

#include <cmath>
#include <functional>
#include <set>

namespace clforge::mpi::detail {

std::size_t exact_row_shift(const std::vector<const std::vector<point2f>*>& polygons,
                            std::size_t first_row) {
  // y - t is exact in float when some float f has f + t == y exactly; checked with the exact
  // error of the double sum (TwoSum). Non-finite y pass through (polygon_mask rejects NaN).
  auto exact = [&](std::size_t t) {
    const double td = static_cast<double>(t);
    for (const auto* p : polygons)
      for (const point2f& v : *p) {
        if (!std::isfinite(v.y)) continue;
        const float f = static_cast<float>(static_cast<double>(v.y) - td);
        const double a = f, s = a + td, bb = s - a;
        const double err = (a - (s - bb)) + (td - bb);
        if (s != static_cast<double>(v.y) || err != 0.0) return false;
      }
    return true;
  };
  if (exact(first_row)) return first_row;
  // Moving up by t <= y is exact for every vertex at or below row t: try the rows of the
  // vertices above the block, nearest first; 0 always works.
  std::set<std::size_t, std::greater<>> candidates{0};
  for (const auto* p : polygons)
    for (const point2f& v : *p)
      if (std::isfinite(v.y) && v.y > 0 && v.y < static_cast<float>(first_row))
        candidates.insert(static_cast<std::size_t>(std::floor(v.y)));
  for (std::size_t t : candidates)
    if (exact(t)) return t;
  return 0;
}

}  // namespace clforge::mpi::detail
