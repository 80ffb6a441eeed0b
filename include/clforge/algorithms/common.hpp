// SPDX-License-Identifier: MIT
// Shared pieces of the snippet kernel templates (elementwise, reduction): kernel shapes and
// options; the index ranges (clforge::range, clforge::slice) come from clforge/range.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "clforge/device.hpp"
#include "clforge/range.hpp"

namespace clforge {

/// The shape an elementwise or reduction kernel was built with (elementwise_kernel::shape(),
/// reduction_kernel::shape()). As an input (kernel_options::shape, parse()) it is deprecated
/// since 0.2 and goes in 0.3: set the tuning with clforge::tuning::set(ctx, "elementwise", ...)
/// or (ctx, "reduce", ...), or CLFORGE_TUNE (docs/tuning.md), whose keys name each knob once
/// (elementwise: kind, group, groups_per_cu, block, interleave, vector_width; reduce: kind,
/// group, unroll, groups_per_cu, vector_bytes, grid, single_launch). Until then a shape given
/// there still wins over the tuning: `automatic` takes the context's tuning; a shape naming its
/// kind takes the fields it gives over the plain table of that kind ("generic" for gpu, "cpu").
///   cpu (PoCL and other CPU devices): large work-groups (local 1024), consecutive work-items at
///        consecutive indices, loops of fixed length that get unrolled - what a work-group
///        vectorizer handles; grid-stride loops run far slower there (bench/results/).
///   gpu: elementwise: one work-item per index, 256 per group (groups_per_cu set: a fixed
///        number of groups and a grid-stride loop instead); reductions: groups_per_cu groups per
///        compute unit (default 16), each reducing a contiguous chunk with `unroll` (default 8)
///        independent coalesced loads in flight per work-item, a local-memory tree, then a
///        second one-group stage over the per-group partials.
/// parse() reads "gpu", "cpu", or with fields: "gpu,local=256,unroll=8,groups_per_cu=4,vec=4"
/// (fields: local, unroll, groups_per_cu, vec, ilv, vload, single, grid).
/// Fields left 0 take the template's default.
struct CLFORGE_API kernel_shape {
  /// Which family of kernel shapes: the device's, the GPU one or the CPU one.
  enum class kind { automatic, gpu, cpu };
  /// The family used; automatic follows the device.
  kind which = kind::automatic;
  /// Work-items per group; 0: the default of the kind.
  std::size_t local_size = 0;
  /// Elements per work-item per loop iteration (reductions); 0: the default.
  unsigned unroll = 0;
  /// GPU kind: groups launched per compute unit; 0: the default.
  unsigned groups_per_cu = 0;
  /// gpu kind, elementwise: each work-item runs `vec` consecutive indices (an unrolled block;
  /// a guarded tail), so its accesses are adjacent (the tuning key "block"). Reductions whose
  /// map is a plain load x[i] of an array of the result type: `vec`-wide vector loads (e.g.
  /// float4) where the range has step 1 and starts at a multiple of vec (the tuning key
  /// "vector_bytes", in bytes). 0 or 1: off. A power of two, at most 16.
  unsigned vec = 0;
  /// gpu kind, elementwise: each work-item runs `ilv` indices local_size apart (an unrolled
  /// block: more independent accesses in flight per work-item, each still coalesced). 0 or 1: off.
  unsigned ilv = 0;
  /// gpu kind, elementwise: run the operation on `vload`-wide vectors (e.g. float4 loads and
  /// stores) where it qualifies: every array is used only as name[i], all arrays have one
  /// element type, and the statement uses only those, scalar parameters, numbers, + - * / = ( ) ,
  /// ; and (floating types) common math functions; and the call has step 1, a start at a
  /// multiple of vload, and no written array passed twice. Falls back to the scalar kernel
  /// otherwise (also when the vector form does not compile). 0 or 1: off.
  unsigned vload = 0;
  /// gpu kind, reductions with step 1: one launch; the group that finishes last (an atomic
  /// counter per queue) reduces the per-group partials, instead of a second kernel. 0: off.
  unsigned single = 0;
  /// gpu kind, reductions with vector loads (vec): groups take turns over blocks of
  /// local * unroll vectors (a grid-stride loop: the whole device reads one region of memory at
  /// a time) instead of one contiguous chunk each. 0: off.
  unsigned grid = 0;

  /// A shape of the GPU kind with every field at its default.
  static kernel_shape gpu() { return {kind::gpu}; }
  /// A shape of the CPU kind with every field at its default.
  static kernel_shape cpu() { return {kind::cpu}; }
  /// Parses the grammar above; throws clforge::error on anything else.
  [[deprecated(
      "set the tuning with clforge::tuning::set or CLFORGE_TUNE "
      "(docs/tuning.md)")]] static kernel_shape
  parse(const std::string& text);
  /// "gpu local=256 unroll=8 groups_per_cu=16", as printed in generated source.
  std::string describe() const;
};

// The implicitly defined members of kernel_options copy the deprecated `shape`: no warning for
// them, only where code names it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/// Options every snippet template takes. Each template's options derive from it
/// (reduction_options, scan_options, histogram_options, radix_sort_options, stencil_options)
/// and add only what says what the template computes; tuning is the tuning layer's
/// (clforge/tuning.hpp).
struct kernel_options {
  // User-provided, so not an aggregate: `= {}` at a call site does not name the deprecated field.
  kernel_options() {}
  /// Kernel name: shows in profiles, build logs and errors. A C identifier; empty: the
  /// template's own name ("elementwise", "reduce", "scan", "histogram", "radix_sort",
  /// "stencil").
  std::string name;
  /// Pasted before the kernel: helper functions, structs, `#pragma` lines.
  std::string preamble;
  /// Passed to the OpenCL compiler, e.g. "-cl-fast-relaxed-math".
  std::string build_options;
  /// Deprecated (0.2; goes in 0.3): set the tuning with clforge::tuning::set or CLFORGE_TUNE.
  /// Work distribution; automatic: the context's tuning (clforge/tuning.hpp). Only
  /// elementwise_kernel and reduction_kernel read it; the other templates refuse a shape set
  /// here with a clforge::error rather than ignore it.
  [[deprecated(
      "set the tuning with clforge::tuning::set(ctx, \"elementwise\" or \"reduce\", ...) or "
      "CLFORGE_TUNE (docs/tuning.md)")]] kernel_shape shape;
  /// Every array argument must hold every index the call visits (a clear error before launch
  /// otherwise). Turn off for arrays indexed differently (lookup tables, gathers).
  bool check_array_lengths = true;
};
#pragma GCC diagnostic pop

}  // namespace clforge
