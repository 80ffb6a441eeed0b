// SPDX-License-Identifier: MIT
// Index ranges: the indices a call of a template visits (clforge::range, clforge::slice) and
// their resolution against an array's length. Below the arrays (array views are slices) and the
// templates (every template takes a range); clforge/algorithms/common.hpp includes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "clforge/export.hpp"

namespace clforge {

/// The indices a call of a snippet kernel visits: i = start, start + step, ... `count` of them.
/// Make one with clforge::range (absolute indices) or clforge::slice (Python slice semantics
/// against the length of the first array argument).
struct index_range {
  /// Marks a slice bound left out (Python's None).
  static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::min();
  /// True: start/stop/step are a Python slice of the first array's length.
  bool is_slice = false;
  std::int64_t start = 0;  ///< First index.
  std::int64_t stop = 0;   ///< End of the range (exclusive).
  std::int64_t step = 1;   ///< Distance between visited indices.
};

/// Indices start, start + step, ... while < stop (step > 0) or > stop (step < 0), like Python's
/// range(start, stop, step). No array is consulted; indices must not be negative.
inline index_range range(std::int64_t stop) {
  return {false, 0, stop, 1};
}
inline index_range range(std::int64_t start, std::int64_t stop, std::int64_t step = 1) {
  return {false, start, stop, step};
}
/// Python's slice(start, stop, step) over the length n of the first array argument: negative
/// values count from the end, out-of-range values are clamped, `index_range::none` (or
/// clforge::slice_none) means "omitted". slice(0, n, 2) visits the even indices.
constexpr std::int64_t slice_none = index_range::none;
inline index_range slice(std::int64_t start, std::int64_t stop, std::int64_t step = 1) {
  return {true, start, stop, step};
}

namespace detail {
/// A range resolved against the arguments of one call: index = first + k * step, k < count.
/// `step` is applied in 64-bit modular arithmetic, so a negative step is its two's complement.
struct resolved_range {
  std::uint64_t first = 0;
  std::uint64_t step = 1;
  std::uint64_t count = 0;
  std::uint64_t end_index = 0;  // one past the largest index visited (0 when count == 0)
};
/// Resolves `r` against `length` (the first array's length; `has_length` false when there is no
/// array). `who` names the kernel in errors.
CLFORGE_API resolved_range resolve_range(const index_range& r, bool has_length, std::size_t length,
                                         const std::string& who);
inline resolved_range whole_range(std::size_t length) {
  return {0, 1, length, length};
}
}  // namespace detail

}  // namespace clforge
