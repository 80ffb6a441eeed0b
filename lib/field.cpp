// SPDX-License-Identifier: MIT
// clforge::field: shapes, layouts and the transfers of boxes (clEnqueue{Read,Write}BufferRect).
#include "clforge/field.hpp"

#include <limits>

#include "clforge/error.hpp"

namespace clforge {

void ghost::check(std::size_t dim) {
  if (dim >= 3)
    detail::throw_field_error("ghost::with: dimension " + std::to_string(dim) +
                              "; fields have dimensions 0, 1 and 2");
}

namespace detail {

void throw_field_error(const std::string& message) {
  throw error(message);
}

namespace {
// Kernels index a dimension with an int: sizes below 2^31.
constexpr std::size_t kMaxExtent = (std::size_t(1) << 31) - 1;

std::size_t checked_product(std::size_t a, std::size_t b, const char* what) {
  if (b != 0 && a > std::numeric_limits<std::size_t>::max() / b)
    throw_field_error(std::string(what) + ": the allocation does not fit in memory addresses");
  return a * b;
}
}  // namespace

field_layout make_field_layout(const std::size_t* shape, std::size_t dims, const ghost& g,
                               const char* what) {
  field_layout l;
  l.dims = dims;
  std::string shown;
  for (std::size_t d = 0; d < dims; ++d) shown += (d ? " x " : "") + std::to_string(shape[d]);
  for (std::size_t d = 0; d < dims; ++d) {
    const std::size_t at = 3 - dims + d;
    if (shape[d] == 0)
      throw_field_error(std::string(what) + ": dimension " + std::to_string(d) + " of the shape " +
                        shown + " is 0 (every dimension needs at least one point)");
    l.shape[at] = shape[d];
    l.low[at] = g.low(d);
    l.high[at] = g.high(d);
    const std::size_t all = shape[d] + l.low[at] + l.high[at];
    if (shape[d] > kMaxExtent || l.low[at] > kMaxExtent || l.high[at] > kMaxExtent ||
        all > kMaxExtent)
      throw_field_error(std::string(what) + ": dimension " + std::to_string(d) + " of " + shown +
                        " with its ghost layers has 2^31 points or more (the most is 2^31 - 1)");
    l.allocation[at] = all;
  }
  l.strides[2] = 1;
  l.strides[1] = l.allocation[2];
  l.strides[0] = checked_product(l.allocation[1], l.allocation[2], what);
  l.total = checked_product(l.strides[0], l.allocation[0], what);
  l.origin = l.low[0] * l.strides[0] + l.low[1] * l.strides[1] + l.low[2];
  return l;
}

field_box make_field_box(const field_layout& layout, const std::array<long long, 3>& begin,
                         const std::array<std::size_t, 3>& extent, const char* what) {
  field_box box;
  box.layout = layout;
  for (std::size_t d = 0; d < 3; ++d) {
    const long long lo = -static_cast<long long>(layout.low[d]);
    const long long hi = static_cast<long long>(layout.shape[d] + layout.high[d]);
    const long long b = begin[d];
    if (b < lo || b > hi || extent[d] > static_cast<std::size_t>(hi - b)) {
      const std::size_t shown = d - (3 - layout.dims);
      throw_field_error(std::string(what) + ": points " + std::to_string(b) + " to " +
                        std::to_string(b + static_cast<long long>(extent[d]) - 1) +
                        " of dimension " + std::to_string(shown) + " leave the allocation (" +
                        std::to_string(lo) + " to " + std::to_string(hi - 1) + ")");
    }
    box.begin[d] = static_cast<std::size_t>(b - lo);
    box.extent[d] = extent[d];
  }
  return box;
}

namespace {
// The box as a buffer rectangle: x (bytes) along the last index, y the middle one, z the first.
struct rectangle {
  std::array<std::size_t, 3> origin, region;
  std::size_t row_pitch, slice_pitch;
};
rectangle rectangle_of(const field_box& box, std::size_t element_size) {
  const field_layout& l = box.layout;
  return {{box.begin[2] * element_size, box.begin[1], box.begin[0]},
          {box.extent[2] * element_size, box.extent[1], box.extent[0]},
          l.strides[1] * element_size,
          l.strides[0] * element_size};
}
}  // namespace

namespace {
// One rectangle copy, blocking; `host` is read from or written to by `to_host`.
void copy_box(const queue& q, const cl::Buffer& buffer, std::size_t element_size,
              const field_box& box, void* host, bool to_host) {
  if (box.points() == 0) return;
  const rectangle r = rectangle_of(box, element_size);
  const std::array<std::size_t, 3> host_origin{0, 0, 0};
  if (to_host)
    check(clEnqueueReadBufferRect(q.get(), buffer(), CL_TRUE, r.origin.data(), host_origin.data(),
                                  r.region.data(), r.row_pitch, r.slice_pitch, 0, 0, host, 0,
                                  nullptr, nullptr),
          "clEnqueueReadBufferRect");
  else
    check(clEnqueueWriteBufferRect(q.get(), buffer(), CL_TRUE, r.origin.data(), host_origin.data(),
                                   r.region.data(), r.row_pitch, r.slice_pitch, 0, 0, host, 0,
                                   nullptr, nullptr),
          "clEnqueueWriteBufferRect");
}
}  // namespace

void read_field_box(const queue& q, const cl::Buffer& buffer, std::size_t element_size,
                    const field_box& box, void* host) {
  copy_box(q, buffer, element_size, box, host, true);
}

void write_field_box(const queue& q, const cl::Buffer& buffer, std::size_t element_size,
                     const field_box& box, const void* host) {
  // clEnqueueWriteBufferRect only reads `host`.
  copy_box(q, buffer, element_size, box, const_cast<void*>(host), false);
}

}  // namespace detail
}  // namespace clforge
