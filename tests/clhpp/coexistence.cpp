// SPDX-License-Identifier: MIT
// Compiled four times (tests/clhpp.cmake): OpenCL-CLHPP included before or after clforge, with
// CL_HPP_ENABLE_EXCEPTIONS on or off and a CLHPP target version other than the library's.
// clforge's public headers must compile in every combination and leave the choice alone.
#if defined(COEXIST_EXCEPTIONS)
#define CL_HPP_ENABLE_EXCEPTIONS
#endif
#define CL_HPP_TARGET_OPENCL_VERSION COEXIST_TARGET
// CLHPP 2023.02 itself needs a minimum below 1.2 or at least the target when the target is 2.0+.
#define CL_HPP_MINIMUM_OPENCL_VERSION COEXIST_TARGET

#if defined(COEXIST_CLHPP_FIRST)
#include <CL/opencl.hpp>
#endif
#include <clforge/algorithms/elementwise.hpp>
#include <clforge/algorithms/polygon_mask.hpp>
#include <clforge/algorithms/reduction.hpp>
#include <clforge/algorithms/scan.hpp>
#include <clforge/clforge.hpp>
#if !defined(COEXIST_CLHPP_FIRST)
#include <CL/opencl.hpp>
#endif

#if defined(COEXIST_EXCEPTIONS) != defined(CL_HPP_ENABLE_EXCEPTIONS)
#error "clforge changed CL_HPP_ENABLE_EXCEPTIONS"
#endif
#if CL_HPP_TARGET_OPENCL_VERSION != COEXIST_TARGET
#error "clforge changed CL_HPP_TARGET_OPENCL_VERSION"
#endif

namespace cf = clforge;

// Instantiates the inline and template code of the public headers with these settings.
int use_clforge_with_clhpp(const cl::Context& context, const cl::Device& device,
                           const cl::CommandQueue& command_queue, const cl::Buffer& buffer) {
  cf::context ctx(context, device);
  cf::queue q(ctx, command_queue);
  cf::array<float> x(ctx, buffer, 16);
  cf::array<float> y(q, 16);
  x.fill(q, 1.0f);
  x.copy_to(q, y);
  std::vector<float> host = y.to_host(q);
  y.write(q, host.data(), 0, host.size());
  cf::elementwise_kernel twice(ctx, "global float* y", "y[i] *= 2");
  twice(q, y);
  cf::reduction_kernel<float> total(ctx, "global const float* y", "y[i]", "a + b", "0");
  float sum = total(q, y);
  cf::scan_kernel<int> cumsum(ctx, "global const int* a, global int* b", "a[i]", "a + b", "0",
                              "b[i] = item", cf::scan_kind::inclusive);
  cf::polygon_mask masker(ctx);
  cf::program p = ctx.build("kernel void k(global float* y) {}");
  q.launch(p.kernel("k"), cf::ndrange(16), y).wait();
  cl::Buffer back = y.buffer();
  (void)cumsum, (void)masker, (void)back;
  return sum > 0 ? 0 : 1;
}
