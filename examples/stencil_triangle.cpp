// SPDX-License-Identifier: MIT
// The triangular iteration space of pystencils' GPU guide (make_slice[:, y:]) with
// clforge::stencil_kernel: on a 16 x 16 field, row y from column y on. Three pictures, as the
// guide draws them (row 0 at the bottom; yellow: visited, purple: not):
//   triangle-auto.png     the automatic launch grid: the whole triangle
//   triangle-8x8x2x2.png  block_size (8, 8), num_blocks (2, 2): the whole triangle
//   triangle-4x4x2x3.png  block_size (4, 4), num_blocks (2, 3): eight work-items along x from
//                         the diagonal, twelve rows: part of the triangle
//
//   clforge-example-stencil-triangle [OUT_DIR]
#include <clforge/clforge.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "png.hpp"

namespace cf = clforge;

namespace {
constexpr std::size_t kSide = 16, kCell = 24;

// The field as a picture: cells of kCell pixels with a dark grid between them.
bool draw(const std::string& path, const std::vector<float>& f) {
  const std::size_t w = kSide * kCell;
  std::vector<std::uint8_t> rgb(w * w * 3);
  for (std::size_t py = 0; py < w; ++py)
    for (std::size_t px = 0; px < w; ++px) {
      const std::size_t y = kSide - 1 - py / kCell, x = px / kCell;  // row 0 at the bottom
      const bool grid = px % kCell == 0 || py % kCell == 0;
      const bool on = f[y * kSide + x] != 0.0f;
      std::uint8_t* p = &rgb[(py * w + px) * 3];
      p[0] = grid ? 40 : on ? 253 : 68;
      p[1] = grid ? 40 : on ? 231 : 1;
      p[2] = grid ? 40 : on ? 37 : 84;
    }
  return clforge_png::write_png_rgb(path, rgb.data(), w, w);
}
}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  try {
    cf::context ctx = cf::context::create_default();
    cf::queue q(ctx);
    cf::stencil_options o;
    o.slice = cf::iteration_slice(":, y:");  // pystencils: make_slice[:, y:]
    cf::stencil_kernel mark(ctx, "float[2D] f", "f(0,0) = 1.0f", o);
    cf::field<float, 2> f(q, {kSide, kSide});
    const auto threads = mark.threads_range(f);
    std::printf("threads_range: %zu x %zu\n", threads[0], threads[1]);
    struct picture {
      const char* file;
      std::optional<cf::launch_grid> grid;
      std::size_t expected;  // cells visited
    };
    const std::vector<picture> pictures = {
        {"triangle-auto.png", std::nullopt, 136},
        {"triangle-8x8x2x2.png", cf::launch_grid({8, 8}, {2, 2}), 136},
        // rows 0 .. 11, columns y .. y + 7 (within 16): 8 x 9 + 7 + 6 + 5 = 90
        {"triangle-4x4x2x3.png", cf::launch_grid({4, 4}, {2, 3}), 90},
    };
    for (const picture& p : pictures) {
      f.fill(q, 0.0f);
      if (p.grid)
        mark(q, *p.grid, f);
      else
        mark(q, f);
      const std::vector<float> cells = f.to_host(q);
      std::size_t visited = 0;
      for (float c : cells) visited += c != 0.0f;
      std::printf("%s: %zu cells visited\n", p.file, visited);
      if (visited != p.expected) {
        std::fprintf(stderr, "triangle: expected %zu cells\n", p.expected);
        return 1;
      }
      if (!draw(dir + "/" + p.file, cells)) {
        std::fprintf(stderr, "cannot write %s/%s\n", dir.c_str(), p.file);
        return 1;
      }
    }
    std::printf("OK\n");
  } catch (const cf::error& e) {
    std::fprintf(stderr, "triangle: %s\n", e.what());
    return 1;
  }
  return 0;
}
