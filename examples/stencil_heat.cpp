// SPDX-License-Identifier: MIT
// The 2-D heat equation with clforge::stencil_kernel: a hot wall on the left (a constant
// boundary), insulated walls elsewhere (copies of the nearest interior value), an explicit
// 5-point step, PNG frames of the temperature.
//
//   clforge-example-stencil-heat [OUT_DIR] [SIDE] [STEPS] [FRAMES]
//
// writes OUT_DIR/heat-000.png ... (default: the current directory, 256 x 256, 4000 steps,
// 5 frames) and checks the maximum principle (every temperature stays within [0, 1]).
#include <clforge/clforge.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "png.hpp"

namespace cf = clforge;

namespace {
// Temperature 0 .. 1 as a colour from dark blue through red to yellow.
void colour(float t, std::uint8_t* rgb) {
  t = std::clamp(t, 0.0f, 1.0f);
  rgb[0] = static_cast<std::uint8_t>(255 * std::min(1.0f, 2 * t));
  rgb[1] = static_cast<std::uint8_t>(255 * std::max(0.0f, 2 * t - 1));
  rgb[2] = static_cast<std::uint8_t>(255 * std::max(0.0f, 0.5f - t));
}
}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const std::size_t side = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 256;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 4000;
  const int frames = argc > 4 ? std::atoi(argv[4]) : 5;
  try {
    cf::context ctx = cf::context::create_default();
    cf::queue q(ctx);
    // Temperatures with one ghost layer; a warm square in the middle to start with.
    cf::field<float, 2> u(q, {side, side}, cf::ghost(1)), next(q, {side, side}, cf::ghost(1));
    u.view({long(side / 3), long(side / 3)}, {side / 3, side / 3}).fill(q, 0.5f);
    cf::stencil_kernel step(ctx, "float[2D] u, float[2D] next, float k",
                            "next(0,0) = u(0,0) + k * (u(1,0) + u(-1,0) + u(0,1) + u(0,-1) - "
                            "4 * u(0,0))");
    // x is dimension 1: its low side (x = -1) is the hot wall.
    cf::boundary_conditions<float, 2> walls(cf::boundary<float>::neumann());
    walls.set(1, cf::side::low, cf::boundary<float>::constant(1.0f));
    std::vector<std::uint8_t> rgb(side * side * 3);
    int frame = 0;
    for (int s = 0; s <= steps; ++s) {
      if (frames > 0 && s % std::max(1, steps / std::max(1, frames - 1)) == 0 && frame < frames) {
        const std::vector<float> t = u.to_host(q);
        // Row 0 at the bottom of the picture.
        for (std::size_t y = 0; y < side; ++y)
          for (std::size_t x = 0; x < side; ++x)
            colour(t[y * side + x], &rgb[((side - 1 - y) * side + x) * 3]);
        char name[64];
        std::snprintf(name, sizeof name, "/heat-%03d.png", frame++);
        if (!clforge_png::write_png_rgb(dir + name, rgb.data(), side, side)) {
          std::fprintf(stderr, "cannot write %s%s\n", dir.c_str(), name);
          return 1;
        }
      }
      if (s == steps) break;
      cf::apply_boundaries(q, u, walls);
      step(q, u, next, 0.24f);  // stable for k <= 0.25
      std::swap(u, next);
    }
    const float lo = cf::min(q, u.interior()), hi = cf::max(q, u.interior());
    const float mean = cf::sum(q, u.interior()) / float(side * side);
    std::printf("heat: %zu x %zu, %d steps, %d frames in %s; temperature %.4f .. %.4f, mean %.4f\n",
                side, side, steps, frame, dir.c_str(), lo, hi, mean);
    if (!(lo >= 0.0f && hi <= 1.0f && mean > 0.0f)) {
      std::fprintf(stderr, "heat: the temperatures left [0, 1]\n");
      return 1;
    }
    std::printf("OK\n");
  } catch (const cf::error& e) {
    std::fprintf(stderr, "heat: %s\n", e.what());
    return 1;
  }
  return 0;
}
