// SPDX-License-Identifier: MIT
// Stream operations: clforge::unique, remove_if (on the scan), gather and scatter.
//
//   std::size_t kept = cf::unique(q, in, out);             // like std::unique, into out
//   std::size_t left = cf::remove_if(q, in, out, "x < 0");  // the others, in order
//   cf::gather(q, indices, src, dst);    // dst[i] = src[indices[i]]
//   cf::scatter(q, src, indices, dst);   // dst[indices[i]] = src[i]
//
// gather and scatter check every index against the array it indexes (bounds::checked, the
// default): an index out of range is not used, and the call throws clforge::error naming the
// first one it met, after the in-range elements were moved. Checking reads one word back, so a
// checked call waits for its kernel; bounds::unchecked does not (the caller promises the indices
// are in range).
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "clforge/algorithms/scan.hpp"
#include "clforge/array.hpp"
#include "clforge/event.hpp"
#include "clforge/export.hpp"
#include "clforge/queue.hpp"

namespace clforge {

/// Whether gather() and scatter() check every index (see the top of this file).
enum class bounds { checked, unchecked };

namespace detail {

/// One gather or scatter launch (lib/algorithms/gather.cpp); sizes in elements.
CLFORGE_API event gather_scatter(const queue& q, bool is_scatter, const cl::Buffer& indices,
                                 std::size_t index_size, bool index_signed, std::size_t n,
                                 const cl::Buffer& src, std::size_t src_size, const cl::Buffer& dst,
                                 std::size_t dst_size, std::size_t value_size, bounds check);

template <class I, class T>
constexpr void check_gather_types() {
  static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool>,
                "clforge::gather/scatter: indices are integers");
  static_assert(
      sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
      "clforge::gather/scatter: elements of 1, 2, 4, 8 or 16 bytes");
}

template <class T, class Count>
std::size_t run_unique(const queue& q, const array<T>& in, array<T>& out) {
  const std::string type = type_name<T>();
  const std::string count = type_name<Count>();
  // The inclusive count of run starts rises at i exactly when in[i] starts a run.
  const scan_core k = shared_scan<Count>(
      q.ctx(),
      "global const " + type + "* in, global " + type + "* out, global " + count + "* count",
      "(i == 0 || in[i] != in[i - 1]) ? 1 : 0", "a + b", "0",
      "if (item != prev_item) out[prev_item] = in[i]; if (i == n - 1) count[0] = item;",
      scan_kind::inclusive, "unique");
  array<Count> result(q, 1);
  scan_call(k, q, in.size(), in, out, result);
  Count kept = 0;
  result.read(q, &kept, 0, 1);
  return static_cast<std::size_t>(kept);
}

}  // namespace detail

/// Copies `in` to `out` without consecutive duplicates (elements equal by ==, as std::unique:
/// -0.0 equals +0.0, a NaN equals nothing) and returns how many were copied. `out` must hold
/// in.size() elements and must not be `in`. T is an OpenCL scalar type.
template <class T>
std::size_t unique(const queue& q, const array<T>& in, array<T>& out) {
  static_assert(std::is_arithmetic_v<T>, "clforge::unique: scalar elements");
  detail::check_selection("unique", in.size(), out.size(),
                          in.get() != nullptr && in.get() == out.get());
  if (in.size() == 0) return 0;
  if (in.size() <= 0xffffffffu) return detail::run_unique<T, cl_uint>(q, in, out);
  return detail::run_unique<T, cl_ulong>(q, in, out);
}

/// Copies the elements x of `in` for which `predicate` (over x and its index i) is false to the
/// front of `out`, in order, and returns how many (std::remove_copy_if). `out` must hold
/// in.size() elements and must not be `in`.
template <class T>
std::size_t remove_if(const queue& q, const array<T>& in, array<T>& out,
                      const std::string& predicate, const std::string& preamble = "") {
  if (predicate.find_first_not_of(" \t\r\n") == std::string::npos)
    throw error("remove_if: the predicate is empty");
  return detail::select(q, in, out, false, "!(" + predicate + ")", preamble);
}

/// dst[i] = src[indices[i]] for i < indices.size(); dst must hold indices.size() elements and
/// must not be src.
template <class I, class T>
event gather(const queue& q, const array<I>& indices, const array<T>& src, array<T>& dst,
             bounds check = bounds::checked) {
  detail::check_gather_types<I, T>();
  if (dst.size() < indices.size())
    throw error("gather: " + std::to_string(indices.size()) + " indices but the destination has " +
                std::to_string(dst.size()) + " elements");
  if (indices.size() > 0 && src.get() == dst.get())
    throw error("gather: the destination must be another array than the source");
  return detail::gather_scatter(q, false, indices.buffer(), sizeof(I), std::is_signed_v<I>,
                                indices.size(), src.buffer(), src.size(), dst.buffer(), dst.size(),
                                sizeof(T), check);
}

/// dst[indices[i]] = src[i] for i < src.size(); indices and src have one length; dst must not
/// be src. Where two indices are equal, which element lands there is unspecified.
template <class T, class I>
event scatter(const queue& q, const array<T>& src, const array<I>& indices, array<T>& dst,
              bounds check = bounds::checked) {
  detail::check_gather_types<I, T>();
  if (indices.size() != src.size())
    throw error("scatter: " + std::to_string(src.size()) + " elements but " +
                std::to_string(indices.size()) + " indices (they must have the same length)");
  if (src.size() > 0 && src.get() == dst.get())
    throw error("scatter: the destination must be another array than the source");
  return detail::gather_scatter(q, true, indices.buffer(), sizeof(I), std::is_signed_v<I>,
                                indices.size(), src.buffer(), src.size(), dst.buffer(), dst.size(),
                                sizeof(T), check);
}

}  // namespace clforge
