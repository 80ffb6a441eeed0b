// SPDX-License-Identifier: MIT
// clforge::sum, dot, min, max, minmax on array<T>: ready-made reductions for users who don't
// want to write snippets. Built on reduction_kernel's engine; each (context, function, types)
// program is generated and built once and kept with the context (released with it).
//
// T: char, uchar, short, ushort, int, uint, long, ulong, float, double (double only on devices
// with fp64, else clforge::error).
//
//   float s = cf::sum(q, x);                         // sum in T (integers wrap like C++)
//   std::uint64_t big = cf::sum<std::uint64_t>(q, bytes);   // sum in a wider type
//   float k = cf::sum(q, x, cf::summation::compensated);    // Kahan (float/double)
//   float d = cf::dot(q, x, y);                      // x and y of equal length
//   float lo = cf::min(q, x), hi = cf::max(q, x);
//   auto [mn, mx] = cf::minmax(q, x);
//   cf::sum(q, x, result);                           // into result[0] on the device, an event
//
// min/max rules for float and double: NaN elements are ignored (like fmin/fmax and IEEE
// minNum/maxNum); the result is NaN only when every element is NaN. +-infinity are ordinary
// values (min of {1, -inf} is -inf). Which of -0.0 and +0.0 wins is unspecified. min, max and
// minmax of an empty array throw clforge::error on the host-result path; the device-result
// path writes the neutral element (NaN for floating types, the type's maximum for min and its
// minimum for max for integers). sum and dot of an empty array are 0. Kernels are built without
// fast-math options, which would break the NaN rules and compensated sums.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "clforge/array.hpp"

