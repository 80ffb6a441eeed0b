// SPDX-License-Identifier: MIT
// Plain C++ reference of clforge::polygon_mask's rule, header-only, no OpenCL. Tests, the demo
// and the benchmarks check every pixel of the device's masks against it.
//
// The rule (the classic crossing-number test, made exact and reproducible):
//   * pixel (x, y) of a width x height image is tested at the point (x, y) (integer coordinates,
//     no half-pixel offset), as float;
//   * every edge a -> b is first put in a canonical form that does not depend on its direction:
//     lower end (x0, y0), upper end y1, inverse slope k = (x_upper - x0) / (y1 - y0), all float;
//   * the edge is crossed by the ray going right from (x, y) when y0 <= y < y1 (half-open, so a
//     horizontal edge is never crossed and a vertex is counted once) and x - x0 < (y - y0) * k
//     (the point lies left of the edge; written so that no a * b + c can become an FMA);
//   * even-odd: inside when the number of crossings is odd; non-zero: inside when the sum of
//     the crossed edges' directions (+1 upwards, -1 downwards) is not zero.
// Because a shared edge is computed the same way for both polygons, two polygons that share an
// edge never both claim a pixel on it (and never both leave it out).
//
// The device evaluates exactly these float operations (IEEE float, no fast-math), so its masks
// are bit-identical to these, whatever a compiler's FMA contraction setting.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace clforge {

/// A polygon vertex; polygons are closed implicitly (the last vertex connects to the first).
/// Same layout as two floats (x, y), so a std::vector<point2f> can be viewed as float pairs.
struct point2f {
  float x = 0;  ///< Horizontal coordinate (pixel column).
  float y = 0;  ///< Vertical coordinate (pixel row).
};

/// How "inside" is decided for self-intersecting polygons.
enum class fill_rule {
  even_odd,  ///< inside where a ray crosses the outline an odd number of times (default)
  non_zero   ///< inside where the winding number is not zero
};

/// A random star-shaped (generally concave) polygon of `n` vertices inside a `size` x `size`
/// image: sorted random angles, random radii around the centre. For the demo and benchmarks.
inline std::vector<point2f> random_star_polygon(std::size_t n, std::size_t size,
                                                std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const float s = static_cast<float>(size);
  std::vector<float> angles(n);
  for (float& a : angles) a = 6.2831853f * u(rng);
  std::sort(angles.begin(), angles.end());
  std::vector<point2f> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float r = s * (0.15f + 0.33f * u(rng));
    v[i] = {s * 0.5f + r * std::cos(angles[i]), s * 0.5f + r * std::sin(angles[i])};
  }
  return v;
}

namespace detail {
/// One edge in canonical form (see the rule above), as the kernels read it (a float4):
/// x = x at the lower end, y = lower y, z = upper y, w = dx/dy. For the non-zero rule an edge
/// that goes downwards stores its y's swapped (y > z), which tells its direction.
struct polygon_edge {
  float x0, ya, yb, k;
};

inline polygon_edge make_polygon_edge(point2f a, point2f b, bool keep_direction) {
  if (a.y == b.y) return {0.0f, a.y, a.y, 0.0f};  // horizontal: never crossed
  const bool up = a.y < b.y;
  const point2f lo = up ? a : b, hi = up ? b : a;
  const float k = (hi.x - lo.x) / (hi.y - lo.y);
  if (keep_direction && !up) return {lo.x, hi.y, lo.y, k};
  return {lo.x, lo.y, hi.y, k};
}

/// The edges of a closed polygon, in vertex order.
inline std::vector<polygon_edge> polygon_edges(const point2f* v, std::size_t n,
                                               bool keep_direction) {
  std::vector<polygon_edge> edges(n);
  for (std::size_t i = 0; i < n; ++i)
    edges[i] = make_polygon_edge(v[i], v[i + 1 == n ? 0 : i + 1], keep_direction);
  return edges;
}

/// Whether `e` crosses row `py`: its direction (+1 up, -1 down; 0 when it does not cross), and
/// t = (py - y0) * k: the pixels x of the row left of the edge are those with x - x0 < t.
inline int polygon_edge_crossing(const polygon_edge& e, float py, float& t) {
  const float lo = e.ya < e.yb ? e.ya : e.yb, hi = e.ya < e.yb ? e.yb : e.ya;
  if (!(lo <= py && py < hi)) return 0;
  t = (py - lo) * e.k;
  return e.ya < e.yb ? 1 : -1;
}
}  // namespace detail

