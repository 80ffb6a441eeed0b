// SPDX-License-Identifier: MIT
// The README's "Arrays you can compute with" section: PyCUDA's doublify and a Monte-Carlo pi,
// one line each. Built with the project and run as a smoke test.
#include <clforge/clforge.hpp>
#include <cmath>
#include <cstdio>
#include <vector>
namespace cf = clforge;

int main() {
  cf::context ctx = cf::context::create_default();
  cf::queue q(ctx);

  // PyCUDA's tutorial: double a 4x4 array of random floats.
  std::vector<float> host(16);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = std::sin(float(i));
  auto a = cf::array<float>::from_host(q, host);
  std::vector<float> doubled = cf::eval(q, 2.0f * a).to_host(q);  // one generated kernel

  // Monte-Carlo pi: points (x, y) uniform in [0, 1)^2, the fraction inside the quarter circle.
  const std::size_t n = 10000000;
  cf::array<float> xy(q, 2 * n);
  cf::random::uniform(q, xy, /*seed*/ 42);  // Philox4x32-10: same numbers on every device
  auto x = xy.view(0, n), y = xy.view(n, 2 * n);
  double pi = 4.0 * cf::sum<cl_long>(q, x * x + y * y < 1.0f) / n;  // one fused reduction

  std::printf("doubled[1] = %.6f (host %.6f), pi ~ %.5f on %s\n", doubled[1], 2 * host[1], pi,
              ctx.info().name.c_str());
  return doubled[1] == 2 * host[1] && std::fabs(pi - 3.14159265) < 0.01 ? 0 : 1;
}
