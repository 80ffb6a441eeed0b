// SPDX-License-Identifier: MIT
// The typed policy of every kernel template: how it shapes its kernels. Each field is named as
// its tuning key (registry.cpp lists the keys with their bounds; the initial values here are the
// keys' defaults) and, where the value reaches a kernel unchanged, as its CLFORGE_* macro.
// The values of each device class are the rows of tables.cpp, not here.
#pragma once

#include <cstddef>

namespace clforge::detail {

/// How a snippet kernel spreads indices over work-items (elementwise, reduce).
enum class work_kind { gpu, cpu };

struct elementwise_policy {
  static constexpr const char* template_name = "elementwise";
  work_kind kind = work_kind::gpu;
  std::size_t group = 256;     // work-items per group
  unsigned groups_per_cu = 0;  // gpu: 0 one work-item per index, else a grid-stride loop
  unsigned block = 0;          // gpu: consecutive indices per work-item (CLFORGE_BLOCK)
  unsigned interleave = 0;     // gpu: indices a group apart per work-item (CLFORGE_INTERLEAVE)
  unsigned vector_width = 0;   // gpu: the operation on vectors of this many elements
};

struct reduce_policy {
  static constexpr const char* template_name = "reduce";
  work_kind kind = work_kind::gpu;
  std::size_t group = 256;
  unsigned unroll = 8;          // independent accumulators per work-item
  unsigned groups_per_cu = 16;  // stage-1 groups per compute unit
  unsigned vector_bytes = 0;    // gpu, map a plain load: bytes per vector load (0: scalar)
  bool grid = false;            // vector stage 1: groups take turns over blocks
  bool single_launch = false;   // step 1: the last group reduces the partials (one launch)
};

/// The scan's two algorithms (scan_options::algorithm names the same two).
enum class scan_method { lookback, reduce_then_scan };
/// How a look-back tile moves between global and local memory.
enum class tile_layout { striped, striped_vector };

struct scan_policy {
  static constexpr const char* template_name = "scan";
  scan_method algorithm = scan_method::lookback;
  // look-back
  std::size_t items = 0;  // items per work-item; 0: item_bytes / sizeof(T) in 1..max_items
  std::size_t item_bytes = 128;
  std::size_t max_items = 32;
  std::size_t group = 256;
  std::size_t window = 32;  // work-items reading predecessors at once
  tile_layout layout = tile_layout::striped;
  bool registers = true;          // a work-item's items in registers between its two passes
  std::size_t groups_per_cu = 0;  // 0: one group per tile, else persistent groups
  // reduce-then-scan
  std::size_t granularity = 1024;  // chunks are multiples of this many elements
  std::size_t chunks_per_cu = 0;   // at most this many chunks per compute unit (x lanes) ...
  std::size_t max_chunks = 4096;   // ... or, when chunks_per_cu is 0, this many in all
  std::size_t lanes = 1;           // chunks a work-item walks side by side
  std::size_t lanes_floating = 1;  // the same for float and double scans
  std::size_t rts_group = 64;      // work-items per group
};

enum class polygon_kernel { pixel, span, fill, row };

struct polygon_policy {
  static constexpr const char* template_name = "polygon";
  polygon_kernel kernel = polygon_kernel::span;
  int pixels = 8;             // pixels per work-item
  int pixels_wide = 8;        // the same for images wider than wide_from
  std::size_t wide_from = 0;  // 0: one value for every width
  int group = 128;
  bool serial = false;  // span: one work-item lists a row's crossings
};

enum class sort_path { onesweep, chunked };
/// How a onesweep tile ranks its keys (kernels/sort.cl): a count matrix of 16-bit counts per
/// work-item and digit; or counts per lane group of 32 work-items, the lanes of equal digits
/// found through local memory in step by group barriers (lanes, any device) or by NVIDIA warp
/// barriers (nv_warp), or found by NVIDIA's match.any.sync (nv_match). The values are
/// CLFORGE_RANKING.
enum class sort_ranking { matrix, lanes, nv_match, nv_warp };

/// Radix sort (lib/algorithms/sort.cpp). Fields a path does not use are still set, so either
/// path can be forced on any device (sort_options::algorithm, or the key "path").
struct sort_policy {
  static constexpr const char* template_name = "sort";
  sort_path path = sort_path::chunked;
  // onesweep: work-items per tile (halved at run time down to the device's work-group limit; the
  // rank matrix takes 256 x (group + 1) x 2 bytes of local memory, lane counts 2 KB per 32
  // work-items) and keys per work-item (lowered at run time until the tile fits local memory; a
  // matrix tile holds at most 256 x 64 keys, within its 16-bit counts); tiles per launch (bounds
  // the tile states, 256 x 8 bytes per tile); the up-front digit count's group and groups per
  // compute unit.
  std::size_t group = 64;
  std::size_t items = 16;
  std::size_t portion = 32768;
  std::size_t hist_group = 256;
  std::size_t hist_groups_per_cu = 4;
  // onesweep takes values of at most this many bytes; wider ones take the chunked path.
  std::size_t onesweep_value_bytes = 16;
  // chunked: work-items (chunks) per compute unit, the fewest keys worth a chunk, and the bits
  // of the digit each pass sorts on (CLFORGE_CHUNK_DIGIT_BITS).
  std::size_t chunks_per_cu = 8;
  std::size_t min_chunk = 16384;
  std::size_t chunk_digit_bits = 8;
  // onesweep's ranking; all but matrix cut the group into lane groups of 32 work-items.
  sort_ranking ranking = sort_ranking::matrix;
};

/// histogram_kernel (lib/algorithms/histogram.cpp).
struct histogram_policy {
  static constexpr const char* template_name = "histogram";
  std::size_t group = 256;        // work-items per group; 1: one counts its chunk, no atomics
  std::size_t groups_per_cu = 8;  // groups per compute unit, each counting a contiguous chunk
  std::size_t local_bins = 4096;  // at most this many bins counted in local memory (beyond:
                                  // global atomics per index)
  std::size_t unroll = 8;         // indices a work-item reads per round
};

/// stencil_kernel (lib/algorithms/stencil.cpp). The work-group shape is fast dimension first: x
/// is the last index of a field. Values a space cannot use are ignored (group_z and march in
/// 1-D, the tile where the fast dimensions step by more than one, ...).
struct stencil_policy {
  static constexpr const char* template_name = "stencil";
  std::size_t group_x = 32;  // work-items per group along x (the last index)
  std::size_t group_y = 8;   // ... along y (2-D, 3-D)
  std::size_t group_z = 1;   // ... along z (3-D)
  std::size_t march = 1;     // consecutive points of the first (slowest) index per work-item
  std::size_t run = 1;       // consecutive points of the last index per work-item, as a loop
  bool window = true;        // march: the neighbours along the march kept in registers
  bool tile = false;         // the group's points plus their halo staged in local memory
};

/// How op::par_loop keeps elements that write the same target through a map apart
/// (CLFORGE_PLAN): atomics (one work-item per element in order, INC/MIN/MAX with atomics; loops
/// with WRITE or RW through a map, or types without atomics on the device, take `block`);
/// colour (elements coloured one by one, a launch per colour over its elements); block (units of
/// group x block consecutive elements coloured, a launch per colour; within a unit of several
/// work-items the elements that share a target take turns).
enum class loop_plan { atomics, colour, block };

/// op::par_loop (lib/algorithms/op.cpp).
struct par_loop_policy {
  static constexpr const char* template_name = "par_loop";
  loop_plan plan = loop_plan::block;
  std::size_t group = 128;  // work-items per group (a power of two)
  std::size_t block = 1;    // elements per work-item, a group apart (CLFORGE_BLOCK)
};

}  // namespace clforge::detail
