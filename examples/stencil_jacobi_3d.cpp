// SPDX-License-Identifier: MIT
// A 3-D Poisson problem, -laplace(u) = f on a cube with u = 0 on its walls, solved by 7-point
// Jacobi sweeps with clforge::stencil_kernel, the residual norm taken over the interior without a
// copy (clforge::dot on field views).
//
//   clforge-example-stencil-jacobi-3d [SIDE] [SWEEPS]
//
// (default 32^3, 1000 sweeps); checks that the residual fell by at least a factor of 10.
#include <clforge/clforge.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace cf = clforge;

int main(int argc, char** argv) {
  const std::size_t side = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 32;
  const int sweeps = argc > 2 ? std::atoi(argv[2]) : 1000;
  try {
    cf::context ctx = cf::context::create_default();
    cf::queue q(ctx);
    const std::array<std::size_t, 3> shape{side, side, side};
    const float h2 = 1.0f / float((side + 1) * (side + 1));
    // u with one ghost layer (zero: the walls); f and the residual need none.
    cf::field<float, 3> u(q, shape, cf::ghost(1)), next(q, shape, cf::ghost(1));
    cf::field<float, 3> f(q, shape), r(q, shape);
    f.view({long(side / 4), long(side / 4), long(side / 4)}, {side / 2, side / 2, side / 2})
        .fill(q, 1.0f);
    cf::stencil_kernel jacobi(ctx, "float[3D] u, float[3D] next, float[3D] f, float h2",
                              "next(0,0,0) = (u(-1,0,0) + u(1,0,0) + u(0,-1,0) + u(0,1,0) + "
                              "u(0,0,-1) + u(0,0,1) + h2 * f(0,0,0)) * (1.0f / 6.0f)");
    cf::stencil_kernel residual(ctx, "float[3D] u, float[3D] f, float[3D] r, float h2",
                                "r(0,0,0) = f(0,0,0) - (6 * u(0,0,0) - u(-1,0,0) - u(1,0,0) - "
                                "u(0,-1,0) - u(0,1,0) - u(0,0,-1) - u(0,0,1)) / h2");
    auto norm = [&] {
      residual(q, u, f, r, h2);
      return std::sqrt(cf::dot(q, r.interior(), r.interior()));
    };
    const float first = norm();
    for (int s = 0; s < sweeps; ++s) {
      jacobi(q, u, next, f, h2);
      std::swap(u, next);
    }
    const float last = norm();
    std::printf("jacobi 3-D: %zu^3, %d sweeps, residual %.4g -> %.4g; max u %.4g\n", side, sweeps,
                first, last, cf::max(q, u.interior()));
    std::printf("policy: %s\n", jacobi.policy().c_str());
    if (!(last < 0.1f * first)) {
      std::fprintf(stderr, "jacobi 3-D: the residual did not fall by 10x\n");
      return 1;
    }
    std::printf("OK\n");
  } catch (const cf::error& e) {
    std::fprintf(stderr, "jacobi 3-D: %s\n", e.what());
    return 1;
  }
  return 0;
}
