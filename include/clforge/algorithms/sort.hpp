// SPDX-License-Identifier: MIT
// clforge::sort and clforge::sort_by_key: stable LSD radix sort of device arrays in place.
//
//   cf::sort(q, keys);                              // ascending, stable
//   cf::sort(q, keys, cf::order::descending);
//   cf::sort_by_key(q, keys, values);               // values move with their keys
//   cf::sort_scratch scratch;                       // reused: repeated sorts allocate nothing
//   cf::sort_options o;  o.scratch = &scratch;  o.end_bit = 20;
//   cf::sort(q, keys, o);                           // sort on bits [0, 20) only
//
// Keys: every 8-, 16-, 32- and 64-bit integer type (std::size_t included), float and double.
// Floating-point keys follow IEEE 754's total order, except that all NaNs compare equal:
// -inf < ... < -0.0 < +0.0 < ... < +inf < NaN, so -0.0 comes before +0.0 and NaNs come last (in
// their input order). Descending is the exact reverse (NaNs first); equal keys keep their input
// order in both directions.
//
// Values: any trivially copyable type of 1, 2, 4, 8 or 16 bytes (moved as bits).
//
// Keys and values may be array views (x.view(...)): the elements a view shows are sorted in
// place and the others are untouched (they are copied to a temporary and back); keys and values
// that are views must be views of two different arrays.
//
// Bit ranges (begin_bit, end_bit) select bits of the key's ordered form: the key itself for
// unsigned integers; signed integers with the sign bit flipped; floating point as above. Keys
// equal on those bits keep their input order.
//
// Algorithms, chosen per device class by the tuning tables (the "sort" policy: CLFORGE_TUNE,
// clforge::tuning::set; sort_options::algorithm overrides both):
//   onesweep  GPUs: digit counts of every pass in one read, then one pass per 8-bit digit that
//             ranks a tile in local memory and finds its output positions by decoupled look-back
//             over the preceding tiles (Adinets & Merrill, "Onesweep", 2022).
//   chunked   CPUs: one work-item per contiguous chunk with a private histogram; per digit a
//             counting pass, a scan of the (digit, chunk) table and a scatter pass.
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

/// Sort direction.
enum class order { ascending, descending };

/// Radix sort algorithm; automatic picks by device class (see the top of this file).
enum class sort_algorithm { automatic, onesweep, chunked };

namespace detail {
struct sort_scratch_state;
}

/// Temporaries of radix sorts (a second key and value buffer, digit counts, tile states), kept
/// between calls so that repeated sorts of up to the same size allocate nothing. Sorts on
/// several queues of one context, from several threads, may share a scratch: a sort on another
/// queue than the previous one's waits, on the device, for the previous one's commands, so
/// sorts sharing a scratch run one after another (one scratch per queue lets them overlap).
/// Released buffers go back to the pool fenced by the last sort's queue.
class CLFORGE_API sort_scratch {
 public:
  /// Empty scratch; buffers are allocated by the first sort that uses it.
  sort_scratch();
  /// Device memory held now, in bytes.
  std::size_t bytes() const;
  /// Frees the held buffers (back to the context's pool, once the last sort's commands are done).
  void release();

  /// @cond INTERNAL
  std::shared_ptr<detail::sort_scratch_state> state() const { return state_; }
  /// @endcond

 private:
  std::shared_ptr<detail::sort_scratch_state> state_;
};

/// Options of sort() and sort_by_key().
struct sort_options {
  /// end_bit value meaning "up to the key's width".
  static constexpr unsigned all_bits = ~0u;
  /// Ascending or descending order.
  order direction = order::ascending;
  /// Sort on bits [begin_bit, end_bit) of the ordered key (all_bits: the key's width).
  unsigned begin_bit = 0;
  /// End (exclusive) of the sorted bit range; all_bits: the key's width.
  unsigned end_bit = all_bits;
  /// Reused temporaries; nullptr: temporaries from the context's pool for this call.
  sort_scratch* scratch = nullptr;
  /// automatic: by device class (onesweep on GPUs, chunked on CPUs).
  sort_algorithm algorithm = sort_algorithm::automatic;
};

