// SPDX-License-Identifier: MIT
// The tuning registry's rows: per kernel template its typed policy (how it shapes its kernels)
// and, right after it, its row: the keys with their bounds (the struct's initial values are the
// keys' defaults), the tuner's workload, the search space and its constraint. Each field is
// named as its key and, where the value reaches a kernel unchanged, as its CLFORGE_* macro. A
// new template adds its struct, its row and its line in tuned_policies here; its workload is
// defined in its own .cpp. The values of each device class are the rows of tables.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>

#include "device_class.hpp"
#include "row.hpp"

namespace clforge {
class queue;
}  // namespace clforge

namespace clforge::detail {

class tuning_workload;  // workload.hpp

/// How a snippet kernel spreads indices over work-items (elementwise, reduce).
enum class work_kind { gpu, cpu };
namespace row_keys {
inline constexpr std::pair<const char*, work_kind> kKinds[] = {{"gpu", work_kind::gpu},
                                                               {"cpu", work_kind::cpu}};
}  // namespace row_keys

struct elementwise_policy {
  static constexpr const char* template_name = "elementwise";
  work_kind kind = work_kind::gpu;
  std::size_t group = 256;     // work-items per group
  unsigned groups_per_cu = 0;  // gpu: 0 one work-item per index, else a grid-stride loop
  unsigned block = 0;          // gpu: consecutive indices per work-item (CLFORGE_BLOCK)
  unsigned interleave = 0;     // gpu: indices a group apart per work-item (CLFORGE_INTERLEAVE)
  unsigned vector_width = 0;   // gpu: the operation on vectors of this many elements
  /// Its registry row: keys, the tuner's workload name, search space and constraint (below).
  static const row_of<elementwise_policy>& row();
  /// The tuner's workload: saxpy, y[i] = a * x[i] + y[i] on float32. Defined in
  /// lib/algorithms/elementwise.cpp, next to the code it measures; only the tuner (lib/tuner) calls
  /// it.
  static std::unique_ptr<tuning_workload> workload(const queue& q, std::size_t size);
};

inline const row_of<elementwise_policy>& elementwise_policy::row() {
  using namespace row_keys;
  static const row_of<elementwise_policy> registered{
      "saxpy",
      {
          choice("kind", &elementwise_policy::kind, kKinds),
          number("group", "1 to 4096", &elementwise_policy::group, 1, kMaxGroupSize),
          number("groups_per_cu", "0 to 1024", &elementwise_policy::groups_per_cu, 0,
                 kMaxGroupsPerCu),
          number("block", "0 or a power of two up to 16", &elementwise_policy::block, 0, 16, true),
          number("interleave", "0 or a power of two up to 16", &elementwise_policy::interleave, 0,
                 16, true),
          number("vector_width", "0 or a power of two up to 16", &elementwise_policy::vector_width,
                 0, 16, true),
      },
      {{"kind", {"gpu", "cpu"}},
       {"group", {"64", "128", "256", "512", "1024"}},
       {"vector_width", {"0", "2", "4", "8"}},
       {"groups_per_cu", {"0", "16"}}},
      [](const template_row& row, const setting_point& p, const device_info& info, std::size_t) {
        if (number_of(p, "group") > info.max_work_group_size) return false;
        // cpu: contiguous ranges per work-item; the gpu forms do not apply
        return value_of(p, "kind") == "gpu" || row.pinned(p, {"vector_width", "groups_per_cu"});
      }};
  return registered;
}

struct reduce_policy {
  static constexpr const char* template_name = "reduce";
  work_kind kind = work_kind::gpu;
  std::size_t group = 256;
  unsigned unroll = 8;          // independent accumulators per work-item
  unsigned groups_per_cu = 16;  // stage-1 groups per compute unit
  unsigned vector_bytes = 0;    // gpu, map a plain load: bytes per vector load (0: scalar)
  bool grid = false;            // vector stage 1: groups take turns over blocks
  bool single_launch = false;   // step 1: the last group reduces the partials (one launch)
  /// Its registry row: keys, the tuner's workload name, search space and constraint (below).
  static const row_of<reduce_policy>& row();
  /// The tuner's workload: the sum of float32 values, read back. Defined in
  /// lib/algorithms/reduction.cpp, next to the code it measures; only the tuner (lib/tuner) calls
  /// it.
  static std::unique_ptr<tuning_workload> workload(const queue& q, std::size_t size);
};

inline const row_of<reduce_policy>& reduce_policy::row() {
  using namespace row_keys;
  static const row_of<reduce_policy> registered{
      "sum",
      {
          choice("kind", &reduce_policy::kind, kKinds),
          number("group", "1 to 4096", &reduce_policy::group, 1, kMaxGroupSize),
          number("unroll", "1 to 64", &reduce_policy::unroll, 1, kMaxUnroll),
          number("groups_per_cu", "1 to 1024", &reduce_policy::groups_per_cu, 1, kMaxGroupsPerCu),
          number("vector_bytes", "0 or a power of two up to 128", &reduce_policy::vector_bytes, 0,
                 128, true),
          flag("grid", &reduce_policy::grid),
          flag("single_launch", &reduce_policy::single_launch),
      },
      {{"kind", {"gpu", "cpu"}},
       {"group", {"256", "1", "64", "128"}},
       {"unroll", {"8", "4", "16"}},
       {"groups_per_cu", {"16", "4", "8", "32"}},
       {"vector_bytes", {"0", "16", "32"}},
       {"grid", {"0", "1"}},
       {"single_launch", {"0", "1"}}},
      [](const template_row& row, const setting_point& p, const device_info& info,
         std::size_t element_size) {
        if (number_of(p, "group") > info.max_work_group_size) return false;
        const std::size_t vector_bytes = number_of(p, "vector_bytes");
        // a vector load holds whole elements, 2 to 16 of them
        if (vector_bytes && (vector_bytes % element_size || vector_bytes / element_size > 16))
          return false;
        if (value_of(p, "kind") == "cpu") return row.pinned(p, {"vector_bytes", "grid"});
        if (number_of(p, "group") == 1) return false;    // one work-item groups: cpu only
        return vector_bytes || row.pinned(p, {"grid"});  // grid is a vector-load option
      }};
  return registered;
}

/// The scan's two algorithms (scan_options::algorithm names the same two).
enum class scan_method { lookback, reduce_then_scan };
namespace row_keys {
inline constexpr std::pair<const char*, scan_method> kScanMethods[] = {
    {"lookback", scan_method::lookback}, {"reduce_then_scan", scan_method::reduce_then_scan}};
}  // namespace row_keys
/// How a look-back tile moves between global and local memory.
enum class tile_layout { striped, striped_vector };
namespace row_keys {
inline constexpr std::pair<const char*, tile_layout> kLayouts[] = {
    {"striped", tile_layout::striped}, {"striped_vector", tile_layout::striped_vector}};
}  // namespace row_keys

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
  bool registers = true;            // a work-item's items in registers between its two passes
  bool selection_registers = true;  // the same for copy_if, partition and remove_if
  std::size_t groups_per_cu = 0;    // 0: one group per tile, else persistent groups
  // reduce-then-scan
  std::size_t granularity = 1024;  // chunks are multiples of this many elements
  std::size_t chunks_per_cu = 0;   // at most this many chunks per compute unit (x lanes) ...
  std::size_t max_chunks = 4096;   // ... or, when chunks_per_cu is 0, this many in all
  std::size_t lanes = 1;           // chunks a work-item walks side by side
  std::size_t lanes_floating = 1;  // the same for float and double scans
  std::size_t rts_group = 64;      // work-items per group
  /// Its registry row: keys, the tuner's workload name, search space and constraint (below).
  static const row_of<scan_policy>& row();
  /// The tuner's workload: an inclusive scan of int32. Defined in lib/algorithms/scan.cpp, next to
  /// the code it measures; only the tuner (lib/tuner) calls it.
  static std::unique_ptr<tuning_workload> workload(const queue& q, std::size_t size);
};

