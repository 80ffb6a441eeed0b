// An out-of-order queue on a test context's device, for tests of templates that enqueue several
// dependent commands. Empty where the device has no out-of-order queues.
#pragma once

#include <optional>

#include <clforge/clforge.hpp>

namespace clforge_test {

inline std::optional<clforge::queue> out_of_order_queue(const clforge::context& ctx) {
  cl_int code = CL_SUCCESS;
  cl_queue_properties props[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue raw =
      clCreateCommandQueueWithProperties(ctx.cl()(), ctx.device()(), props, &code);
  if (code != CL_SUCCESS) return std::nullopt;
  clforge::queue q = clforge::queue::wrap(ctx, raw);  // retains it
  clReleaseCommandQueue(raw);
  return q;
}

}  // namespace clforge_test
