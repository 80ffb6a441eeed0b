// SPDX-License-Identifier: MIT
#include "clforge/program.hpp"

#include "clforge/detail/checks.hpp"
#include "clforge/error.hpp"
#include "context_state.hpp"

namespace clforge {

kernel::kernel(const cl::Kernel& handle, const cl::Device& device)
    : state_(std::make_shared<detail::kernel_state>()) {
  detail::translate_cl_errors([&] {
    state_->handle = handle;
    state_->name = handle.getInfo<CL_KERNEL_FUNCTION_NAME>();
    while (!state_->name.empty() && state_->name.back() == '\0') state_->name.pop_back();
    state_->num_args = handle.getInfo<CL_KERNEL_NUM_ARGS>();
    state_->work_group_size = handle.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
    state_->preferred_multiple =
        handle.getWorkGroupInfo<CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE>(device);
    if (state_->preferred_multiple == 0) state_->preferred_multiple = 1;
    state_->device_is_cpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
  });
}

program::program(const cl::Program& built, const cl::Device& device)
    : state_(std::make_shared<detail::program_state>()) {
  state_->handle = built;
  state_->device = device;
}

kernel program::get_kernel(const std::string& name) const {
  if (!state_) throw error("program::kernel(\"" + name + "\") on an empty program");
  detail::require_kernel_name_length("program::kernel", name, max_kernel_name_length);
  std::lock_guard<std::mutex> lock(state_->kernels_mutex);
  auto found = state_->kernels.find(name);
  if (found != state_->kernels.end()) return found->second;
  cl_int code = CL_SUCCESS;
  cl_kernel raw = clCreateKernel(state_->handle(), name.c_str(), &code);
  if (code != CL_SUCCESS)
    detail::throw_cl_error("clCreateKernel", code, "kernel name: \"" + name + "\"");
  clforge::kernel k(cl::Kernel(raw), state_->device);  // cl::Kernel takes ownership
  state_->kernels.emplace(name, k);
  return k;
}

const cl::Program& program::cl() const {
  return state_->handle;
}
const std::string& program::source() const {
  return state_->source;
}
const std::string& program::options() const {
  return state_->options;
}

}  // namespace clforge
