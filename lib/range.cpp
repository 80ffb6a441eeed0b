// SPDX-License-Identifier: MIT
#include "clforge/range.hpp"

#include "clforge/error.hpp"

namespace clforge {

namespace detail {

resolved_range resolve_range(const index_range& r, bool has_length, std::size_t length,
                             const std::string& who) {
  if (r.step == 0) throw error(who + ": a range or slice step of 0");
  resolved_range out;
  std::int64_t start = r.start, stop = r.stop;
  // An omitted slice step is 1, as in Python's slice(start, stop, None).
  const std::int64_t step = r.is_slice && r.step == index_range::none ? 1 : r.step;
  if (r.is_slice) {
    if (!has_length) throw error(who + ": a slice needs an array argument to take its length from");
    // Python's slice.indices(length).
    const std::int64_t len = static_cast<std::int64_t>(length);
    const std::int64_t lower = step > 0 ? 0 : -1;
    const std::int64_t upper = step > 0 ? len : len - 1;
    auto clamp = [&](std::int64_t v, std::int64_t omitted) {
      if (v == index_range::none) return omitted;
      if (v < 0) {
        v += len;
        if (v < lower) v = lower;
      } else if (v > upper) {
        v = upper;
      }
      return v;
    };
    start = clamp(start, step > 0 ? lower : upper);
    stop = clamp(stop, step > 0 ? upper : lower);
  } else {
    if (start == index_range::none || stop == index_range::none)
      throw error(who + ": clforge::range needs explicit start and stop (use slice to omit them)");
    if (start < 0 || (step < 0 && stop < -1))
      throw error(who + ": clforge::range(" + std::to_string(start) + ", " + std::to_string(stop) +
                  ", " + std::to_string(step) + ") would visit negative indices");
  }
  // Differences and the step's magnitude in 64-bit unsigned: range(INT64_MAX, -1, -1) spans
  // 2^63 indices and a step of INT64_MIN has no int64 magnitude.
  const auto distance = [](std::int64_t from, std::int64_t to) {
    return static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from);
  };
  std::uint64_t count = 0;
  if (step > 0 && stop > start)
    count = (distance(start, stop) - 1) / static_cast<std::uint64_t>(step) + 1;
  if (step < 0 && start > stop)
    count = (distance(stop, start) - 1) / (0 - static_cast<std::uint64_t>(step)) + 1;
  out.first = static_cast<std::uint64_t>(start);
  out.step = static_cast<std::uint64_t>(step);
  out.count = count;
  if (count > 0) out.end_index = (step > 0 ? out.first + (count - 1) * out.step : out.first) + 1;
  return out;
}

}  // namespace detail

}  // namespace clforge
