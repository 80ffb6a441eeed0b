// SPDX-License-Identifier: MIT
// Sorting particles by grid cell with clforge::radix_sort_kernel: the cell id of particle i is
// computed by a snippet from its position, and the positions and velocities (three arrays) are
// permuted together, particles of one cell keeping their order.
#include <cstdio>
#include <random>
#include <vector>

#include <clforge/clforge.hpp>

namespace cf = clforge;

int main() {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);

  const std::size_t n = 100000;
  const cl_uint cells_per_side = 32;  // 32 x 32 cells over the unit square: 10-bit cell ids
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> unit(0.0f, 0.999f);
  std::vector<float> x(n), y(n), vx(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = unit(rng), y[i] = unit(rng), vx[i] = float(i);
  auto d_x = cf::array<float>::from_host(q, x);
  auto d_y = cf::array<float>::from_host(q, y);
  auto d_vx = cf::array<float>::from_host(q, vx);

  cf::radix_sort_options options;
  options.name = "particles_by_cell";
  options.preamble = R"(
    static inline uint cell_of(float x, float y, uint side) {
      return (uint)(y * side) * side + (uint)(x * side);
    })";
  cf::radix_sort_kernel by_cell(
      ctx, "global float* x, global float* y, global float* vx, uint side",
      "cell_of(x[i], y[i], side)", {"x", "y", "vx"}, /*key_bits=*/10, options);
  by_cell(q, d_x, d_y, d_vx, cells_per_side);

  x = d_x.to_host(q), y = d_y.to_host(q);
  auto cell = [&](std::size_t i) {
    return unsigned(y[i] * cells_per_side) * cells_per_side + unsigned(x[i] * cells_per_side);
  };
  for (std::size_t i = 1; i < n; ++i)
    if (cell(i - 1) > cell(i)) {
      std::printf("not sorted at %zu\n", i);
      return 1;
    }
  std::printf("%zu particles sorted by cell on %s; first cell %u, last cell %u\n", n,
              ctx.info().name.c_str(), cell(0), cell(n - 1));
  return 0;
}
