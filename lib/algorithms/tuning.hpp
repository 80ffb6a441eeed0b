// SPDX-License-Identifier: MIT
// Tuning kept as data: one typed policy per kernel template, defaults in one table per device
// class (tuning_tables.cpp), overrides from clforge::tuning::set and CLFORGE_TUNE.
#pragma once

#include <cstddef>
#include <string>

#include "clforge/algorithms/scan.hpp"
#include "clforge/context.hpp"

namespace clforge::detail {

/// How a snippet kernel spreads indices over work-items (see kernel_shape).
enum class work_kind { gpu, cpu };

struct elementwise_policy {
  work_kind kind = work_kind::gpu;
  std::size_t group = 256;     // work-items per group
  unsigned groups_per_cu = 0;  // gpu: 0 one work-item per index, else a grid-stride loop
  unsigned block = 0;          // gpu: consecutive indices per work-item (kernel_shape::vec)
  unsigned interleave = 0;     // gpu: indices a group apart per work-item (kernel_shape::ilv)
  unsigned vector_width = 0;   // gpu: vectorized operation width (kernel_shape::vload)
};

struct reduce_policy {
  work_kind kind = work_kind::gpu;
  std::size_t group = 256;
  unsigned unroll = 8;          // independent accumulators per work-item
  unsigned groups_per_cu = 16;  // stage-1 groups per compute unit
  unsigned vector_bytes = 0;    // gpu, map a plain load: bytes per vector load (0: scalar)
  bool grid = false;            // vector stage 1: groups take turns over blocks
  bool single_launch = false;   // step 1: the last group reduces the partials (one launch)
};

struct scan_policy {
  scan_algorithm algorithm = scan_algorithm::lookback;
  // look-back
  std::size_t items = 0;  // items per work-item; 0: item_bytes / sizeof(T) in 1..max_items
  std::size_t item_bytes = 128;
  std::size_t max_items = 32;
  std::size_t group = 256;
  std::size_t window = 32;                    // work-items reading predecessors at once
  scan_layout layout = scan_layout::striped;  // never automatic
  bool in_registers = true;       // a work-item's items in registers between its two passes
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
  polygon_kernel kind = polygon_kernel::span;
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

/// Radix sort (lib/algorithms/sort.cpp). Each size field takes one of the values its tuning key
/// lists (tuning.cpp: the search space). Fields a path does not use are still set, so either
/// path can be forced on any device (sort_options::algorithm, or the key "path").
struct sort_policy {
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
  // of the digit each pass sorts on (11: 32-bit keys in 3 passes instead of 4, with 2048
  // buckets per chunk).
  std::size_t chunks_per_cu = 8;
  std::size_t min_chunk = 16384;
  std::size_t chunk_digit_bits = 8;
  // onesweep's ranking; all but matrix cut the group into lane groups of 32 work-items.
  sort_ranking ranking = sort_ranking::matrix;
};

/// The policies of one table.
struct policy_table {
  const char* name;      // as selected with table=NAME
  const char* measured;  // where the figures come from (date, command), or why none
  elementwise_policy elementwise;
  reduce_policy reduce;
  scan_policy scan;
  polygon_policy polygon;
  sort_policy sort;
};

/// The table the context uses (table=NAME from CLFORGE_TUNE or tuning::set, else by device
/// class), with the overrides of CLFORGE_TUNE and then tuning::set applied.
elementwise_policy tuned_elementwise(const context& ctx);
reduce_policy tuned_reduce(const context& ctx);
scan_policy tuned_scan(const context& ctx);
polygon_policy tuned_polygon(const context& ctx);
sort_policy tuned_sort(const context& ctx);

/// The table of the kind a kernel_shape names explicitly (gpu: "generic", cpu: "cpu").
const policy_table& kind_table(work_kind kind);

/// The tables (tuning_tables.cpp), the first matching a device class by vendor.
const policy_table* policy_tables(std::size_t& count);
/// The table for a device: NVIDIA, AMD, Intel GPU, other GPU, or CPU and anything else.
const policy_table& device_table(const device_info& info);
/// True when the device's vendor string contains `word` (lower case), as the tables match it.
bool vendor_contains(const device_info& info, const char* word);

}  // namespace clforge::detail
