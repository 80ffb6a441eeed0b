// SPDX-License-Identifier: MIT
// The README's template snippets (map/reduce, polygon mask, scan), built and run by CMake so
// they cannot rot. Prints one line per snippet.
#include <clforge/clforge.hpp>

#include <cstdio>

namespace cf = clforge;

int main() try {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  auto x = cf::array<float>::from_host(q, std::vector<float>(1001, 1.0f));
  auto y = cf::array<float>::from_host(q, std::vector<float>(1001, 2.0f));

  // ---- README: Map and reduce
  cf::elementwise_kernel saxpy(ctx, "float a, global const float* x, global float* y",
                               "y[i] = a * x[i] + y[i]");
  saxpy(q, 2.0f, x, y);                                   // over the length of the first array
  saxpy(q, cf::slice(0, cf::slice_none, 2), 2.0f, x, y);  // PyOpenCL-style start/stop/step

  cf::reduction_kernel<float> dot(ctx, "global const float* x, global const float* y",
                                  /*map*/ "x[i] * y[i]", /*reduce*/ "a + b", /*neutral*/ "0.0f");
  float d = dot(q, x, y);                       // result on the host
  cf::array<float> r = dot.on_device(q, x, y);  // or kept on the device, no round trip
  float s = cf::sum(q, x);                      // also dot, min, max, minmax
  std::printf("dot %.1f (expect %.1f), on device %.1f, sum %.1f\n", d, 501 * 6.0 + 500 * 4.0,
              r.to_host(q)[0], s);

  // ---- README: Polygon masks
  cf::polygon_mask masker(ctx);
  std::vector<cf::point2f> vertices = {{10, 10}, {500, 40}, {300, 700}};
  cf::array<std::uint8_t> mask = masker(q, vertices, 1024, 1024);  // 1 inside, 0 outside
  std::size_t inside = 0;
  for (std::uint8_t m : mask.to_host(q)) inside += m;
  std::printf("mask: %zu pixels inside\n", inside);

  // ---- README: Scans
  auto xi = cf::array<int>::from_host(q, std::vector<int>{3, -1, 4, -1, 5, -9, 2, 6});
  cf::array<int> yi(q, xi.size()), out(q, xi.size());
  cf::scan_kernel<int> cumsum(ctx, "global const int* x, global int* y",
                              /*input*/ "x[i]", /*scan*/ "a + b", /*neutral*/ "0",
                              /*output*/ "y[i] = item", cf::scan_kind::inclusive);
  cumsum(q, xi, yi);                                      // over the length of the first array
  cf::inclusive_scan(q, xi, yi, "max(a, b)", "INT_MIN");  // cached per (context, type, op)
  std::size_t kept = cf::copy_if(q, xi, out, "x > 0");    // stream compaction, order kept
  std::printf("running max ends at %d, %zu positive kept\n", yi.to_host(q).back(), kept);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