inline const row_of<scan_policy>& scan_policy::row() {
  using namespace row_keys;
  static const row_of<scan_policy> registered{
      "scan",
      {
          choice("algorithm", &scan_policy::algorithm, kScanMethods),
          number("items", "0 (by type) to 64", &scan_policy::items, 0, 64),
          number("item_bytes", "1 to 1024", &scan_policy::item_bytes, 1, 1024),
          number("max_items", "1 to 64", &scan_policy::max_items, 1, 64),
          number("group", "1 to 4096", &scan_policy::group, 1, kMaxGroupSize),
          number("window", "1 to 1024", &scan_policy::window, 1, 1024),
          choice("layout", &scan_policy::layout, kLayouts),
          flag("registers", &scan_policy::registers),
          flag("selection_registers", &scan_policy::selection_registers),
          number("groups_per_cu", "0 to 1024", &scan_policy::groups_per_cu, 0, kMaxGroupsPerCu),
          number("granularity", "1 to 16777216", &scan_policy::granularity, 1, 1u << 24),
          number("chunks_per_cu", "0 to 16777216", &scan_policy::chunks_per_cu, 0, 1u << 24),
          number("max_chunks", "1 to 16777216", &scan_policy::max_chunks, 1, 1u << 24),
          number("lanes", "1 to 16", &scan_policy::lanes, 1, 16),
          number("lanes_floating", "1 to 16", &scan_policy::lanes_floating, 1, 16),
          number("rts_group", "1 to 4096", &scan_policy::rts_group, 1, kMaxGroupSize),
      },
      {{"algorithm", {"lookback", "reduce_then_scan"}},
       {"group", {"256", "64", "128"}},
       {"item_bytes", {"128", "64"}},
       {"layout", {"striped", "striped_vector"}},
       {"registers", {"1", "0"}},
       {"window", {"32", "16", "8"}},
       {"chunks_per_cu", {"32", "8", "16", "64"}},
       {"granularity", {"1024", "256", "4096"}},
       {"lanes", {"1", "2"}},
       {"rts_group", {"1", "16", "64"}}},
      [](const template_row& row, const setting_point& p, const device_info& info,
         std::size_t element_size) {
        if (value_of(p, "algorithm") == "lookback") {
          if (number_of(p, "group") > info.max_work_group_size) return false;
          const std::size_t items =
              std::clamp<std::size_t>(number_of(p, "item_bytes") / element_size, 1, 32);
          // the tile passes through local memory
          if (number_of(p, "group") * items * element_size + 4096 > info.local_mem_bytes)
            return false;
          return row.pinned(p, {"chunks_per_cu", "granularity", "lanes", "rts_group"});
        }
        if (number_of(p, "rts_group") > info.max_work_group_size) return false;
        return row.pinned(p, {"group", "item_bytes", "layout", "registers", "window"});
      }};
  return registered;
}

