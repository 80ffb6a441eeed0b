// SPDX-License-Identifier: MIT
// Whether an enqueued command no longer runs, without waiting for it.
#pragma once

#include "clforge/detail/opencl.hpp"

namespace clforge::detail {

/// True once the command of `e` has completed or failed (a failed command no longer uses its
/// buffers either); false while it is queued or running, or when its status cannot be read.
inline bool completed(const cl::Event& e) {
  cl_int status = CL_QUEUED;
  if (clGetEventInfo(e(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr) !=
      CL_SUCCESS)
    return false;
  return status == CL_COMPLETE || status < 0;
}

}  // namespace clforge::detail
