// SPDX-License-Identifier: MIT
// clforge::histogram_kernel and clforge::histogram: counts per bin.
//
//   cf::histogram_kernel top_byte(ctx, "global const uint* x", "x[i] >> 24", 256);
//   cf::array<cl_uint> counts = top_byte(q, x);        // counts[b]: indices i with bin b
//   cf::array<cl_uint> evens = top_byte(q, cf::slice(0, cf::slice_none, 2), x);
//   cf::array<cl_uint> h = cf::histogram(q, values, 100, 0.0f, 1.0f);   // numpy's bins
//
// The bin expression is an integer expression over `i` (ulong) and the arguments; indices whose
// bin lies outside [0, bins) are not counted. Array arguments may be array views (x.view(...)):
// the bin expression then uses them only as name[index], the index counting in the view.
// Counts are 32-bit: a call over 2^32 indices or more is refused. Few bins (their counts fit the
// local memory a group may use) are counted per work-group in local memory and added once per
// group; more bins are counted with one global atomic per index.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "clforge/algorithms/common.hpp"
#include "clforge/array.hpp"
#include "clforge/array_view.hpp"
#include "clforge/detail/signature.hpp"
#include "clforge/event.hpp"
#include "clforge/export.hpp"
#include "clforge/queue.hpp"
#include "clforge/range.hpp"

namespace clforge {

/// Options of histogram_kernel: the kernel options (the preamble holds helpers the bin
/// expression calls; each call checks that every array argument holds every index it visits).
struct histogram_options : kernel_options {};

namespace detail {
struct histogram_state;
}

/// Counts, per bin, the indices i whose bin expression (over i and the arguments) gives that bin;
/// see the top of this file.
class CLFORGE_API histogram_kernel {
 public:
  /// Parses `arguments`, generates the counting kernel for `bin_expr` over `bins` bins and builds
  /// it.
  histogram_kernel(const context& ctx, const std::string& arguments, const std::string& bin_expr,
                   std::size_t bins, const histogram_options& options = {});

  /// Counts over the length of the first array argument into a new array of bins() counts.
  template <class... Args>
  array<cl_uint> operator()(const queue& q, const Args&... args) const {
    detail::argument_list bound = detail::argument_list::bind(who(), parameters(), args...);
    if (!bound.has_array())
      throw error(who() + ": no array argument to take the length from; pass clforge::range(n)");
    return count(q, detail::whole_range(bound.first_array_length()), bound);
  }
  /// Counts over the indices of an explicit clforge::range or clforge::slice.
  template <class... Args>
  array<cl_uint> operator()(const queue& q, const index_range& r, const Args&... args) const {
    detail::argument_list bound = detail::argument_list::bind(who(), parameters(), args...);
    return count(q, resolve(r, bound), bound);
  }
  /// Counts over the indices [0, n): the same as (q, clforge::range(n), args...).
  template <class... Args>
  array<cl_uint> run(const queue& q, std::size_t n, const Args&... args) const {
    return count(q, detail::whole_range(n),
                 detail::argument_list::bind(who(), parameters(), args...));
  }
  /// Adds the counts over [0, n) to `counts` (bins() elements), e.g. to accumulate.
  template <class... Args>
  event accumulate(const queue& q, array<cl_uint>& counts, std::size_t n,
                   const Args&... args) const {
    return add(q, counts, detail::whole_range(n),
               detail::argument_list::bind(who(), parameters(), args...));
  }
  /// Adds the counts over the indices of a clforge::range or clforge::slice to `counts`.
  template <class... Args>
  event accumulate(const queue& q, array<cl_uint>& counts, const index_range& r,
                   const Args&... args) const {
    detail::argument_list bound = detail::argument_list::bind(who(), parameters(), args...);
    return add(q, counts, resolve(r, bound), bound);
  }

  /// Number of bins.
  std::size_t bins() const;
  /// Whether counts are kept per work-group in local memory (false: global atomics).
  bool privatised() const;
  /// The generated OpenCL C source.
  const std::string& source() const;