enum class polygon_kernel { pixel, span, fill, row };
namespace row_keys {
inline constexpr std::pair<const char*, polygon_kernel> kPolygonKernels[] = {
    {"pixel", polygon_kernel::pixel},
    {"span", polygon_kernel::span},
    {"fill", polygon_kernel::fill},
    {"row", polygon_kernel::row}};
}  // namespace row_keys

struct polygon_policy {
  static constexpr const char* template_name = "polygon";
  polygon_kernel kernel = polygon_kernel::span;
  int pixels = 8;             // pixels per work-item
  int pixels_wide = 8;        // the same for images wider than wide_from
  std::size_t wide_from = 0;  // 0: one value for every width
  int group = 128;
  bool serial = false;  // span: one work-item lists a row's crossings
  /// Its registry row: keys, the tuner's workload name, search space and constraint (below).
  static const row_of<polygon_policy>& row();
  /// The tuner's workload: a 24-vertex polygon mask of about `size` pixels. Defined in
  /// lib/algorithms/polygon_mask.cpp, next to the code it measures; only the tuner (lib/tuner)
  /// calls it.
  static std::unique_ptr<tuning_workload> workload(const queue& q, std::size_t size);
};

inline const row_of<polygon_policy>& polygon_policy::row() {
  using namespace row_keys;
  static const row_of<polygon_policy> registered{
      "polygon",
      {
          choice("kernel", &polygon_policy::kernel, kPolygonKernels),
          number("pixels", "1 to 16384", &polygon_policy::pixels, 1, 16384),
          number("pixels_wide", "1 to 16384", &polygon_policy::pixels_wide, 1, 16384),
          number("wide_from", "0 to 16777216", &polygon_policy::wide_from, 0, 1u << 24),
          number("group", "1 to 4096", &polygon_policy::group, 1, kMaxGroupSize),
          flag("serial", &polygon_policy::serial),
      },
      // One pixel count for every width (wide_from 0): the workload has one width.
      {{"kernel", {"span", "row", "fill", "pixel"}},
       {"pixels", {"8", "1", "4", "16", "32", "64", "256", "1024", "4096"}},
       {"group", {"128", "64", "256"}},
       {"serial", {"0", "1"}},
       {"wide_from", {"0"}}},
      [](const template_row& row, const setting_point& p, const device_info& info, std::size_t) {
        const std::string kind = value_of(p, "kernel");
        const std::size_t pixels = number_of(p, "pixels");
        const std::size_t group = number_of(p, "group");
        if (kind != "row" && pixels > 256) return false;  // the kernels' limit
        if (kind == "row" && pixels < 64) return false;   // a row segment per work-item
        if (kind == "span" || kind == "fill") {
          if (group > info.max_work_group_size) return false;
          if (kind == "fill" && group * pixels * 4 + 64 > info.local_mem_bytes) return false;
          return kind == "span" || row.pinned(p, {"serial"});
        }
        return row.pinned(p, {"group", "serial"});
      }};
  return registered;
}