/// The classic loop, exactly as the textbook writes it: every pixel tests every edge.
/// O(width * height * edges). Returns width * height bytes, row-major, 1 inside, 0 outside.
/// `parallel` splits the rows over OpenMP threads when compiled with OpenMP.
inline std::vector<std::uint8_t> polygon_mask_reference(const std::vector<point2f>& vertices,
                                                        std::size_t width, std::size_t height,
                                                        fill_rule rule = fill_rule::even_odd,
                                                        bool parallel = false) {
  const bool nonzero = rule == fill_rule::non_zero;
  const std::vector<detail::polygon_edge> edges =
      detail::polygon_edges(vertices.data(), vertices.size(), nonzero);
  std::vector<std::uint8_t> mask(width * height);
  const long long rows = static_cast<long long>(height);
  (void)parallel;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (parallel)
#endif
  for (long long y = 0; y < rows; ++y) {
    const float py = static_cast<float>(y);
    for (std::size_t x = 0; x < width; ++x) {
      const float px = static_cast<float>(x);
      int count = 0;
      for (const detail::polygon_edge& e : edges) {
        float t;
        int dir = detail::polygon_edge_crossing(e, py, t);
        if (dir != 0 && px - e.x0 < t) count += nonzero ? dir : 1;
      }
      mask[static_cast<std::size_t>(y) * width + x] = nonzero ? count != 0 : (count & 1);
    }
  }
  return mask;
}

/// The same rule, faster: each row's crossings are found once, then every pixel counts only the
/// crossings of its row. O(height * edges + width * height * crossings per row). With several
/// polygons it returns a label image: polygon index + 1 of the last polygon containing the pixel
/// (0 for none); `as_union` turns any label into 1.
inline std::vector<std::uint32_t> polygon_labels_reference(
    const std::vector<std::vector<point2f>>& polygons, std::size_t width, std::size_t height,
    fill_rule rule = fill_rule::even_odd, bool as_union = false) {
  const bool nonzero = rule == fill_rule::non_zero;
  std::vector<std::uint32_t> labels(width * height, 0);
  std::vector<float> x0s, ts;
  std::vector<int> dirs;
  for (std::size_t p = 0; p < polygons.size(); ++p) {
    const std::vector<detail::polygon_edge> edges =
        detail::polygon_edges(polygons[p].data(), polygons[p].size(), nonzero);
    for (std::size_t y = 0; y < height; ++y) {
      const float py = static_cast<float>(y);
      x0s.clear(), ts.clear(), dirs.clear();
      for (const detail::polygon_edge& e : edges) {
        float t;
        if (int dir = detail::polygon_edge_crossing(e, py, t))
          x0s.push_back(e.x0), ts.push_back(t), dirs.push_back(dir);
      }
      if (ts.empty()) continue;
      for (std::size_t x = 0; x < width; ++x) {
        const float px = static_cast<float>(x);
        int c = 0;
        for (std::size_t j = 0; j < ts.size(); ++j)
          if (px - x0s[j] < ts[j]) c += nonzero ? dirs[j] : 1;
        if (nonzero ? c != 0 : (c & 1))
          labels[y * width + x] = as_union ? 1u : static_cast<std::uint32_t>(p + 1);
      }
    }
  }
  return labels;
}

/// One polygon through polygon_labels_reference, as a 0/1 mask.
inline std::vector<std::uint8_t> polygon_mask_reference_rows(const std::vector<point2f>& vertices,
                                                             std::size_t width, std::size_t height,
                                                             fill_rule rule = fill_rule::even_odd) {
  std::vector<std::uint32_t> labels = polygon_labels_reference({vertices}, width, height, rule);
  return std::vector<std::uint8_t>(labels.begin(), labels.end());
}

}  // namespace clforge
