// SPDX-License-Identifier: MIT
// clforge::array_view<T>: a strided window into an array, made by array::view(start, stop, step)
// with Python's slice rules. No copy: the view shares the array's buffer (and keeps it alive).
//
//   auto odd = x.view(1, cf::slice_none, 2);     // x[1::2]
//   auto rev = x.view(cf::slice_none, cf::slice_none, -1);   // x[::-1]
//   auto sub = rev.view(0, 10, 3);               // a view of a view composes: x[::-1][0:10:3]
//   y = 2.0f * odd + 1.0f;                       // views work in array expressions ...
//   float s = cf::sum(q, rev * rev);             // ... and reductions of expressions
//   odd = cf::sin(odd);                          // and can be assigned to
//
// Element k of the view is element first() + k * step() of the underlying buffer (step may be
// negative; below two elements it is 1). The step is always a number: x.view(0, 10, INT64_MIN)
// is empty, as x[0:10:-2**63] is in Python. Views are usable in array expressions
// (clforge/array_expr.hpp) and their reductions, and as array arguments of elementwise_kernel,
// reduction_kernel, scan_kernel, histogram_kernel and radix_sort_kernel, whose snippets then use
// the parameter only as name[index] (index counts in the view); see
// lib/algorithms/view_variants.hpp for how the kernels take them.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "clforge/array.hpp"
#include "clforge/range.hpp"

namespace clforge {

namespace detail {
struct expression_base {};
template <class X>
struct is_array_view : std::false_type {};
template <class T>
struct is_array_view<array_view<T>> : std::true_type {};
template <class T, class E>
void assign_expression(const array_view<T>& target, const E& e);

/// A view's slice of `length` elements: Python's rules, start and stop slice_none when omitted,
/// the step always a number (INT64_MIN too; only clforge::slice takes slice_none as a step of
/// 1). -INT64_MAX selects what INT64_MIN does, at most one element: no array is that long.
inline resolved_range view_slice(std::int64_t start, std::int64_t stop, std::int64_t step,
                                 std::size_t length, const char* who) {
  const std::int64_t counted =
      step == index_range::none ? -std::numeric_limits<std::int64_t>::max() : step;
  return resolve_range(slice(start, stop, counted), true, length, who);
}
}  // namespace detail

/// A strided window into an array's buffer (no copy): made by array::view, usable in array
/// expressions and as the target of one.
template <class T>
class array_view : public detail::expression_base {
 public:
  using value_type = T;  ///< The element type.

  /// Number of elements in the view.
  std::size_t size() const { return count_; }
  /// True when the view has no elements.
  bool empty() const { return count_ == 0; }
  /// Index in the underlying buffer of element 0.
  std::int64_t first() const { return first_; }
  /// Distance in the underlying buffer between consecutive elements (negative: reversed).
  std::int64_t step() const { return step_; }
  /// The context of the array the view was taken from.
  const context& ctx() const { return ctx_; }
  /// The underlying buffer (a null cl::Buffer for a view of an empty array).
  const cl::Buffer& buffer() const {
    static const cl::Buffer none;
    return buffer_ ? *buffer_ : none;
  }
  /// The underlying cl_mem handle, for kernel arguments.
  cl_mem get() const { return buffer()(); }
  /// The home queue of the array the view was taken from (see array::home_queue).
  const clforge::queue& home_queue() const {
    if (!home_queue_) detail::throw_no_home_queue("array_view::home_queue");
    return *home_queue_;
  }
  /// True when the array the view was taken from has a home queue.
  bool has_home_queue() const { return home_queue_.has_value(); }

  /// A view of this view (Python slice rules against size()).
  array_view view(std::int64_t start, std::int64_t stop, std::int64_t step = 1) const {
    const detail::resolved_range r =
        detail::view_slice(start, stop, step, count_, "array_view::view");
    array_view out = *this;
    out.count_ = static_cast<std::size_t>(r.count);
    // r.first is an element of this view. With two elements or more, step_ * step spans at most
    // the buffer; with fewer the step is unused and the product may overflow: it is then 1.
    out.first_ = out.count_ == 0 ? 0 : first_ + static_cast<std::int64_t>(r.first) * step_;
    out.step_ = out.count_ < 2 ? 1 : step_ * step;
    return out;
  }

  /// Evaluates an array expression into the view's elements, on the home queue.
  template <class E, class = std::enable_if_t<std::is_base_of_v<detail::expression_base, E>>>
  array_view& operator=(const E& expression) {
    detail::assign_expression(*this, expression);
    return *this;
  }
  /// Copies the view (shares the buffer; copies no elements).
  array_view(const array_view&) = default;
  /// Assigning one view to another copies elements (like numpy), it does not rebind.
  array_view& operator=(const array_view& other) {
    detail::assign_expression(*this, other);
    return *this;
  }

 private:
  friend class array<T>;
  array_view() = default;
  context ctx_;
  std::shared_ptr<cl::Buffer> buffer_;
  std::optional<clforge::queue> home_queue_;
  std::int64_t first_ = 0, step_ = 1;
  std::size_t count_ = 0;
};

template <class T>
array_view<T> array<T>::view(std::int64_t start, std::int64_t stop, std::int64_t step) const {
  const detail::resolved_range r = detail::view_slice(start, stop, step, size_, "array::view");
  array_view<T> out;
  out.ctx_ = ctx_;
  out.buffer_ = buffer_;
  out.home_queue_ = home_queue_;
  out.first_ = r.count == 0 ? 0 : static_cast<std::int64_t>(r.first);
  out.step_ = r.count < 2 ? 1 : step;  // unused below two elements (see array_view::view)
  out.count_ = static_cast<std::size_t>(r.count);
  return out;
}

}  // namespace clforge