enum class sort_path { onesweep, chunked };
namespace row_keys {
inline constexpr std::pair<const char*, sort_path> kSortPaths[] = {
    {"onesweep", sort_path::onesweep}, {"chunked", sort_path::chunked}};
}  // namespace row_keys
/// How a onesweep tile ranks its keys (kernels/sort.cl): a count matrix of 16-bit counts per
/// work-item and digit; or counts per lane group of 32 work-items, the lanes of equal digits
/// found through local memory in step by group barriers (lanes, any device) or by NVIDIA warp
/// barriers (nv_warp), or found by NVIDIA's match.any.sync (nv_match). The values are
/// CLFORGE_RANKING.
enum class sort_ranking { matrix, lanes, nv_match, nv_warp };
namespace row_keys {
inline constexpr std::pair<const char*, sort_ranking> kSortRankings[] = {
    {"matrix", sort_ranking::matrix},
    {"lanes", sort_ranking::lanes},
    {"nv_match", sort_ranking::nv_match},
    {"nv_warp", sort_ranking::nv_warp}};
}  // namespace row_keys

/// Bytes of local memory a onesweep sort tile of `group` x `items` keys of `key_size` bytes
/// (with values of `value_size` bytes, 0: none) takes with `ranking` (kernels/sort.cl's layout).
/// The sort fits its tile with it; the sort row's constraint skips points it would refit.
std::size_t onesweep_local_bytes(sort_ranking ranking, std::size_t group, std::size_t items,
                                 std::size_t key_size, std::size_t value_size);

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
  /// Its registry row: keys, the tuner's workload name, search space and constraint (below).
  static const row_of<sort_policy>& row();
  /// The tuner's workload: sorting uint32 keys. Defined in lib/algorithms/sort.cpp, next to the
  /// code it measures; only the tuner (lib/tuner) calls it.
  static std::unique_ptr<tuning_workload> workload(const queue& q, std::size_t size);
};