namespace detail {

/// How the kernels see a key type.
struct sort_key_type {
  const char* name;           // OpenCL C type
  const char* unsigned_name;  // unsigned OpenCL C type of the same width
  unsigned bits;
  int kind;  // 0 unsigned, 1 signed, 2 floating point
};

template <class K>
constexpr sort_key_type sort_key_of() {
  static_assert(!std::is_same_v<K, bool>, "clforge::sort: bool keys are not supported");
  static_assert(std::is_arithmetic_v<K> &&
                    (sizeof(K) == 1 || sizeof(K) == 2 || sizeof(K) == 4 || sizeof(K) == 8),
                "clforge::sort: keys are 8/16/32/64-bit integers, float or double");
  constexpr bool fp = std::is_floating_point_v<K>;
  static_assert(!fp || sizeof(K) == 4 || sizeof(K) == 8, "clforge::sort: float or double only");
  constexpr unsigned bits = sizeof(K) * 8;
  constexpr int kind = fp ? 2 : std::is_signed_v<K> ? 1 : 0;
  constexpr const char* names[4][3] = {{"uchar", "char", ""},
                                       {"ushort", "short", ""},
                                       {"uint", "int", "float"},
                                       {"ulong", "long", "double"}};
  constexpr int width = sizeof(K) == 1 ? 0 : sizeof(K) == 2 ? 1 : sizeof(K) == 4 ? 2 : 3;
  return {names[width][kind], names[width][0], bits, kind};
}

/// The path ("onesweep" or "chunked") a sort on `ctx` with values of `value_size` bytes (0:
/// keys only) and `options` takes now (the context's tuning, then options.algorithm).
CLFORGE_API std::string sort_path_for(const context& ctx, std::size_t value_size,
                                      const sort_options& options);

/// The type-independent sort (lib/algorithms/sort.cpp). `values` is null for keys only. The
/// buffers belong to q's context (the caller checks: radix_sort_ranges does for arrays).
CLFORGE_API event radix_sort(const queue& q, const char* who, const cl::Buffer& keys, std::size_t n,
                             const sort_key_type& key, const cl::Buffer* values,
                             std::size_t value_size, const sort_options& options);

/// Where a sort reads and writes: a whole array, or the elements of a view (element k at
/// first + k * step of the buffer).
struct sort_range {
  const cl::Buffer* buffer;
  std::int64_t first, step;
  std::size_t n;
  bool is_view;
  cl_context context;  // the array's, known even when it is empty (null: an empty handle)
};
template <class T>
sort_range sort_range_of(const array<T>& a) {
  return {&a.buffer(), 0, 1, a.size(), false, a.ctx() ? a.ctx().get() : nullptr};
}
template <class T>
sort_range sort_range_of(const array_view<T>& v) {
  return {&v.buffer(), v.first(), v.step(), v.size(), true, v.ctx() ? v.ctx().get() : nullptr};
}

/// radix_sort over arrays or views (lib/algorithms/sort.cpp): a view's elements are copied to a
/// temporary, sorted there and copied back. `values` is null for keys only.
CLFORGE_API event radix_sort_ranges(const queue& q, const char* who, const sort_range& keys,
                                    const sort_key_type& key, const sort_range* values,
                                    std::size_t value_size, const sort_options& options);

template <class V>
constexpr void check_sort_value() {
  static_assert(std::is_trivially_copyable_v<V>,
                "clforge::sort_by_key: values are trivially "
                "copyable");
  static_assert(
      sizeof(V) == 1 || sizeof(V) == 2 || sizeof(V) == 4 || sizeof(V) == 8 || sizeof(V) == 16,
      "clforge::sort_by_key: values of 1, 2, 4, 8 or 16 bytes");
}

}  // namespace detail

/// Sorts `keys` in place, stably. Returns the event of the last command (empty for n < 2).
template <class K>
event sort(const queue& q, array<K>& keys, const sort_options& options = {}) {
  return detail::radix_sort_ranges(q, "sort", detail::sort_range_of(keys), detail::sort_key_of<K>(),
                                   nullptr, 0, options);
}
template <class K>
event sort(const queue& q, array<K>& keys, order direction) {
  sort_options o;
  o.direction = direction;
  return sort(q, keys, o);
}

/// Sorts the elements of a view in place (the others are untouched), as sort() sorts an array.
template <class K>
event sort(const queue& q, const array_view<K>& keys, const sort_options& options = {}) {
  return detail::radix_sort_ranges(q, "sort", detail::sort_range_of(keys), detail::sort_key_of<K>(),
                                   nullptr, 0, options);
}
template <class K>
event sort(const queue& q, const array_view<K>& keys, order direction) {
  sort_options o;
  o.direction = direction;
  return sort(q, keys, o);
}

/// Sorts `keys` in place, stably, and permutes `values` (of the same length) with them.
template <class K, class V>
event sort_by_key(const queue& q, array<K>& keys, array<V>& values,
                  const sort_options& options = {}) {
  detail::check_sort_value<V>();
  const detail::sort_range vr = detail::sort_range_of(values);
  return detail::radix_sort_ranges(q, "sort_by_key", detail::sort_range_of(keys),
                                   detail::sort_key_of<K>(), &vr, sizeof(V), options);
}
template <class K, class V>
event sort_by_key(const queue& q, array<K>& keys, array<V>& values, order direction) {
  sort_options o;
  o.direction = direction;
  return sort_by_key(q, keys, values, o);
}
/// sort_by_key where the keys, the values or both are views (of two different arrays): the
/// elements the views show are sorted in place.
template <class Keys, class Values,
          std::enable_if_t<
              detail::is_array_view<Keys>::value || detail::is_array_view<Values>::value, int> = 0>