 private:
  const std::string& who() const;
  const std::vector<detail::parameter>& parameters() const;
  detail::resolved_range resolve(const index_range& r, const detail::argument_list& bound) const {
    return detail::resolve_range(r, bound.has_array(), bound.first_array_length(), who());
  }
  array<cl_uint> count(const queue& q, const detail::resolved_range& r,
                       const detail::argument_list& bound) const;
  /// Adds the counts to `counts`, or with `overwrite` writes them there (its first bins()
  /// elements; what they held before does not matter).
  event add(const queue& q, array<cl_uint>& counts, const detail::resolved_range& r,
            const detail::argument_list& bound, bool overwrite = false) const;
  std::shared_ptr<const detail::histogram_state> state_;
};

namespace detail {
/// The cached histogram_kernel of histogram() for (context, type, bins).
CLFORGE_API const histogram_kernel& equal_width_histogram(const context& ctx,
                                                          const std::string& type,
                                                          std::size_t bins);
CLFORGE_API void check_histogram_range(std::size_t bins, double lo, double hi);
CLFORGE_API void check_histogram_scale(double width, double scale);
/// How far from a bin border, in bins, the bin the kernel estimates for a value of [lo, hi]
/// (value_size 4: float, 8: double) is certainly numpy's (no edge test needed): a bound on the
/// roundings of the estimate and of the edges, doubled; 2 where that is beyond a quarter bin.
CLFORGE_API double histogram_margin(std::size_t bins, double lo, double hi, double scale,
                                    std::size_t value_size);
/// numpy's bin edges of histogram() (see there) on the device, as float (`value_size` 4) or
/// double (8), made once per (type, bins, lo, hi) and kept with the context (up to 64 ranges;
/// all are dropped when a 65th comes); a clforge::error where two of them are equal (more bins
/// than T resolves).
CLFORGE_API std::shared_ptr<const cl::Buffer> histogram_edges(const context& ctx, std::size_t bins,
                                                              double lo, double hi,
                                                              std::size_t value_size);

/// The bin function's arguments after x, lo and hi in histogram()'s kernel: numpy's scale
/// (bins over hi - lo in double, then T), the margin and the edges, with histogram()'s checks.
template <class T>
struct equal_width_arguments {
  T scale = 0, margin = 0;
  std::shared_ptr<const cl::Buffer> edges;
};
template <class T>
equal_width_arguments<T> equal_width_arguments_of(const context& ctx, std::size_t bins, T lo,
                                                  T hi) {
  static_assert(std::is_floating_point_v<T>, "clforge::histogram: float or double values");
  check_histogram_range(bins, static_cast<double>(lo), static_cast<double>(hi));
  const T width = static_cast<T>(static_cast<double>(hi) - static_cast<double>(lo));
  const T scale = static_cast<T>(bins) / width;
  check_histogram_scale(static_cast<double>(width), static_cast<double>(scale));
  const T margin =
      static_cast<T>(histogram_margin(bins, static_cast<double>(lo), static_cast<double>(hi),
                                      static_cast<double>(scale), sizeof(T)));
  return {scale, margin, histogram_edges(ctx, bins, lo, hi, sizeof(T))};
}

template <class T, class X>
array<cl_uint> equal_width_counts(const queue& q, const X& x, std::size_t bins, T lo, T hi) {
  const equal_width_arguments<T> a = equal_width_arguments_of(q.ctx(), bins, lo, hi);
  return equal_width_histogram(q.ctx(), type_name<T>(), bins)(q, x, lo, hi, a.scale, a.margin,
                                                              *a.edges);
}
}  // namespace detail

/// Counts of x in `bins` equal-width bins over [lo, hi], exactly as numpy.histogram(x, bins,
/// range=(lo, hi)) counts them: the edges are lo + k * (hi - lo) / bins as np.linspace computes
/// them (in double, then T), each bin holds the values from its lower edge up to (not
/// including) its upper one, the last bin also hi. Values outside [lo, hi] and NaNs are not
/// counted. More bins than T resolves over [lo, hi] (two equal edges) is an error, as in numpy.
/// T is float or double.
template <class T>
array<cl_uint> histogram(const queue& q, const array<T>& x, std::size_t bins, T lo, T hi) {
  return detail::equal_width_counts(q, x, bins, lo, hi);
}
/// The same over the elements of a view (no copy).
template <class T>
array<cl_uint> histogram(const queue& q, const array_view<T>& x, std::size_t bins, T lo, T hi) {
  return detail::equal_width_counts(q, x, bins, lo, hi);
}

}  // namespace clforge