inline const row_of<sort_policy>& sort_policy::row() {
  using namespace row_keys;
  static const row_of<sort_policy> registered{
      "sort",
      {
          choice("path", &sort_policy::path, kSortPaths),
          one_of("group", &sort_policy::group, {32, 64, 128, 256}),
          one_of("items", &sort_policy::items, {4, 8, 12, 16, 20, 24, 32, 40, 48, 64}),
          one_of("portion", &sort_policy::portion, {4096, 16384, 32768}),
          one_of("hist_group", &sort_policy::hist_group, {64, 256, 1024}),
          one_of("hist_groups_per_cu", &sort_policy::hist_groups_per_cu, {1, 4, 16}),
          one_of("onesweep_value_bytes", &sort_policy::onesweep_value_bytes, {0, 1, 2, 4, 8, 16}),
          one_of("chunks_per_cu", &sort_policy::chunks_per_cu, {1, 4, 8, 16}),
          one_of("min_chunk", &sort_policy::min_chunk, {4096, 16384, 65536}),
          one_of("chunk_digit_bits", &sort_policy::chunk_digit_bits, {4, 6, 8, 10, 11, 12}),
          choice("ranking", &sort_policy::ranking, kSortRankings),
      },
      // The chunked path's keys before the onesweep ones: a table's seed that the constraint does
      // not allow is pinned back from the last key, and a chunked seed keeps its own values.
      {{"path", {"onesweep", "chunked"}},
       {"chunks_per_cu", {"8", "4", "16"}},
       {"chunk_digit_bits", {"8", "11"}},
       {"group", {"256", "128", "64"}},
       {"items", {"16", "8", "24", "32", "40"}},
       {"ranking", {"lanes", "matrix", "nv_warp", "nv_match"}},
       {"hist_groups_per_cu", {"4", "16"}}},
      [](const template_row& row, const setting_point& p, const device_info& info,
         std::size_t element_size) {
        if (value_of(p, "path") == "chunked")
          return row.pinned(p, {"group", "items", "ranking", "hist_groups_per_cu"});
        const std::string ranking = value_of(p, "ranking");
        if ((ranking == "nv_warp" || ranking == "nv_match") &&
            vendor_of(info) != device_vendor::nvidia)
          return false;
        const std::size_t group = number_of(p, "group");
        // The sort would halve the group or lower the keys per work-item to fit: the same tile
        // as another point.
        if (group > info.max_work_group_size) return false;
        const sort_ranking r = ranking == "matrix" ? sort_ranking::matrix : sort_ranking::lanes;
        if (onesweep_local_bytes(r, group, number_of(p, "items"), element_size, 0) >
            info.local_mem_bytes)
          return false;
        return row.pinned(p, {"chunks_per_cu", "chunk_digit_bits"});
      }};
  return registered;
}

/// histogram_kernel (lib/algorithms/histogram.cpp).
struct histogram_policy {
  static constexpr const char* template_name = "histogram";
  std::size_t group = 256;        // work-items per group; 1: one counts its chunk, no atomics
  std::size_t groups_per_cu = 8;  // groups per compute unit, each counting a contiguous chunk
  std::size_t local_bins = 4096;  // at most this many bins counted in local memory (beyond:
                                  // global atomics per index)
  std::size_t unroll = 8;         // indices a work-item reads per round
  /// Its registry row: keys, the tuner's workload name, search space and constraint (below).
  static const row_of<histogram_policy>& row();
  /// The tuner's workload: a 256-bin histogram of float32 values. Defined in
  /// lib/algorithms/histogram.cpp, next to the code it measures; only the tuner (lib/tuner) calls
  /// it.
  static std::unique_ptr<tuning_workload> workload(const queue& q, std::size_t size);
};

inline const row_of<histogram_policy>& histogram_policy::row() {
  using namespace row_keys;
  static const row_of<histogram_policy> registered{
      "histogram",
      {
          number("group", "1 to 1024", &histogram_policy::group, 1, 1024),
          number("groups_per_cu", "1 to 1024", &histogram_policy::groups_per_cu, 1,
                 kMaxGroupsPerCu),
          number("local_bins", "0 to 65536", &histogram_policy::local_bins, 0, 65536),
          number("unroll", "1 to 64", &histogram_policy::unroll, 1, kMaxUnroll),
      },
      // local_bins only matters for more bins than the workload's 256: not searched.
      {{"group", {"256", "1", "64", "1024"}},
       {"groups_per_cu", {"8", "1", "4", "32"}},
       {"unroll", {"8", "1", "4", "16"}}},
      [](const template_row&, const setting_point& p, const device_info& info, std::size_t) {
        return number_of(p, "group") <= info.max_work_group_size;
      }};
  return registered;
}

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
  /// Its registry row: keys, the tuner's workload name, search space and constraint (below).
  static const row_of<stencil_policy>& row();
  /// The tuner's workload: a 7-point Jacobi sweep of a float32 cube of about `size` points. Defined
  /// in lib/algorithms/stencil.cpp, next to the code it measures; only the tuner (lib/tuner) calls
  /// it.
  static std::unique_ptr<tuning_workload> workload(const queue& q, std::size_t size);
};