event sort_by_key(const queue& q, const Keys& keys, const Values& values,
                  const sort_options& options = {}) {
  using V = typename Values::value_type;
  detail::check_sort_value<V>();
  const detail::sort_range vr = detail::sort_range_of(values);
  return detail::radix_sort_ranges(q, "sort_by_key", detail::sort_range_of(keys),
                                   detail::sort_key_of<typename Keys::value_type>(), &vr, sizeof(V),
                                   options);
}
template <class Keys, class Values,
          std::enable_if_t<
              detail::is_array_view<Keys>::value || detail::is_array_view<Values>::value, int> = 0>
event sort_by_key(const queue& q, const Keys& keys, const Values& values, order direction) {
  sort_options o;
  o.direction = direction;
  return sort_by_key(q, keys, values, o);
}

// ---- radix_sort_kernel ------------------------------------------------------------------------

/// Options of radix_sort_kernel: the kernel options (the preamble holds helpers the key
/// expression calls; check_array_lengths covers every array argument, permuted or read by the
/// key expression) and the sort's algorithm and temporaries.
struct radix_sort_options : kernel_options {
  /// automatic: by device class (onesweep on GPUs, chunked on CPUs).
  sort_algorithm algorithm = sort_algorithm::automatic;
  /// Reused temporaries of the sort itself (see sort_scratch).
  sort_scratch* scratch = nullptr;
};

namespace detail {
struct radix_sort_state;
template <class T>
std::size_t sort_argument_length(const T&) {
  return 0;
}
template <class T>
std::size_t sort_argument_length(const array<T>& a) {
  return a.size();
}
template <class T>
std::size_t sort_element_size(const T&) {
  return 0;
}
template <class T>
std::size_t sort_element_size(const array<T>&) {
  return sizeof(T);
}
template <class T>
std::size_t sort_argument_length(const array_view<T>& a) {
  return a.size();
}
template <class T>
std::size_t sort_element_size(const array_view<T>&) {
  return sizeof(T);
}
}  // namespace detail

/// PyOpenCL's RadixSort for C++: sorts indices 0..n-1 stably by an unsigned key computed from
/// a snippet, and permutes the named arrays by it, in place.
///
///   cf::radix_sort_kernel by_cell(ctx, "global float* x, global float* y, global float* vx",
///                                 "cell_of(x[i], y[i])", {"x", "y", "vx"}, 16, options);
///   by_cell(q, x, y, vx);   // x, y and vx reordered by cell, ties in their old order
///
/// `key_expr` is an expression over `i` (ulong) and the arguments. An integer key counts by its
/// low `key_bits` bits (1 to 64), taken as unsigned. A floating-point key (float, half, double)
/// sorts by IEEE 754's total order as clforge::sort sorts float keys (-0.0 before +0.0, NaNs
/// last): key_bits must then be its width, 32 (float, half) or 64 (double), else construction
/// fails with a clear error. `sort_by` names the array arguments that are
/// permuted (global pointers, not const, all of the same length n; n is their length). The
/// kernels are generated and built once, at construction, through the program cache. Array
/// arguments, permuted or not, may be array views (x.view(...)); the key expression then uses
/// them only as name[index], the index counting in the view, and the first call with views in
/// new places builds a variant of the kernels.
class CLFORGE_API radix_sort_kernel {
 public:
  /// Parses `arguments`, generates the sort kernels for `key_expr` and builds them.
  radix_sort_kernel(const context& ctx, const std::string& arguments, const std::string& key_expr,
                    const std::vector<std::string>& sort_by, unsigned key_bits = 32,
                    const radix_sort_options& options = {});

  /// Sorts the `sort_by` arrays among `args` (bound in the order of `arguments`) by key, in place.
  template <class... Args>
  event operator()(const queue& q, const Args&... args) const {
    detail::argument_list bound = detail::argument_list::bind(who(), parameters(), args...);
    return run(q, bound, nullptr, {detail::sort_argument_length(args)...},
               {detail::sort_element_size(args)...});
  }

  /// Sorts only the elements at the indices of a clforge::range or clforge::slice (a slice of
  /// the first array argument's length), among themselves: the k-th index visited receives the
  /// k-th element in key order (ties in the order visited), the other elements stay. `i` in the
  /// key expression is the index visited, `n` the number of them. The permuted arrays must hold
  /// every index visited; the first call with a range other than all of them, in order, builds
  /// a variant of the kernels.
  template <class... Args>
  event operator()(const queue& q, const index_range& r, const Args&... args) const {
    detail::argument_list bound = detail::argument_list::bind(who(), parameters(), args...);
    return run(q, bound, &r, {detail::sort_argument_length(args)...},
               {detail::sort_element_size(args)...});
  }

  /// The generated OpenCL C source.
  const std::string& source() const;

 private:
  const std::string& who() const;
  const std::vector<detail::parameter>& parameters() const;
  // `range` null: every index of the permuted arrays, which have one length.
  event run(const queue& q, const detail::argument_list& bound, const index_range* range,
            const std::vector<std::size_t>& lengths, const std::vector<std::size_t>& sizes) const;
  std::shared_ptr<const detail::radix_sort_state> state_;
};

}  // namespace clforge
