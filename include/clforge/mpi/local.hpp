// SPDX-License-Identifier: MIT
// The only place clforge::mpi touches the single-device kernel templates (reduction_kernel,
// scan_kernel, the built-in reductions, sort, histogram, polygon_mask). Everything in
// clforge/mpi.hpp goes through these few wrappers, so a change of the template layer's names is
// fixed here alone. Nothing in this file talks to MPI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "clforge/algorithms/histogram.hpp"
#include "clforge/algorithms/polygon_mask.hpp"
#include "clforge/algorithms/reduction.hpp"
#include "clforge/algorithms/scan.hpp"
#include "clforge/algorithms/selection.hpp"
#include "clforge/algorithms/sort.hpp"
#include "clforge/array.hpp"
#include "clforge/queue.hpp"
#include "clforge/types.hpp"

namespace clforge::mpi::local {
/// @cond INTERNAL

/// reduction_kernel<T> over one rank's arrays; the result comes to the host.
template <class T>
class reducer {
 public:
  reducer() = default;
  reducer(const context& ctx, const std::string& arguments, const std::string& map,
          const std::string& reduce, const std::string& neutral, const reduction_options& options)
      : kernel_(ctx, arguments, map, reduce, neutral, options) {}
  template <class... Args>
  T operator()(const queue& q, const Args&... args) const {
    return kernel_(q, args...);
  }

 private:
  reduction_kernel<T> kernel_;
};

/// scan_kernel<T> over one rank's arrays (n: the length of the first array argument, or given).
template <class T>
class scanner {
 public:
  scanner(const context& ctx, const std::string& arguments, const std::string& input,
          const std::string& scan, const std::string& neutral, const std::string& output,
          scan_kind kind, const scan_options& options)
      : kernel_(ctx, arguments, input, scan, neutral, output, kind, options) {}
  template <class... Args>
  event operator()(const queue& q, const Args&... args) const {
    return kernel_(q, args...);
  }
  template <class... Args>
  event run(const queue& q, std::size_t n, const Args&... args) const {
    return kernel_(q, range(static_cast<std::int64_t>(n)), args...);
  }

 private:
  scan_kernel<T> kernel_;
};

/// The built-in reductions of one rank's block, result on the host. min and max of an empty
/// block give the neutral element (the device-result path writes it).
template <class R, class T>
R sum(const queue& q, const array<T>& x) {
  return clforge::sum<R>(q, x);
}
template <class T>
T dot(const queue& q, const array<T>& x, const array<T>& y) {
  return clforge::dot(q, x, y);
}
template <class T>
T min_or_neutral(const queue& q, const array<T>& x) {
  array<T> r(q, 1);
  clforge::min(q, x, r);
  T v;
  r.read(q, &v, 0, 1);
  return v;
}
template <class T>
T max_or_neutral(const queue& q, const array<T>& x) {
  array<T> r(q, 1);
  clforge::max(q, x, r);
  T v;
  r.read(q, &v, 0, 1);
  return v;
}

/// clforge::sort (values null) or sort_by_key of one rank's array, stable.
template <class K, class V>
void sort(const queue& q, array<K>& keys, array<V>* values, order direction) {
  sort_options options;
  options.direction = direction;
  if (values)
    clforge::sort_by_key(q, keys, *values, options);
  else
    clforge::sort(q, keys, options);
}
/// Compile-time checks: K is a key type of clforge::sort, V a value type of sort_by_key.
template <class K>
constexpr void check_sort_key() {
  clforge::detail::sort_key_of<K>();
}
template <class V>
constexpr void check_sort_value() {
  clforge::detail::check_sort_value<V>();
}

/// src[indices[k]] for every k, on the host (clforge::gather, then one read).
template <class T>
std::vector<T> gather_to_host(const queue& q, const array<T>& src,
                              const std::vector<cl_ulong>& indices) {
  if (indices.empty()) return {};
  const array<cl_ulong> where = array<cl_ulong>::from_host(q, indices);
  array<T> picked(q, indices.size());
  clforge::gather(q, where, src, picked);
  return picked.to_host(q);
}

/// clforge::histogram of one rank's block, the counts on the host.
template <class T>
std::vector<cl_uint> histogram(const queue& q, const array<T>& x, std::size_t bins, T lo, T hi) {
  return clforge::histogram(q, x, bins, lo, hi).to_host(q);
}

/// Masks and labels of a block of rows (the polygons already in the block's coordinates).
template <class T>
void mask_rows(const polygon_mask& masker, const queue& q, const std::vector<point2f>& vertices,
               array<T>& image, std::size_t width, std::size_t rows, T value,
               const polygon_mask_options& options) {
  masker.mask_into(q, vertices, image, width, rows, value, options);
}
template <class T>
void label_rows(const polygon_mask& masker, const queue& q,
                const std::vector<std::vector<point2f>>& polygons, array<T>& image,
                std::size_t width, std::size_t rows, const polygon_mask_options& options) {
  masker.labels_into(q, polygons, image, width, rows, options);
}

/// @endcond
}  // namespace clforge::mpi::local
