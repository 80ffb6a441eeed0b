// Shared pieces of the snippet kernel templates (elementwise, reduction): index ranges, kernel
// shapes and options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "clforge/device.hpp"

namespace clforge {

/// The indices a call of a snippet kernel visits: i = start, start + step, ... `count` of them.
/// Make one with clforge::range (absolute indices) or clforge::slice (Python slice semantics
/// against the length of the first array argument).
struct index_range {
  static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::min();
  bool is_slice = false;
  std::int64_t start = 0, stop = 0, step = 1;
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
resolved_range resolve_range(const index_range& r, bool has_length, std::size_t length,
                             const std::string& who);
inline resolved_range whole_range(std::size_t length) {
  return {0, 1, length, length};
}
}  // namespace detail

/// How a snippet kernel spreads work over work-items.
///   gpu: a few groups per compute unit (groups_per_cu), each work-item handles many elements
///        (grid-stride for elementwise; a contiguous chunk per group, `unroll` independent loads
///        per iteration, a local-memory tree and a second stage for reductions);
///   cpu: one work-item per element (or `unroll` elements in a loop of fixed length), large
///        work-groups, loops PoCL's work-group vectorizer handles.
/// `automatic` picks by device type; CLFORGE_SHAPE overrides it for kernels whose options leave
/// it automatic: "gpu", "cpu", or with fields: "gpu,local=256,unroll=8,groups_per_cu=4".
struct kernel_shape {
  enum class kind { automatic, gpu, cpu };
  kind which = kind::automatic;
  std::size_t local_size = 0;  // work-items per group; 0: the default of the kind
  unsigned unroll = 0;         // elements per work-item per loop iteration (reductions); 0: default
  unsigned groups_per_cu = 0;  // gpu kind: groups launched per compute unit; 0: default

  static kernel_shape gpu() { return {kind::gpu}; }
  static kernel_shape cpu() { return {kind::cpu}; }
  /// Parses the CLFORGE_SHAPE grammar above; throws clforge::error on anything else.
  static kernel_shape parse(const std::string& text);
  /// Fills every field: the kind from the device (or CLFORGE_SHAPE), then defaults.
  kernel_shape resolved(const device_info& device) const;
  /// "gpu local=256 unroll=4 groups_per_cu=8", as printed in generated source.
  std::string describe() const;
};

/// Options every snippet kernel takes.
struct kernel_options {
  /// Kernel name: shows in profiles, build logs and errors. A C identifier.
  std::string name;
  /// Pasted before the kernel: helper functions, structs, #pragmas.
  std::string preamble;
  /// Passed to the OpenCL compiler, e.g. "-cl-fast-relaxed-math".
  std::string build_options;
  /// Work distribution; automatic by device unless set here or by CLFORGE_SHAPE.
  kernel_shape shape;
  /// Every array argument must hold every index the call visits (a clear error before launch
  /// otherwise). Turn off for arrays indexed differently (lookup tables, gathers).
  bool check_array_lengths = true;
};

}  // namespace clforge