namespace clforge {

template <class T>
/// A map-then-reduce over indices (PyOpenCL's ReductionKernel); defined in reduction.hpp.
class reduction_kernel;

enum class summation {
  plain,        // nested partial sums (see reduction.hpp for the accuracy)
  compensated,  // Kahan sums inside every sequential run (float and double)
};

namespace detail {

class reduction_engine;

enum class builtin_reduction { sum, dot, min, max, minmax };

/// The engine for (ctx, op, element type, result type); built on first use and kept with the
/// context (released with it).
CLFORGE_API const reduction_engine& builtin_engine(const context& ctx, builtin_reduction op,
                                                   int element, int result, bool compensated);
/// Runs a built-in over the n elements of x (and y) into `result`.
CLFORGE_API event run_builtin(const queue& q, const reduction_engine& engine, const cl_mem* buffers,
                              std::size_t buffer_count, std::size_t n, const cl::Buffer& result);
/// Runs a built-in and reads its result (one value of the result type) into dst.
CLFORGE_API void run_builtin_to_host(const queue& q, const reduction_engine& engine,
                                     const cl_mem* buffers, std::size_t buffer_count, std::size_t n,
                                     void* dst);
[[noreturn]] CLFORGE_API void throw_builtin_error(const char* what, const std::string& detail);

/// The buffers of a built-in's input arrays (x, then y), each refused unless it belongs to q's
/// context, an empty array included (it has no buffer a launch could check).
template <class... A>
std::array<cl_mem, sizeof...(A)> builtin_inputs(const queue& q, const char* who, const A&... x) {
  const char* names[] = {"x", "y"};
  std::size_t k = 0;
  const auto check = [&](const context& owner) {
    if (owner && owner.get() != q.ctx().get())
      require_array_context(owner, q, ("clforge::" + std::string(who)).c_str(), names[k]);
    ++k;
  };
  (check(x.ctx()), ...);
  return {x.get()...};
}

/// Index of T in detail::scalar_types (clforge/types.hpp), or -1.
template <class T>
constexpr int scalar_index() {
  using U = std::conditional_t<std::is_same_v<T, char>, cl_char, T>;
  if constexpr (std::is_same_v<U, cl_char>) return 0;
  if constexpr (std::is_same_v<U, cl_uchar>) return 1;
  if constexpr (std::is_same_v<U, cl_short>) return 2;
  if constexpr (std::is_same_v<U, cl_ushort>) return 3;
  if constexpr (std::is_same_v<U, cl_int>) return 4;
  if constexpr (std::is_same_v<U, cl_uint>) return 5;
  if constexpr (std::is_same_v<U, cl_long>) return 6;
  if constexpr (std::is_same_v<U, cl_ulong>) return 7;
  if constexpr (std::is_same_v<U, cl_float>) return 8;
  if constexpr (std::is_same_v<U, cl_double>) return 9;
  return -1;
}
template <class T>
constexpr int checked_scalar_index() {
  constexpr int index = scalar_index<T>();
  static_assert(index >= 0,
                "clforge::sum/dot/min/max/minmax work on arrays of OpenCL scalar types "
                "(char .. ulong, float, double); use reduction_kernel for structs");
  return index;
}
template <class R, class T>
using sum_result_t = std::conditional_t<std::is_void_v<R>, T, R>;

}  // namespace detail

/// Sum of x in R (default T). Integers wrap like C++ unsigned arithmetic does.
template <class R = void, class T>
detail::sum_result_t<R, T> sum(const queue& q, const array<T>& x,
                               summation how = summation::plain) {
  using Out = detail::sum_result_t<R, T>;
  const auto& engine = detail::builtin_engine(
      q.ctx(), detail::builtin_reduction::sum, detail::checked_scalar_index<T>(),
      detail::checked_scalar_index<Out>(), how == summation::compensated);
  const auto buffers = detail::builtin_inputs(q, "sum", x);
  Out value;
  detail::run_builtin_to_host(q, engine, buffers.data(), 1, x.size(), &value);
  return value;
}
/// Sum of x into result[0], on the device.
template <class R, class T>
event sum(const queue& q, const array<T>& x, array<R>& result, summation how = summation::plain) {
  const auto& engine = detail::builtin_engine(
      q.ctx(), detail::builtin_reduction::sum, detail::checked_scalar_index<T>(),
      detail::checked_scalar_index<R>(), how == summation::compensated);
  if (result.empty()) detail::throw_builtin_error("sum", "the result array is empty");
  const auto buffers = detail::builtin_inputs(q, "sum", x);
  return detail::run_builtin(q, engine, buffers.data(), 1, x.size(), result.buffer());
}

/// Sum of x[i] * y[i] in T; x and y must have the same length.
template <class T>
T dot(const queue& q, const array<T>& x, const array<T>& y, summation how = summation::plain) {
  if (x.size() != y.size())
    detail::throw_builtin_error(
        "dot", "x has " + std::to_string(x.size()) + " elements, y " + std::to_string(y.size()));
  const auto& engine = detail::builtin_engine(
      q.ctx(), detail::builtin_reduction::dot, detail::checked_scalar_index<T>(),
      detail::checked_scalar_index<T>(), how == summation::compensated);
  const auto buffers = detail::builtin_inputs(q, "dot", x, y);
  T value;
  detail::run_builtin_to_host(q, engine, buffers.data(), 2, x.size(), &value);
  return value;
}
template <class T>
event dot(const queue& q, const array<T>& x, const array<T>& y, array<T>& result,
          summation how = summation::plain) {
  if (x.size() != y.size())
    detail::throw_builtin_error(
        "dot", "x has " + std::to_string(x.size()) + " elements, y " + std::to_string(y.size()));
  if (result.empty()) detail::throw_builtin_error("dot", "the result array is empty");
  const auto& engine = detail::builtin_engine(
      q.ctx(), detail::builtin_reduction::dot, detail::checked_scalar_index<T>(),
      detail::checked_scalar_index<T>(), how == summation::compensated);
  const auto buffers = detail::builtin_inputs(q, "dot", x, y);
  return detail::run_builtin(q, engine, buffers.data(), 2, x.size(), result.buffer());
}

namespace detail {
template <class T>
T extremum(const queue& q, const array<T>& x, builtin_reduction op, const char* what) {
  if (x.empty()) throw_builtin_error(what, "the array is empty");
  const auto& engine =
      builtin_engine(q.ctx(), op, checked_scalar_index<T>(), checked_scalar_index<T>(), false);
  const auto buffers = builtin_inputs(q, what, x);
  T value;
  run_builtin_to_host(q, engine, buffers.data(), 1, x.size(), &value);
  return value;
}
template <class T>
event extremum_into(const queue& q, const array<T>& x, array<T>& result, builtin_reduction op,
                    const char* what) {
  if (result.empty()) throw_builtin_error(what, "the result array is empty");
  const auto& engine =
      builtin_engine(q.ctx(), op, checked_scalar_index<T>(), checked_scalar_index<T>(), false);
  const auto buffers = builtin_inputs(q, what, x);
  return run_builtin(q, engine, buffers.data(), 1, x.size(), result.buffer());
}
}  // namespace detail

/// Smallest element (NaN ignored, see above). Throws on an empty array.
template <class T>
T min(const queue& q, const array<T>& x) {
  return detail::extremum(q, x, detail::builtin_reduction::min, "min");
}
template <class T>
event min(const queue& q, const array<T>& x, array<T>& result) {
  return detail::extremum_into(q, x, result, detail::builtin_reduction::min, "min");
}
/// Largest element (NaN ignored, see above). Throws on an empty array.
template <class T>
T max(const queue& q, const array<T>& x) {
  return detail::extremum(q, x, detail::builtin_reduction::max, "max");
}
template <class T>
event max(const queue& q, const array<T>& x, array<T>& result) {
  return detail::extremum_into(q, x, result, detail::builtin_reduction::max, "max");
}
/// {min, max} in one pass. Throws on an empty array.
template <class T>
std::pair<T, T> minmax(const queue& q, const array<T>& x) {
  if (x.empty()) detail::throw_builtin_error("minmax", "the array is empty");
  const auto& engine = detail::builtin_engine(q.ctx(), detail::builtin_reduction::minmax,
                                              detail::checked_scalar_index<T>(),
                                              detail::checked_scalar_index<T>(), false);
  const auto buffers = detail::builtin_inputs(q, "minmax", x);
  T both[2];
  detail::run_builtin_to_host(q, engine, buffers.data(), 1, x.size(), both);
  return {both[0], both[1]};
}
/// {min, max} into result[0] and result[1] on the device (result needs 2 elements).
template <class T>
event minmax(const queue& q, const array<T>& x, array<T>& result) {
  if (result.size() < 2) detail::throw_builtin_error("minmax", "the result array needs 2 elements");
  const auto& engine = detail::builtin_engine(q.ctx(), detail::builtin_reduction::minmax,
                                              detail::checked_scalar_index<T>(),
                                              detail::checked_scalar_index<T>(), false);
  const auto buffers = detail::builtin_inputs(q, "minmax", x);
  return detail::run_builtin(q, engine, buffers.data(), 1, x.size(), result.buffer());
}

}  // namespace clforge