inline const row_of<stencil_policy>& stencil_policy::row() {
  using namespace row_keys;
  static const row_of<stencil_policy> registered{
      "stencil",
      {
          number("group_x", "1 to 4096", &stencil_policy::group_x, 1, kMaxGroupSize),
          number("group_y", "1 to 1024", &stencil_policy::group_y, 1, 1024),
          number("group_z", "1 to 64", &stencil_policy::group_z, 1, 64),
          number("march", "1 to 256", &stencil_policy::march, 1, 256),
          number("run", "1 to 4096", &stencil_policy::run, 1, 4096),
          flag("window", &stencil_policy::window),
          flag("tile", &stencil_policy::tile),
      },
      {{"group_x", {"32", "64", "128", "256", "16", "8", "1"}},
       {"group_y", {"8", "4", "2", "1", "16"}},
       {"march", {"1", "4", "8", "16", "32", "64"}},
       {"run", {"1", "8", "64", "256"}},
       {"window", {"1", "0"}},
       {"tile", {"0", "1"}}},
      [](const template_row& row, const setting_point& p, const device_info& info,
         std::size_t element_size) {
        const std::size_t group = number_of(p, "group_x") * number_of(p, "group_y");
        if (group > info.max_work_group_size) return false;
        // a run of points per work-item: no window, no tile (the kernel ignores them)
        if (number_of(p, "run") > 1 && !row.pinned(p, {"window", "tile"})) return false;
        if (number_of(p, "march") == 1 && !row.pinned(p, {"window"})) return false;
        // the tile of the workload's 7-point stencil: the group plus one point on each side
        const std::size_t tile =
            (number_of(p, "group_x") + 2) * (number_of(p, "group_y") + 2) * element_size;
        return value_of(p, "tile") == "0" || tile + 1024 <= info.local_mem_bytes;
      }};
  return registered;
}

/// How op::par_loop keeps elements that write the same target through a map apart
/// (CLFORGE_PLAN): atomics (one work-item per element in order, INC/MIN/MAX with atomics; loops
/// with WRITE or RW through a map, or types without atomics on the device, take `block`);
/// colour (elements coloured one by one, a launch per colour over its elements); block (units of
/// group x block consecutive elements coloured, a launch per colour; within a unit of several
/// work-items the elements that share a target take turns).
enum class loop_plan { atomics, colour, block };
namespace row_keys {
inline constexpr std::pair<const char*, loop_plan> kLoopPlans[] = {
    {"atomics", loop_plan::atomics}, {"colour", loop_plan::colour}, {"block", loop_plan::block}};
}  // namespace row_keys

/// op::par_loop (lib/algorithms/op.cpp).
struct par_loop_policy {
  static constexpr const char* template_name = "par_loop";
  loop_plan plan = loop_plan::block;
  std::size_t group = 128;  // work-items per group (a power of two)
  std::size_t block = 1;    // elements per work-item, a group apart (CLFORGE_BLOCK)
  /// Its registry row: keys, the tuner's workload name, search space and constraint (below).
  static const row_of<par_loop_policy>& row();
  /// The tuner's workload: an edge-flux loop, OP2 Airfoil's res_calc shape, on a quad mesh of about
  /// `size` edges. Defined in lib/algorithms/op.cpp, next to the code it measures; only the tuner
  /// (lib/tuner) calls it.
  static std::unique_ptr<tuning_workload> workload(const queue& q, std::size_t size);
};

inline const row_of<par_loop_policy>& par_loop_policy::row() {
  using namespace row_keys;
  static const row_of<par_loop_policy> registered{
      "edge_flux",
      {
          choice("plan", &par_loop_policy::plan, kLoopPlans),
          number("group", "a power of two from 1 to 1024", &par_loop_policy::group, 1, 1024, true),
          number("block", "1 to 4096", &par_loop_policy::block, 1, 4096),
      },
      {{"plan", {"block", "atomics", "colour"}},
       {"group", {"128", "1", "32", "64", "256"}},
       {"block", {"1", "4", "16", "64", "256", "1024"}}},
      [](const template_row&, const setting_point& p, const device_info& info, std::size_t) {
        const std::size_t group = number_of(p, "group"), block = number_of(p, "block");
        // a group runs group x block elements: more than 2^16 leaves too few units to colour
        return group <= info.max_work_group_size && group * block <= 65536;
      }};
  return registered;
}

/// Every template's policy, in the order the tools list them: a new template adds its own.
using tuned_policies = policy_list<elementwise_policy, reduce_policy, scan_policy, polygon_policy,
                                   sort_policy, histogram_policy, stencil_policy, par_loop_policy>;

}  // namespace clforge::detail
