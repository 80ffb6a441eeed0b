// SPDX-License-Identifier: MIT
// Compiled, never run, by the headers_* tests (tests/headers.cmake) with g++ and clang++, C++17
// and C++20, -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Werror: includes
// clforge.hpp and instantiates the public templates, so a warning in a public header fails CI
// (a user's -Werror build would fail the same way). Nothing here is a warning of its own.
#include <clforge/clforge.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cf = clforge;

int use_clforge();
int use_clforge() {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);
  auto x = cf::array<float>::from_host(q, std::vector<float>(1001, 1.0f));
  auto y = cf::array<float>::from_host(q, std::vector<float>(1001, 2.0f));
  cf::program prog = ctx.build("kernel void k(ulong n, global float* y) {}");
  cf::event e = q.launch(prog.kernel("k"), cf::ndrange::padded(y.size()), cl_ulong(y.size()), y);
  const double ms = e.elapsed_ms();

  cf::elementwise_kernel saxpy(ctx, "float a, global const float* x, global float* y",
                               "y[i] = a * x[i] + y[i]");
  saxpy(q, 2.0f, x, y);
  saxpy(q, cf::slice(0, cf::slice_none, 2), 2.0f, x, y);
  cf::reduction_kernel<float> dot(ctx, "global const float* x, global const float* y",
                                  "x[i] * y[i]", "a + b", "0.0f");
  float d = dot(q, x, y);
  cf::array<float> r = dot.on_device(q, x, y);
  float s = cf::sum(q, x);
  float lowest = cf::min(q, x);

  cf::polygon_mask masker(ctx);
  std::vector<cf::point2f> vertices = {{10, 10}, {500, 40}, {300, 700}};
  cf::array<std::uint8_t> mask = masker(q, vertices, 1024, 1024);

  auto xi = cf::array<int>::from_host(q, std::vector<int>{3, -1, 4, -1, 5, -9, 2, 6});
  cf::array<int> yi(q, xi.size()), out(q, xi.size());
  cf::scan_kernel<int> cumsum(ctx, "global const int* x, global int* y", "x[i]", "a + b", "0",
                              "y[i] = item", cf::scan_kind::inclusive);
  cumsum(q, xi, yi);
  cf::inclusive_scan(q, xi, yi, "max(a, b)", "INT_MIN");
  cf::exclusive_scan(q, xi, yi);
  std::size_t kept = cf::copy_if(q, xi, out, "x > 0");
  kept += cf::remove_if(q, xi, out, "x < 0");
  kept += cf::unique(q, xi, out);

  auto keys = cf::array<cl_uint>::from_host(q, std::vector<cl_uint>{3, 1, 2});
  auto values = cf::array<float>::from_host(q, std::vector<float>{0.5f, 1.5f, 2.5f});
  cf::sort(q, keys);
  cf::sort(q, keys, cf::order::descending);
  cf::sort_by_key(q, keys, values);
  cf::array<cl_uint> h = cf::histogram(q, values, 256, 0.0f, 1.0f);

  std::vector<float> doubled = cf::eval(q, 2.0f * x).to_host(q);
  cf::array<float> xy(q, 2000);
  cf::random::uniform(q, xy, 42);
  auto left = xy.view(0, 1000), right = xy.view(1000, 2000);
  const cl_long inside = cf::sum<cl_long>(q, left * left + right * right < 1.0f);

  cf::set_log_handler([](cf::log_level, const std::string&) {});
  return static_cast<int>(ms + double(d) + double(s) + double(lowest)) + int(r.size()) +
         int(mask.size()) + int(kept) + int(h.size()) + int(doubled.size()) + int(inside);
}
