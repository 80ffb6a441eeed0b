// SPDX-License-Identifier: MIT
// The device the template tests share: one context (the default device, CLFORGE_DEVICE) and one
// in-order queue per test program, and an out-of-order queue for tests of templates that enqueue
// several dependent commands.
#pragma once

#include <optional>

#include <clforge/clforge.hpp>

namespace clforge_test {

inline clforge::context& ctx() {
  static clforge::context c = clforge::context::create_default();
  return c;
}
inline clforge::queue& q() {
  static clforge::queue in_order(ctx());
  return in_order;
}

/// An out-of-order queue on `ctx`'s device; empty where the device has none.
inline std::optional<clforge::queue> out_of_order_queue(const clforge::context& ctx) {
  cl_int code = CL_SUCCESS;
  cl_queue_properties props[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue raw =
      clCreateCommandQueueWithProperties(ctx.cl()(), ctx.device()(), props, &code);
  if (code != CL_SUCCESS) return std::nullopt;
  clforge::queue wrapped = clforge::queue::wrap(ctx, raw);  // retains it
  clReleaseCommandQueue(raw);
  return wrapped;
}

}  // namespace clforge_test
