// SPDX-License-Identifier: MIT
// clforge inside an existing OpenCL-CLHPP / C API code base: the application owns the context,
// queue and buffer (CLHPP with its default settings: no exceptions), clforge wraps them, runs a
// template on them, and hands the same objects back.
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>  // before clforge, with the application's own settings

#include <clforge/algorithms/elementwise.hpp>
#include <clforge/clforge.hpp>

#include <cstdio>
#include <vector>

namespace cf = clforge;

int main() {
  // The application's objects, made with CLHPP (errors come back as codes here).
  cl_int err = CL_SUCCESS;
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  std::vector<cl::Device> devices;
  for (const cl::Platform& p : platforms) {
    p.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    if (!devices.empty()) break;
  }
  if (devices.empty()) {
    std::fprintf(stderr, "interop: no OpenCL device\n");
    return 1;
  }
  const cl::Device device = devices.front();
  cl::Context context(device, nullptr, nullptr, nullptr, &err);
  cl::CommandQueue command_queue(context, device, 0, &err);
  const std::size_t n = 1000;
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  cl::Buffer buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float),
                    host.data(), &err);
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "interop: setting up OpenCL failed (%d)\n", err);
    return 1;
  }

  try {
    // Wrap them: nothing is copied, clforge retains the objects.
    cf::context ctx(context, device);
    cf::queue q(ctx, command_queue);
    cf::array<float> x(ctx, buffer, n);  // a view of the application's buffer
    cf::elementwise_kernel scale(ctx, "float a, global float* x", "x[i] = a * x[i]");
    scale(q, 3.0f, x);

    // Raw C handles work the same way: context::wrap and array::wrap retain them.
    cf::context raw_ctx = cf::context::wrap(context(), device());
    cf::array<float> raw_x = cf::array<float>::wrap(raw_ctx, buffer(), n);
    (void)raw_x;

    // And back: the CLHPP objects and the raw handles clforge works on.
    const cl::CommandQueue& same_queue = q.cl();
    const cl::Buffer& same_buffer = x.buffer();
    cl_mem raw_buffer = x.get();
    cl_context raw_context = ctx.get();
    if (same_buffer() != buffer() || raw_buffer != buffer() || raw_context != context() ||
        same_queue() != command_queue()) {
      std::fprintf(stderr, "interop: clforge handed back different objects\n");
      return 1;
    }
    q.finish();
  } catch (const cf::error& e) {  // clforge reports with clforge::error whatever CLHPP does
    std::fprintf(stderr, "interop: %s\n", e.what());
    return 1;
  }

  // The application reads its buffer with its own CLHPP code.
  err = command_queue.enqueueReadBuffer(buffer, CL_TRUE, 0, n * sizeof(float), host.data());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += host[i] != 3.0f * static_cast<float>(i);
  std::printf("interop: %zu of %zu values wrong (read back with CLHPP: %d)\n", wrong, n, err);
  return err == CL_SUCCESS && wrong == 0 ? 0 : 1;
}
