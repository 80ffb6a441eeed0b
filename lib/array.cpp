// SPDX-License-Identifier: MIT
// The byte-level buffer commands behind clforge::array<T>. They live here, compiled with the
// library's CLHPP settings (exceptions on), so array.hpp never depends on the settings of the
// file that includes it.
#include "clforge/array.hpp"

#include "clforge/detail/signature.hpp"

namespace clforge::detail {

void require_array_context(const context& owner, const queue& q, const char* who,
                           const char* what) {
  if (owner) require_same_context(nullptr, owner.get(), q.ctx().get(), who, what);
}

std::size_t buffer_bytes(const cl::Buffer& buffer) {
  return translate_cl_errors([&] { return buffer.getInfo<CL_MEM_SIZE>(); }, "wrapping a buffer");
}

event enqueue_read_bytes(const queue& q, const cl::Buffer& buffer, std::size_t offset,
                         std::size_t bytes, void* dst) {
  return translate_cl_errors([&] {
    cl::Event e;
    q.cl().enqueueReadBuffer(buffer, CL_FALSE, offset, bytes, dst, nullptr, &e);
    return event(e);
  });
}

event enqueue_write_bytes(const queue& q, const cl::Buffer& buffer, std::size_t offset,
                          std::size_t bytes, const void* src) {
  return translate_cl_errors([&] {
    cl::Event e;
    q.cl().enqueueWriteBuffer(buffer, CL_FALSE, offset, bytes, src, nullptr, &e);
    return event(e);
  });
}

event enqueue_fill_bytes(const queue& q, const cl::Buffer& buffer, const void* pattern,
                         std::size_t pattern_bytes, std::size_t offset, std::size_t bytes) {
  cl_event e = nullptr;
  check(clEnqueueFillBuffer(q.cl()(), buffer(), pattern, pattern_bytes, offset, bytes, 0, nullptr,
                            &e),
        "clEnqueueFillBuffer");
  return event(cl::Event(e));  // takes ownership of e
}

event enqueue_copy_bytes(const queue& q, const cl::Buffer& src, const cl::Buffer& dst,
                         std::size_t src_offset, std::size_t dst_offset, std::size_t bytes) {
  return translate_cl_errors([&] {
    cl::Event e;
    q.cl().enqueueCopyBuffer(src, dst, src_offset, dst_offset, bytes, nullptr, &e);
    return event(e);
  });
}

}  // namespace clforge::detail
