// SPDX-License-Identifier: MIT
// clforge::mpi staging area: pinned (mapped) host memory per queue for the exchanges by message.
// The C API of OpenCL, so nothing depends on CLHPP's exception setting.
#include <algorithm>
#include <mutex>

#include "clforge/detail/opencl.hpp"
#include "clforge/mpi/collective.hpp"

namespace clforge::mpi::detail {

namespace {

struct pinned_area {
  std::mutex busy;  // held by a lease
  cl_command_queue queue = nullptr;
  cl_mem buffer = nullptr;
  void* mapped = nullptr;
  std::size_t bytes = 0;

  ~pinned_area() { release(); }
  void release() {
    if (mapped) clEnqueueUnmapMemObject(queue, buffer, mapped, 0, nullptr, nullptr);
    if (queue) clFinish(queue);
    if (buffer) clReleaseMemObject(buffer);
    if (queue) clReleaseCommandQueue(queue);
    queue = nullptr;
    buffer = nullptr;
    mapped = nullptr;
    bytes = 0;
  }
  // A mapped buffer of at least `want` bytes on q; false where the driver gives none.
  bool grow(const clforge::queue& q, std::size_t want) {
    release();
    cl_int err = CL_SUCCESS;
    buffer = clCreateBuffer(q.ctx().get(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, want, nullptr,
                            &err);
    if (err != CL_SUCCESS) {
      buffer = nullptr;
      return false;
    }
    queue = q.cl()();
    clRetainCommandQueue(queue);
    mapped = clEnqueueMapBuffer(queue, buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, want, 0,
                                nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      mapped = nullptr;
      release();
      return false;
    }
    bytes = want;
    return true;
  }
};

const std::shared_ptr<const void>& area_owner() {
  static const std::shared_ptr<const void> owner = std::make_shared<int>(0);
  return owner;
}

}  // namespace

staging_lease::staging_lease(const queue& q, std::size_t bytes) {
  if (bytes == 0) return;
  auto area = std::static_pointer_cast<pinned_area>(q.attachment(area_owner(), [] {
    return std::static_pointer_cast<void>(std::make_shared<pinned_area>());
  }));
  pinned_area& a = *area;
  if (a.busy.try_lock()) {
    // Grown by half at least, so that slowly growing exchanges do not map again every call.
    if (a.bytes >= bytes || a.grow(q, std::max(bytes, a.bytes + a.bytes / 2))) {
      data_ = a.mapped;
      area_ = area;
      held_ = &a;
      return;
    }
    a.busy.unlock();
  }
  fallback_.resize(bytes);
  data_ = fallback_.data();
}

staging_lease::~staging_lease() {
  if (held_) static_cast<pinned_area*>(held_)->busy.unlock();
}

}  // namespace clforge::mpi::detail
