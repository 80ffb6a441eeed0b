// SPDX-License-Identifier: MIT
#include "clforge/error.hpp"

#include <CL/cl_ext.h>

namespace clforge {

const char* error_name(cl_int code) {
  switch (code) {
#define CLFORGE_CASE(name) \
  case name:               \
    return #name;
    CLFORGE_CASE(CL_SUCCESS)
    CLFORGE_CASE(CL_DEVICE_NOT_FOUND)
    CLFORGE_CASE(CL_DEVICE_NOT_AVAILABLE)
    CLFORGE_CASE(CL_COMPILER_NOT_AVAILABLE)
    CLFORGE_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    CLFORGE_CASE(CL_OUT_OF_RESOURCES)
    CLFORGE_CASE(CL_OUT_OF_HOST_MEMORY)
    CLFORGE_CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
    CLFORGE_CASE(CL_MEM_COPY_OVERLAP)
    CLFORGE_CASE(CL_IMAGE_FORMAT_MISMATCH)
    CLFORGE_CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    CLFORGE_CASE(CL_BUILD_PROGRAM_FAILURE)
    CLFORGE_CASE(CL_MAP_FAILURE)
    CLFORGE_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    CLFORGE_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    CLFORGE_CASE(CL_COMPILE_PROGRAM_FAILURE)
    CLFORGE_CASE(CL_LINKER_NOT_AVAILABLE)
    CLFORGE_CASE(CL_LINK_PROGRAM_FAILURE)
    CLFORGE_CASE(CL_DEVICE_PARTITION_FAILED)
    CLFORGE_CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    CLFORGE_CASE(CL_INVALID_VALUE)
    CLFORGE_CASE(CL_INVALID_DEVICE_TYPE)
    CLFORGE_CASE(CL_INVALID_PLATFORM)
    CLFORGE_CASE(CL_INVALID_DEVICE)
    CLFORGE_CASE(CL_INVALID_CONTEXT)
    CLFORGE_CASE(CL_INVALID_QUEUE_PROPERTIES)
    CLFORGE_CASE(CL_INVALID_COMMAND_QUEUE)
    CLFORGE_CASE(CL_INVALID_HOST_PTR)
    CLFORGE_CASE(CL_INVALID_MEM_OBJECT)
    CLFORGE_CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    CLFORGE_CASE(CL_INVALID_IMAGE_SIZE)
    CLFORGE_CASE(CL_INVALID_SAMPLER)
    CLFORGE_CASE(CL_INVALID_BINARY)
    CLFORGE_CASE(CL_INVALID_BUILD_OPTIONS)
    CLFORGE_CASE(CL_INVALID_PROGRAM)
    CLFORGE_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
    CLFORGE_CASE(CL_INVALID_KERNEL_NAME)
    CLFORGE_CASE(CL_INVALID_KERNEL_DEFINITION)
    CLFORGE_CASE(CL_INVALID_KERNEL)
    CLFORGE_CASE(CL_INVALID_ARG_INDEX)
    CLFORGE_CASE(CL_INVALID_ARG_VALUE)
    CLFORGE_CASE(CL_INVALID_ARG_SIZE)
    CLFORGE_CASE(CL_INVALID_KERNEL_ARGS)
    CLFORGE_CASE(CL_INVALID_WORK_DIMENSION)
    CLFORGE_CASE(CL_INVALID_WORK_GROUP_SIZE)
    CLFORGE_CASE(CL_INVALID_WORK_ITEM_SIZE)
    CLFORGE_CASE(CL_INVALID_GLOBAL_OFFSET)
    CLFORGE_CASE(CL_INVALID_EVENT_WAIT_LIST)
    CLFORGE_CASE(CL_INVALID_EVENT)
    CLFORGE_CASE(CL_INVALID_OPERATION)
    CLFORGE_CASE(CL_INVALID_GL_OBJECT)
    CLFORGE_CASE(CL_INVALID_BUFFER_SIZE)
    CLFORGE_CASE(CL_INVALID_MIP_LEVEL)
    CLFORGE_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
    CLFORGE_CASE(CL_INVALID_PROPERTY)
    CLFORGE_CASE(CL_INVALID_IMAGE_DESCRIPTOR)
    CLFORGE_CASE(CL_INVALID_COMPILER_OPTIONS)
    CLFORGE_CASE(CL_INVALID_LINKER_OPTIONS)
    CLFORGE_CASE(CL_INVALID_DEVICE_PARTITION_COUNT)
    CLFORGE_CASE(CL_INVALID_PIPE_SIZE)
    CLFORGE_CASE(CL_INVALID_DEVICE_QUEUE)
    CLFORGE_CASE(CL_INVALID_SPEC_ID)
    CLFORGE_CASE(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
    CLFORGE_CASE(CL_PLATFORM_NOT_FOUND_KHR)
#undef CLFORGE_CASE
    default:
      return "CL_UNKNOWN_ERROR";
  }
}

static std::string format_message(const std::string& call, cl_int code, const std::string& detail) {
  std::string message = call + " failed: " + error_name(code) + " (" + std::to_string(code) + ")";
  if (!detail.empty()) message += "\n" + detail;
  if (code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES ||
      code == CL_OUT_OF_HOST_MEMORY) {
    // OpenCL allocates a buffer when a command first uses it, so running out of device memory
    // can surface at any enqueue, far from the array that did not fit.
    message +=
        "\nThe device ran out of memory or resources (buffers are allocated when a command "
        "first uses them, so this can appear at any enqueue). Free arrays you no longer need; "
        "context::pool().release_all() frees the buffers clforge keeps for reuse.";
  }
  return message;
}

error::error(const std::string& call, cl_int code, const std::string& detail)
    : std::runtime_error(format_message(call, code, detail)), call_(call), code_(code) {}

error::error(const std::string& prefix, const error& cause)
    : std::runtime_error(prefix + cause.what()), call_(cause.call_), code_(cause.code_) {}

namespace detail {
void throw_cl_error(const std::string& call, cl_int code, const std::string& detail) {
  throw error(call, code, detail);
}
}  // namespace detail

}  // namespace clforge
