// SPDX-License-Identifier: MIT
// Polygon mask: 1024^2 and 8192^2 images, random 24- and 1000-vertex polygons (star-shaped,
// concave). Jobs "mask_<side>_v<vertices>", n = pixels, 1 byte per pixel (the mask written).
//   clforge       polygon_mask::mask_into, the device's default kernel shape (kernel time)
//   handwritten   the plain kernel everybody writes first: vertices in a buffer, a division
//                 per edge, one work-item per pixel (kernel time)
//   openmp        the classic C++ loop with its rows split over OpenMP threads (CPU devices
//                 only: it competes for the same cores; host wall time)
// More clforge kernel shapes in the same run: CLFORGE_BENCH_POLYGON_SHAPES="pixel:4,span:4:256"
// adds impls "clforge-pixel:4", "clforge-span:4:256" (see polygon_mask_options::shape).
#include "harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <sstream>

#include <clforge/algorithms/polygon_mask.hpp>

// The shapes side by side come through the deprecated polygon_mask_options::shape (honoured
// until 0.3).
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace clforge_bench {
namespace {

const char* kHandwritten = R"CL(
// Crossing-number test, one work-item per pixel; pixel (x, y) is the point (x, y).
kernel void polygon_mask_generic(global uchar* mask, uint width, uint height,
                                 global const float2* v, uint n) {
  const uint x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const float px = (float)x, py = (float)y;
  int inside = 0;
  for (uint i = 0, j = n - 1; i < n; j = i++) {
    const float2 a = v[i], b = v[j];
    if ((a.y > py) != (b.y > py) && px < (b.x - a.x) * (py - a.y) / (b.y - a.y) + a.x)
      inside = !inside;
  }
  mask[(ulong)y * width + x] = (uchar)inside;
}
)CL";

std::size_t side_of(std::size_t n) {
  return static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(n))));
}

run_fn clforge_case(std::size_t n, std::size_t vertices, const std::string& shape) {
  const std::size_t side = side_of(n);
  auto masker = std::make_shared<cf::polygon_mask>(ctx());
  auto poly =
      std::make_shared<std::vector<cf::point2f>>(cf::random_star_polygon(vertices, side, 7));
  auto out = std::make_shared<cf::array<std::uint8_t>>(queue(), n);
  cf::polygon_mask_options options;
  options.shape = shape;
  return [=] {
    return device_seconds(
        masker->mask_into(queue(), *poly, *out, side, side, std::uint8_t{1}, options));
  };
}

run_fn handwritten_case(std::size_t n, std::size_t vertices) {
  const std::size_t side = side_of(n);
  if (device_is_cpu() && side >= 8192 && vertices >= 1000)
    throw cf::error("skipped on CPU devices: one run takes minutes");
  cf::kernel k = ctx().build(kHandwritten).kernel("polygon_mask_generic");
  std::vector<cf::point2f> poly = cf::random_star_polygon(vertices, side, 7);
  std::vector<float> flat;
  for (const cf::point2f& p : poly) flat.push_back(p.x), flat.push_back(p.y);
  auto v = std::make_shared<cf::array<float>>(cf::array<float>::from_host(queue(), flat));
  auto out = std::make_shared<cf::array<std::uint8_t>>(queue(), n);
  return [=] {
    const cl_uint s = static_cast<cl_uint>(side);
    return device_seconds(
        queue().launch(k, cf::ndrange(side, side), *out, s, s, *v, static_cast<cl_uint>(vertices)));
  };
}

run_fn openmp_case(std::size_t n, std::size_t vertices) {
  const std::size_t side = side_of(n);
  if (side >= 8192 && vertices >= 1000) throw cf::error("skipped: one run takes minutes");
  auto poly =
      std::make_shared<std::vector<cf::point2f>>(cf::random_star_polygon(vertices, side, 7));
  return [=] {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::uint8_t> mask =
        cf::polygon_mask_reference(*poly, side, side, cf::fill_rule::even_odd, true);
    volatile std::uint8_t sink = mask[mask.size() / 2];
    (void)sink;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
}

void register_cases() {
  std::vector<std::string> shapes;
  if (const char* env = std::getenv("CLFORGE_BENCH_POLYGON_SHAPES")) {
    std::stringstream in(env);
    for (std::string s; std::getline(in, s, ',');)
      if (!s.empty()) shapes.push_back(s);
  }
  for (std::size_t side : {1024, 8192})
    for (std::size_t vertices : {24, 1000}) {
      const std::string job = "mask_" + std::to_string(side) + "_v" + std::to_string(vertices);
      const std::vector<std::size_t> sizes = {side * side};
      add_case({job, "clforge", 1.0, [=](std::size_t n) { return clforge_case(n, vertices, ""); },
                sizes});
      for (const std::string& shape : shapes)
        add_case({job, "clforge-" + shape, 1.0,
                  [=](std::size_t n) { return clforge_case(n, vertices, shape); }, sizes});
      add_case({job, "handwritten", 1.0,
                [=](std::size_t n) { return handwritten_case(n, vertices); }, sizes});
      add_case({job, "openmp", 1.0, [=](std::size_t n) { return openmp_case(n, vertices); }, sizes,
                /*cpu_only=*/true});
    }
}

}  // namespace
CLFORGE_BENCH_REGISTER(register_cases);
}  // namespace clforge_bench
