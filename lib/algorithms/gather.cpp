// SPDX-License-Identifier: MIT
// gather and scatter (kernels/gather.cl): one launch; with bounds checking, a read of the report.
#include <string>

#include "clforge/algorithms/selection.hpp"
#include "template_engine.hpp"

namespace clforge {
namespace detail {

namespace {
const char* index_type(std::size_t size, bool is_signed) {
  switch (size) {
    case 1:
      return is_signed ? "char" : "uchar";
    case 2:
      return is_signed ? "short" : "ushort";
    case 4:
      return is_signed ? "int" : "uint";
    default:
      return is_signed ? "long" : "ulong";
  }
}

// kernels/gather.cl for elements of `value_size` bytes and the index type.
program gather_program(const context& ctx, const char* who, std::size_t value_size,
                       std::size_t index_size, bool index_signed, bool checked) {
  return build_template(ctx, who,
                        {{"CLFORGE_VALUE_T", moved_type_of_size(value_size)},
                         {"CLFORGE_INDEX_T", index_type(index_size, index_signed)},
                         {"CLFORGE_CHECKED", checked ? "1" : "0"}},
                        {{"gather", {}}});
}
}  // namespace

event gather_scatter(const queue& q, bool is_scatter, const cl::Buffer& indices,
                     std::size_t index_size, bool index_signed, std::size_t n,
                     const cl::Buffer& src, std::size_t src_size, const cl::Buffer& dst,
                     std::size_t dst_size, std::size_t value_size, bounds check) {
  const char* who = is_scatter ? "scatter" : "gather";
  // (The arrays' contexts were checked by gather and scatter, empty or not.)
  if (n == 0) return {};
  const bool checked = check == bounds::checked;
  const program prog = gather_program(q.ctx(), who, value_size, index_size, index_signed, checked);
  const kernel k = prog.kernel(is_scatter ? "clforge_scatter" : "clforge_gather");
  array<cl_uint> report(q, 5);
  if (checked) report.fill(q, 0, 0, 1);
  order_point(q);
  const std::size_t checked_size = is_scatter ? dst_size : src_size;
  event e = is_scatter ? q.launch(k, ndrange(n), src, indices, dst, cl_ulong(n),
                                  cl_ulong(checked_size), report.buffer())
                       : q.launch(k, ndrange(n), indices, src, dst, cl_ulong(n),
                                  cl_ulong(checked_size), report.buffer());
  order_point(q);
  if (checked) {
    cl_uint r[5] = {0, 0, 0, 0, 0};
    report.read(q, r, 0, 5);
    if (r[0]) {
      const std::uint64_t position = r[1] | (std::uint64_t(r[2]) << 32);
      const std::uint64_t raw = r[3] | (std::uint64_t(r[4]) << 32);
      const std::string value =
          index_signed ? std::to_string(static_cast<std::int64_t>(raw)) : std::to_string(raw);
      throw error(std::string(who) + ": indices[" + std::to_string(position) + "] = " + value +
                  " is out of range for the " + (is_scatter ? "destination" : "source") + " of " +
                  std::to_string(checked_size) +
                  " elements (not used; the in-range elements were moved)");
    }
  }
  return e;
}

event copy_strided(const queue& q, const char* who, const cl::Buffer& from, std::int64_t from_first,
                   std::int64_t from_step, const cl::Buffer& to, std::int64_t to_first,
                   std::int64_t to_step, std::size_t n, std::size_t value_size) {
  if (n == 0) return {};
  const program prog = gather_program(q.ctx(), who, value_size, 4, false, false);
  order_point(q);
  event e = q.launch(prog.kernel("clforge_copy_strided"), ndrange(n), from, cl_long(from_first),
                     cl_long(from_step), to, cl_long(to_first), cl_long(to_step), cl_ulong(n));
  order_point(q);
  return e;
}

}  // namespace detail
}  // namespace clforge
